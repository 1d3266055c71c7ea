-- 0006: agent SQL bounded by cost, not steps (issue "Bounded under attack").
-- Databases made by earlier versions keep the old defaults as rows; a row
-- still at the old default moves to the new one, a value an operator chose
-- stays. New: query.max_memory_bytes. PostgreSQL 15 (contract: 0001_core.sql);
-- the statements are SQLite's. A PostgreSQL database starts at this version,
-- before any seed, so they find no rows to change; they are kept so both
-- engines run the same steps.
UPDATE dbmcp_settings SET value = '1048576'
 WHERE key = 'query.max_value_bytes' AND value = '16777216';
UPDATE dbmcp_settings SET value = substr(value, 1, length(value) - length(',embed'))
 WHERE key = 'query.functions' AND value LIKE '%,vector_distance,embed';
INSERT INTO dbmcp_settings (key, value, description)
SELECT 'query.max_memory_bytes', '67108864', 'SQL on the query connection (execute_query, report tools, sql resource templates): engine memory one call may hold, in bytes; past it the query fails (1 MiB .. 4 GiB)'
 WHERE EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'query.max_chars')
   AND NOT EXISTS (SELECT 1 FROM dbmcp_settings WHERE key = 'query.max_memory_bytes');
