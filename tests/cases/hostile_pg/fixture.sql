-- fixture.sql — the database the hostile PostgreSQL cases run against,
-- created by tests/cli/hostile_pg.sh as a superuser in a fresh database
-- on a throw-away server. Every secret an agent must never see carries
-- the marker TOPSECRET: dbmcp's own tables (a stand-in for what its
-- migrations create in the schema dbmcp), a large object, a user
-- mapping's password, and the SQL of another caller's running query.
--
-- Roles: dbmcp_owner (the catalog connection, owns the schema dbmcp),
-- app_owner (owns the user's data), and dbmcp_query, the query role,
-- which hostile_pg.sh creates afterwards from store/pg_guard's script.

CREATE ROLE dbmcp_owner LOGIN;
CREATE ROLE app_owner NOLOGIN;

-- dbmcp's own schema and tables.
CREATE SCHEMA dbmcp AUTHORIZATION dbmcp_owner;
SET ROLE dbmcp_owner;
CREATE TABLE dbmcp.dbmcp_api_keys (id text PRIMARY KEY, principal text NOT NULL,
                                   secret_hash text NOT NULL);
INSERT INTO dbmcp.dbmcp_api_keys VALUES ('k1', 'alice', 'TOPSECRET-hash-5d1f');
CREATE TABLE dbmcp.dbmcp_settings (key text PRIMARY KEY, value text);
INSERT INTO dbmcp.dbmcp_settings VALUES ('llm.api_key', 'TOPSECRET-settings-77aa'),
                                        ('query.timeout_ms', '2000');
CREATE TABLE dbmcp.dbmcp_audit (call_id text, sql_text text);
INSERT INTO dbmcp.dbmcp_audit VALUES ('c0', 'SELECT ''TOPSECRET-audit-31c4''');
CREATE SEQUENCE dbmcp.dbmcp_audit_seq;
-- Its code is no secret: anyone reads function bodies in pg_proc.
CREATE FUNCTION dbmcp.dbmcp_now() RETURNS text LANGUAGE sql STABLE AS $$SELECT now()::text$$;
RESET ROLE;
-- A view dbmcp's owner owns in public, granted to no one.
CREATE VIEW public.v_owner_keys AS SELECT * FROM dbmcp.dbmcp_api_keys;
ALTER VIEW public.v_owner_keys OWNER TO dbmcp_owner;

-- The user's data.
GRANT CREATE ON SCHEMA public TO app_owner;
SET ROLE app_owner;
CREATE TABLE public.items (id int PRIMARY KEY, name text NOT NULL, price numeric(10, 2),
                           note text);
INSERT INTO public.items
SELECT i, 'item ' || i, i * 1.5, CASE i WHEN 3 THEN 'a|b' WHEN 4 THEN E'line1\nline2' END
FROM generate_series(1, 30) AS i;
CREATE TABLE public.people (id int PRIMARY KEY, name text, city text, "select" text,
                            "user" text);
INSERT INTO public.people VALUES (1, 'Ada', 'Zürich', 'x', 'ada'), (2, 'Kenji', '東京', 'y', 'kenji'),
                                 (3, 'Zoë', 'Köln', 'z', 'zoe');
CREATE TABLE public.docs (id int PRIMARY KEY, body text);
INSERT INTO public.docs VALUES (1, 'contract for sales in the north'),
                               (2, 'tariff agreement of the south');
CREATE SEQUENCE public.order_no;
SELECT nextval('public.order_no');
CREATE VIEW public.v_items AS SELECT id, name FROM public.items;
-- Writes that run as their owner: the read-only transaction still stops them.
CREATE FUNCTION public.bump() RETURNS int LANGUAGE sql SECURITY DEFINER
    AS $$INSERT INTO public.items VALUES (999, 'pwned', 0, NULL) RETURNING id$$;
CREATE PROCEDURE public.proc_write() LANGUAGE plpgsql SECURITY DEFINER
    AS $$BEGIN INSERT INTO public.items VALUES (998, 'pwned', 0, NULL); COMMIT; END$$;
CREATE FUNCTION public.run_sql(q text) RETURNS SETOF record LANGUAGE plpgsql
    AS $$BEGIN RETURN QUERY EXECUTE q; END$$;
-- A large object the query role may not read.
SELECT lo_from_bytea(424242, 'TOPSECRET-lo-9e2b');
RESET ROLE;

-- Views over dbmcp's tables that do not leak: one runs with the rights of
-- app_owner, who cannot read the schema dbmcp; one with the caller's.
CREATE VIEW public.v_secret AS SELECT * FROM dbmcp.dbmcp_api_keys;
ALTER VIEW public.v_secret OWNER TO app_owner;
CREATE VIEW public.v_secret_invoker WITH (security_invoker = true)
    AS SELECT * FROM dbmcp.dbmcp_api_keys;
ALTER VIEW public.v_secret_invoker OWNER TO dbmcp_owner;
GRANT SELECT ON public.v_secret_invoker TO PUBLIC;

-- Extensions a DBA may have installed: dblink (its functions are
-- executable by PUBLIC: the check refuses that until it is revoked),
-- pg_stat_statements (query texts of the role: the check warns), and a
-- foreign server with a password in a user mapping.
CREATE EXTENSION dblink;
CREATE EXTENSION pg_stat_statements;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '/nonexistent', dbname 'nowhere');
CREATE USER MAPPING FOR app_owner SERVER remote
    OPTIONS (user 'app', password 'TOPSECRET-mapping-0c1d');
