-- Report tools whose SQL fails at run time: one divides by an argument,
-- one names a column that does not exist (written straight into
-- the catalog: `tools add-report` would refuse it).
INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler)
VALUES ('share', 'One hundred divided by n',
        '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}',
        'sql', 'SELECT 100 / :n AS share');
INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler)
VALUES ('broken', 'Names a column products lacks',
        '{"type":"object","properties":{},"additionalProperties":false}', 'sql',
        'SELECT categry FROM products');
-- A function neither engine lets the query role call: SQLite has none by
-- that name, PostgreSQL's query role may not EXECUTE it.
INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler)
VALUES ('peek', 'Reads a server file',
        '{"type":"object","properties":{},"additionalProperties":false}', 'sql',
        'SELECT pg_read_file(''/etc/hostname'') AS f');
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'share', 91);
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'broken', 92);
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'peek', 93);
-- An `sql` resource template with the same mistake.
INSERT INTO dbmcp_resource_templates (uri_template, name, handler_kind, handler)
VALUES ('err://product/{p}', 'product-category', 'sql',
        'SELECT categry FROM products WHERE product = :p');
INSERT INTO dbmcp_interface_resources (interface, uri) VALUES ('default', 'err://product/{p}');
