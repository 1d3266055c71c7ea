-- 0016_tasks.sql — tasks of the MCP tasks extension, PostgreSQL 15: the
-- same table and columns as schema/sqlite/0016_tasks.sql (see there for
-- what each holds), under the contract of 0001_core.sql.

CREATE TABLE dbmcp_tasks (
    id               text COLLATE "C" PRIMARY KEY,
    owner            text COLLATE "C" NOT NULL,
    interface        text COLLATE "C" NOT NULL,
    tool             text COLLATE "C" NOT NULL,
    call_id          text COLLATE "C" NOT NULL,
    status           text COLLATE "C" NOT NULL CHECK (status IN ('working', 'input_required',
                                                      'completed', 'failed', 'cancelled')),
    status_message   text COLLATE "C",
    progress         double precision,
    progress_total   double precision,
    request          text COLLATE "C" NOT NULL CHECK (dbmcp_json_valid(request)),
    input_requests   text COLLATE "C" CHECK (input_requests IS NULL OR dbmcp_json_valid(input_requests)),
    input_responses  text COLLATE "C" CHECK (input_responses IS NULL OR dbmcp_json_valid(input_responses)),
    request_state    text COLLATE "C",
    result           text COLLATE "C" CHECK (result IS NULL OR dbmcp_json_valid(result)),
    error            text COLLATE "C" CHECK (error IS NULL OR dbmcp_json_valid(error)),
    cancel_requested integer NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    replica          text COLLATE "C" NOT NULL,
    created_at       text COLLATE "C" NOT NULL,
    updated_at       text COLLATE "C" NOT NULL,
    expires_at       text COLLATE "C" NOT NULL
);
CREATE INDEX dbmcp_tasks_expiry ON dbmcp_tasks (expires_at);
CREATE INDEX dbmcp_tasks_replica ON dbmcp_tasks (replica, status);
