/*
 * pg_guard.c — the query role, its check and the call wrapper on
 * PostgreSQL (pg_guard.h): the statements as text, and the few functions
 * that run them through store.h.
 *
 * Every name that goes into a statement here is either checked to be a
 * plain identifier (role, schemas) or quoted by quote_name (the
 * database), and every number is formatted from an int, so no text from
 * outside can change a statement's shape. The check itself is one SELECT
 * over the catalog with two bound parameters; it reads the ACLs
 * (aclexplode) rather than asking has_*_privilege for each grant, so a
 * finding can name the grant to revoke and its grantee (PUBLIC or the
 * role), and it skips what PostgreSQL grants PUBLIC on its own catalog
 * (UPDATE on pg_settings is SET underneath, undone by the call's
 * ROLLBACK).
 */

#include "store/pg_guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest PostgreSQL identifier, in bytes (NAMEDATALEN - 1). */
#define PG_GUARD_NAME_MAX 63

/* Role defaults when pg_guard_role leaves them at 0. */
#define PG_GUARD_ROLE_TIMEOUT_MS 30000
#define PG_GUARD_ROLE_TEMP_FILE_KB 1048576
/* Per-call defaults when pg_guard_call leaves them at 0. */
#define PG_GUARD_LOCK_TIMEOUT_MS 2000
#define PG_GUARD_IDLE_EXTRA_MS 5000
#define PG_GUARD_WORK_MEM_KB 16384
/* Longest call id or tool name shown in a comment or application_name. */
#define PG_GUARD_TAG_MAX 40

const char pg_guard_end_sql[] = "ROLLBACK TO SAVEPOINT dbmcp_call;\n"
                                "SELECT pg_catalog.pg_advisory_unlock_all();\n"
                                "DEALLOCATE ALL;\n"
                                "ROLLBACK";

const char pg_guard_check_sql[] =
    "WITH r AS (\n"
    "    SELECT oid, rolname, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,\n"
    "           rolcanlogin\n"
    "    FROM pg_catalog.pg_roles WHERE rolname = :role\n"
    "), s AS (\n"
    "    SELECT oid, nspname FROM pg_catalog.pg_namespace WHERE nspname = :schema\n"
    "), grantee AS (\n"
    "    SELECT 0::oid AS oid, 'PUBLIC' AS name UNION ALL SELECT oid, quote_ident(rolname) FROM r\n"
    "), reads AS (\n"
    "    SELECT DISTINCT rw.ev_class AS view_oid, d.refobjid AS rel_oid\n"
    "    FROM pg_catalog.pg_rewrite rw\n"
    "    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass\n"
    "     AND d.objid = rw.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass\n"
    "     AND d.refobjid <> rw.ev_class\n"
    "), leaks AS (\n"
    "    WITH RECURSIVE l(view_oid) AS (\n"
    "        SELECT rd.view_oid\n"
    "        FROM reads rd\n"
    "        JOIN pg_catalog.pg_class t ON t.oid = rd.rel_oid\n"
    "        JOIN pg_catalog.pg_class v ON v.oid = rd.view_oid\n"
    "        JOIN s ON t.relnamespace = s.oid\n"
    "        WHERE v.relnamespace <> s.oid\n"
    "          AND (v.relkind = 'm'\n"
    "               OR ((pg_catalog.has_table_privilege(v.relowner, t.oid, 'SELECT')\n"
    "                    OR pg_catalog.has_any_column_privilege(v.relowner, t.oid, 'SELECT'))\n"
    "                   AND NOT coalesce(v.reloptions && ARRAY['security_invoker=true',\n"
    "                       'security_invoker=on', 'security_invoker=1', 'security_invoker=yes'],\n"
    "                       false)))\n"
    "        UNION\n"
    "        SELECT rd.view_oid FROM reads rd JOIN l ON l.view_oid = rd.rel_oid\n"
    "    )\n"
    "    SELECT view_oid FROM l\n"
    "), reach(re) AS (\n"
    "    SELECT '^(dblink.*|pg_read_file|pg_read_binary_file|pg_stat_file|pg_ls_.*|'\n"
    "           'pg_file_(write|rename|unlink|sync)|pg_logdir_ls|lo_import|lo_export)$'\n"
    "), here AS (\n"
    "    SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()\n"
    "), findings(severity, code, object, fix) AS (\n"
    "    SELECT 'refuse', 'missing', format('role %s', :role),\n"
    "           'create it: dbmcp init prints the statements'\n"
    "    WHERE NOT EXISTS (SELECT 1 FROM r)\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'login', format('role %s cannot log in', rolname),\n"
    "           format('ALTER ROLE %I LOGIN;', rolname) FROM r WHERE NOT rolcanlogin\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', a.attr, format('role %s has %s', r.rolname, upper(a.attr)),\n"
    "           format('ALTER ROLE %I NO%s;', r.rolname, upper(a.attr))\n"
    "    FROM r, LATERAL (VALUES ('superuser', r.rolsuper), ('createrole', r.rolcreaterole),\n"
    "                            ('createdb', r.rolcreatedb), ('replication', r.rolreplication),\n"
    "                            ('bypassrls', r.rolbypassrls)) a(attr, held)\n"
    "    WHERE a.held\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'member', format('member of role %s', g.rolname),\n"
    "           format('REVOKE %I FROM %I;', g.rolname, r.rolname)\n"
    "    FROM r JOIN pg_catalog.pg_auth_members m ON m.member = r.oid\n"
    "    JOIN pg_catalog.pg_roles g ON g.oid = m.roleid\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'owner',\n"
    "           CASE WHEN d.dbid IN (0, (SELECT oid FROM here))\n"
    "                THEN 'owns ' || pg_catalog.pg_describe_object(d.classid, d.objid,\n"
    "                                                                  d.objsubid)\n"
    "                ELSE 'owns objects in database ' || (SELECT quote_ident(datname)\n"
    "                     FROM pg_catalog.pg_database WHERE oid = d.dbid) END,\n"
    "           format('REASSIGN OWNED BY %I TO CURRENT_USER;', r.rolname)\n"
    "    FROM r JOIN pg_catalog.pg_shdepend d\n"
    "      ON d.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass AND d.refobjid = r.oid\n"
    "     AND d.deptype = 'o'\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'write',\n"
    "           format('%s on %s %s', a.privilege_type,\n"
    "                  CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'v' THEN 'view'\n"
    "                       WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table'\n"
    "                       ELSE 'table' END, c.oid::pg_catalog.regclass),\n"
    "           format('REVOKE %s ON %s %s FROM %s;', a.privilege_type,\n"
    "                  CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,\n"
    "                  c.oid::pg_catalog.regclass, g.name)\n"
    "    FROM pg_catalog.pg_class c CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE c.relnamespace NOT IN ('pg_catalog'::pg_catalog.regnamespace,\n"
    "                                 'information_schema'::pg_catalog.regnamespace)\n"
    "      AND ((c.relkind IN ('r', 'p', 'v', 'm', 'f')\n"
    "            AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES',\n"
    "                                     'TRIGGER'))\n"
    "           OR (c.relkind = 'S' AND a.privilege_type IN ('UPDATE', 'USAGE')))\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'write',\n"
    "           format('%s on column %s of %s', a.privilege_type, quote_ident(att.attname),\n"
    "                  c.oid::pg_catalog.regclass),\n"
    "           format('REVOKE %s (%I) ON TABLE %s FROM %s;', a.privilege_type, att.attname,\n"
    "                  c.oid::pg_catalog.regclass, g.name)\n"
    "    FROM pg_catalog.pg_attribute att JOIN pg_catalog.pg_class c ON c.oid = att.attrelid\n"
    "    CROSS JOIN LATERAL pg_catalog.aclexplode(att.attacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE a.privilege_type IN ('INSERT', 'UPDATE', 'REFERENCES')\n"
    "      AND c.relnamespace NOT IN ('pg_catalog'::pg_catalog.regnamespace,\n"
    "                                 'information_schema'::pg_catalog.regnamespace)\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'create', format('CREATE on schema %s', quote_ident(n.nspname)),\n"
    "           format('REVOKE CREATE ON SCHEMA %I FROM %s;', n.nspname, g.name)\n"
    "    FROM pg_catalog.pg_namespace n CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE a.privilege_type = 'CREATE' AND n.nspname <> :schema\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'create', format('CREATE on database %s', quote_ident(db.datname)),\n"
    "           format('REVOKE CREATE ON DATABASE %I FROM %s;', db.datname, g.name)\n"
    "    FROM pg_catalog.pg_database db CROSS JOIN LATERAL pg_catalog.aclexplode(db.datacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE db.datname = pg_catalog.current_database() AND a.privilege_type = 'CREATE'\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'create', format('CREATE on tablespace %s', quote_ident(t.spcname)),\n"
    "           format('REVOKE CREATE ON TABLESPACE %I FROM %s;', t.spcname, g.name)\n"
    "    FROM pg_catalog.pg_tablespace t CROSS JOIN LATERAL pg_catalog.aclexplode(t.spcacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE a.privilege_type = 'CREATE'\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'write', format('UPDATE on large object %s', lo.oid),\n"
    "           format('REVOKE UPDATE ON LARGE OBJECT %s FROM %s;', lo.oid, g.name)\n"
    "    FROM pg_catalog.pg_largeobject_metadata lo\n"
    "    CROSS JOIN LATERAL pg_catalog.aclexplode(lo.lomacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE a.privilege_type = 'UPDATE'\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'write', 'every large object (lo_compat_privileges is on)',\n"
    "           'ALTER SYSTEM SET lo_compat_privileges = off; SELECT pg_reload_conf();'\n"
    "    WHERE pg_catalog.current_setting('lo_compat_privileges') = 'on'\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'parameter', format('%s on parameter %s', a.privilege_type, p.parname),\n"
    "           format('REVOKE %s ON PARAMETER %s FROM %s;', a.privilege_type, p.parname, g.name)\n"
    "    FROM pg_catalog.pg_parameter_acl p CROSS JOIN LATERAL pg_catalog.aclexplode(p.paracl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'default',\n"
    "           format('%s on future %s of %s%s', a.privilege_type,\n"
    "                  CASE dp.defaclobjtype WHEN 'r' THEN 'tables' WHEN 'S' THEN 'sequences'\n"
    "                       ELSE 'schemas' END,\n"
    "                  quote_ident(pg_catalog.pg_get_userbyid(dp.defaclrole)),\n"
    "                  CASE WHEN dp.defaclnamespace <> 0\n"
    "                       THEN ' in schema ' || quote_ident(n.nspname) ELSE '' END),\n"
    "           format('ALTER DEFAULT PRIVILEGES FOR ROLE %I%s REVOKE %s ON %s FROM %s;',\n"
    "                  pg_catalog.pg_get_userbyid(dp.defaclrole),\n"
    "                  CASE WHEN dp.defaclnamespace <> 0\n"
    "                       THEN ' IN SCHEMA ' || quote_ident(n.nspname) ELSE '' END,\n"
    "                  a.privilege_type,\n"
    "                  CASE dp.defaclobjtype WHEN 'r' THEN 'TABLES' WHEN 'S' THEN 'SEQUENCES'\n"
    "                       ELSE 'SCHEMAS' END, g.name)\n"
    "    FROM pg_catalog.pg_default_acl dp\n"
    "    LEFT JOIN pg_catalog.pg_namespace n ON n.oid = dp.defaclnamespace\n"
    "    CROSS JOIN LATERAL pg_catalog.aclexplode(dp.defaclacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "    WHERE (dp.defaclobjtype = 'r'\n"
    "           AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES',\n"
    "                                    'TRIGGER'))\n"
    "       OR (dp.defaclobjtype = 'S' AND a.privilege_type IN ('UPDATE', 'USAGE'))\n"
    "       OR (dp.defaclobjtype = 'n' AND a.privilege_type = 'CREATE')\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'internal',\n"
    "           format('%s on schema %s', a.privilege_type, quote_ident(s.nspname)),\n"
    "           format('REVOKE ALL ON SCHEMA %I FROM %s;', s.nspname, g.name)\n"
    "    FROM s CROSS JOIN LATERAL pg_catalog.aclexplode(\n"
    "        (SELECT nspacl FROM pg_catalog.pg_namespace WHERE oid = s.oid)) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'internal',\n"
    "           format('%s on %s', a.privilege_type, c.oid::pg_catalog.regclass),\n"
    "           format('REVOKE ALL ON %s FROM %s;', c.oid::pg_catalog.regclass, g.name)\n"
    "    FROM pg_catalog.pg_class c JOIN s ON c.relnamespace = s.oid\n"
    "    CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a\n"
    "    JOIN grantee g ON g.oid = a.grantee\n"
    "  UNION ALL\n"
    "    SELECT 'refuse', 'view',\n"
    "           format('SELECT on %s, which reads %s with the rights of %s',\n"
    "                  v.oid::pg_catalog.regclass, quote_ident(s.nspname),\n"
    "                  quote_ident(pg_catalog.pg_get_userbyid(v.relowner))),\n"
    "           format('REVOKE SELECT ON %s FROM PUBLIC, %I;', v.oid::pg_catalog.regclass,\n"
    "                  r.rolname)\n"
    "    FROM leaks JOIN pg_catalog.pg_class v ON v.oid = leaks.view_oid, r, s\n"
    "    WHERE pg_catalog.has_table_privilege(r.oid, v.oid, 'SELECT')\n"
    "       OR pg_catalog.has_any_column_privilege(r.oid, v.oid, 'SELECT')\n"
    "  UNION ALL\n"
    "    SELECT CASE WHEN s.oid IS NOT NULL\n"
    "                 AND pg_catalog.has_schema_privilege(p.proowner, s.oid, 'USAGE')\n"
    "                THEN 'refuse' ELSE 'warn' END,\n"
    "           'definer',\n"
    "           format('EXECUTE on %s, which runs as %s', p.oid::pg_catalog.regprocedure,\n"
    "                  quote_ident(pg_catalog.pg_get_userbyid(p.proowner))),\n"
    "           format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC, %I;',\n"
    "                  p.oid::pg_catalog.regprocedure, r.rolname)\n"
    "    FROM pg_catalog.pg_proc p CROSS JOIN r LEFT JOIN s ON true\n"
    "    WHERE p.prosecdef AND p.proowner <> r.oid\n"
    "      AND p.pronamespace NOT IN ('pg_catalog'::pg_catalog.regnamespace,\n"
    "                                 'information_schema'::pg_catalog.regnamespace)\n"
    "      AND pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')\n"
    "  UNION ALL\n"
    "    SELECT CASE WHEN f.reach THEN 'refuse' ELSE 'warn' END, 'function',\n"
    "           format('EXECUTE on %s: %s', string_agg(f.sig, ', ' ORDER BY f.sig), f.why),\n"
    "           format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC, %I;',\n"
    "                  string_agg(f.sig, ', ' ORDER BY f.sig), f.rolname)\n"
    "    FROM (\n"
    "        SELECT p.oid::pg_catalog.regprocedure::text AS sig, r.rolname,\n"
    "               p.proname ~ (SELECT re FROM reach) AS reach,\n"
    "               CASE WHEN p.proname ~ '^dblink' THEN 'it connects to other servers'\n"
    "                    WHEN p.proname ~ '^(lo_import|lo_export)'\n"
    "                    THEN 'it reads and writes the server''s files'\n"
    "                    WHEN p.proname ~ '^pg_(read|ls|stat_file|file|logdir)'\n"
    "                    THEN 'it reads and writes the server''s files'\n"
    "                    WHEN p.proname IN ('pg_cancel_backend', 'pg_terminate_backend')\n"
    "                    THEN 'a query can cancel or end other calls of the same role'\n"
    "                    ELSE 'it writes even in a read-only transaction' END AS why\n"
    "        FROM pg_catalog.pg_proc p, r\n"
    "        WHERE (p.proname ~ (SELECT re FROM reach)\n"
    "               OR p.proname IN ('pg_cancel_backend', 'pg_terminate_backend', 'txid_current',\n"
    "                                'pg_current_xact_id', 'pg_logical_emit_message'))\n"
    "          AND pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')\n"
    "    ) f\n"
    "    GROUP BY f.reach, f.why, f.rolname\n"
    "  UNION ALL\n"
    "    SELECT 'warn', 'statistics',\n"
    "           format('SELECT on %s: query texts of every call of the role',\n"
    "                  c.oid::pg_catalog.regclass),\n"
    "           format('REVOKE SELECT ON %s FROM PUBLIC, %I;', c.oid::pg_catalog.regclass,\n"
    "                  r.rolname)\n"
    "    FROM pg_catalog.pg_class c, r\n"
    "    WHERE c.relname = 'pg_stat_statements'\n"
    "      AND pg_catalog.has_table_privilege(r.oid, c.oid, 'SELECT')\n"
    "  UNION ALL\n"
    "    SELECT 'warn', 'setting', format('role %s has no default %s', r.rolname, d.setting),\n"
    "           format('ALTER ROLE %I SET %s;', r.rolname, d.setting)\n"
    "    FROM r, (VALUES ('track_activities', 'track_activities = off'),\n"
    "                    ('temp_file_limit', 'temp_file_limit = ''1GB'''),\n"
    "                    ('default_transaction_read_only', 'default_transaction_read_only = on')\n"
    "            ) d(name, setting)\n"
    "    WHERE NOT EXISTS (\n"
    "        SELECT 1 FROM pg_catalog.pg_db_role_setting rs, unnest(rs.setconfig) c\n"
    "        WHERE rs.setrole = r.oid AND rs.setdatabase IN (0, (SELECT oid FROM here))\n"
    "          AND split_part(c, '=', 1) = d.name)\n"
    "  UNION ALL\n"
    "    SELECT 'warn', 'setting', 'prepared transactions are enabled',\n"
    "           'ALTER SYSTEM SET max_prepared_transactions = 0; -- then restart'\n"
    "    WHERE pg_catalog.current_setting('max_prepared_transactions')::int > 0\n"
    ")\n"
    "SELECT severity, code, object, fix FROM findings\n"
    "ORDER BY severity = 'warn',\n"
    "         code NOT IN ('missing', 'login', 'superuser', 'createrole', 'createdb', "
    "'replication',\n"
    "                      'bypassrls', 'member'),\n"
    "         code, object\n";

/* ------------------------------------------------------------------------ */
/* names                                                                     */

/* A plain lower-case identifier PostgreSQL reads as itself unquoted. */
static int plain_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > PG_GUARD_NAME_MAX || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return 0;
    return 1;
}

/* "schema.table", both plain names, the schema not dbmcp's (schema). */
static int table_name_ok(const char *name, const char *schema)
{
    const char *dot = name ? strchr(name, '.') : NULL;
    char left[PG_GUARD_NAME_MAX + 1];
    if (!dot || (size_t)(dot - name) > PG_GUARD_NAME_MAX)
        return 0;
    memcpy(left, name, (size_t)(dot - name));
    left[dot - name] = '\0';
    return plain_name(left) && plain_name(dot + 1) && strcmp(left, schema) != 0;
}

/* name as a quoted identifier ("a""b"), into out; 0 when it does not fit
 * or is empty. */
static int quote_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    if (!name || !*name || size < 3)
        return 0;
    out[n++] = '"';
    for (const char *p = name; *p; p++) {
        if (n + 3 >= size)
            return 0;
        if (*p == '"')
            out[n++] = '"';
        out[n++] = *p;
    }
    out[n++] = '"';
    out[n] = '\0';
    return 1;
}

/* A call id or tool name for a comment and application_name: letters,
 * digits and . _ - : only, others '_', at most PG_GUARD_TAG_MAX bytes;
 * "-" when empty. */
static void tag_value(const char *value, char out[PG_GUARD_TAG_MAX + 1])
{
    size_t n = 0;
    for (const char *p = value ? value : ""; *p && n < PG_GUARD_TAG_MAX; p++) {
        char c = *p;
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == ':';
        out[n++] = plain ? c : '_';
    }
    if (n == 0)
        out[n++] = '-';
    out[n] = '\0';
}

/* ------------------------------------------------------------------------ */
/* the query role                                                            */

/* Who may run a statement of the role script. */
typedef enum role_need {
    NEED_CREATEROLE, /* a role with CREATEROLE (or a superuser) */
    NEED_SUPERUSER,  /* a superuser: parameters only superusers may set */
    NEED_OWNER       /* the owner of what is granted (the database, the schemas) */
} role_need;

/* Up to this many statements in the script. */
#define ROLE_STATEMENTS_MAX 64

typedef struct role_statements {
    char *sql[ROLE_STATEMENTS_MAX]; /* each malloc'd */
    role_need need[ROLE_STATEMENTS_MAX];
    size_t count;
    int failed; /* out of memory or room */
} role_statements;

static void add_statement(role_statements *rs, role_need need, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_statement(role_statements *rs, role_need need, const char *fmt, ...)
{
    if (rs->failed || rs->count >= ROLE_STATEMENTS_MAX) {
        rs->failed = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *sql = NULL;
    int n = vasprintf(&sql, fmt, ap);
    va_end(ap);
    if (n < 0) {
        rs->failed = 1;
        return;
    }
    rs->sql[rs->count] = sql;
    rs->need[rs->count++] = need;
}

static void role_statements_free(role_statements *rs)
{
    for (size_t i = 0; i < rs->count; i++)
        free(rs->sql[i]);
    rs->count = 0;
}

static const char *const default_data_schemas[] = {"public", NULL};

/* The statements of the role script for r, in order. 0, or DBMCP_EINVAL
 * (err says which name) or DBMCP_ENOMEM. */
static int role_statements_build(const pg_guard_role *r, role_statements *rs, dbmcp_error *err)
{
    memset(rs, 0, sizeof *rs);
    const char *role = r && r->role ? r->role : PG_GUARD_ROLE_DEFAULT;
    const char *schema = r && r->schema ? r->schema : PG_GUARD_SCHEMA_DEFAULT;
    const char *const *data = r && r->data_schemas ? r->data_schemas : default_data_schemas;
    char database[2 * PG_GUARD_NAME_MAX + 3];
    if (!plain_name(role) || !plain_name(schema))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "the query role and dbmcp's schema must be plain lower-case names "
                               "(letters, digits, '_'; at most 63 bytes): \"%.63s\", \"%.63s\"",
                               role, schema);
    for (size_t i = 0; data[i]; i++)
        if (!plain_name(data[i]) || strcmp(data[i], schema) == 0)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "a schema the query role reads must be a plain lower-case "
                                   "name other than dbmcp's own: \"%.63s\"",
                                   data[i]);
    for (size_t i = 0; r && r->data_tables && r->data_tables[i]; i++)
        if (!table_name_ok(r->data_tables[i], schema))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "a table the query role reads must be named schema.table, "
                                   "plain lower-case names, outside dbmcp's schema: \"%.130s\"",
                                   r->data_tables[i]);
    if (!r || !quote_name(r->database, database, sizeof database) ||
        strlen(r->database) > PG_GUARD_NAME_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "the query role needs the database's name");
    int limit = r->connection_limit > 0 ? r->connection_limit : -1;
    int timeout = r->statement_timeout_ms > 0 ? r->statement_timeout_ms : PG_GUARD_ROLE_TIMEOUT_MS;
    int temp_kb = r->temp_file_limit_kb > 0 ? r->temp_file_limit_kb : PG_GUARD_ROLE_TEMP_FILE_KB;

    /* A DO block: CREATE ROLE has no IF NOT EXISTS. */
    add_statement(rs, NEED_CREATEROLE,
                  "DO $dbmcp$ BEGIN CREATE ROLE %s LOGIN; "
                  "EXCEPTION WHEN duplicate_object THEN NULL; END $dbmcp$",
                  role);
    /* NOSUPERUSER, NOREPLICATION and NOBYPASSRLS are the defaults of
     * CREATE ROLE, and only a superuser may name them: the check refuses
     * a role that has them. */
    add_statement(rs, NEED_CREATEROLE,
                  "ALTER ROLE %s WITH LOGIN NOCREATEDB NOCREATEROLE NOINHERIT CONNECTION LIMIT %d",
                  role, limit);
    add_statement(rs, NEED_CREATEROLE, "ALTER ROLE %s SET default_transaction_read_only = on",
                  role);
    add_statement(rs, NEED_CREATEROLE, "ALTER ROLE %s SET statement_timeout = %d", role, timeout);
    add_statement(rs, NEED_CREATEROLE, "ALTER ROLE %s SET idle_in_transaction_session_timeout = %d",
                  role, timeout + PG_GUARD_IDLE_EXTRA_MS);
    add_statement(rs, NEED_CREATEROLE, "ALTER ROLE %s SET work_mem = '%dkB'", role,
                  PG_GUARD_WORK_MEM_KB);
    /* Superuser-only parameters: a call cannot SET LOCAL them, and the
     * role cannot undo a default it may not set. */
    add_statement(rs, NEED_SUPERUSER, "ALTER ROLE %s SET temp_file_limit = '%dkB'", role, temp_kb);
    add_statement(rs, NEED_SUPERUSER, "ALTER ROLE %s SET track_activities = off", role);
    add_statement(rs, NEED_OWNER, "GRANT CONNECT ON DATABASE %s TO %s", database, role);
    add_statement(rs, NEED_OWNER, "REVOKE ALL ON SCHEMA %s FROM PUBLIC, %s", schema, role);
    add_statement(rs, NEED_OWNER, "REVOKE ALL ON ALL TABLES IN SCHEMA %s FROM PUBLIC, %s", schema,
                  role);
    for (size_t i = 0; data[i]; i++) {
        add_statement(rs, NEED_OWNER, "GRANT USAGE ON SCHEMA %s TO %s", data[i], role);
        add_statement(rs, NEED_OWNER, "GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s", data[i],
                      role);
        add_statement(rs, NEED_OWNER,
                      "ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT SELECT ON TABLES TO %s", data[i],
                      role);
    }
    for (size_t i = 0; r->data_tables && r->data_tables[i]; i++) {
        const char *table = r->data_tables[i];
        int schema_len = (int)(strchr(table, '.') - table);
        /* USAGE once per schema, before its first table. */
        int seen = 0;
        for (size_t k = 0; data[k] && !seen; k++)
            seen = strncmp(data[k], table, (size_t)schema_len) == 0 && !data[k][schema_len];
        for (size_t k = 0; k < i && !seen; k++)
            seen = strncmp(r->data_tables[k], table, (size_t)schema_len + 1) == 0;
        if (!seen)
            add_statement(rs, NEED_OWNER, "GRANT USAGE ON SCHEMA %.*s TO %s", schema_len, table,
                          role);
        add_statement(rs, NEED_OWNER, "GRANT SELECT ON %s TO %s", table, role);
    }
    if (rs->failed) {
        role_statements_free(rs);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory building the role statements");
    }
    return 0;
}

static const char *const need_heading[] = {
    "-- As a role with CREATEROLE: the role, its attributes and session defaults.\n",
    "-- As a superuser: defaults only a superuser may set (temp_file_limit bounds the\n"
    "-- temporary files of one session; track_activities = off keeps one call's SQL\n"
    "-- out of pg_stat_activity, where other calls of the same role would read it).\n",
    "-- As the owner of the database, of dbmcp's schema and of the data: what the role\n"
    "-- may read. ALTER DEFAULT PRIVILEGES covers tables its runner creates later; run\n"
    "-- it as each role that creates tables there.\n",
};

/* The statements of rs whose need is in `needs` (a bit per role_need) as
 * a script; NULL when none or out of memory. */
static char *role_script(const role_statements *rs, unsigned needs, const char *header,
                         const char *role)
{
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    if (!f)
        return NULL;
    int any = 0;
    if (header)
        fputs(header, f);
    for (int need = NEED_CREATEROLE; need <= NEED_OWNER; need++) {
        if (!(needs & (1u << need)))
            continue;
        int heading = 0;
        for (size_t i = 0; i < rs->count; i++) {
            if (rs->need[i] != (role_need)need)
                continue;
            if (!heading)
                fprintf(f, "%s%s", any ? "\n" : "", need_heading[need]);
            heading = any = 1;
            fprintf(f, "%s;\n", rs->sql[i]);
        }
        if (need == NEED_CREATEROLE && heading)
            fprintf(f,
                    "-- Its password, hashed by psql before it is sent (then put it in the\n"
                    "-- query connection's URL or DBMCP_QUERY_PASSWORD):\n"
                    "--   \\password %s\n",
                    role);
    }
    if (fclose(f) != 0 || !any) {
        free(out);
        return NULL;
    }
    return out;
}

char *pg_guard_role_script(const pg_guard_role *r)
{
    return pg_guard_role_script_parts(r, PG_GUARD_PART_ALL);
}

char *pg_guard_role_script_parts(const pg_guard_role *r, unsigned parts)
{
    role_statements rs;
    dbmcp_error err;
    if (role_statements_build(r, &rs, &err) != 0)
        return NULL;
    /* PG_GUARD_PART_* are the bits of role_need in order. */
    char *out = role_script(&rs, parts & PG_GUARD_PART_ALL,
                            "-- dbmcp's query role: agent SQL logs in as this role.\n\n",
                            r->role ? r->role : PG_GUARD_ROLE_DEFAULT);
    role_statements_free(&rs);
    return out;
}

int pg_guard_role_exists(store *db, const char *role, int *exists, dbmcp_error *err)
{
    *exists = 0;
    store_stmt *st = NULL;
    int rc = store_prepare(db, "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = :role", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":role", role ? role : PG_GUARD_ROLE_DEFAULT);
    rc = store_step(st, err);
    *exists = rc == STORE_ROW;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int pg_guard_role_rights(store *db, int *can_create_role, int *superuser, dbmcp_error *err)
{
    store_stmt *st = NULL;
    *can_create_role = *superuser = 0;
    int rc = store_prepare(db,
                           "SELECT rolsuper::int, rolcreaterole::int FROM pg_catalog.pg_roles "
                           "WHERE rolname = current_user",
                           &st, err);
    if (rc)
        return rc;
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *superuser = (int)store_column_int(st, 0);
        *can_create_role = *superuser || store_column_int(st, 1);
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ESTORE, "the current user is not in pg_roles");
    }
    store_finalize(st);
    return rc;
}

/* A SCRAM-SHA-256 verifier as PostgreSQL stores one:
 * SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey> in base64. A
 * text of any other shape would be taken for a clear-text password. */
static int scram_verifier(const char *v)
{
    static const char prefix[] = "SCRAM-SHA-256$";
    if (!v || strncmp(v, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *p = v + sizeof prefix - 1;
    size_t digits = strspn(p, "0123456789");
    if (digits == 0 || p[digits] != ':')
        return 0;
    p += digits + 1;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
    for (int part = 0; part < 3; part++) {
        size_t n = strspn(p, b64);
        char want = part == 0 ? '$' : part == 1 ? ':' : '\0';
        if (n == 0 || p[n] != want)
            return 0;
        p += n + (want ? 1 : 0);
    }
    return 1;
}

int pg_guard_role_apply(store *db, const pg_guard_role *r, const char *password_verifier,
                        char **pending, dbmcp_error *err)
{
    if (pending)
        *pending = NULL;
    if (password_verifier && !scram_verifier(password_verifier))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "the query role's password must be given as a SCRAM-SHA-256 "
                               "verifier, never as clear text");
    int can_create = 0, superuser = 0, exists = 0;
    const char *role = r && r->role ? r->role : PG_GUARD_ROLE_DEFAULT;
    int rc = pg_guard_role_rights(db, &can_create, &superuser, err);
    if (!rc)
        rc = pg_guard_role_exists(db, role, &exists, err);
    if (rc)
        return rc;
    if (!can_create && !exists)
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "the current user may not create roles (it lacks CREATEROLE): "
                               "run the statements dbmcp init prints as a user who may");
    if (!can_create && password_verifier)
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "the current user may not set the password of role %s (it lacks "
                               "CREATEROLE)",
                               role);
    role_statements rs;
    if ((rc = role_statements_build(r, &rs, err)) != 0)
        return rc;
    role_statements left = {0};
    for (size_t i = 0; i < rs.count && !rc; i++) {
        if (!can_create && rs.need[i] != NEED_OWNER)
            continue; /* the role is someone else's to shape */
        if (rs.need[i] == NEED_SUPERUSER && !superuser) {
            add_statement(&left, rs.need[i], "%s", rs.sql[i]);
            continue;
        }
        dbmcp_error ignored;
        if (rs.need[i] == NEED_OWNER && store_exec(db, rs.sql[i], &ignored) != 0) {
            add_statement(&left, rs.need[i], "%s", rs.sql[i]);
            continue;
        }
        if (rs.need[i] != NEED_OWNER)
            rc = store_exec(db, rs.sql[i], err);
    }
    if (!rc && password_verifier) {
        char *sql = NULL;
        /* The verifier's characters (base64, digits, '$', ':', '-') need
         * no escaping inside quotes. */
        if (asprintf(&sql, "ALTER ROLE %s PASSWORD '%s'", role, password_verifier) < 0)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        else
            rc = store_exec(db, sql, err);
        free(sql);
    }
    if (!rc && pending && left.count > 0) {
        *pending = role_script(&left, 0x7,
                               "-- dbmcp's query role: what is left for a superuser or the "
                               "owner to run.\n\n",
                               role);
        if (!*pending || left.failed)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    role_statements_free(&left);
    role_statements_free(&rs);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* the check                                                                 */

int pg_guard_check(store *db, const char *role, const char *schema, pg_guard_report_fn report,
                   void *arg, int *refusals, dbmcp_error *err)
{
    role = role ? role : PG_GUARD_ROLE_DEFAULT;
    schema = schema ? schema : PG_GUARD_SCHEMA_DEFAULT;
    if (refusals)
        *refusals = 0;
    store_stmt *st = NULL;
    int rc = store_prepare(db, pg_guard_check_sql, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":role", role);
    store_bind_text(st, ":schema", schema);
    int refused = 0;
    dbmcp_error first;
    dbmcp_error_clear(&first);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *severity = store_column_text(st, 0);
        pg_guard_finding f = {
            severity && strcmp(severity, "refuse") == 0 ? PG_GUARD_REFUSE : PG_GUARD_WARN,
            store_column_text(st, 1), store_column_text(st, 2), store_column_text(st, 3)};
        if (!f.code || !f.object || !f.fix)
            continue;
        if (f.severity == PG_GUARD_REFUSE && refused++ == 0)
            dbmcp_error_set(&first, DBMCP_EDENIED,
                            "the query role %s may not run agent SQL: %s; fix: %s", role, f.object,
                            f.fix);
        if (report)
            report(&f, arg);
    }
    store_finalize(st);
    if (rc < 0)
        return rc;
    if (refusals)
        *refusals = refused;
    if (refused) {
        *err = first;
        return DBMCP_EDENIED;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* the call wrapper                                                          */

/* A call's limits and tags, defaults applied. */
typedef struct call_values {
    int timeout, lock, idle, work_mem;
    char call_id[PG_GUARD_TAG_MAX + 1], tool[PG_GUARD_TAG_MAX + 1];
} call_values;

static int call_values_of(const pg_guard_call *c, call_values *v, dbmcp_error *err)
{
    if (c->statement_timeout_ms <= 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "a call on PostgreSQL needs a time limit");
    int timeout = c->statement_timeout_ms;
    v->timeout = timeout;
    v->lock = c->lock_timeout_ms > 0               ? c->lock_timeout_ms
              : timeout < PG_GUARD_LOCK_TIMEOUT_MS ? timeout
                                                   : PG_GUARD_LOCK_TIMEOUT_MS;
    v->idle = c->idle_timeout_ms > 0                          ? c->idle_timeout_ms
              : timeout > 0x7fffffff - PG_GUARD_IDLE_EXTRA_MS ? 0x7fffffff
                                                              : timeout + PG_GUARD_IDLE_EXTRA_MS;
    v->work_mem = c->work_mem_kb > 0 ? c->work_mem_kb : PG_GUARD_WORK_MEM_KB;
    tag_value(c->call_id, v->call_id);
    tag_value(c->tool, v->tool);
    return 0;
}

int pg_guard_begin_sql(const pg_guard_call *c, char *buf, size_t size, dbmcp_error *err)
{
    call_values v;
    int rc = call_values_of(c, &v, err);
    if (rc)
        return rc;
    int n = snprintf(buf, size,
                     "/* dbmcp call_id=%s tool=%s */ BEGIN READ ONLY;\n"
                     "SET LOCAL statement_timeout = %d;\n"
                     "SET LOCAL lock_timeout = %d;\n"
                     "SET LOCAL idle_in_transaction_session_timeout = %d;\n"
                     "SET LOCAL work_mem = '%dkB';\n"
                     "SET LOCAL max_parallel_workers_per_gather = 0;\n"
                     "SET LOCAL jit = off;\n"
                     "SET LOCAL standard_conforming_strings = on;\n"
                     "SET LOCAL client_encoding = 'UTF8';\n"
                     "SET LOCAL application_name = 'dbmcp %s %s';\n"
                     "SAVEPOINT dbmcp_call",
                     v.call_id, v.tool, v.timeout, v.lock, v.idle, v.work_mem, v.tool, v.call_id);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "the call's opening statements do not fit");
    return 0;
}

int pg_guard_begin_statements(const pg_guard_call *c, pg_guard_opening *out, dbmcp_error *err)
{
    call_values v;
    int rc = call_values_of(c, &v, err);
    if (rc)
        return rc;
    int n = snprintf(out->begin, sizeof out->begin,
                     "/* dbmcp call_id=%s tool=%s */ BEGIN READ ONLY", v.call_id, v.tool);
    int m = snprintf(out->settings, sizeof out->settings,
                     "SELECT pg_catalog.set_config('statement_timeout', '%d', true),"
                     " pg_catalog.set_config('lock_timeout', '%d', true),"
                     " pg_catalog.set_config('idle_in_transaction_session_timeout', '%d', true),"
                     " pg_catalog.set_config('work_mem', '%dkB', true),"
                     " pg_catalog.set_config('max_parallel_workers_per_gather', '0', true),"
                     " pg_catalog.set_config('jit', 'off', true),"
                     " pg_catalog.set_config('standard_conforming_strings', 'on', true),"
                     " pg_catalog.set_config('client_encoding', 'UTF8', true),"
                     " pg_catalog.set_config('application_name', 'dbmcp %s %s', true)",
                     v.timeout, v.lock, v.idle, v.work_mem, v.tool, v.call_id);
    if (n < 0 || (size_t)n >= sizeof out->begin || m < 0 || (size_t)m >= sizeof out->settings)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "the call's opening statements do not fit");
    snprintf(out->savepoint, sizeof out->savepoint, "SAVEPOINT dbmcp_call");
    return 0;
}

int pg_guard_call_begin(store *db, const pg_guard_call *c, dbmcp_error *err)
{
    pg_guard_opening o;
    int rc = pg_guard_begin_statements(c, &o, err);
    if (rc)
        return rc;
    const char *const sql[] = {o.begin, o.settings, o.savepoint};
    return store_exec_before_next(db, sql, 3, err);
}

int pg_guard_call_end(store *db)
{
    store_exec_unwaited(db, pg_guard_end_sql);
    return 0;
}
