-- 0010: a document's text stored once (issue #13; the SQLite half says
-- more). dbmcp_chunks loses its text column: a chunk is the byte range
-- [start_byte, end_byte) of its document's content, and every chunk ingest
-- wrote was exactly that range — checked first; a database where one is
-- not stops the migration and nothing changes. store/documents.c reads a
-- chunk's text as that range (dialect fragment DIALECT_CHUNK_TEXT) and
-- computes the tsvector of dbmcp_chunks_fts from the texts it holds while
-- ingesting. PostgreSQL marks a dropped column and reuses its space for
-- new rows; `VACUUM FULL dbmcp_chunks` returns it to the system at once.
-- (The vectors need no change here: a 1.5 kB bytea stays in its row.)

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM dbmcp_chunks c LEFT JOIN dbmcp_documents d ON d.id = c.document_id
                WHERE d.id IS NULL
                   OR substring(convert_to(d.content, 'UTF8')
                                FROM CAST(c.start_byte + 1 AS integer)
                                FOR CAST(c.end_byte - c.start_byte AS integer))
                      IS DISTINCT FROM convert_to(c.text, 'UTF8')) THEN
        RAISE EXCEPTION 'migration 0010: a chunk''s text is not the range of its document it points to; dbmcp_chunks.text is kept (nothing changed)';
    END IF;
END
$$;

ALTER TABLE dbmcp_chunks DROP COLUMN text;
