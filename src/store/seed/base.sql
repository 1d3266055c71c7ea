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

INSERT INTO dbmcp_settings (key, value, description) VALUES
('server.page_size', '50', 'Items per page in tools/list, prompts/list, resources/list'),
('server.list_ttl_ms', '60000', 'ttlMs announced on modern list results (how long clients may cache them)'),
('audit.sql_text', 'on', 'Record the SQL text that query tools ran in dbmcp_audit.sql_text (on/off)'),
('audit.flush_ms', '200', 'How often queued audit rows are written (milliseconds)'),
('http.max_body', '4194304', 'Largest accepted HTTP request body in bytes (413 above)');
