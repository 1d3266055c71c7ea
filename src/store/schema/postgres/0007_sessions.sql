-- 0007_sessions.sql — many replicas on one database, PostgreSQL 15: the
-- same tables, columns and counters as schema/sqlite/0007_sessions.sql
-- (see there for what each holds), under the contract of 0001_core.sql
-- (unqualified names, created in dbmcp's own schema; trigger functions
-- keep that search_path).
--
-- What PostgreSQL adds: every counter bump also sends a notification on
-- channel dbmcp_changes whose payload names the counter ('catalog',
-- 'settings', 'keys', 'sessions'). A replica LISTENs on a dedicated
-- connection and sleeps until one arrives (store/notify.c); the counters
-- stay, so a replica whose connection broke sees what it missed by
-- comparing them. Notifications are sent at commit and only then, folded
-- to one per payload and transaction.

CREATE TABLE dbmcp_changes (
    channel text COLLATE "C" PRIMARY KEY,
    version bigint NOT NULL DEFAULT 0
);
INSERT INTO dbmcp_changes (channel) VALUES ('catalog'), ('settings'), ('keys'), ('sessions');

CREATE TABLE dbmcp_sessions (
    id             text COLLATE "C" PRIMARY KEY,
    key_id         text COLLATE "C" NOT NULL,
    principal      text COLLATE "C" NOT NULL,
    interface      text COLLATE "C" NOT NULL,
    user_id        text COLLATE "C" NOT NULL,
    agent_id       text COLLATE "C" NOT NULL,
    transport      text COLLATE "C" NOT NULL,
    protocol       text COLLATE "C" NOT NULL,
    client_name    text COLLATE "C" NOT NULL DEFAULT '',
    client_version text COLLATE "C" NOT NULL DEFAULT '',
    client_caps    text COLLATE "C" CHECK (client_caps IS NULL OR dbmcp_json_valid(client_caps)),
    log_level      text COLLATE "C" NOT NULL DEFAULT 'info' CHECK (log_level IN ('debug', 'info',
                   'notice', 'warning', 'error', 'critical', 'alert', 'emergency')),
    initialized    integer NOT NULL DEFAULT 0 CHECK (initialized IN (0, 1)),
    rev            bigint NOT NULL DEFAULT 1,
    created_at     text COLLATE "C" NOT NULL,
    last_used_at   text COLLATE "C" NOT NULL,
    stream_until   text COLLATE "C"
);
CREATE INDEX dbmcp_sessions_key ON dbmcp_sessions (key_id, last_used_at);
CREATE INDEX dbmcp_sessions_idle ON dbmcp_sessions (last_used_at);

CREATE TABLE dbmcp_session_subscriptions (
    session_id text COLLATE "C" NOT NULL REFERENCES dbmcp_sessions (id) ON DELETE CASCADE,
    uri        text COLLATE "C" NOT NULL,
    stamp      text COLLATE "C",
    PRIMARY KEY (session_id, uri)
);

CREATE TABLE dbmcp_leases (
    name       text COLLATE "C" PRIMARY KEY,
    holder     text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL
);

ALTER TABLE dbmcp_mem_jobs ADD COLUMN claimed_by text COLLATE "C";
ALTER TABLE dbmcp_mem_jobs ADD COLUMN claimed_until text COLLATE "C";

-- Bump the counter TG_ARGV[0] and tell the listeners. Statement triggers
-- where a statement changes few rows or rarely runs (a reader compares
-- counters, so one bump per statement says as much as one per row); row
-- triggers on dbmcp_sessions, whose expiry DELETE runs every few seconds
-- on every replica and mostly removes nothing: a statement trigger would
-- wake every replica each time.
CREATE FUNCTION dbmcp_changes_signal() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
BEGIN
    UPDATE dbmcp_changes SET version = version + 1 WHERE channel = TG_ARGV[0];
    PERFORM pg_notify('dbmcp_changes', TG_ARGV[0]);
    RETURN NULL;
END
$$;

CREATE TRIGGER dbmcp_changes_catalog AFTER UPDATE ON dbmcp_catalog_version
    FOR EACH STATEMENT EXECUTE FUNCTION dbmcp_changes_signal('catalog');
CREATE TRIGGER dbmcp_changes_settings AFTER INSERT OR UPDATE OR DELETE ON dbmcp_settings
    FOR EACH STATEMENT EXECUTE FUNCTION dbmcp_changes_signal('settings');
CREATE TRIGGER dbmcp_changes_keys AFTER UPDATE OF revoked_at OR DELETE ON dbmcp_api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION dbmcp_changes_signal('keys');
CREATE TRIGGER dbmcp_changes_sessions AFTER UPDATE OF rev OR DELETE ON dbmcp_sessions
    FOR EACH ROW EXECUTE FUNCTION dbmcp_changes_signal('sessions');

-- Revoking or deleting a key ends its sessions.
CREATE FUNCTION dbmcp_sessions_end_of_key() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
BEGIN
    DELETE FROM dbmcp_sessions WHERE key_id = OLD.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER dbmcp_sessions_key_revoked AFTER UPDATE OF revoked_at ON dbmcp_api_keys
    FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION dbmcp_sessions_end_of_key();
CREATE TRIGGER dbmcp_sessions_key_deleted AFTER DELETE ON dbmcp_api_keys
    FOR EACH ROW EXECUTE FUNCTION dbmcp_sessions_end_of_key();
