-- 0007_sessions.sql — many replicas on one database (docs/operations.md,
-- "Replicas"): every `dbmcp serve --http` process on the same database is a
-- replica behind a load balancer, without sticky sessions. What one replica
-- must know of another's work lives here:
--
--   dbmcp_changes       one counter per change channel, bumped by triggers in
--                       the transaction that changes what the channel covers;
--                       a replica waits on them (store/notify.h: SQLite polls
--                       the counters, PostgreSQL LISTENs)
--   dbmcp_sessions      legacy (2025-11-25) MCP sessions: what any replica
--                       needs to go on serving one (mcp/sessions.c)
--   dbmcp_session_subscriptions   their resources/subscribe URIs
--   dbmcp_leases        named leases with an expiry: one holder at a time
--                       (memory compaction)
--   dbmcp_mem_jobs      gains a claim: the replica embedding a job, and until
--                       when (a dead claimer's jobs are taken again after it)
--
-- Times are UTC ISO-8601 text with milliseconds, compared as text.

-- Channels: 'catalog' (dbmcp_catalog_version moved: tools, prompts or
-- resources changed), 'settings' (a row of dbmcp_settings), 'keys' (an API
-- key revoked or deleted), 'sessions' (a session's state changed or it
-- ended). A counter only grows; its value means nothing but "changed".
CREATE TABLE dbmcp_changes (
    channel TEXT PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 0
);
INSERT INTO dbmcp_changes (channel) VALUES ('catalog'), ('settings'), ('keys'), ('sessions');

CREATE TABLE dbmcp_sessions (
    id             TEXT PRIMARY KEY,      -- Mcp-Session-Id: a random UUID, never reused
    key_id         TEXT NOT NULL,         -- API key that created it ('' without auth); only
                                          -- requests with this key may use it
    principal      TEXT NOT NULL,         -- the caller's identity, fixed for the session
    interface      TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    agent_id       TEXT NOT NULL,
    transport      TEXT NOT NULL,         -- for the audit: http
    protocol       TEXT NOT NULL,         -- negotiated by initialize
    client_name    TEXT NOT NULL DEFAULT '',
    client_version TEXT NOT NULL DEFAULT '',
    client_caps    TEXT CHECK (client_caps IS NULL OR json_valid(client_caps)),
    log_level      TEXT NOT NULL DEFAULT 'info' CHECK (log_level IN ('debug', 'info', 'notice',
                   'warning', 'error', 'critical', 'alert', 'emergency')),
    initialized    INTEGER NOT NULL DEFAULT 0 CHECK (initialized IN (0, 1)),
    rev            INTEGER NOT NULL DEFAULT 1, -- +1 per change of the state above: a replica
                                          -- holding an older copy reads it again
    created_at     TEXT NOT NULL,
    last_used_at   TEXT NOT NULL,         -- written at most every few seconds per session
    stream_until   TEXT                   -- a replica holds the session's GET stream open
                                          -- until then (renewed while it does)
);
CREATE INDEX dbmcp_sessions_key ON dbmcp_sessions (key_id, last_used_at);
CREATE INDEX dbmcp_sessions_idle ON dbmcp_sessions (last_used_at);

CREATE TABLE dbmcp_session_subscriptions (
    session_id TEXT NOT NULL REFERENCES dbmcp_sessions (id) ON DELETE CASCADE,
    uri        TEXT NOT NULL,
    stamp      TEXT,                      -- the resource's updated_at the client last heard of
    PRIMARY KEY (session_id, uri)
);

CREATE TABLE dbmcp_leases (
    name       TEXT PRIMARY KEY,          -- what is leased, e.g. 'memory.compact'
    holder     TEXT NOT NULL,             -- replica id (core/replica.h)
    expires_at TEXT NOT NULL              -- after it anyone may take the lease
);

ALTER TABLE dbmcp_mem_jobs ADD COLUMN claimed_by TEXT;    -- replica id of the claimer
ALTER TABLE dbmcp_mem_jobs ADD COLUMN claimed_until TEXT; -- the claim's expiry

-- Change channels. Nested in the catalog triggers of 0001: a registry edit
-- bumps dbmcp_catalog_version, which bumps 'catalog' here.
CREATE TRIGGER dbmcp_changes_catalog AFTER UPDATE ON dbmcp_catalog_version
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'catalog'; END;
CREATE TRIGGER dbmcp_changes_settings_ai AFTER INSERT ON dbmcp_settings
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'settings'; END;
CREATE TRIGGER dbmcp_changes_settings_au AFTER UPDATE ON dbmcp_settings
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'settings'; END;
CREATE TRIGGER dbmcp_changes_settings_ad AFTER DELETE ON dbmcp_settings
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'settings'; END;
-- Not on last_used_at: keys in use write it once a minute.
CREATE TRIGGER dbmcp_changes_keys_au AFTER UPDATE OF revoked_at ON dbmcp_api_keys
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'keys'; END;
CREATE TRIGGER dbmcp_changes_keys_ad AFTER DELETE ON dbmcp_api_keys
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'keys'; END;
-- Not on last_used_at or stream_until: they are written while a session is used.
CREATE TRIGGER dbmcp_changes_sessions_au AFTER UPDATE OF rev ON dbmcp_sessions
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'sessions'; END;
CREATE TRIGGER dbmcp_changes_sessions_ad AFTER DELETE ON dbmcp_sessions
BEGIN UPDATE dbmcp_changes SET version = version + 1 WHERE channel = 'sessions'; END;

-- Revoking a key ends its sessions, however it is revoked (CLI, admin UI,
-- plain SQL).
CREATE TRIGGER dbmcp_sessions_key_revoked AFTER UPDATE OF revoked_at ON dbmcp_api_keys
WHEN NEW.revoked_at IS NOT NULL
BEGIN DELETE FROM dbmcp_sessions WHERE key_id = NEW.id; END;
CREATE TRIGGER dbmcp_sessions_key_deleted AFTER DELETE ON dbmcp_api_keys
BEGIN DELETE FROM dbmcp_sessions WHERE key_id = OLD.id; END;
