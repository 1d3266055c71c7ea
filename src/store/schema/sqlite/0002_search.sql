-- 0002_search.sql — documents, chunks, their full-text index and vectors
-- (docs/search.md).
--
-- A collection groups documents; a document is one ingested file with its
-- extracted text; a chunk is a piece of that text with byte offsets into
-- it. dbmcp_chunks_fts indexes chunk text, heading and document title with
-- the "dbmcp" tokenizer (store/sqlite.c registers it on every handle). It
-- is a contentless table kept up to date by store/documents.c in the
-- same transaction as the chunks — there are no triggers, so a connection
-- that lacks the tokenizer (the sqlite3 shell, say) can still write the
-- other tables without failing, and never half-updates the index.
--
-- Vectors: one row per (model, chunk); a search reads only the rows of the
-- model it embeds the query with. dbmcp_data_versions holds one counter
-- per searchable corpus ('chunks' here; the memory tiers add their own),
-- bumped in every transaction that changes the corpus so a running server
-- rebuilds its in-memory vector index (search/engine.h).

CREATE TABLE dbmcp_data_versions (
    name    TEXT PRIMARY KEY,
    version INTEGER NOT NULL -- starts random (48 bits), +1 per change
);
INSERT INTO dbmcp_data_versions (name, version) VALUES ('chunks', abs(random() % 281474976710656));

CREATE TABLE dbmcp_collections (
    name             TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64
                                             AND name NOT GLOB '*[^a-z0-9_-]*'
                                             AND substr(name, 1, 1) GLOB '[a-z0-9]'),
    title            TEXT,
    description      TEXT NOT NULL DEFAULT '',
    interface        TEXT REFERENCES dbmcp_interfaces (name) ON DELETE SET NULL ON UPDATE CASCADE,
                     -- the interface ingest exposed the collection to (doc://<name>/*)
    embed_model      TEXT,    -- model name of the collection's vectors; NULL before the first
    embed_dim        INTEGER, -- dimension of those vectors
    chunk_strategy   TEXT NOT NULL DEFAULT 'structure' CHECK (chunk_strategy IN ('structure', 'tokens')),
    chunk_max_tokens INTEGER NOT NULL DEFAULT 200 CHECK (chunk_max_tokens BETWEEN 16 AND 4096),
    chunk_overlap    INTEGER NOT NULL DEFAULT 40 CHECK (chunk_overlap >= 0 AND chunk_overlap < chunk_max_tokens),
    created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_documents (
    id           INTEGER PRIMARY KEY,
    collection   TEXT NOT NULL REFERENCES dbmcp_collections (name) ON DELETE CASCADE ON UPDATE CASCADE,
    slug         TEXT NOT NULL CHECK (length(slug) BETWEEN 1 AND 128
                                      AND slug NOT GLOB '*[^a-z0-9._-]*'
                                      AND substr(slug, 1, 1) GLOB '[a-z0-9]'),
    uri          TEXT NOT NULL UNIQUE, -- doc://<collection>/<slug>, also its dbmcp_resources row
    title        TEXT NOT NULL,
    source       TEXT,                 -- path (or name) it was ingested from
    language     TEXT NOT NULL,        -- de | en | ja | zh | und
    mime_type    TEXT NOT NULL,        -- of the source: text/plain, text/markdown, text/html, application/pdf
    metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
    content_hash TEXT NOT NULL,        -- hex SHA-256 of the extracted text and the ingest options
    content      TEXT NOT NULL,        -- the extracted text; chunk offsets point into it
    bytes        INTEGER NOT NULL,     -- size of the source file
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (collection, slug)
);

CREATE TABLE dbmcp_chunks (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES dbmcp_documents (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq >= 1), -- 1-based: doc://c/s/chunks/{seq}
    start_byte  INTEGER NOT NULL,                  -- [start_byte, end_byte) in dbmcp_documents.content
    end_byte    INTEGER NOT NULL CHECK (end_byte >= start_byte),
    heading     TEXT,                              -- nearest heading above the chunk
    tokens      INTEGER NOT NULL DEFAULT 0,
    text        TEXT NOT NULL,
    UNIQUE (document_id, seq)
);

-- Contentless: the index holds only tokens (chunk text, heading and the
-- document's title, by chunk id); the text itself stays in dbmcp_chunks and
-- dbmcp_documents. A row is removed with the FTS5 'delete' command and the
-- values it was indexed with (store/documents.c reads them back first).
CREATE VIRTUAL TABLE dbmcp_chunks_fts USING fts5(
    text, heading, title,
    content = '',
    tokenize = 'dbmcp'
);

CREATE TABLE dbmcp_chunk_vectors (
    model   TEXT NOT NULL,
    item_id INTEGER NOT NULL REFERENCES dbmcp_chunks (id) ON DELETE CASCADE,
    dim     INTEGER NOT NULL CHECK (dim >= 1),
    vec     BLOB NOT NULL CHECK (length(vec) = 4 * dim), -- little-endian float32
    PRIMARY KEY (model, item_id)
) WITHOUT ROWID;
CREATE INDEX dbmcp_chunk_vectors_item ON dbmcp_chunk_vectors (item_id);
