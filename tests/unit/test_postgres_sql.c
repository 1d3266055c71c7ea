/*
 * test_postgres_sql.c — the PostgreSQL driver's :name → $n rewriter
 * (store/postgres_sql.h): where a colon is and is not a parameter, one
 * statement only, and what the first keyword says. Pure text, no server.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "store/postgres_sql.h"

/* Rewrite sql (which must succeed) and check the text and the names. */
static void rewrites(const char *sql, const char *want, int n_names, ...)
{
    pg_sql s;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = pg_sql_rewrite(sql, 0, &s, &err);
    if (rc)
        fail_msg("%s: %s", sql, err.message);
    assert_string_equal(s.text, want);
    assert_int_equal(s.n_names, n_names);
    va_list ap;
    va_start(ap, n_names);
    for (int i = 0; i < n_names; i++)
        assert_string_equal(s.names[i], va_arg(ap, const char *));
    va_end(ap);
    pg_sql_free(&s);
}

static int refused(const char *sql)
{
    pg_sql s;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = pg_sql_rewrite(sql, 0, &s, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(err.code, rc);
    assert_null(s.text);
    return rc;
}

static pg_sql_kind kind(const char *sql)
{
    pg_sql s;
    dbmcp_error err;
    assert_int_equal(pg_sql_rewrite(sql, 0, &s, &err), 0);
    pg_sql_kind k = s.kind;
    pg_sql_free(&s);
    return k;
}

static void test_names_become_numbers(void **state)
{
    (void)state;
    rewrites("SELECT :a, :b", "SELECT $1, $2", 2, ":a", ":b");
    rewrites("SELECT * FROM t WHERE x = :x OR y = :x", "SELECT * FROM t WHERE x = $1 OR y = $1", 1,
             ":x");
    rewrites("SELECT :b_2 + :a1 + :b_2", "SELECT $1 + $2 + $1", 2, ":b_2", ":a1");
    rewrites("INSERT INTO t VALUES(:x,:y)", "INSERT INTO t VALUES($1,$2)", 2, ":x", ":y");
    rewrites("SELECT 1", "SELECT 1", 0);
    /* Names are case-sensitive, as SQLite's are. */
    rewrites("SELECT :Year, :year", "SELECT $1, $2", 2, ":Year", ":year");
}

static void test_colons_that_are_not_parameters(void **state)
{
    (void)state;
    rewrites("SELECT :x::int, '1'::text", "SELECT $1::int, '1'::text", 1, ":x");
    rewrites("SELECT ':a', 'it''s :b'", "SELECT ':a', 'it''s :b'", 0);
    rewrites("SELECT E'\\' :a', :b", "SELECT E'\\' :a', $1", 1, ":b");
    rewrites("SELECT e'\\\\', :b", "SELECT e'\\\\', $1", 1, ":b");
    rewrites("SELECT \":a\"\":b\" FROM t", "SELECT \":a\"\":b\" FROM t", 0);
    rewrites("SELECT $$ :a ; $$, $f$ :b $$ :c $f$, :d", "SELECT $$ :a ; $$, $f$ :b $$ :c $f$, $1",
             1, ":d");
    rewrites("SELECT 1 -- :a ;\n, :b", "SELECT 1 -- :a ;\n, $1", 1, ":b");
    rewrites("SELECT /* :a /* :b */ :c */ :d", "SELECT /* :a /* :b */ :c */ $1", 1, ":d");
    rewrites("SELECT f(a := 1, b => 2)", "SELECT f(a := 1, b => 2)", 0);
    rewrites("SELECT x$y, :z FROM t", "SELECT x$y, $1 FROM t", 1, ":z");
    rewrites("SELECT arr[1:2]", "SELECT arr[1:2]", 0);
    rewrites("SELECT U&'d\\0061t\\+000061 :a'", "SELECT U&'d\\0061t\\+000061 :a'", 0);
}

static void test_backslash_quotes_when_the_server_says_so(void **state)
{
    (void)state;
    pg_sql s;
    dbmcp_error err;
    assert_int_equal(pg_sql_rewrite("SELECT '\\' :a', :b", 1, &s, &err), 0);
    assert_string_equal(s.text, "SELECT '\\' :a', $1");
    pg_sql_free(&s);
    /* With standard strings the backslash is a character and :a a name. */
    rewrites("SELECT '\\', :b", "SELECT '\\', $1", 1, ":b");
}

static void test_one_statement_only(void **state)
{
    (void)state;
    rewrites("SELECT 1;", "SELECT 1", 0);
    rewrites("SELECT 1 ; ; -- done\n /* really */ ", "SELECT 1 ", 0);
    assert_int_equal(refused("SELECT 1; SELECT 2"), DBMCP_EINVAL);
    assert_int_equal(refused("SELECT 1; DROP TABLE t"), DBMCP_EINVAL);
    assert_int_equal(refused(""), DBMCP_EINVAL);
    assert_int_equal(refused("  -- nothing\n ; "), DBMCP_EINVAL);
    /* ';' inside parentheses and function bodies belong to the statement. */
    rewrites("CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO u VALUES (1); NOTIFY t)",
             "CREATE RULE r AS ON INSERT TO t DO ALSO (INSERT INTO u VALUES (1); NOTIFY t)", 0);
    rewrites(
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 "
        "END; SELECT 2; END;",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 "
        "END; SELECT 2; END",
        0);
    assert_int_equal(refused("BEGIN; SELECT 1"), DBMCP_EINVAL);
}

static void test_positional_parameters_refused(void **state)
{
    (void)state;
    assert_int_equal(refused("SELECT $1"), DBMCP_EINVAL);
    assert_int_equal(refused("SELECT :a + $2"), DBMCP_EINVAL);
    rewrites("SELECT '$1', $q$ $1 $q$", "SELECT '$1', $q$ $1 $q$", 0);
}

static void test_kind(void **state)
{
    (void)state;
    assert_int_equal(kind("SELECT 1"), PG_SQL_QUERY);
    assert_int_equal(kind("  (select 1) union select 2"), PG_SQL_QUERY);
    assert_int_equal(kind("VALUES (1)"), PG_SQL_QUERY);
    assert_int_equal(kind("WITH x AS (SELECT 1) SELECT * FROM x"), PG_SQL_QUERY);
    assert_int_equal(kind("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x"), PG_SQL_OTHER);
    assert_int_equal(kind("SELECT * FROM t FOR UPDATE"), PG_SQL_OTHER);
    assert_int_equal(kind("SELECT 'delete'"), PG_SQL_QUERY);
    assert_int_equal(kind("INSERT INTO t VALUES (1) RETURNING id"), PG_SQL_OTHER);
    assert_int_equal(kind("explain select 1"), PG_SQL_EXPLAIN);
    assert_int_equal(kind("CREATE TABLE t (x int)"), PG_SQL_OTHER);
}

static void test_explain_target(void **state)
{
    (void)state;
    int analyze = -1;
    const char *t = "EXPLAIN SELECT 1";
    assert_int_equal(pg_sql_explain_target(t, &analyze), 8);
    assert_int_equal(analyze, 0);
    t = "explain analyze verbose DELETE FROM t";
    assert_string_equal(t + pg_sql_explain_target(t, &analyze), "DELETE FROM t");
    assert_int_equal(analyze, 1);
    t = "EXPLAIN (FORMAT JSON, ANALYZE) UPDATE t SET x = 1";
    assert_string_equal(t + pg_sql_explain_target(t, &analyze), "UPDATE t SET x = 1");
    assert_int_equal(analyze, 1);
    t = "EXPLAIN (costs off) SELECT 1";
    assert_string_equal(t + pg_sql_explain_target(t, &analyze), "SELECT 1");
    assert_int_equal(analyze, 0);
    assert_int_equal(pg_sql_explain_target("SELECT 1", &analyze), -1);
    assert_int_equal(pg_sql_explain_target("EXPLAINX", &analyze), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_become_numbers),
        cmocka_unit_test(test_colons_that_are_not_parameters),
        cmocka_unit_test(test_backslash_quotes_when_the_server_says_so),
        cmocka_unit_test(test_one_statement_only),
        cmocka_unit_test(test_positional_parameters_refused),
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_explain_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
