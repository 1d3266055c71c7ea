/*
 * test_pg_guard.c — the text store/pg_guard builds for PostgreSQL: the
 * query role's script, the statements around every call and the check's
 * parameters. What the statements do on a real server is
 * tests/cli/hostile_pg.sh's to show (it runs them on PostgreSQL 15); here,
 * that no value from outside can change their shape and that the
 * contracts of the header hold without a server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "store/pg_guard.h"

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The opening statements: limits as numbers, names reduced to a safe
 * alphabet, the savepoint last. */
static void test_begin_sql(void **state)
{
    (void)state;
    pg_guard_call c = {"3f1c-*/ DROP TABLE x; --", "execute_query", 2500, 0, 0, 0};
    char buf[1024];
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(pg_guard_begin_sql(&c, buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "/* dbmcp call_id=3f1c-___DROP_TABLE_x__-- tool=execute_query */ "
                             "BEGIN READ ONLY;\n"
                             "SET LOCAL statement_timeout = 2500;\n"
                             "SET LOCAL lock_timeout = 2000;\n"
                             "SET LOCAL idle_in_transaction_session_timeout = 7500;\n"
                             "SET LOCAL work_mem = '16384kB';\n"
                             "SET LOCAL max_parallel_workers_per_gather = 0;\n"
                             "SET LOCAL jit = off;\n"
                             "SET LOCAL standard_conforming_strings = on;\n"
                             "SET LOCAL client_encoding = 'UTF8';\n"
                             "SET LOCAL application_name = 'dbmcp execute_query "
                             "3f1c-___DROP_TABLE_x__--';\n"
                             "SAVEPOINT dbmcp_call");
    /* One comment, closed once; three quoted values (work_mem, encoding, name). */
    assert_int_equal(count_of(buf, "*/"), 1);
    assert_int_equal(count_of(buf, "'"), 6);

    /* Explicit limits win; a short time limit shortens the lock wait. */
    pg_guard_call d = {"id", "report_sales", 500, 0, 900, 4096};
    assert_int_equal(pg_guard_begin_sql(&d, buf, sizeof buf, &err), 0);
    assert_non_null(strstr(buf, "lock_timeout = 500;"));
    assert_non_null(strstr(buf, "idle_in_transaction_session_timeout = 900;"));
    assert_non_null(strstr(buf, "work_mem = '4096kB'"));

    /* Long names are cut; nothing is read past them. */
    char long_id[200];
    memset(long_id, 'a', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    pg_guard_call e = {long_id, NULL, 1, 0, 0, 0};
    assert_int_equal(pg_guard_begin_sql(&e, buf, sizeof buf, &err), 0);
    assert_non_null(strstr(buf, "tool=- */"));
    assert_null(strstr(buf, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));

    /* No limit, no call; a buffer too small is an error, not a cut. */
    pg_guard_call none = {"id", "t", 0, 0, 0, 0};
    assert_int_equal(pg_guard_begin_sql(&none, buf, sizeof buf, &err), DBMCP_EINVAL);
    assert_int_equal(pg_guard_begin_sql(&c, buf, 64, &err), DBMCP_ETOOBIG);
}

/* The end: back to the savepoint first (the call's statement may have
 * failed), session state released, ROLLBACK last. */
static void test_end_sql(void **state)
{
    (void)state;
    const char *end = pg_guard_end_sql;
    assert_true(strncmp(end, "ROLLBACK TO SAVEPOINT dbmcp_call;", 33) == 0);
    assert_non_null(strstr(end, "pg_advisory_unlock_all()"));
    assert_non_null(strstr(end, "DEALLOCATE ALL"));
    size_t n = strlen(end);
    assert_true(n > 8 && strcmp(end + n - 8, "ROLLBACK") == 0);
    assert_null(strstr(end, "COMMIT"));
}

static void test_role_script(void **state)
{
    (void)state;
    static const char *const schemas[] = {"public", "sales", NULL};
    pg_guard_role r = {NULL, NULL, "shop \"main\"", schemas, 20, 0, 0, NULL};
    char *script = pg_guard_role_script(&r);
    assert_non_null(script);
    assert_non_null(strstr(script, "CREATE ROLE dbmcp_query LOGIN;"));
    assert_non_null(strstr(script, "ALTER ROLE dbmcp_query WITH LOGIN NOCREATEDB NOCREATEROLE "
                                   "NOINHERIT CONNECTION LIMIT 20;"));
    assert_non_null(
        strstr(script, "ALTER ROLE dbmcp_query SET default_transaction_read_only = on;"));
    assert_non_null(strstr(script, "ALTER ROLE dbmcp_query SET temp_file_limit = '1048576kB';"));
    assert_non_null(strstr(script, "ALTER ROLE dbmcp_query SET track_activities = off;"));
    assert_non_null(
        strstr(script, "GRANT CONNECT ON DATABASE \"shop \"\"main\"\"\" TO dbmcp_query;"));
    assert_non_null(strstr(script, "REVOKE ALL ON SCHEMA dbmcp FROM PUBLIC, dbmcp_query;"));
    assert_non_null(strstr(script, "GRANT SELECT ON ALL TABLES IN SCHEMA sales TO dbmcp_query;"));
    assert_non_null(strstr(script, "\\password dbmcp_query"));
    /* Never a password in the clear, never a grant that writes. */
    assert_null(strstr(script, "PASSWORD '"));
    assert_null(strstr(script, "GRANT INSERT"));
    assert_null(strstr(script, "GRANT ALL"));
    /* The three parts in order: CREATEROLE, superuser, owner. */
    char *createrole = strstr(script, "As a role with CREATEROLE");
    char *superuser = strstr(script, "As a superuser");
    char *owner = strstr(script, "As the owner");
    assert_true(createrole && superuser && owner && createrole < superuser && superuser < owner);
    free(script);
}

/* Names that would need quoting in the statements are refused. */
static void test_role_names(void **state)
{
    (void)state;
    static const char *const bad_schema[] = {"public; DROP", NULL};
    static const char *const same_schema[] = {"dbmcp", NULL};
    const pg_guard_role refused[] = {
        {"Dbmcp_Query", NULL, "db", NULL, 0, 0, 0, NULL},
        {"q\"; DROP ROLE x; --", NULL, "db", NULL, 0, 0, 0, NULL},
        {"", NULL, "db", NULL, 0, 0, 0, NULL},
        {"1query", NULL, "db", NULL, 0, 0, 0, NULL},
        {NULL, "dbmcp schema", "db", NULL, 0, 0, 0, NULL},
        {NULL, NULL, "db", bad_schema, 0, 0, 0, NULL},
        {NULL, NULL, "db", same_schema, 0, 0, 0, NULL},
        {NULL, NULL, NULL, NULL, 0, 0, 0, NULL},
        {NULL, NULL, "", NULL, 0, 0, 0, NULL},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL, "db", NULL, 0, 0,
         0, NULL},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *script = pg_guard_role_script(&refused[i]);
        if (script)
            fail_msg("case %zu: a script for an invalid name:\n%s", i, script);
    }
    pg_guard_role ok = {"agent_sql_2", "dbmcp_internal", "db", NULL, 0, 0, 0, NULL};
    char *script = pg_guard_role_script(&ok);
    assert_non_null(script);
    assert_non_null(
        strstr(script, "REVOKE ALL ON SCHEMA dbmcp_internal FROM PUBLIC, agent_sql_2;"));
    free(script);
}

/* Single tables besides whole schemas (init --demo): USAGE on each schema
 * once, SELECT on each table, nothing for schemas not asked for; names
 * that are not schema.table of plain names, or in dbmcp's schema, are
 * refused. The parts print what each kind of user runs. */
static void test_role_tables_and_parts(void **state)
{
    (void)state;
    static const char *const none[] = {NULL};
    static const char *const tables[] = {"public.sales", "public.regions", "shop.orders", NULL};
    pg_guard_role r = {NULL, NULL, "db", none, 0, 0, 0, tables};
    char *script = pg_guard_role_script(&r);
    assert_non_null(script);
    assert_int_equal(count_of(script, "GRANT USAGE ON SCHEMA public TO dbmcp_query;"), 1);
    assert_int_equal(count_of(script, "GRANT USAGE ON SCHEMA shop TO dbmcp_query;"), 1);
    assert_non_null(strstr(script, "GRANT SELECT ON public.sales TO dbmcp_query;"));
    assert_non_null(strstr(script, "GRANT SELECT ON public.regions TO dbmcp_query;"));
    assert_non_null(strstr(script, "GRANT SELECT ON shop.orders TO dbmcp_query;"));
    assert_null(strstr(script, "GRANT SELECT ON ALL TABLES"));
    assert_null(strstr(script, "DEFAULT PRIVILEGES IN SCHEMA"));
    free(script);

    char *role_part = pg_guard_role_script_parts(&r, PG_GUARD_PART_ROLE | PG_GUARD_PART_SUPERUSER);
    assert_non_null(role_part);
    assert_non_null(strstr(role_part, "CREATE ROLE dbmcp_query LOGIN;"));
    assert_non_null(strstr(role_part, "SET track_activities = off;"));
    assert_null(strstr(role_part, "GRANT"));
    assert_null(strstr(role_part, "REVOKE"));
    free(role_part);
    char *grants = pg_guard_role_script_parts(&r, PG_GUARD_PART_GRANTS);
    assert_non_null(grants);
    assert_null(strstr(grants, "ALTER ROLE"));
    assert_non_null(strstr(grants, "REVOKE ALL ON SCHEMA dbmcp FROM PUBLIC, dbmcp_query;"));
    free(grants);

    static const char *const bad[][2] = {{"sales", NULL},        {"dbmcp.dbmcp_api_keys", NULL},
                                         {"public.", NULL},      {".sales", NULL},
                                         {"public.Sales", NULL}, {"a.b.c", NULL},
                                         {"public.x; --", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pg_guard_role b = {NULL, NULL, "db", none, 0, 0, 0, bad[i]};
        char *refused = pg_guard_role_script(&b);
        if (refused)
            fail_msg("case %zu (%s): a script for an invalid table:\n%s", i, bad[i][0], refused);
    }
}

/* A password reaches apply only as a SCRAM verifier: anything else is
 * refused before the database is touched (PostgreSQL would hash a
 * malformed verifier as if it were the password). */
static void test_role_apply_verifier(void **state)
{
    (void)state;
    pg_guard_role r = {NULL, NULL, "db", NULL, 0, 0, 0, NULL};
    static const char *const refused[] = {
        "hunter2",
        "SCRAM-SHA-256$4096:c2FsdA==",
        "SCRAM-SHA-256$x:c2FsdA==$c3RvcmVk:c2VydmVy",
        "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy'; DROP ROLE x; --",
        /* an MD5 hash (md5 + 32 hex digits): not a SCRAM verifier */
        "md50123456789abcdef0123456789abcdef",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        dbmcp_error err;
        dbmcp_error_clear(&err);
        char *pending = (char *)"untouched";
        assert_int_equal(pg_guard_role_apply(NULL, &r, refused[i], &pending, &err), DBMCP_EINVAL);
        assert_null(pending);
        assert_null(strstr(err.message, refused[i]));
    }
}

/* The check names its parameters the way store.h binds them, and refuses
 * before it warns. */
static void test_check_sql(void **state)
{
    (void)state;
    assert_true(count_of(pg_guard_check_sql, ":role") >= 2);
    assert_true(count_of(pg_guard_check_sql, ":schema") >= 2);
    assert_null(strstr(pg_guard_check_sql, ";\n"));
    assert_non_null(strstr(pg_guard_check_sql, "ORDER BY severity = 'warn'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_begin_sql),
        cmocka_unit_test(test_end_sql),
        cmocka_unit_test(test_role_tables_and_parts),
        cmocka_unit_test(test_role_script),
        cmocka_unit_test(test_role_names),
        cmocka_unit_test(test_role_apply_verifier),
        cmocka_unit_test(test_check_sql),
    };
    return cmocka_run_group_tests_name("pg_guard", tests, NULL, NULL);
}
