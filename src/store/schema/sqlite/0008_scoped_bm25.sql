-- 0008: keyword ranking from the caller's own rows (issue "Nothing learned
-- across users", docs/security.md). BM25 is computed by dbmcp
-- (src/search/bm25.h) from the rows a caller may read — the user's memory,
-- the documents the interface exposes — instead of FTS5's bm25(), whose
-- statistics span every row of the table. It needs each indexed row's
-- length: fts_length, the token positions the full-text index holds for
-- the row (chunks: text + heading + the document's title, as
-- dbmcp_chunks_fts indexes them; memory items: text), written with the row
-- by src/store/documents.c and src/store/memory_store.c. Rows written before
-- get it here, counted by the same tokenizer (dbmcp_token_count,
-- src/store/sqlite_fts.h). An index lets a search count the items of one
-- user's and agent's memory and their total length without reading the
-- rows. New: the setting search.keyword_rows_max.

ALTER TABLE dbmcp_chunks ADD COLUMN fts_length INTEGER NOT NULL DEFAULT 0;
UPDATE dbmcp_chunks SET fts_length = dbmcp_token_count(text) + dbmcp_token_count(heading)
    + (SELECT dbmcp_token_count(d.title) FROM dbmcp_documents d WHERE d.id = dbmcp_chunks.document_id);

ALTER TABLE dbmcp_mem_items ADD COLUMN fts_length INTEGER NOT NULL DEFAULT 0;
UPDATE dbmcp_mem_items SET fts_length = dbmcp_token_count(text);

INSERT INTO dbmcp_settings (key, value, description)
SELECT 'search.keyword_rows_max', '100000', 'search_documents: most matching chunks the keyword side reads (newest first) and ranks; past it older matches are not ranked (100 .. 1000000)'
 WHERE EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'query.max_chars')
   AND NOT EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'search.keyword_rows_max');

-- A scope's statistics of memory (count and total length of one user's and
-- agent's items) from the index alone, on every search.
CREATE INDEX dbmcp_mem_items_length ON dbmcp_mem_items (user_id, agent_id, fts_length);
