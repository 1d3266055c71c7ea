-- 0009_console.sql — the admin console; the SQLite file of the same name
-- says what each object is for. PostgreSQL 15 (contract: 0001_core.sql).
ALTER TABLE dbmcp_api_keys ADD COLUMN role text COLLATE "C" NOT NULL DEFAULT 'client'
    CHECK (role IN ('client', 'admin'));

CREATE TABLE dbmcp_console_sessions (
    id_hash    text COLLATE "C" PRIMARY KEY,
    key_id     text COLLATE "C" NOT NULL REFERENCES dbmcp_api_keys (id) ON DELETE CASCADE,
    principal  text COLLATE "C" NOT NULL,
    csrf_token text COLLATE "C" NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL
);
CREATE INDEX dbmcp_console_sessions_expiry ON dbmcp_console_sessions (expires_at);

ALTER TABLE dbmcp_audit ADD COLUMN change_json text COLLATE "C";
