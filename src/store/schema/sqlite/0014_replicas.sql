-- 0014: the fleet (issue #15, operations). Every `dbmcp serve --http` on
-- this database keeps one row here: its replica id (core/replica.h), the
-- URL it serves and its /status object, rewritten every fleet.heartbeat_s.
-- `dbmcp status --db` and GET /status?fleet=1 list the rows; a row whose
-- heartbeat is older than three intervals is shown as stale, one older
-- than fleet.expire_s is deleted by the next replica that beats, and a
-- replica that stops cleanly deletes its own. docs/operations.md, "Fleet".

CREATE TABLE dbmcp_replicas (
    replica_id TEXT PRIMARY KEY,   -- HOST:PID:SCOPE
    url        TEXT,               -- the /mcp URL it listens on
    started_at TEXT NOT NULL,      -- when it started, UTC
    beat_at    TEXT NOT NULL,      -- its last heartbeat, UTC (its own clock)
    status     TEXT NOT NULL       -- its GET /status object, JSON
);
