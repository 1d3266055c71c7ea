-- 0001_core.sql — dbmcp's own tables on SQLite: the registry (interfaces,
-- tools, prompts, resources, plans), settings, identity (principals and API
-- keys) and the audit log. Every internal table is named dbmcp_*: the query
-- connection's authorizer hides that prefix from agent-written SQL.
-- JSON-valued columns hold text checked with json_valid().

CREATE TABLE dbmcp_settings (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    description TEXT,
    updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- One row. Triggers below bump a counter whenever a registry table changes,
-- so a running server notices CLI, UI and plain-SQL edits alike and sends
-- list_changed notifications without a restart.
CREATE TABLE dbmcp_catalog_version (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    tools_version     INTEGER NOT NULL DEFAULT 0,
    prompts_version   INTEGER NOT NULL DEFAULT 0,
    resources_version INTEGER NOT NULL DEFAULT 0
);
INSERT INTO dbmcp_catalog_version (id) VALUES (1);

CREATE TABLE dbmcp_interfaces (
    name         TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
    title        TEXT,
    description  TEXT NOT NULL DEFAULT '',
    instructions TEXT,           -- MCP `instructions`; NULL = the built-in default
    enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_tools (
    name          TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    title         TEXT,
    description   TEXT NOT NULL,
    input_schema  TEXT NOT NULL CHECK (json_valid(input_schema)),
    output_schema TEXT CHECK (output_schema IS NULL OR json_valid(output_schema)),
    annotations   TEXT CHECK (annotations IS NULL OR json_valid(annotations)),
    handler_kind  TEXT NOT NULL CHECK (handler_kind IN ('builtin', 'sql')),
    handler       TEXT NOT NULL, -- builtin name, or reviewed SQL with :named parameters
    enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_interface_tools (
    interface TEXT NOT NULL REFERENCES dbmcp_interfaces (name) ON DELETE CASCADE ON UPDATE CASCADE,
    tool      TEXT NOT NULL REFERENCES dbmcp_tools (name) ON DELETE CASCADE ON UPDATE CASCADE,
    position  INTEGER NOT NULL DEFAULT 0, -- order in tools/list, then name
    PRIMARY KEY (interface, tool)
);

-- messages: JSON array of MCP PromptMessage objects
--   [{"role":"user"|"assistant","content":{"type":"text","text":"… {{arg}} …"}}, …]
-- Placeholders {{name}} in any "text" field must be declared in arguments.
-- arguments: JSON array [{"name":…,"description":…,"required":true|false}, …]
CREATE TABLE dbmcp_prompts (
    name        TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    title       TEXT,
    description TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL DEFAULT 'user' CHECK (kind IN ('system', 'extended_system', 'user')),
    arguments   TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(arguments)),
    messages    TEXT NOT NULL CHECK (json_valid(messages)),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_interface_prompts (
    interface TEXT NOT NULL REFERENCES dbmcp_interfaces (name) ON DELETE CASCADE ON UPDATE CASCADE,
    prompt    TEXT NOT NULL REFERENCES dbmcp_prompts (name) ON DELETE CASCADE ON UPDATE CASCADE,
    position  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (interface, prompt)
);

-- A static resource: its content is in the row (text or blob).
CREATE TABLE dbmcp_resources (
    uri          TEXT PRIMARY KEY CHECK (length(uri) BETWEEN 1 AND 2048),
    name         TEXT NOT NULL,
    title        TEXT,
    description  TEXT,
    mime_type    TEXT NOT NULL DEFAULT 'text/plain',
    content_text TEXT,
    content_blob BLOB,
    annotations  TEXT CHECK (annotations IS NULL OR json_valid(annotations)),
    enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK ((content_text IS NULL) <> (content_blob IS NULL))
);

-- A resource template (RFC 6570 level 1: {var}). handler_kind 'sql' runs
-- reviewed SQL with the template variables bound as :named parameters and
-- returns the first column of the first row as the content; 'builtin'
-- names a handler compiled into dbmcp.
CREATE TABLE dbmcp_resource_templates (
    uri_template TEXT PRIMARY KEY CHECK (length(uri_template) BETWEEN 1 AND 2048),
    name         TEXT NOT NULL,
    title        TEXT,
    description  TEXT,
    mime_type    TEXT NOT NULL DEFAULT 'text/plain',
    handler_kind TEXT NOT NULL CHECK (handler_kind IN ('builtin', 'sql')),
    handler      TEXT NOT NULL,
    completions  TEXT CHECK (completions IS NULL OR json_valid(completions)), -- {"var": ["value", …]} for completion/complete
    enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Which resources and templates an interface exposes. `uri` matches either
-- dbmcp_resources.uri or dbmcp_resource_templates.uri_template; a pattern
-- ending in '*' exposes every resource whose URI starts with the prefix.
CREATE TABLE dbmcp_interface_resources (
    interface TEXT NOT NULL REFERENCES dbmcp_interfaces (name) ON DELETE CASCADE ON UPDATE CASCADE,
    uri       TEXT NOT NULL,
    PRIMARY KEY (interface, uri)
);

-- Execution plans (semantics: see docs/plans.md; the orchestrator uses them).
CREATE TABLE dbmcp_plans (
    name            TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    description     TEXT NOT NULL DEFAULT '',
    interface       TEXT NOT NULL REFERENCES dbmcp_interfaces (name) ON UPDATE CASCADE,
    system_prompt   TEXT REFERENCES dbmcp_prompts (name) ON UPDATE CASCADE,
    extended_prompt TEXT REFERENCES dbmcp_prompts (name) ON UPDATE CASCADE,
    priority        INTEGER NOT NULL DEFAULT 0, -- higher wins when several plans match
    is_default      INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_plan_steps (
    plan           TEXT NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    step_no        INTEGER NOT NULL CHECK (step_no >= 1),
    description    TEXT NOT NULL DEFAULT '',
    tool_choice    TEXT NOT NULL DEFAULT 'auto', -- none | auto | required | a tool name
    tools          TEXT CHECK (tools IS NULL OR json_valid(tools)), -- JSON array narrowing the interface's tools; NULL = all
    prompt         TEXT REFERENCES dbmcp_prompts (name) ON UPDATE CASCADE, -- optional user-kind prompt added at this step
    max_iterations INTEGER NOT NULL DEFAULT 4 CHECK (max_iterations BETWEEN 1 AND 32),
    PRIMARY KEY (plan, step_no)
);

-- How prompt analysis selects a plan: a rule matches a question by keyword,
-- regular expression or thesaurus concept; the best-scoring plan wins.
CREATE TABLE dbmcp_plan_rules (
    plan     TEXT NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    rule_no  INTEGER NOT NULL CHECK (rule_no >= 1),
    kind     TEXT NOT NULL CHECK (kind IN ('keyword', 'regex', 'concept')),
    pattern  TEXT NOT NULL,
    weight   REAL NOT NULL DEFAULT 1.0,
    PRIMARY KEY (plan, rule_no)
);

-- Identity. A principal is who calls; an API key belongs to one principal
-- and fixes the interface and the user/agent scope of everything it does.
CREATE TABLE dbmcp_principals (
    name       TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    kind       TEXT NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'service', 'operator')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- A key is shown once as "dbmcp_<id>_<secret>"; only BLAKE2b(secret) is kept.
CREATE TABLE dbmcp_api_keys (
    id           TEXT PRIMARY KEY,  -- public part, safe to log
    principal    TEXT NOT NULL REFERENCES dbmcp_principals (name) ON UPDATE CASCADE,
    secret_hash  TEXT NOT NULL,     -- hex BLAKE2b-256 of the secret
    interface    TEXT NOT NULL REFERENCES dbmcp_interfaces (name) ON UPDATE CASCADE,
    user_id      TEXT,              -- scope: NULL = the principal's name
    agent_id     TEXT,              -- scope: NULL = any agent of that user
    description  TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_used_at TEXT,
    revoked_at   TEXT
);

-- One row per tools/call, resources/read and prompts/get (and, later, per
-- LLM call). Plain SQL: "what did the agent do last Tuesday" is a query.
CREATE TABLE dbmcp_audit (
    id             INTEGER PRIMARY KEY,
    call_id        TEXT NOT NULL,
    ts             TEXT NOT NULL,    -- start, UTC ISO-8601 with milliseconds
    principal      TEXT,
    key_id         TEXT,             -- API key used (HTTP), NULL for stdio/CLI
    interface      TEXT,
    user_id        TEXT,
    agent_id       TEXT,
    client_name    TEXT,
    client_version TEXT,
    model          TEXT,
    transport      TEXT NOT NULL,    -- stdio | http | cli | agent
    protocol       TEXT,             -- negotiated MCP revision
    method         TEXT NOT NULL,    -- tools/call | resources/read | prompts/get | llm
    target         TEXT,             -- tool name, resource URI or prompt name
    status         TEXT NOT NULL CHECK (status IN ('ok', 'error', 'denied', 'cancelled')),
    error_class    TEXT,
    error_detail   TEXT,             -- operator detail; never shown to clients
    duration_ms    REAL NOT NULL,
    bytes_out      INTEGER NOT NULL DEFAULT 0,
    rows_out       INTEGER,
    sql_text       TEXT              -- only when the audit_sql setting is on
);
CREATE INDEX dbmcp_audit_ts ON dbmcp_audit (ts);
CREATE INDEX dbmcp_audit_target ON dbmcp_audit (target, ts);
-- No index on call_id: random UUID keys would scatter every batch of audit
-- writes over the whole index; lookups by call id are rare operator queries.

-- Change tracking for list_changed notifications.
CREATE TRIGGER dbmcp_tools_ai AFTER INSERT ON dbmcp_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_tools_au AFTER UPDATE ON dbmcp_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_tools_ad AFTER DELETE ON dbmcp_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_itools_ai AFTER INSERT ON dbmcp_interface_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_itools_au AFTER UPDATE ON dbmcp_interface_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_itools_ad AFTER DELETE ON dbmcp_interface_tools BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1; END;
CREATE TRIGGER dbmcp_prompts_ai AFTER INSERT ON dbmcp_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_prompts_au AFTER UPDATE ON dbmcp_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_prompts_ad AFTER DELETE ON dbmcp_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_iprompts_ai AFTER INSERT ON dbmcp_interface_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_iprompts_au AFTER UPDATE ON dbmcp_interface_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_iprompts_ad AFTER DELETE ON dbmcp_interface_prompts BEGIN UPDATE dbmcp_catalog_version SET prompts_version = prompts_version + 1; END;
CREATE TRIGGER dbmcp_resources_ai AFTER INSERT ON dbmcp_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_resources_au AFTER UPDATE ON dbmcp_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_resources_ad AFTER DELETE ON dbmcp_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_rtemplates_ai AFTER INSERT ON dbmcp_resource_templates BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_rtemplates_au AFTER UPDATE ON dbmcp_resource_templates BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_rtemplates_ad AFTER DELETE ON dbmcp_resource_templates BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_iresources_ai AFTER INSERT ON dbmcp_interface_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_iresources_au AFTER UPDATE ON dbmcp_interface_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;
CREATE TRIGGER dbmcp_iresources_ad AFTER DELETE ON dbmcp_interface_resources BEGIN UPDATE dbmcp_catalog_version SET resources_version = resources_version + 1; END;

-- A resource edited with plain SQL gets a new updated_at, so subscribers
-- are told (notifications/resources/updated). Recursive triggers are off:
-- this UPDATE does not fire the trigger again.
CREATE TRIGGER dbmcp_resources_touch AFTER UPDATE ON dbmcp_resources
WHEN NEW.updated_at IS OLD.updated_at
BEGIN
    UPDATE dbmcp_resources SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE uri = NEW.uri;
END;
CREATE TRIGGER dbmcp_interfaces_au AFTER UPDATE ON dbmcp_interfaces BEGIN UPDATE dbmcp_catalog_version SET tools_version = tools_version + 1, prompts_version = prompts_version + 1, resources_version = resources_version + 1; END;
