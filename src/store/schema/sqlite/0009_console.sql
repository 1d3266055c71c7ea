-- 0009_console.sql — the admin console (docs/console.md).
--
--   dbmcp_api_keys.role      'client' (MCP, /v1/chat) or 'admin' (also the
--                            console and its API at /admin/api/v1/)
--   dbmcp_console_sessions   a console login: the cookie's secret is never
--                            stored, only its BLAKE2b hash, so a copy of the
--                            database opens no session. In the database so
--                            that every replica serves every login.
--   dbmcp_audit.change_json  an admin action's {"before": …, "after": …}
--
-- Times are UTC ISO-8601 text with milliseconds, compared as text.
ALTER TABLE dbmcp_api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'client'
    CHECK (role IN ('client', 'admin'));

CREATE TABLE dbmcp_console_sessions (
    id_hash    TEXT PRIMARY KEY,      -- hex BLAKE2b-256 of the cookie's value
    key_id     TEXT NOT NULL REFERENCES dbmcp_api_keys (id) ON DELETE CASCADE,
    principal  TEXT NOT NULL,         -- the admin key's principal, for the audit
    csrf_token TEXT NOT NULL,         -- sent back in X-CSRF-Token on every change
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL          -- no use after it; removed by later logins
);
CREATE INDEX dbmcp_console_sessions_expiry ON dbmcp_console_sessions (expires_at);

ALTER TABLE dbmcp_audit ADD COLUMN change_json TEXT;
