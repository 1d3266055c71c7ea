-- 0008: keyword ranking from the caller's own rows (issue "Nothing learned
-- across users", docs/security.md); the PostgreSQL form of
-- src/store/schema/sqlite/0008_scoped_bm25.sql. BM25 is computed by dbmcp
-- (src/search/bm25.h) from statistics over the rows a caller may read; it
-- needs each indexed row's length: fts_length, the token positions of
-- dbmcp's tokenizer for the row (chunks: text + heading + the document's
-- title; memory items: text), written with the row by the store
-- (src/store/documents.c, src/store/memory_store.c, text_token_count in
-- src/core/textnorm.h). PostgreSQL cannot run that tokenizer, so rows
-- indexed before this migration keep 0 until they are written again; a
-- PostgreSQL database has none yet (the backend arrives with this
-- schema). An index lets a search count the items of one user's and
-- agent's memory and their total length without reading the rows. Plain
-- PostgreSQL 15, tables in the current search_path.

ALTER TABLE dbmcp_chunks ADD COLUMN fts_length integer NOT NULL DEFAULT 0;
ALTER TABLE dbmcp_mem_items ADD COLUMN fts_length integer NOT NULL DEFAULT 0;

INSERT INTO dbmcp_settings (key, value, description)
SELECT 'search.keyword_rows_max', '100000', 'search_documents: most matching chunks the keyword side reads (newest first) and ranks; past it older matches are not ranked (100 .. 1000000)'
 WHERE EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'query.max_chars')
   AND NOT EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'search.keyword_rows_max');

-- A scope's statistics of memory (count and total length of one user's and
-- agent's items) from the index alone, on every search.
CREATE INDEX dbmcp_mem_items_length ON dbmcp_mem_items (user_id, agent_id, fts_length);
