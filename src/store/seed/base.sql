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
-- admission and the guarded read-only query connection. Its description
-- tells the agent which SQL to write: this row is SQLite's; PostgreSQL's
-- half (seed/postgres/base.sql) inserts its own first, which ON CONFLICT
-- keeps.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('execute_query', 'Run a read-only SQL query',
 'Run one read-only SQL query (SQLite dialect) on the user''s data and get a compact markdown table plus a metadata line (rows shown, whether more exist, elapsed time). Use it for questions no report tool answers; when a report tool fits, call that instead. Find tables and columns first with list_tables, search_objects and describe_table. Rules, checked before the query runs: exactly one statement starting with SELECT, WITH or VALUES; no '';'' anywhere, not even at the end; no parameters (?, :name, @name, $name): write values as literals; no PRAGMA, ATTACH or writes; only common SQLite scalar, aggregate, window, date/time, math and JSON functions; tables named dbmcp_* or sqlite_* are not accessible; double-quote a column named like a keyword. A refused query comes back with the rule it broke. Results are capped to protect your context: 25 rows unless you pass max_rows (lowered to the server''s limit, 500 by default), so aggregate in SQL (GROUP BY, COUNT, SUM) rather than fetching raw rows. Cells longer than 500 characters are cut with …, binary values are shown as <binary N bytes> and vectors as <VECTOR(d)>; NULL is shown as NULL. A query that runs longer than the time limit (10 s by default) is stopped.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":32000,"description":"One read-only SQLite statement starting with SELECT, WITH or VALUES; no '';'', no parameters (write values as literals)"},"max_rows":{"type":"integer","minimum":1,"maximum":5000,"description":"Rows to show (default 25); lowered to the server''s limit (500 unless configured). Aggregate in SQL rather than raising it"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"openWorldHint":false}',
 'builtin', 'execute_query')
ON CONFLICT (name) DO NOTHING;

INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
('default', 'execute_query', 20);

-- Limits of execute_query (query.cell_max and query.byte_cap also bound
-- report tools). query.functions holds SQLite's reviewed default list of
-- tools/sql_admission.c; an empty value means the reviewed list of the
-- query connection's dialect. PostgreSQL's half inserts it empty first
-- (that dialect's list), which ON CONFLICT keeps.
INSERT INTO dbmcp_settings (key, value, description) VALUES
('query.max_chars', '32000', 'execute_query: longest query text admitted, in characters (the tool schema also caps it at 32000)'),
('query.max_rows_default', '25', 'execute_query: rows shown when the agent gives no max_rows'),
('query.max_rows_limit', '500', 'execute_query: highest max_rows honoured; a larger request is lowered to it (at most 5000, the compiled-in ceiling)'),
('query.timeout_ms', '10000', 'execute_query: time limit of one query in milliseconds; the engine interrupts it and the agent is told so'),
('query.cell_max', '500', 'Query results: characters per table cell before it is cut with an ellipsis'),
('query.byte_cap', '262144', 'Query results: bytes of one result table; whole rows beyond it are dropped and the metadata line says so'),
('query.max_value_bytes', '1048576', 'execute_query: longest string or blob one query may build, in bytes (SQLite SQLITE_LIMIT_LENGTH on the query connection)'),
('query.max_memory_bytes', '67108864', 'SQL on the query connection (execute_query, report tools, sql resource templates): engine memory one call may hold, in bytes; past it the query fails (1 MiB .. 4 GiB)'),
('query.max_like_pattern', '100', 'execute_query: longest LIKE or GLOB pattern, in bytes');
INSERT INTO dbmcp_settings (key, value, description) VALUES
('query.functions', 'abs,char,coalesce,concat,concat_ws,glob,hex,ifnull,iif,instr,length,like,likelihood,likely,lower,ltrim,max,min,nullif,octet_length,quote,random,randomblob,replace,round,rtrim,sign,soundex,substr,substring,trim,typeof,unhex,unicode,unlikely,upper,zeroblob,avg,count,group_concat,string_agg,sum,total,row_number,rank,dense_rank,percent_rank,cume_dist,ntile,lag,lead,first_value,last_value,nth_value,date,time,datetime,julianday,unixepoch,strftime,timediff,current_date,current_time,current_timestamp,acos,acosh,asin,asinh,atan,atan2,atanh,ceil,ceiling,cos,cosh,degrees,exp,floor,ln,log,log10,log2,mod,pi,pow,power,radians,sin,sinh,sqrt,tan,tanh,trunc,json,json_array,json_array_length,json_extract,json_insert,json_object,json_quote,json_remove,json_replace,json_set,json_type,json_valid,json_group_array,json_group_object,json_each,json_tree,->,->>,match,bm25,highlight,snippet,vector_distance', 'execute_query: SQL functions agent SQL may call, comma-separated, case-insensitive; enforced on the text and by the engine authorizer. Empty = the reviewed default. load_extension is never allowed')
ON CONFLICT (key) DO NOTHING;

-- Documents and search (docs/search.md): search_documents over the chunks
-- of ingested documents, and single chunks as resources. Documents
-- themselves are dbmcp_resources rows written by `dbmcp ingest`.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('search_documents', 'Search documents',
 'Search the documents you can read (doc://<collection>/<slug> resources) and get the best-matching passages (chunks), best first: document URI and title, the chunk''s resource URI (doc://<collection>/<slug>/chunks/<n>), its heading and byte offsets, the passage text (cut to a snippet) and why it ranked (relevance, keyword bm25 rank and coverage, vector distance, fused score). mode hybrid (default) fuses full-text keyword search with vector similarity when a semantic embedder is configured (with the builtin lexical embedder it is keyword search); keyword matches ANY word (ranked by BM25; function words such as the, is, what are left out unless quoted; "a phrase" in double quotes, +word required, -word excluded); vector finds passages sharing words and word parts even when inflected. Passages whose relevance is below min_relevance (default 0.1: the share of the query''s weighted words they hold, or their vector similarity) are left out, so fewer than k may come back; the last line says how many were left out. expand adds thesaurus synonyms and narrower terms to the keyword query. Narrow with filters (collection, language de/en/ja/zh, metadata such as region or sector). Read a whole document with resources/read on its URI. Cite the URIs you rely on.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":4096,"description":"What to find, in any language (German, English, Japanese, Chinese); words match in any inflection. \"a phrase\", +required, -excluded"},"filters":{"type":"object","properties":{"collection":{"type":"string","minLength":1,"maxLength":64,"description":"Only this collection (e.g. tarif)"},"language":{"type":"string","enum":["de","en","ja","zh","und"],"description":"Only documents in this language"},"metadata":{"type":"object","additionalProperties":{"type":"string","maxLength":256},"description":"Only documents whose metadata has all these key/value pairs (at most 8), e.g. {\"region\": \"Bayern\"}"}},"additionalProperties":false},"k":{"type":"integer","minimum":1,"maximum":50,"default":8,"description":"Passages to return (default 8, at most 50)"},"mode":{"type":"string","enum":["hybrid","vector","keyword"],"default":"hybrid","description":"hybrid (default), vector or keyword"},"expand":{"type":"boolean","default":false,"description":"Add thesaurus synonyms and narrower terms to the keyword query"},"min_relevance":{"type":"number","minimum":0,"maximum":1,"description":"Leave out passages whose relevance (share of the query''s weighted words they hold, or their vector similarity) is below this; default the setting search.min_relevance. 0 returns k passages whenever k match"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'search_documents');

INSERT INTO dbmcp_resource_templates (uri_template, name, title, description, mime_type, handler_kind, handler) VALUES
('doc://{collection}/{slug}/chunks/{n}', 'document-chunk', 'One passage of a document',
 'Chunk n (1-based) of the document doc://{collection}/{slug}, as search_documents returns it: the passage text after a header line naming the document, heading and byte offsets.',
 'text/markdown', 'builtin', 'document_chunk');

INSERT INTO dbmcp_settings (key, value, description) VALUES
('ingest.max_bytes', '52428800', 'dbmcp ingest: largest source file accepted, in bytes (50 MiB)'),
('search.weight_keyword', '1.0', 'search_documents hybrid mode: reciprocal-rank-fusion weight of the keyword (FTS5/BM25) list'),
('search.weight_vector.builtin', '0', 'search_documents hybrid mode: reciprocal-rank-fusion weight of the vector list when the embedder is the builtin lexical one (0: keyword side alone; it ranks words worse than BM25, bench/README.md)'),
('search.weight_vector.http', '1.0', 'search_documents hybrid mode: reciprocal-rank-fusion weight of the vector list when the embedder is an http (semantic) model'),
('search.min_relevance', '0.1', 'search_documents: relevance floor 0..1 (coverage of the query''s weighted words, or vector similarity); passages below it are left out; the argument min_relevance overrides it'),
('search.rrf_k', '60', 'search_documents: reciprocal-rank-fusion constant k (score = weight / (k + rank))'),
('search.candidates', '0', 'search_documents: candidates taken from each list before fusion; 0 = max(4 * k, 50)'),
('search.keyword_rows_max', '100000', 'search_documents: most matching chunks the keyword side reads (newest first) and ranks; past it older matches are not ranked (100 .. 1000000)'),
('search.int8', 'off', 'search_documents: scan int8-quantised vectors and rescore in float32 (on/off); exact float32 when off'),
('search.snippet_chars', '400', 'search_documents: characters of passage text shown per hit');

-- Thesaurus (docs/thesaurus.md, tools/thesaurus_tools.c): concepts imported
-- with `dbmcp thesaurus import` (SKOS Turtle/RDF-XML, MyThes), read through
-- the internal connection. Linked to interfaces by the demo or the operator.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('thesaurus_lookup', 'Look up a term in the thesaurus',
 'Find the thesaurus concepts a term names and show, for each: its URI and scheme, preferred labels per language, alternative labels (synonyms, abbreviations), broader concepts (Oberbegriffe), narrower concepts (Unterbegriffe), related concepts and definitions. term is a label in any language (matching ignores case, ß/ss and width) or a concept URI. Use it to resolve synonyms and translate terms; report only relations the thesaurus states.',
 '{"type":"object","properties":{"term":{"type":"string","minLength":1,"maxLength":1024,"description":"A label in any language (e.g. Lohn, wage) or a concept URI"},"lang":{"type":"string","pattern":"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$","description":"Show labels in this language only (e.g. de, en); default all"}},"required":["term"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'thesaurus_lookup'),
('graph_query', 'Walk the thesaurus graph',
 'Walk the thesaurus graph from a concept and get the concepts reached, each with its depth (steps from start), and the edges used (from, relation, to). relation: broader, narrower, related or any (default). direction: out (default; follow the relation from each concept), in (find concepts that have the relation to it) or both. depth 1 to 6 (default 2), limit 1 to 1000 concepts (default 100); the walk never revisits a concept on its path, so cycles end, and says when the limit cut it. start is a label in any language or a concept URI; when a label names several concepts the error lists their URIs: pass one of them.',
 '{"type":"object","properties":{"start":{"type":"string","minLength":1,"maxLength":1024,"description":"Start concept: a label in any language or a concept URI"},"relation":{"type":"string","enum":["broader","narrower","related","any"],"default":"any","description":"Relation to follow (default any)"},"direction":{"type":"string","enum":["out","in","both"],"default":"out","description":"out (default), in or both"},"depth":{"type":"integer","minimum":1,"maximum":6,"default":2,"description":"Most steps from start (default 2)"},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Most concepts returned, start included (default 100)"},"lang":{"type":"string","pattern":"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$","description":"Language of the labels shown (e.g. de, en)"}},"required":["start"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'graph_query'),
('thesaurus_path', 'Shortest path between two concepts',
 'Find the shortest chain of thesaurus relations (broader, narrower, related) between two concepts, at most max_depth steps (1 to 8, default 6), e.g. to explain how Weihnachtsgeld relates to Entgelt. from and to are labels in any language or concept URIs. Answers with the concepts along the path and the relation of each step, or says that no path that short exists.',
 '{"type":"object","properties":{"from":{"type":"string","minLength":1,"maxLength":1024,"description":"First concept: a label in any language or a concept URI"},"to":{"type":"string","minLength":1,"maxLength":1024,"description":"Second concept: a label in any language or a concept URI"},"max_depth":{"type":"integer","minimum":1,"maximum":8,"default":6,"description":"Longest path searched, in steps (default 6)"},"lang":{"type":"string","pattern":"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$","description":"Language of the labels shown (e.g. de, en)"}},"required":["from","to"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'thesaurus_path');

-- Agent memory (docs/memory.md, tools/memory_tools.c): working memory
-- (sessions, messages), episodic memory, versioned knowledge, hybrid recall
-- and links, scoped by the caller's user and agent. No interface serves
-- them here; the demo adds the interface `memory` and links them to
-- `chatbot` as well.
INSERT INTO dbmcp_tools (name, title, description, input_schema, annotations, handler_kind, handler) VALUES
('save_message', 'Save a chat message to working memory',
 'Append one message to a working-memory session and get its session_id and message_id. Omit session_id to open a new session (its id comes back: pass it on every later message of the conversation). role is user, assistant, tool or system; tool results carry tool_call_id and tool_name. Writes return at once; the text becomes searchable by keyword immediately and by meaning once embedded in the background. The same text in the same memory is stored once (deduplicated: true); an exact repeat of the session''s last message is not stored again. Sessions idle longer than 30 minutes (setting memory.session_idle_s) expire and are later compacted into an episode.',
 '{"type":"object","properties":{"session_id":{"type":"string","minLength":1,"maxLength":64,"description":"Session id returned by save_message"},"role":{"type":"string","enum":["user","assistant","tool","system"],"description":"Who wrote the message"},"content":{"type":"string","maxLength":1048576,"description":"Message text (at most memory.max_content_bytes, 65536 by default)"},"tool_call_id":{"type":"string","minLength":1,"maxLength":256,"description":"The tool call this message answers (role tool) or makes"},"tool_name":{"type":"string","minLength":1,"maxLength":128,"description":"The tool called or answering"},"tool_calls":{"type":"array","minItems":1,"maxItems":128,"description":"Role assistant only: the tool calls the message made, in the OpenAI shape (answer each with a role tool message carrying its id)","items":{"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":256,"description":"The call id"},"type":{"type":"string","enum":["function"],"description":"Always function"},"function":{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":128,"description":"The tool called"},"arguments":{"type":"string","maxLength":1048576,"description":"The arguments as JSON text"}},"required":["name","arguments"],"additionalProperties":false}},"required":["id","function"],"additionalProperties":false}},"metadata":{"type":"object","additionalProperties":true,"description":"Free JSON object stored with the row (filterable in memory_search)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["role","content"],"additionalProperties":false}',
 '{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}',
 'builtin', 'save_message'),
('get_session_history', 'Read a session''s messages',
 'Return the messages of one working-memory session, oldest first (the last `limit`, default 50): id, role, content, tool_call_id, tool_name, time. compacted: true means the raw messages were dropped by retention; search_episodes finds the episode that summarises the session.',
 '{"type":"object","properties":{"session_id":{"type":"string","minLength":1,"maxLength":64,"description":"Session id returned by save_message"},"limit":{"type":"integer","minimum":1,"maximum":500,"default":50,"description":"Newest messages to return (default 50)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["session_id"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'get_session_history'),
('save_episode', 'Save an episode (a finished task) to episodic memory',
 'Record an episode: what task was attempted (description, task_type), how it ended (status success, failed or partial), a summary of what was learnt, and optionally the session it came from (linked derived_from) and its start/end times. Successful episodes rank first in later searches. The same description and summary are stored once.',
 '{"type":"object","properties":{"description":{"type":"string","minLength":1,"maxLength":1048576,"description":"What the task was"},"status":{"type":"string","enum":["success","failed","partial"],"description":"How it ended"},"task_type":{"type":"string","minLength":1,"maxLength":64,"description":"A category such as report, sql, booking"},"summary":{"type":"string","maxLength":1048576,"description":"What was done and learnt"},"session_id":{"type":"string","minLength":1,"maxLength":64,"description":"Session id returned by save_message"},"started_at":{"type":"string","minLength":10,"maxLength":40,"description":"When it started (default: the session''s start, else now) (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"ended_at":{"type":"string","minLength":10,"maxLength":40,"description":"When it ended (default now) (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"metadata":{"type":"object","additionalProperties":true,"description":"Free JSON object stored with the row (filterable in memory_search)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["description","status"],"additionalProperties":false}',
 '{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'save_episode'),
('search_episodes', 'Find past episodes',
 'Find episodes: with query, ranked by hybrid recall (keyword BM25 + vector, fused, then weighted: successful first, recent first, often used first; each hit shows its component scores); without query, the newest first. Filter by status, task_type, metadata and the end time range from/to.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":4096,"description":"What to look for; any word matches. \"a phrase\", +required, -excluded"},"status":{"type":"string","enum":["success","failed","partial"],"description":"Only this outcome"},"task_type":{"type":"string","minLength":1,"maxLength":64,"description":"Only episodes of this task type"},"from":{"type":"string","minLength":10,"maxLength":40,"description":"Only episodes that ended at or after (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"to":{"type":"string","minLength":10,"maxLength":40,"description":"Only episodes that ended at or before (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"metadata":{"type":"object","additionalProperties":true,"description":"Only rows whose metadata has all these top-level key/value pairs (at most 8)"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"Episodes to return (default 10)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":[],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":false,"openWorldHint":false}',
 'builtin', 'search_episodes'),
('save_knowledge', 'Save a fact to semantic memory',
 'Store a value for a key (in a category such as user_preference, domain_rule, api_schema; default general). A new value for an existing key does not overwrite it: the old version is closed (effective_to = now) and stays readable with get_knowledge as_of; the same value again changes nothing (unchanged: true). source_episode links the fact to the episode it was learnt in.',
 '{"type":"object","properties":{"key":{"type":"string","minLength":1,"maxLength":256,"description":"What the fact is about, e.g. preferred_currency"},"value":{"type":"string","minLength":1,"maxLength":1048576,"description":"The fact"},"category":{"type":"string","minLength":1,"maxLength":64,"description":"user_preference, domain_rule, api_schema, … (default general)"},"source_episode":{"type":"integer","minimum":1,"description":"Episode id this was learnt in"},"metadata":{"type":"object","additionalProperties":true,"description":"Free JSON object stored with the row (filterable in memory_search)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["key","value"],"additionalProperties":false}',
 '{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'save_knowledge'),
('get_knowledge', 'Read a fact, now or as of a time',
 'Read the value of a key: the current version, or with as_of the version that was in force at that time, or with history every version (effective_from, effective_to, closed_by update/forget). category narrows to one category.',
 '{"type":"object","properties":{"key":{"type":"string","minLength":1,"maxLength":256,"description":"The key"},"category":{"type":"string","minLength":1,"maxLength":64,"description":"Only this category"},"as_of":{"type":"string","minLength":10,"maxLength":40,"description":"The version in force at this time (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"history":{"type":"boolean","default":false,"description":"Every version, oldest first"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["key"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'get_knowledge'),
('search_knowledge', 'Search facts',
 'Find facts by meaning and keywords (hybrid recall over the current versions, or the versions in force at as_of). Each hit shows category, key, value, effective_from/to and its component scores.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":4096,"description":"What to look for; any word matches"},"category":{"type":"string","minLength":1,"maxLength":64,"description":"Only this category"},"as_of":{"type":"string","minLength":10,"maxLength":40,"description":"Search the versions in force at this time (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"metadata":{"type":"object","additionalProperties":true,"description":"Only rows whose metadata has all these top-level key/value pairs (at most 8)"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"Hits to return (default 10)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":false,"openWorldHint":false}',
 'builtin', 'search_knowledge'),
('forget_knowledge', 'Forget a fact',
 'Forget a key: its current version is closed (effective_to = now, closed_by forget) so it no longer counts as current, while as_of reads of the past still see it. erase: true deletes every version and its links for good (right to be forgotten).',
 '{"type":"object","properties":{"key":{"type":"string","minLength":1,"maxLength":256,"description":"The key"},"category":{"type":"string","minLength":1,"maxLength":64,"description":"Only this category (default: every category)"},"erase":{"type":"boolean","default":false,"description":"Delete every version instead of closing the current one"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["key"],"additionalProperties":false}',
 '{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'forget_knowledge'),
('memory_search', 'Search all of memory',
 'One hybrid query across working memory (messages), episodic memory (episodes) and semantic memory (current facts): keyword BM25 (any word but function words) and vector similarity fused by reciprocal rank (with the builtin lexical embedder: keyword alone), items below the relevance floor min_relevance left out (below_floor says how many), then weighted by status (successful episodes first), recency (half-life memory.recency_half_life_s) and use frequency. Each hit names its tier, id, time, text and scores (relevance, rrf, keyword_rank, bm25, coverage, vector_rank, cosine, status/recency/frequency weights, final). Items written moments ago are found by keyword before their embedding exists. Filters: tiers, time range from/to, as_of (memory as it stood then), role, status, category, session_id, metadata.',
 '{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":4096,"description":"What to recall; any word matches. \"a phrase\", +required, -excluded"},"tiers":{"type":"array","items":{"type":"string","enum":["message","episode","knowledge"]},"minItems":1,"maxItems":3,"uniqueItems":true,"description":"Tiers to search (default all)"},"mode":{"type":"string","enum":["hybrid","keyword","vector"],"default":"hybrid","description":"hybrid (default), keyword or vector"},"from":{"type":"string","minLength":10,"maxLength":40,"description":"Only rows at or after (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"to":{"type":"string","minLength":10,"maxLength":40,"description":"Only rows at or before (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"as_of":{"type":"string","minLength":10,"maxLength":40,"description":"Memory as it stood at this time (facts in force then, rows written by then) (ISO-8601, e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"},"role":{"type":"string","enum":["user","assistant","tool","system"],"description":"Messages of this role only"},"status":{"type":"string","enum":["success","failed","partial"],"description":"Episodes of this outcome only"},"category":{"type":"string","minLength":1,"maxLength":64,"description":"Facts of this category only"},"session_id":{"type":"string","minLength":1,"maxLength":64,"description":"Session id returned by save_message"},"metadata":{"type":"object","additionalProperties":true,"description":"Only rows whose metadata has all these top-level key/value pairs (at most 8)"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"Hits to return (default 10, capped by memory.max_results)"},"min_relevance":{"type":"number","minimum":0,"maximum":1,"description":"Leave out items whose relevance (share of the query''s weighted words they hold, or their vector similarity) is below this; default the setting memory.min_relevance. 0 returns limit hits whenever that many match"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["query"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":false,"openWorldHint":false}',
 'builtin', 'memory_search'),
('link', 'Link two memory items',
 'Add a typed edge between two items of your memory (session, message, episode, knowledge), e.g. knowledge about episode, episode derived_from session. Both ends must exist in your memory. Saving knowledge and episodes creates supersedes and derived_from links by itself.',
 '{"type":"object","properties":{"src_kind":{"type":"string","enum":["session","message","episode","knowledge"],"description":"Kind of the source"},"src_id":{"type":"string","minLength":1,"maxLength":64,"description":"Id of the source"},"dst_kind":{"type":"string","enum":["session","message","episode","knowledge"],"description":"Kind of the target"},"dst_id":{"type":"string","minLength":1,"maxLength":64,"description":"Id of the target"},"relation":{"type":"string","pattern":"^[a-z0-9_]{1,64}$","description":"Edge type: derived_from, about, supersedes, …"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["src_kind","src_id","dst_kind","dst_id","relation"],"additionalProperties":false}',
 '{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'link'),
('memory_graph', 'Walk the memory graph',
 'Start at one item (session, message, episode or knowledge) and follow links in both directions up to depth steps (default 2, at most 4; at most 100 nodes): nodes with a one-line label and their depth, and the edges (from, relation, to).',
 '{"type":"object","properties":{"kind":{"type":"string","enum":["session","message","episode","knowledge"],"description":"Kind of the start item"},"id":{"type":"string","minLength":1,"maxLength":64,"description":"Id of the start item"},"depth":{"type":"integer","minimum":1,"maximum":4,"default":2,"description":"Steps to follow (default 2)"},"agent":{"type":"string","minLength":1,"maxLength":128,"description":"Agent whose memory to use. Honoured only when your API key allows any agent of your user; default: the key''s agent, else ''default''"}},"required":["kind","id"],"additionalProperties":false}',
 '{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}',
 'builtin', 'memory_graph');

INSERT INTO dbmcp_settings (key, value, description) VALUES
('memory.session_idle_s', '1800', 'memory: seconds of inactivity after which a session expires (episode candidate)'),
('memory.max_content_bytes', '65536', 'memory: largest message/episode/knowledge text accepted, in bytes'),
('memory.recency_half_life_s', '604800', 'memory: recall recency half-life in seconds (7 days)'),
('memory.episode_retention_s', '7776000', 'memory: episodes older than this keep their summary; their raw messages are dropped (90 days)'),
('memory.knowledge_keep_versions', '10', 'memory: closed knowledge versions kept per key by compaction'),
('memory.compact_interval_s', '600', 'memory: how often `dbmcp serve` compacts memory (0 = never)');
