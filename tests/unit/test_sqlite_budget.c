/*
 * test_sqlite_budget.c — the cost bounds of agent SQL in the SQLite
 * driver: the per-thread memory budget (store/sqlite_memory.h) and the
 * watchdog that interrupts a statement inside a long function call
 * (store/sqlite_watchdog.h), through store.h where store.h reaches them.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/sqlite_memory.h"
#include "store/sqlite_watchdog.h"
#include "store/store.h"

/* Ten thousand rows of 64 random bytes each, distinct: about 1.3 MB of
 * hex text the DISTINCT set must hold. */
#define DISTINCT_SQL                                                                               \
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) "             \
    "SELECT count(DISTINCT hex(randomblob(64))) FROM c"

static store *open_query_handle(char *path, size_t size)
{
    snprintf(path, size, "/tmp/dbmcp-budget-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    store *rw = NULL;
    dbmcp_error err;
    assert_int_equal(store_open(path, STORE_READWRITE, &rw, &err), 0);
    assert_int_equal(store_exec(rw, "CREATE TABLE t(x INTEGER)", &err), 0);
    store_close(rw);
    store *ro = NULL;
    assert_int_equal(store_open(path, STORE_READONLY, &ro, &err), 0);
    return ro;
}

static int run(store *db, const char *sql, int64_t *value, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db, sql, &st, err);
    if (!rc) {
        rc = store_step(st, err);
        if (rc == STORE_ROW) {
            *value = store_column_int(st, 0);
            rc = 0;
        }
    }
    store_finalize(st);
    return rc;
}

static void test_memory_budget(void **state)
{
    (void)state;
    char path[64];
    store *db = open_query_handle(path, sizeof path);
    assert_true(store_memory_budget_enforced());
    dbmcp_error err;
    int64_t n = 0;

    /* Without a budget the statement runs (temp_store = MEMORY on query
     * handles keeps the DISTINCT set in memory). */
    assert_int_equal(run(db, DISTINCT_SQL, &n, &err), 0);
    assert_int_equal(n, 10000);

    /* 1 MiB is less than the set needs: refused, with the reason. */
    store_set_memory_budget(db, 1 << 20);
    assert_int_equal(run(db, DISTINCT_SQL, &n, &err), DBMCP_ETOOBIG);
    assert_non_null(strstr(err.message, "memory budget of 1048576 bytes"));
    assert_true(sqlite_memory_budget_hit());
    store_set_memory_budget(db, 0);
    assert_false(sqlite_memory_budget_hit());

    /* The handle is usable afterwards, and a generous budget lets the
     * same statement through while counting what it held. */
    store_set_memory_budget(db, 64 << 20);
    assert_int_equal(run(db, DISTINCT_SQL, &n, &err), 0);
    assert_int_equal(n, 10000);
    size_t peak = sqlite_memory_budget_peak();
    assert_true(peak > (1 << 20) && peak < (64 << 20));
    store_set_memory_budget(db, 0);

    store_close(db);
    unlink(path);
}

/* Budgets are per thread: a budget on one thread does not limit a
 * statement another thread steps. */
static void *distinct_on_own_thread(void *arg)
{
    store *db = arg;
    dbmcp_error err;
    int64_t n = 0;
    return (void *)(intptr_t)(run(db, DISTINCT_SQL, &n, &err) == 0 && n == 10000);
}

static void test_budget_is_per_thread(void **state)
{
    (void)state;
    char path[64];
    store *a = open_query_handle(path, sizeof path);
    store *b = NULL;
    dbmcp_error err;
    assert_int_equal(store_open(path, STORE_READONLY, &b, &err), 0);
    store_set_memory_budget(a, 1 << 20); /* this thread only */
    pthread_t t;
    void *ok = NULL;
    assert_int_equal(pthread_create(&t, NULL, distinct_on_own_thread, b), 0);
    assert_int_equal(pthread_join(t, &ok), 0);
    assert_true(ok != NULL);
    store_set_memory_budget(a, 0);
    store_close(a);
    store_close(b);
    unlink(path);
}

/* A function that takes ms milliseconds per call: one VM step that the
 * progress handler cannot look inside. */
static void slow_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int ms = sqlite3_value_int(argv[0]);
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    sqlite3_result_int(ctx, ms);
}

static void test_watchdog_interrupts_inside_calls(void **state)
{
    (void)state;
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    assert_int_equal(sqlite3_create_function(db, "slow", 1, SQLITE_UTF8, NULL, slow_fn, NULL, NULL),
                     SQLITE_OK);
    /* Twenty calls of 200 ms: 4 s unwatched. With a 300 ms deadline the
     * watchdog interrupts during the second call and the statement stops
     * when it returns. */
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                                        "FROM c WHERE i < 20) SELECT sum(slow(200)) FROM c",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite_watch w = {.db = db};
    double start = sqlite_watchdog_now_ms();
    w.deadline_ms = start + 300;
    assert_int_equal(sqlite_watchdog_arm(&w), 0);
    int rc = sqlite3_step(st);
    double took = sqlite_watchdog_now_ms() - start;
    sqlite_watchdog_disarm(&w);
    assert_int_equal(rc, SQLITE_INTERRUPT);
    assert_int_equal(atomic_load(&w.fired), 1);
    /* Not a timing test: unwatched it takes 4000 ms; anything well below
     * proves the interrupt came from the watchdog. */
    assert_true(took < 2500);
    sqlite3_finalize(st);

    /* A cancel flag is seen too. */
    atomic_int cancel = 0;
    sqlite_watch c = {.db = db, .cancel = &cancel};
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                                        "FROM c WHERE i < 20) SELECT sum(slow(200)) FROM c",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite_watchdog_arm(&c), 0);
    atomic_store(&cancel, 1);
    rc = sqlite3_step(st);
    sqlite_watchdog_disarm(&c); /* before any assertion: c lives on this stack */
    assert_int_equal(rc, SQLITE_INTERRUPT);
    assert_int_equal(atomic_load(&c.fired), 2);
    sqlite3_finalize(st);

    /* Disarmed, nothing interrupts the next statement. */
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT slow(1)", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* Through store.h: a time limit stops a long statement with the time
 * limit's error, and the next statement on the handle runs. */
static void test_time_limit_through_store(void **state)
{
    (void)state;
    char path[64];
    store *db = open_query_handle(path, sizeof path);
    dbmcp_error err;
    int64_t n = 0;
    store_set_time_limit(db, 200);
    int rc = run(db,
                 "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) "
                 "SELECT count(*) FROM c",
                 &n, &err);
    assert_int_equal(rc, DBMCP_ETIMEOUT);
    assert_non_null(strstr(err.message, "time limit"));
    store_set_time_limit(db, 0);
    assert_int_equal(run(db, "SELECT 41 + 1", &n, &err), 0);
    assert_int_equal(n, 42);
    store_close(db);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_budget),
        cmocka_unit_test(test_budget_is_per_thread),
        cmocka_unit_test(test_watchdog_interrupts_inside_calls),
        cmocka_unit_test(test_time_limit_through_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
