-- A report tool whose SQL never ends, and a short time limit for report tools.
INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler)
VALUES ('endless', 'Counts forever',
        '{"type":"object","properties":{},"additionalProperties":false}', 'sql',
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c');
INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES ('default', 'endless', 90);
INSERT INTO dbmcp_settings (key, value) VALUES ('report.timeout_ms', '200');
