-- fixture.sql — the user's data the hostile PostgreSQL cases run
-- against, and the secrets they must never see, loaded by
-- tests/cli/hostile_pg.sh as a superuser into a database `dbmcp init` made:
-- dbmcp's real tables live in the schema dbmcp, owned by dbmcp_owner (the
-- catalog connection's user, without CREATEROLE), and the query role
-- dbmcp_query exists (made from the statements init printed). Every secret
-- carries the marker TOPSECRET: rows in dbmcp's own tables, a large object,
-- a user mapping's password, and the SQL of another caller's running
-- query.
--
-- Roles: dbmcp_owner (hostile_pg.sh makes it; it owns the database and
-- the schema dbmcp), app_owner (owns the user's data), dbmcp_query (the
-- query role).

CREATE ROLE app_owner NOLOGIN;

-- Secrets in dbmcp's own tables, and a sequence of its own.
SET ROLE dbmcp_owner;
INSERT INTO dbmcp.dbmcp_principals (name) VALUES ('alice');
INSERT INTO dbmcp.dbmcp_api_keys (id, principal, secret_hash, interface)
VALUES ('k1', 'alice', 'TOPSECRET-hash-5d1f', 'default');
INSERT INTO dbmcp.dbmcp_settings (key, value, description)
VALUES ('test.secret', 'TOPSECRET-settings-77aa', 'hostile_pg.sh: a value agent SQL must never read');
INSERT INTO dbmcp.dbmcp_audit (call_id, ts, transport, method, status, duration_ms, sql_text)
VALUES ('c0', '2026-01-01T00:00:00.000Z', 'cli', 'tools/call', 'ok', 1,
        'SELECT ''TOPSECRET-audit-31c4''');
CREATE SEQUENCE dbmcp.dbmcp_audit_seq;
-- A view dbmcp's owner owns in public. hostile_pg.sh has init grant the
-- query role every table of public: the check must refuse this one.
CREATE VIEW public.v_owner_keys AS SELECT * FROM dbmcp.dbmcp_api_keys;
RESET ROLE;

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
