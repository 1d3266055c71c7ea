-- 0016_tasks: long-running tool calls as tasks (MCP tasks extension,
-- io.modelcontextprotocol/tasks; issue #14). A task row is what any
-- replica needs to answer tasks/get, tasks/update and tasks/cancel for a
-- call another replica runs: who owns it, its status and progress, what it
-- waits for (input_required), and its result or error once it ended.
--
--   owner           'key:<api key id>' or 'principal:<name>' (stdio, CLI):
--                   every tasks method matches it, so another caller sees
--                   "not found" exactly like for a task that does not exist
--   request         the tools/call params (JSON) the task runs, kept to
--                   run the handler again once the client answered
--   input_requests  pending inputRequests (JSON object) while input_required
--   input_responses answers gathered so far by tasks/update (JSON object)
--   result          the CallToolResult (JSON) of a completed task
--   error           the JSON-RPC error object of a failed task
--   cancel_requested set by tasks/cancel: the replica running the task
--                   stops its statement
--   replica         core/replica.h id of the process running it
--   expires_at      created_at + tasks.ttl_s: past it the task is gone
-- Times are UTC ISO-8601 text (core/ids.h).

CREATE TABLE dbmcp_tasks (
    id               TEXT PRIMARY KEY,
    owner            TEXT NOT NULL,
    interface        TEXT NOT NULL,
    tool             TEXT NOT NULL,
    call_id          TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('working', 'input_required', 'completed',
                                                     'failed', 'cancelled')),
    status_message   TEXT,
    progress         REAL,
    progress_total   REAL,
    request          TEXT NOT NULL CHECK (json_valid(request)),
    input_requests   TEXT CHECK (input_requests IS NULL OR json_valid(input_requests)),
    input_responses  TEXT CHECK (input_responses IS NULL OR json_valid(input_responses)),
    request_state    TEXT,
    result           TEXT CHECK (result IS NULL OR json_valid(result)),
    error            TEXT CHECK (error IS NULL OR json_valid(error)),
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    replica          TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    expires_at       TEXT NOT NULL
);
CREATE INDEX dbmcp_tasks_expiry ON dbmcp_tasks (expires_at);
CREATE INDEX dbmcp_tasks_replica ON dbmcp_tasks (replica, status);
