-- postgres/base.sql — the PostgreSQL half of the base seed, run before the
-- shared seed/base.sql, whose rows for these keys then find them taken
-- (ON CONFLICT DO NOTHING):
--   - execute_query's description tells the agent to write PostgreSQL
--     and which of its rules admission applies (sql_admission.h);
--   - query.functions is empty, which means PostgreSQL's reviewed list
--     (sql_admission_pg_default_functions), not SQLite's.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('execute_query', 'Run a read-only SQL query',
 'Run one read-only SQL query (PostgreSQL dialect) on the user''s data and get a compact markdown table plus a metadata line (rows shown, whether more exist, elapsed time). Use it for questions no report tool answers; when a report tool fits, call that instead. Find tables and columns first with list_tables, search_objects and describe_table. Rules, checked before the query runs: exactly one statement starting with SELECT, WITH, VALUES or TABLE; no '';'' anywhere, not even at the end; no parameters ($1, :name): write values as literals; no writes, SET, SHOW, COPY, SELECT … INTO, FOR UPDATE/SHARE or transaction control; only common PostgreSQL scalar, aggregate, window, date/time, math, string, array and JSON functions; the system catalog (pg_*, information_schema, regclass casts) and dbmcp''s own tables are not accessible; double-quote a column named like a keyword. A refused query comes back with the rule it broke. Results are capped to protect your context: 25 rows unless you pass max_rows (lowered to the server''s limit, 500 by default), so aggregate in SQL (GROUP BY, COUNT, SUM) rather than fetching raw rows. Cells longer than 500 characters are cut with …, binary values are shown as <binary N bytes> and vectors as <VECTOR(d)>; NULL is shown as NULL. A query that runs longer than the time limit (10 s by default) is stopped.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":32000,"description":"One read-only PostgreSQL statement starting with SELECT, WITH, VALUES or TABLE; no '';'', no parameters (write values as literals)"},"max_rows":{"type":"integer","minimum":1,"maximum":5000,"description":"Rows to show (default 25); lowered to the server''s limit (500 unless configured). Aggregate in SQL rather than raising it"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"openWorldHint":false}',
 'builtin', 'execute_query');

INSERT INTO dbmcp_settings (key, value, description) VALUES
('query.functions', '', 'execute_query: SQL functions agent SQL may call, comma-separated, case-insensitive; enforced on the text (on PostgreSQL the query role''s privileges and the read-only transaction bound the rest). Empty = the reviewed PostgreSQL default of tools/sql_admission.c. Functions that reach files, other servers or session state are refused whatever the list says');
