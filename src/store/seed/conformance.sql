-- conformance.sql — the fixtures of the official MCP conformance suite
-- (@modelcontextprotocol/conformance) as an ordinary interface. `dbmcp init`
-- creates it disabled; `dbmcp interfaces enable conformance` turns it on.
-- Tool handlers are builtins in src/tools/conformance.c.

INSERT INTO dbmcp_interfaces (name, title, description, enabled) VALUES
('conformance', 'MCP conformance fixtures', 'Fixture tools, resources and prompts the official MCP conformance suite calls. Off unless enabled.', 0);

INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler) VALUES
('test_simple_text', 'Returns a simple text response', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_simple_text'),
('test_image_content', 'Returns an image', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_image'),
('test_audio_content', 'Returns audio', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_audio'),
('test_embedded_resource', 'Returns an embedded resource', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_embedded_resource'),
('test_multiple_content_types', 'Returns text, image and resource content', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_mixed'),
('test_error_handling', 'Always returns a tool error', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_error'),
('test_tool_with_progress', 'Reports progress three times', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_progress'),
('test_tool_with_logging', 'Sends three log messages', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_logging'),
('test_sampling', 'Asks the client''s LLM (legacy sampling)', '{"type":"object","properties":{"prompt":{"type":"string","description":"Prompt for the LLM"}},"additionalProperties":false}', 'builtin', 'conformance_sampling'),
('test_elicitation', 'Asks the user for information (legacy elicitation)', '{"type":"object","properties":{"message":{"type":"string","description":"Message shown to the user"}},"additionalProperties":false}', 'builtin', 'conformance_elicitation'),
('test_elicitation_sep1034_defaults', 'Elicitation with default values (SEP-1034)', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_sep1034'),
('test_elicitation_sep1330_enums', 'Elicitation with enum variants (SEP-1330)', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_sep1330'),
('test_reconnection', 'Returns a text response (SSE polling scenario)', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_simple_text'),
('test_missing_capability', 'Needs the sampling client capability', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_missing_capability'),
('test_streaming_elicitation', 'Asks for input without a server-to-client request', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_streaming_elicitation'),
('test_logging_tool', 'Logs only when the request asks for a log level', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_logging_quiet'),
('test_trigger_tool_change', 'Announces a tool list change', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_trigger_tools'),
('test_trigger_prompt_change', 'Announces a prompt list change', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_trigger_prompts'),
('test_input_required_result_elicitation', 'Multi-round: asks the user''s name', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_elicitation'),
('test_input_required_result_sampling', 'Multi-round: asks the client''s LLM', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_sampling'),
('test_input_required_result_list_roots', 'Multi-round: asks for the client''s roots', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_roots'),
('test_input_required_result_request_state', 'Multi-round with requestState', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_request_state'),
('test_input_required_result_multiple_inputs', 'Multi-round with three input requests', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_multiple'),
('test_input_required_result_multi_round', 'Three rounds', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_multi_round'),
('test_input_required_result_tampered_state', 'Rejects a tampered requestState', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_tampered'),
('test_input_required_result_capabilities', 'Asks only what the client can answer', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_ir_capabilities'),
('json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features', '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}', 'builtin', 'echo'),
('greet', 'Says hello (never a task)', '{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}', 'builtin', 'conformance_greet'),
('slow_compute', 'Sleeps `seconds`, then answers; may become a task', '{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600},"label":{"type":"string"}},"additionalProperties":false}', 'builtin', 'conformance_slow_compute'),
('failing_job', 'Fails after a second (a tool error); must run as a task', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_failing_job'),
('protocol_error_job', 'Fails below the tool (a protocol error)', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_protocol_error_job'),
('confirm_delete', 'Asks for a confirmation, then answers', '{"type":"object","properties":{"filename":{"type":"string"}},"additionalProperties":false}', 'builtin', 'conformance_confirm_delete'),
('multi_input', 'Asks two questions at once', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_multi_input'),
('test_tool_with_task', 'Asks a name, then computes as a task', '{"type":"object","properties":{},"additionalProperties":false}', 'builtin', 'conformance_tool_with_task'),
('test_custom_header', 'Echoes a region sent also as the Mcp-Param-Region header', '{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"],"additionalProperties":false}', 'builtin', 'conformance_custom_header');

INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES
('conformance', 'test_simple_text', 1),
('conformance', 'test_image_content', 2),
('conformance', 'test_audio_content', 3),
('conformance', 'test_embedded_resource', 4),
('conformance', 'test_multiple_content_types', 5),
('conformance', 'test_error_handling', 6),
('conformance', 'test_tool_with_progress', 7),
('conformance', 'test_tool_with_logging', 8),
('conformance', 'test_sampling', 9),
('conformance', 'test_elicitation', 10),
('conformance', 'test_elicitation_sep1034_defaults', 11),
('conformance', 'test_elicitation_sep1330_enums', 12),
('conformance', 'test_reconnection', 13),
('conformance', 'test_missing_capability', 14),
('conformance', 'test_streaming_elicitation', 15),
('conformance', 'test_logging_tool', 16),
('conformance', 'test_trigger_tool_change', 17),
('conformance', 'test_trigger_prompt_change', 18),
('conformance', 'test_input_required_result_elicitation', 19),
('conformance', 'test_input_required_result_sampling', 20),
('conformance', 'test_input_required_result_list_roots', 21),
('conformance', 'test_input_required_result_request_state', 22),
('conformance', 'test_input_required_result_multiple_inputs', 23),
('conformance', 'test_input_required_result_multi_round', 24),
('conformance', 'test_input_required_result_tampered_state', 25),
('conformance', 'test_input_required_result_capabilities', 26),
('conformance', 'json_schema_2020_12_tool', 27),
('conformance', 'greet', 28),
('conformance', 'slow_compute', 29),
('conformance', 'failing_job', 30),
('conformance', 'protocol_error_job', 31),
('conformance', 'confirm_delete', 32),
('conformance', 'multi_input', 33),
('conformance', 'test_tool_with_task', 34),
('conformance', 'test_custom_header', 35);

-- test://static-binary, a PNG, comes from seed/<dialect>/conformance.sql:
-- the engines spell a blob literal differently.
INSERT INTO dbmcp_resources (uri, name, title, mime_type, content_text, content_blob) VALUES
('test://static-text', 'static-text', 'Static text resource', 'text/plain', 'This is the content of the static text resource.', NULL),
('test://watched-resource', 'watched-resource', 'Watched resource', 'text/plain', 'Watched resource content', NULL);

INSERT INTO dbmcp_resource_templates (uri_template, name, title, mime_type, handler_kind, handler, completions) VALUES
('test://template/{id}/data', 'template', 'Template resource', 'application/json', 'builtin', 'conformance_template', '{"id":["123","456","789"]}');

INSERT INTO dbmcp_interface_resources (interface, uri) VALUES
('conformance', 'test://*'),
('conformance', 'test://template/{id}/data');

INSERT INTO dbmcp_prompts (name, title, description, kind, arguments, messages) VALUES
('test_simple_prompt', 'Simple prompt', 'A prompt without arguments', 'user', '[]',
 '[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]'),
('test_prompt_with_arguments', 'Prompt with arguments', 'A prompt with two required arguments', 'user',
 '[{"name":"arg1","description":"First argument","required":true,"completions":["test","testValue1","other"]},{"name":"arg2","description":"Second argument","required":true}]',
 '[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1=''{{arg1}}'', arg2=''{{arg2}}''"}}]'),
('test_prompt_with_embedded_resource', 'Prompt with an embedded resource', 'A prompt that embeds a resource', 'user',
 '[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]',
 '[{"role":"user","content":{"type":"resource","resource":{"uri":"{{resourceUri}}","mimeType":"text/plain","text":"Embedded resource content for testing."}}},{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]'),
('test_prompt_with_image', 'Prompt with an image', 'A prompt that contains an image', 'user', '[]',
 '[{"role":"user","content":{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==","mimeType":"image/png"}},{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]'),
('test_input_required_result_prompt', 'Prompt that asks for its context', 'Multi-round: asks the user for the context argument', 'user',
 '[{"name":"context","description":"What context should the prompt use?","required":true,"elicit":true}]',
 '[{"role":"user","content":{"type":"text","text":"Use this context: {{context}}"}}]');

INSERT INTO dbmcp_interface_prompts (interface, prompt, position) VALUES
('conformance', 'test_simple_prompt', 1),
('conformance', 'test_prompt_with_arguments', 2),
('conformance', 'test_prompt_with_embedded_resource', 3),
('conformance', 'test_prompt_with_image', 4),
('conformance', 'test_input_required_result_prompt', 5);
