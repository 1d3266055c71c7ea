-- 0005_orchestrator.sql — the LLM orchestrator's tables (docs/plans.md,
-- docs/orchestrator.md): entity rules for prompt analysis, what a plan needs
-- before it may call the model, example questions for vector selection,
-- step kinds, one row per chat run and one row per LLM call.
--
-- The plans themselves (dbmcp_plans, dbmcp_plan_steps, dbmcp_plan_rules)
-- are in 0001_core.sql; this file extends the steps with a kind.
-- PostgreSQL 15 (contract and translation rules: 0001_core.sql).

-- Regular expressions (POSIX extended, matched case-insensitively unless
-- case_sensitive = 1) that turn parts of a question into typed entities.
-- value_group picks the capture group whose text becomes the entity's value
-- (0 = the whole match). Higher priority wins when two rules match the same
-- text; ties go to the rule name.
CREATE TABLE dbmcp_entity_rules (
    name           text COLLATE "C" PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
    kind           text COLLATE "C" NOT NULL CHECK (length(kind) BETWEEN 1 AND 64), -- date, amount, region, …
    pattern        text COLLATE "C" NOT NULL CHECK (length(pattern) BETWEEN 1 AND 2000),
    value_group    integer NOT NULL DEFAULT 0 CHECK (value_group BETWEEN 0 AND 9),
    case_sensitive integer NOT NULL DEFAULT 0 CHECK (case_sensitive IN (0, 1)),
    priority       bigint NOT NULL DEFAULT 0,
    description    text COLLATE "C" NOT NULL DEFAULT '',
    enabled        integer NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at     text COLLATE "C" NOT NULL DEFAULT dbmcp_now()
);

-- Entities a plan needs before the model is asked. `entity` names an entity
-- kind (from dbmcp_entity_rules.kind) or a thesaurus concept (its id or a
-- label, matched against the concepts the analysis found and their broader
-- concepts). When one is missing the run ends with `question` (or a generated
-- one) to the user, without any LLM call.
CREATE TABLE dbmcp_plan_required_entities (
    plan     text COLLATE "C" NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    entity   text COLLATE "C" NOT NULL CHECK (length(entity) BETWEEN 1 AND 128),
    question text COLLATE "C", -- what to ask the user; NULL = "Please name the <entity>."
    PRIMARY KEY (plan, entity)
);

-- Example questions per plan: plan selection compares the question's
-- embedding with these and with the plan's description.
CREATE TABLE dbmcp_plan_examples (
    plan       text COLLATE "C" NOT NULL REFERENCES dbmcp_plans (name) ON DELETE CASCADE ON UPDATE CASCADE,
    example_no bigint NOT NULL CHECK (example_no >= 1),
    text       text COLLATE "C" NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    PRIMARY KEY (plan, example_no)
);

-- Step kinds. analyse: record the prompt analysis (always done first);
-- tool: one deterministic tool call before the model is asked, `tool` with
-- `arguments` (a JSON object whose string values may hold {{entity.KIND}}
-- placeholders; a value that names a missing entity drops the argument);
-- llm: the tool-calling loop with tool_choice/tools/max_iterations;
-- save_episode: write the run as an episode to memory.
ALTER TABLE dbmcp_plan_steps ADD COLUMN kind text COLLATE "C" NOT NULL DEFAULT 'llm'
    CHECK (kind IN ('analyse', 'tool', 'llm', 'save_episode'));
ALTER TABLE dbmcp_plan_steps ADD COLUMN tool text COLLATE "C";
ALTER TABLE dbmcp_plan_steps ADD COLUMN arguments text COLLATE "C"
    CHECK (arguments IS NULL OR dbmcp_json_valid(arguments));

-- One row per chat run (`dbmcp chat`, POST /v1/chat).
CREATE TABLE dbmcp_runs (
    id          text COLLATE "C" PRIMARY KEY,   -- UUID
    session_id  text COLLATE "C" NOT NULL,      -- working-memory session (chat) the run belongs to
    plan        text COLLATE "C",               -- selected plan (NULL when none could be chosen)
    selection   text COLLATE "C",               -- how: override | rules | vector | default
    principal   text COLLATE "C",
    interface   text COLLATE "C",
    user_id     text COLLATE "C",
    agent_id    text COLLATE "C",
    question    text COLLATE "C" NOT NULL,
    analysis    text COLLATE "C" CHECK (analysis IS NULL OR dbmcp_json_valid(analysis)), -- entities + keywords
    status      text COLLATE "C" NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'answered', 'asked', 'limit', 'error')),
    status_detail text COLLATE "C",             -- operator detail (limit reached, error class …)
    answer      text COLLATE "C",               -- what the user was shown
    llm_calls   bigint NOT NULL DEFAULT 0,
    tool_calls  bigint NOT NULL DEFAULT 0,
    tokens_in   bigint NOT NULL DEFAULT 0,
    tokens_out  bigint NOT NULL DEFAULT 0,
    started_at  text COLLATE "C" NOT NULL DEFAULT dbmcp_now(),
    ended_at    text COLLATE "C"
);
CREATE INDEX dbmcp_runs_session ON dbmcp_runs (session_id, started_at);
CREATE INDEX dbmcp_runs_user ON dbmcp_runs (user_id, started_at);

-- One row per LLM call, beside its dbmcp_audit row (method 'llm', same
-- call_id): SELECT … FROM dbmcp_audit a JOIN dbmcp_llm_calls l USING (call_id).
CREATE TABLE dbmcp_llm_calls (
    call_id       text COLLATE "C" PRIMARY KEY,
    run_id        text COLLATE "C" NOT NULL REFERENCES dbmcp_runs (id) ON DELETE CASCADE,
    step_no       bigint NOT NULL,
    iteration     bigint NOT NULL,  -- 1-based within the step; summaries use 0
    purpose       text COLLATE "C" NOT NULL DEFAULT 'chat' CHECK (purpose IN ('chat', 'summary')),
    provider      text COLLATE "C" NOT NULL,
    model         text COLLATE "C" NOT NULL,
    tokens_in     bigint,
    tokens_out    bigint,
    latency_ms    double precision NOT NULL, -- all attempts and backoff waits
    attempts      bigint NOT NULL DEFAULT 1,  -- HTTP attempts (retries on 429/5xx/cut streams)
    finish_reason text COLLATE "C",              -- stop | length | tool_calls | content_filter | … ; NULL on error
    repaired      integer NOT NULL DEFAULT 0 CHECK (repaired IN (0, 1)),
    error_class   text COLLATE "C",              -- NULL when the call succeeded
    ts            text COLLATE "C" NOT NULL DEFAULT dbmcp_now()
);
CREATE INDEX dbmcp_llm_calls_run ON dbmcp_llm_calls (run_id, step_no, iteration);
