-- base.sql — what every dbmcp database starts with (`dbmcp init`): the
-- `default` interface, the built-in tools every interface may list, and the
-- documented settings with their defaults. Runs in one transaction.

INSERT INTO dbmcp_interfaces (name, title, description, instructions) VALUES
('default', 'Default', 'The interface stdio clients and `dbmcp call` use unless told otherwise.', NULL);

INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('echo', 'Echo',
 'Return the given text unchanged. Use it to check that the connection to dbmcp works.',
 '{"type":"object","properties":{"text":{"type":"string","description":"Text to return","maxLength":10000}},"required":["text"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'echo'),
('server_info', 'Server information',
 'Describe this dbmcp server (name, version) and who you are to it: your interface, principal and protocol revision.',
 '{"type":"object","properties":{},"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'server_info');

INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
('default', 'echo', 1),
('default', 'server_info', 2);

-- Schema discovery (tools/schema_tools.c): read-only views of the user
-- tables over the query connection; dbmcp's own tables never appear.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('list_tables', 'List tables',
 'List the tables and views you can query: name, kind (table or view), row count and the table comment. Row counts stop at 100000 (shown as >100000); ~N is an estimate. Give pattern to filter by name (substring, or an SQL LIKE pattern when it contains %). For a large database start with search_objects instead.',
 '{"type":"object","properties":{"pattern":{"type":"string","minLength":1,"maxLength":200,"description":"Only names containing this text (case-insensitive); with % it is an SQL LIKE pattern, e.g. sales_%"},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Most tables to list (default 100)"}},"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'list_tables'),
('describe_table', 'Describe a table',
 'Describe one table or view before writing SQL against it: columns with declared types, NOT NULL, defaults, primary and foreign keys, indexes, row count and the comments on the table and its columns.',
 '{"type":"object","properties":{"table":{"type":"string","minLength":1,"maxLength":256,"description":"Table or view name as listed by list_tables"}},"required":["table"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'describe_table'),
('search_objects', 'Search tables and columns',
 'Find tables, views and columns by name in a large schema without listing everything. pattern is a case-insensitive substring, or an SQL LIKE pattern over the whole name when it contains % (_ then matches one character). detail_level: names (default, most compact), summary (kinds, column types, comments) or full (complete descriptions). Shows at most limit matches (default 50, 10 for full) and says how many more there are.',
 '{"type":"object","properties":{"pattern":{"type":"string","minLength":1,"maxLength":200,"description":"Text to find in table and column names, or an SQL LIKE pattern with %"},"detail_level":{"type":"string","enum":["names","summary","full"],"default":"names","description":"names | summary | full"},"limit":{"type":"integer","minimum":1,"maximum":500,"description":"Most matches to show (default 50; 10 for full)"}},"required":["pattern"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'search_objects');

INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
('default', 'list_tables', 10),
('default', 'describe_table', 11),
('default', 'search_objects', 12);

INSERT INTO dbmcp_settings (key, value, description) VALUES
('server.page_size', '50', 'Items per page in tools/list, prompts/list, resources/list'),
('server.list_ttl_ms', '60000', 'ttlMs announced on modern list results (how long clients may cache them)'),
('audit.sql_text', 'on', 'Record the SQL text that query tools ran in dbmcp_audit.sql_text (on/off)'),
('audit.flush_ms', '200', 'How often queued audit rows are written (milliseconds)'),
('http.max_body', '4194304', 'Largest accepted HTTP request body in bytes (413 above)');

-- execute_query (tools/execute_query.c): agent-written SQL through text
-- admission and the guarded read-only query connection.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('execute_query', 'Run a read-only SQL query',
 'Run one read-only SQL query (SQLite dialect) on the user''s data and get a compact markdown table plus a metadata line (rows shown, whether more exist, elapsed time). Use it for questions no report tool answers; when a report tool fits, call that instead. Find tables and columns first with list_tables, search_objects and describe_table. Rules, checked before the query runs: exactly one statement starting with SELECT, WITH or VALUES; no '';'' anywhere, not even at the end; no parameters (?, :name, @name, $name): write values as literals; no PRAGMA, ATTACH or writes; only common SQLite scalar, aggregate, window, date/time, math and JSON functions; tables named dbmcp_* or sqlite_* are not accessible; double-quote a column named like a keyword. A refused query comes back with the rule it broke. Results are capped to protect your context: 25 rows unless you pass max_rows (lowered to the server''s limit, 500 by default), so aggregate in SQL (GROUP BY, COUNT, SUM) rather than fetching raw rows. Cells longer than 500 characters are cut with …, binary values are shown as <binary N bytes> and vectors as <VECTOR(d)>; NULL is shown as NULL. A query that runs longer than the time limit (10 s by default) is stopped.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":32000,"description":"One read-only SQLite statement starting with SELECT, WITH or VALUES; no '';'', no parameters (write values as literals)"},"max_rows":{"type":"integer","minimum":1,"maximum":5000,"description":"Rows to show (default 25); lowered to the server''s limit (500 unless configured). Aggregate in SQL rather than raising it"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"openWorldHint":false}',
 'builtin', 'execute_query');

INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
('default', 'execute_query', 20);

-- Limits of execute_query (query.cell_max and query.byte_cap also bound
-- report tools). query.functions holds the reviewed default list of
-- tools/sql_admission.c; an empty value means that list as well.
INSERT INTO dbmcp_settings (key, value, description) VALUES
('query.max_chars', '32000', 'execute_query: longest query text admitted, in characters (the tool schema also caps it at 32000)'),
('query.max_rows_default', '25', 'execute_query: rows shown when the agent gives no max_rows'),
('query.max_rows_limit', '500', 'execute_query: highest max_rows honoured; a larger request is lowered to it (at most 5000, the compiled-in ceiling)'),
('query.timeout_ms', '10000', 'execute_query: time limit of one query in milliseconds; the engine interrupts it and the agent is told so'),
('query.cell_max', '500', 'Query results: characters per table cell before it is cut with an ellipsis'),
('query.byte_cap', '262144', 'Query results: bytes of one result table; whole rows beyond it are dropped and the metadata line says so'),
('query.max_value_bytes', '16777216', 'execute_query: longest string or blob one query may build, in bytes (SQLite SQLITE_LIMIT_LENGTH on the query connection)'),
('query.max_like_pattern', '100', 'execute_query: longest LIKE or GLOB pattern, in bytes'),
('query.functions', 'abs,char,coalesce,concat,concat_ws,glob,hex,ifnull,iif,instr,length,like,likelihood,likely,lower,ltrim,max,min,nullif,octet_length,quote,random,randomblob,replace,round,rtrim,sign,soundex,substr,substring,trim,typeof,unhex,unicode,unlikely,upper,zeroblob,avg,count,group_concat,string_agg,sum,total,row_number,rank,dense_rank,percent_rank,cume_dist,ntile,lag,lead,first_value,last_value,nth_value,date,time,datetime,julianday,unixepoch,strftime,timediff,current_date,current_time,current_timestamp,acos,acosh,asin,asinh,atan,atan2,atanh,ceil,ceiling,cos,cosh,degrees,exp,floor,ln,log,log10,log2,mod,pi,pow,power,radians,sin,sinh,sqrt,tan,tanh,trunc,json,json_array,json_array_length,json_extract,json_insert,json_object,json_quote,json_remove,json_replace,json_set,json_type,json_valid,json_group_array,json_group_object,json_each,json_tree,->,->>,match,bm25,highlight,snippet', 'execute_query: SQL functions agent SQL may call, comma-separated, case-insensitive; enforced on the text and by the engine authorizer. Empty = the reviewed default. load_extension is never allowed');
