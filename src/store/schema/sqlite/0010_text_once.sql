-- 0010: a document's text stored once (issue #13, "Fast at scale": the
-- database was about 14 times the text it indexes).
--
-- 1. dbmcp_chunks loses its text column. A chunk is the byte range
--    [start_byte, end_byte) of its document's content, and every chunk
--    ingest wrote was exactly that range (checked below before anything
--    is dropped: a database where one is not stops the migration, and
--    nothing changes). store/documents.c reads a chunk's text as the
--    range of dbmcp_documents.content (dialect fragment DIALECT_CHUNK_TEXT)
--    and gives the full-text index the texts it holds in memory while
--    ingesting; the index itself (FTS5, contentless) never held the text.
-- 2. dbmcp_chunk_vectors becomes an ordinary rowid table. As WITHOUT ROWID
--    its rows lived in an index b-tree, which keeps at most about 1 kB of a
--    row on the page: every 384-dimension vector (1536 bytes) spilled into
--    an overflow page of its own, 4 kB on disk for 1.5 kB of data. Same
--    columns, same primary key, same index.

CREATE TEMP TABLE dbmcp_0010_check (
    chunks_not_their_range INTEGER,
    -- the name is the message: "CHECK constraint failed: <name>"
    CONSTRAINT "a chunk's text is not the range of its document it points to; dbmcp_chunks.text is kept (nothing changed)"
        CHECK (chunks_not_their_range = 0)
);
INSERT INTO dbmcp_0010_check
SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id
 WHERE substr(CAST(d.content AS BLOB), c.start_byte + 1, c.end_byte - c.start_byte)
       IS NOT CAST(c.text AS BLOB);
INSERT INTO dbmcp_0010_check
SELECT count(*) FROM dbmcp_chunks c
 WHERE NOT EXISTS (SELECT 1 FROM dbmcp_documents d WHERE d.id = c.document_id);
DROP TABLE dbmcp_0010_check;

ALTER TABLE dbmcp_chunks DROP COLUMN text;

CREATE TABLE dbmcp_chunk_vectors_0010 (
    model   TEXT NOT NULL,
    item_id INTEGER NOT NULL REFERENCES dbmcp_chunks (id) ON DELETE CASCADE,
    dim     INTEGER NOT NULL CHECK (dim >= 1),
    vec     BLOB NOT NULL CHECK (length(vec) = 4 * dim), -- little-endian float32
    PRIMARY KEY (model, item_id)
);
INSERT INTO dbmcp_chunk_vectors_0010 (model, item_id, dim, vec)
SELECT model, item_id, dim, vec FROM dbmcp_chunk_vectors ORDER BY item_id, model;
DROP TABLE dbmcp_chunk_vectors;
ALTER TABLE dbmcp_chunk_vectors_0010 RENAME TO dbmcp_chunk_vectors;
CREATE INDEX dbmcp_chunk_vectors_item ON dbmcp_chunk_vectors (item_id);
