-- 0005_orchestrator.sql — the LLM orchestrator's tables (docs/plans.md,
-- docs/orchestrator.md): entity rules for prompt analysis, what a plan needs
-- before it may call the model, example questions for vector selection,
-- step kinds, one row per chat run and one row per LLM call.
--
-- The plans themselves (dbmcp_plans, dbmcp_plan_steps, dbmcp_plan_rules)
-- are in 0001_core.sql; this file extends the steps with a kind.

-- Regular expressions (POSIX extended, matched case-insensitively unless
-- case_sensitive = 1) that turn parts of a question into typed entities.
-- value_group picks the capture group whose text becomes the entity's value
-- (0 = the whole match). Higher priority wins when two rules match the same
-- text; ties go to the rule name.
CREATE TABLE dbmcp_entity_rules (
    name           TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    kind           TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64), -- date, amount, region, …
    pattern        TEXT NOT NULL CHECK (length(pattern) BETWEEN 1 AND 2000),
    value_group    INTEGER NOT NULL DEFAULT 0 CHECK (value_group BETWEEN 0 AND 9),
    case_sensitive INTEGER NOT NULL DEFAULT 0 CHECK (case_sensitive IN (0, 1)),
    priority       INTEGER NOT NULL DEFAULT 0,
    description    TEXT NOT NULL DEFAULT '',
    enabled        INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Entities a plan needs before the model is asked. `entity` names an entity
-- kind (from dbmcp_entity_rules.kind) or a thesaurus concept (its id or a
-- label, matched against the concepts the analysis found and their broader
-- concepts). When one is missing the run ends with `question` (or a generated
-- one) to the user, without any LLM call.
CREATE TABLE dbmcp_plan_required_entities (
    plan     TEXT NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    entity   TEXT NOT NULL CHECK (length(entity) BETWEEN 1 AND 128),
    question TEXT, -- what to ask the user; NULL = "Please name the <entity>."
    PRIMARY KEY (plan, entity)
);

-- Example questions per plan: plan selection compares the question's
-- embedding with these and with the plan's description.
CREATE TABLE dbmcp_plan_examples (
    plan       TEXT NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    example_no INTEGER NOT NULL CHECK (example_no >= 1),
    text       TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    PRIMARY KEY (plan, example_no)
);

-- Step kinds. analyse: record the prompt analysis (always done first);
-- tool: one deterministic tool call before the model is asked, `tool` with
-- `arguments` (a JSON object whose string values may hold {{entity.KIND}}
-- placeholders; a value that names a missing entity drops the argument);
-- llm: the tool-calling loop with tool_choice/tools/max_iterations;
-- save_episode: write the run as an episode to memory.
ALTER TABLE dbmcp_plan_steps ADD COLUMN kind TEXT NOT NULL DEFAULT 'llm'
    CHECK (kind IN ('analyse', 'tool', 'llm', 'save_episode'));
ALTER TABLE dbmcp_plan_steps ADD COLUMN tool TEXT;
ALTER TABLE dbmcp_plan_steps ADD COLUMN arguments TEXT
    CHECK (arguments IS NULL OR json_valid(arguments));

-- One row per chat run (`dbmcp chat`, POST /v1/chat).
CREATE TABLE dbmcp_runs (
    id          TEXT PRIMARY KEY,   -- UUID
    session_id  TEXT NOT NULL,      -- working-memory session (chat) the run belongs to
    plan        TEXT,               -- selected plan (NULL when none could be chosen)
    selection   TEXT,               -- how: override | rules | vector | default
    principal   TEXT,
    interface   TEXT,
    user_id     TEXT,
    agent_id    TEXT,
    question    TEXT NOT NULL,
    analysis    TEXT CHECK (analysis IS NULL OR json_valid(analysis)), -- entities + keywords
    status      TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'answered', 'asked', 'limit', 'error')),
    status_detail TEXT,             -- operator detail (limit reached, error class …)
    answer      TEXT,               -- what the user was shown
    llm_calls   INTEGER NOT NULL DEFAULT 0,
    tool_calls  INTEGER NOT NULL DEFAULT 0,
    tokens_in   INTEGER NOT NULL DEFAULT 0,
    tokens_out  INTEGER NOT NULL DEFAULT 0,
    started_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at    TEXT
);
CREATE INDEX dbmcp_runs_session ON dbmcp_runs (session_id, started_at);
CREATE INDEX dbmcp_runs_user ON dbmcp_runs (user_id, started_at);

-- One row per LLM call, beside its dbmcp_audit row (method 'llm', same
-- call_id): SELECT … FROM dbmcp_audit a JOIN dbmcp_llm_calls l USING (call_id).
CREATE TABLE dbmcp_llm_calls (
    call_id       TEXT PRIMARY KEY,
    run_id        TEXT NOT NULL REFERENCES dbmcp_runs (id) ON DELETE CASCADE,
    step_no       INTEGER NOT NULL,
    iteration     INTEGER NOT NULL,  -- 1-based within the step; summaries use 0
    purpose       TEXT NOT NULL DEFAULT 'chat' CHECK (purpose IN ('chat', 'summary')),
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    tokens_in     INTEGER,
    tokens_out    INTEGER,
    latency_ms    REAL NOT NULL,     -- all attempts and backoff waits
    attempts      INTEGER NOT NULL DEFAULT 1, -- HTTP attempts (retries on 429/5xx/cut streams)
    finish_reason TEXT,              -- stop | length | tool_calls | content_filter | … ; NULL on error
    repaired      INTEGER NOT NULL DEFAULT 0 CHECK (repaired IN (0, 1)),
    error_class   TEXT,              -- NULL when the call succeeded
    ts            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX dbmcp_llm_calls_run ON dbmcp_llm_calls (run_id, step_no, iteration);
