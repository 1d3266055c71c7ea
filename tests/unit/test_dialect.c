/*
 * test_dialect.c — unit tests for store/dialect: every fragment has a
 * SQLite form, the whole statements prepare on a migrated database, and
 * the expressions compute what their comments in dialect.h promise.
 *
 * Runs on an in-memory SQLite database (the PostgreSQL column is checked
 * when that backend's tests run).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "store/dialect.h"
#include "store/documents.h"
#include "store/memory_store.h"
#include "store/migrate.h"
#include "store/store.h"

static int db_setup(void **state)
{
    store *db = NULL;
    dbmcp_error err;
    if (store_open(":memory:", STORE_READWRITE | STORE_CREATE, &db, &err) != 0 ||
        store_migrate(db, NULL, &err) != 0) {
        print_error("open/migrate: %s\n", err.message);
        store_close(db);
        return -1;
    }
    *state = db;
    return 0;
}

static int db_teardown(void **state)
{
    store_close(*state);
    return 0;
}

static void test_every_fragment_has_sqlite(void **state)
{
    store *db = *state;
    assert_string_equal(store_dialect(db), "sqlite");
    for (int i = 0; i < DIALECT_FRAGMENT_COUNT; i++)
        assert_non_null(dialect_sql(db, (dialect_fragment)i));
    assert_null(dialect_sql(db, DIALECT_FRAGMENT_COUNT));
}

/* Format fragment id (no operands but `operand`) and prepare it. */
static void prepares(store *db, dialect_fragment id, const char *operand)
{
    char sql[1024];
    dbmcp_error err;
    assert_int_equal(dialect_format(db, id, sql, sizeof sql, &err, operand), 0);
    store_stmt *st = NULL;
    if (store_prepare(db, sql, &st, &err) != 0)
        fail_msg("fragment %d does not prepare: %s\n%s", (int)id, err.message, sql);
    store_finalize(st);
}

/* Format fragment id with three operands and prepare it. */
static void prepares3(store *db, dialect_fragment id, const char *a, const char *b, const char *c)
{
    char sql[4096];
    dbmcp_error err;
    assert_int_equal(dialect_format(db, id, sql, sizeof sql, &err, a, b, c, "1 = 1"), 0);
    store_stmt *st = NULL;
    if (store_prepare(db, sql, &st, &err) != 0)
        fail_msg("fragment %d does not prepare: %s\n%s", (int)id, err.message, sql);
    store_finalize(st);
}

static void test_statements_prepare(void **state)
{
    store *db = *state;
    prepares(db, DIALECT_TABLE_EXISTS, NULL);
    prepares(db, DIALECT_DUMP_OBJECTS, NULL);
    prepares(db, DIALECT_MIGRATIONS_TABLE, NULL);
    prepares(db, DIALECT_CHUNKS_FTS_INDEX, NULL);
    prepares(db, DIALECT_CHUNKS_FTS_UNINDEX, NULL);
    prepares(db, DIALECT_MEMORY_FTS_INDEX, NULL);
    prepares(db, DIALECT_MEMORY_FTS_UNINDEX, " i.id = 0");
    search_index_scope scopes[2];
    mstore_search_scope("u", "a", &scopes[0]);
    docs_search_scope("i", &scopes[1]);
    const char *fts[2] = {"dbmcp_mem_fts", "dbmcp_chunks_fts"};
    for (int i = 0; i < 2; i++) {
        prepares3(db, DIALECT_FTS_SCOPE_MATCH, scopes[i].rows, scopes[i].condition, fts[i]);
        prepares3(db, DIALECT_FTS_SCOPE_COUNT, scopes[i].rows, scopes[i].condition, fts[i]);
    }
}

/* The value of "SELECT <fragment id with operands a, b, c>" as text. */
static void expect(store *db, dialect_fragment id, const char *want, const char *a, const char *b,
                   const char *c)
{
    char expr[512], sql[600];
    dbmcp_error err;
    assert_int_equal(dialect_format(db, id, expr, sizeof expr, &err, a, b, c), 0);
    snprintf(sql, sizeof sql, "SELECT %s", expr);
    store_stmt *st = NULL;
    if (store_prepare(db, sql, &st, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_string_equal(store_column_text(st, 0), want);
    store_finalize(st);
}

static void test_expressions(void **state)
{
    store *db = *state;
    expect(db, DIALECT_TEXT_BYTES, "3", "'äb'", NULL, NULL);
    expect(db, DIALECT_JSON_HAS_TEXT, "1", "'{\"region\":\"Bayern\"}'", "'region'", "'Bayern'");
    expect(db, DIALECT_JSON_HAS_TEXT, "0", "'{\"region\":1}'", "'region'", "'1'");
    expect(db, DIALECT_JSON_MATCHES_ALL, "1", "'{\"a\":1}'", "'{\"a\":1.0,\"b\":\"x\"}'", NULL);
    expect(db, DIALECT_JSON_MATCHES_ALL, "0", "'{\"a\":1,\"b\":\"y\"}'", "'{\"a\":1,\"b\":\"x\"}'",
           NULL);
    char sub[256], sql[320];
    dbmcp_error err;
    assert_int_equal(
        dialect_format(db, DIALECT_JSON_ARRAY_TEXTS, sub, sizeof sub, &err, "'[\"x\",\"y\"]'"), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM (%s) AS j WHERE j.value IN ('x', 'y')", sub);
    int64_t n = 0;
    assert_int_equal(store_query_int(db, sql, -1, &n, &err), 0);
    assert_int_equal(n, 2);
}

static void test_seconds_between(void **state)
{
    store *db = *state;
    char expr[256], sql[300];
    dbmcp_error err;
    assert_int_equal(dialect_format(db, DIALECT_SECONDS_BETWEEN, expr, sizeof expr, &err,
                                    "'2026-12-02T13:42:42.845Z'", "'2026-12-02T13:41:12.345Z'"),
                     0);
    snprintf(sql, sizeof sql, "SELECT %s", expr);
    store_stmt *st = NULL;
    assert_int_equal(store_prepare(db, sql, &st, &err), 0);
    assert_int_equal(store_step(st, &err), STORE_ROW);
    double seconds = store_column_double(st, 0);
    store_finalize(st);
    assert_true(seconds > 90.499 && seconds < 90.501);
}

static void test_small_buffer_is_an_error(void **state)
{
    store *db = *state;
    char sql[8];
    dbmcp_error err;
    assert_int_equal(dialect_format(db, DIALECT_TABLE_EXISTS, sql, sizeof sql, &err),
                     DBMCP_EINTERNAL);
    assert_int_equal(dialect_format(db, DIALECT_FRAGMENT_COUNT, sql, sizeof sql, &err),
                     DBMCP_EINTERNAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fragment_has_sqlite),
        cmocka_unit_test(test_statements_prepare),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_seconds_between),
        cmocka_unit_test(test_small_buffer_is_an_error),
    };
    return cmocka_run_group_tests(tests, db_setup, db_teardown);
}
