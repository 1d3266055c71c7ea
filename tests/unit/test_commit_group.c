/*
 * test_commit_group.c — group commit (src/store/commit_group.h) against a
 * real database, whichever the environment names:
 *
 *   DBMCP_TEST_DB unset            a temporary SQLite file per test
 *   DBMCP_TEST_DB=postgresql://…   that PostgreSQL database (make unit-pg)
 *
 * Writers are threads, each with its own read-write handle, as the HTTP
 * server's are. Each call writes two rows (one in each of two tables), so
 * a half-kept call would show. Where a test needs calls to share one
 * transaction it makes them: a first call holds its batch open until the
 * group's counters show every other call queued behind it, so the next
 * batch holds them all. No assertion depends on how long anything took.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/commit_group.h"
#include "store/store.h"

#define WRITERS 8
#define CALLS_PER_WRITER 150
#define DEADLINE_MS 20000

typedef struct fixture {
    int pg;
    char dir[512];
    char url[1024];
    char rows[96];   /* (writer, seq) of every call */
    char notes[96];  /* the second row of every call */
    char parent[96]; /* deferred foreign key target */
    char child[96];  /* rows referencing parent, checked at COMMIT */
    store *rw;
} fixture;

static unsigned long table_counter;

static const char *sqlf(const char *fmt, ...)
{
    static __thread char bufs[4][1024];
    static __thread int next;
    char *b = bufs[next++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof bufs[0], fmt, ap);
    va_end(ap);
    return b;
}

static void exec_ok(store *db, const char *sql)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_exec(db, sql, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
}

static int64_t query_int(store *db, const char *sql)
{
    int64_t n = -1;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_query_int(db, sql, -1, &n, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
    return n;
}

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *db = getenv("DBMCP_TEST_DB");
    if (db && *db) {
        f->pg = 1;
        snprintf(f->url, sizeof f->url, "%s", db);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(f->dir, sizeof f->dir, "%s/dbmcp-group-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(f->dir)) {
            free(f);
            return -1;
        }
        snprintf(f->url, sizeof f->url, "%s/group.db", f->dir);
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_open(f->url, STORE_READWRITE | STORE_CREATE, &f->rw, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    const char *schema = f->pg ? "public." : "main.";
    unsigned long n = ++table_counter;
    long pid = (long)getpid();
    snprintf(f->rows, sizeof f->rows, "%scg%ld_%lu_rows", schema, pid, n);
    snprintf(f->notes, sizeof f->notes, "%scg%ld_%lu_notes", schema, pid, n);
    snprintf(f->parent, sizeof f->parent, "%scg%ld_%lu_parent", schema, pid, n);
    snprintf(f->child, sizeof f->child, "%scg%ld_%lu_child", schema, pid, n);
    exec_ok(f->rw, sqlf("CREATE TABLE %s (writer INTEGER NOT NULL, seq INTEGER NOT NULL,"
                        " PRIMARY KEY (writer, seq))",
                        f->rows));
    exec_ok(f->rw, sqlf("CREATE TABLE %s (writer INTEGER NOT NULL, seq INTEGER NOT NULL,"
                        " note TEXT NOT NULL)",
                        f->notes));
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY)", f->parent));
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES"
                        " %s (id) DEFERRABLE INITIALLY DEFERRED)",
                        f->child, strchr(f->parent, '.') + 1));
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    const char *tables[] = {f->child, f->parent, f->notes, f->rows};
    for (size_t i = 0; i < 4; i++)
        store_exec(f->rw, sqlf("DROP TABLE IF EXISTS %s", tables[i]), &err);
    store_close(f->rw);
    if (!f->pg) {
        static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
        for (int i = 0; suffixes[i]; i++)
            unlink(sqlf("%s%s", f->url, suffixes[i]));
        rmdir(f->dir);
    }
    free(f);
    return 0;
}

/* --- the calls ----------------------------------------------------------------------- */

typedef enum call_kind {
    CALL_WRITE = 0,   /* two rows */
    CALL_FAIL,        /* two rows, then an error of its own */
    CALL_BREAK_COMMIT /* two rows and a child whose parent is missing: the COMMIT fails */
} call_kind;

typedef struct call {
    fixture *f;
    int writer, seq;
    call_kind kind;
    int runs; /* how often the function ran */
} call;

static int run_sql(store *db, const char *sql, dbmcp_error *err)
{
    return store_exec(db, sql, err);
}

static int call_fn(store *db, void *ctx, dbmcp_error *err)
{
    call *c = ctx;
    c->runs++;
    int rc =
        run_sql(db, sqlf("INSERT INTO %s VALUES (%d, %d)", c->f->rows, c->writer, c->seq), err);
    if (!rc)
        rc = run_sql(
            db, sqlf("INSERT INTO %s VALUES (%d, %d, 'n')", c->f->notes, c->writer, c->seq), err);
    if (!rc && c->kind == CALL_FAIL)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "call %d/%d refused", c->writer, c->seq);
    if (!rc && c->kind == CALL_BREAK_COMMIT)
        rc = run_sql(
            db,
            sqlf("INSERT INTO %s VALUES (%d, 999999)", c->f->child, c->writer * 100000 + c->seq),
            err);
    return rc;
}

typedef struct writer {
    fixture *f;
    store *db;
    int index, calls;
    call_kind (*kind_of)(int writer, int seq);
    int rc[CALLS_PER_WRITER];
} writer;

static call_kind all_write(int w, int s)
{
    (void)w;
    (void)s;
    return CALL_WRITE;
}

static void *writer_main(void *arg)
{
    writer *w = arg;
    for (int s = 0; s < w->calls; s++) {
        call c = {w->f, w->index, s, w->kind_of(w->index, s), 0};
        dbmcp_error err;
        dbmcp_error_clear(&err);
        w->rc[s] = store_group_run(w->db, call_fn, &c, &err);
    }
    return NULL;
}

static void run_writers(fixture *f, writer *w, int n, int calls,
                        call_kind (*kind_of)(int writer, int seq))
{
    pthread_t th[WRITERS];
    dbmcp_error err;
    for (int i = 0; i < n; i++) {
        w[i] = (writer){f, NULL, i, calls, kind_of, {0}};
        if (store_open(f->url, STORE_READWRITE, &w[i].db, &err) != 0)
            fail_msg("open: %s", err.message);
    }
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        store_close(w[i].db);
    }
}

/* Rows of (writer, seq) in each table: 2 when the call was kept whole. */
static int64_t rows_of(fixture *f, int writer, int seq)
{
    return query_int(f->rw, sqlf("SELECT (SELECT count(*) FROM %s WHERE writer = %d AND seq = %d)"
                                 " + (SELECT count(*) FROM %s WHERE writer = %d AND seq = %d)",
                                 f->rows, writer, seq, f->notes, writer, seq));
}

/* --- tests --------------------------------------------------------------------------- */

/* Every acknowledged call is in the database, whole, seen from another
 * handle; nothing is written twice. */
static void test_concurrent_saves_all_durable(void **state)
{
    fixture *f = *state;
    store_group_stats before, after;
    store_group_stats_get(&before);
    writer w[WRITERS];
    run_writers(f, w, WRITERS, CALLS_PER_WRITER, all_write);
    store_group_stats_get(&after);
    for (int i = 0; i < WRITERS; i++)
        for (int s = 0; s < CALLS_PER_WRITER; s++)
            assert_int_equal(w[i].rc[s], 0);
    int64_t total = (int64_t)WRITERS * CALLS_PER_WRITER;
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", f->rows)), total);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", f->notes)), total);
    assert_int_equal(after.calls - before.calls, (unsigned long)total);
    assert_true(after.commits - before.commits <= (unsigned long)total);
    assert_int_equal(after.retried, before.retried);
}

/* --- one batch held open until the others queued ------------------------------------- */

typedef struct gate {
    unsigned long wait_for; /* group calls counter to wait for */
    atomic_int entered;     /* the gate's batch is running */
    int timed_out;
} gate;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int gate_fn(store *db, void *ctx, dbmcp_error *err)
{
    (void)db;
    (void)err;
    gate *g = ctx;
    atomic_store(&g->entered, 1);
    double until = now_ms() + DEADLINE_MS;
    store_group_stats s;
    for (store_group_stats_get(&s); s.calls < g->wait_for; store_group_stats_get(&s)) {
        if (now_ms() > until) {
            g->timed_out = 1;
            break;
        }
        usleep(1000);
    }
    return 0;
}

typedef struct gate_run {
    store *db;
    gate g;
    int rc;
} gate_run;

static void *gate_main(void *arg)
{
    gate_run *r = arg;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    r->rc = store_group_run(r->db, gate_fn, &r->g, &err);
    return NULL;
}

typedef struct one_call {
    store *db;
    call c;
    int rc;
    dbmcp_error err;
} one_call;

static void *one_main(void *arg)
{
    one_call *o = arg;
    dbmcp_error_clear(&o->err);
    o->rc = store_group_run(o->db, call_fn, &o->c, &o->err);
    return NULL;
}

/* Queue WRITERS calls behind a gate so they share the next transaction;
 * call `odd` is of kind `kind`, the others plain writes. */
static void batch_with_one(fixture *f, call_kind kind, int odd, one_call *calls)
{
    dbmcp_error err;
    store_group_stats s;
    store_group_stats_get(&s);
    gate_run gr = {NULL, {s.calls + 1 + WRITERS, 0, 0}, -1};
    if (store_open(f->url, STORE_READWRITE, &gr.db, &err) != 0)
        fail_msg("open: %s", err.message);
    pthread_t gt, th[WRITERS];
    assert_int_equal(pthread_create(&gt, NULL, gate_main, &gr), 0);
    /* The gate leads a batch of its own; every call below queues behind it. */
    for (double until = now_ms() + DEADLINE_MS; !atomic_load(&gr.g.entered);)
        if (now_ms() > until)
            fail_msg("the gate's batch never started");
        else
            usleep(1000);
    for (int i = 0; i < WRITERS; i++) {
        calls[i] = (one_call){NULL, {f, i, 0, i == odd ? kind : CALL_WRITE, 0}, -1, {0}};
        if (store_open(f->url, STORE_READWRITE, &calls[i].db, &err) != 0)
            fail_msg("open: %s", err.message);
        assert_int_equal(pthread_create(&th[i], NULL, one_main, &calls[i]), 0);
    }
    pthread_join(gt, NULL);
    for (int i = 0; i < WRITERS; i++) {
        pthread_join(th[i], NULL);
        store_close(calls[i].db);
    }
    store_close(gr.db);
    assert_false(gr.g.timed_out);
    assert_int_equal(gr.rc, 0);
}

/* A call whose own function fails inside a shared transaction leaves none
 * of its rows; every other call of the same transaction is kept whole,
 * without running again. */
static void test_failed_call_loses_nothing_of_others(void **state)
{
    fixture *f = *state;
    store_group_stats before, after;
    store_group_stats_get(&before);
    one_call calls[WRITERS];
    batch_with_one(f, CALL_FAIL, 3, calls);
    store_group_stats_get(&after);
    for (int i = 0; i < WRITERS; i++) {
        if (i == 3) {
            assert_int_equal(calls[i].rc, DBMCP_EINVAL);
            assert_non_null(strstr(calls[i].err.message, "refused"));
            assert_int_equal(rows_of(f, i, 0), 0);
        } else {
            assert_int_equal(calls[i].rc, 0);
            assert_int_equal(rows_of(f, i, 0), 2);
        }
        assert_int_equal(calls[i].c.runs, 1);
    }
    assert_int_equal(after.retried, before.retried);
}

/* A call that makes the COMMIT itself fail (a deferred foreign key): the
 * shared transaction is rolled back, every other call runs again alone
 * and is kept; the breaking call fails with the constraint and leaves
 * nothing. */
static void test_failed_commit_retries_the_others(void **state)
{
    fixture *f = *state;
    store_group_stats before, after;
    store_group_stats_get(&before);
    one_call calls[WRITERS];
    batch_with_one(f, CALL_BREAK_COMMIT, 5, calls);
    store_group_stats_get(&after);
    for (int i = 0; i < WRITERS; i++) {
        if (i == 5) {
            assert_int_equal(calls[i].rc, DBMCP_ECONSTRAINT_FOREIGN_KEY);
            assert_int_equal(rows_of(f, i, 0), 0);
        } else {
            assert_int_equal(calls[i].rc, 0);
            assert_int_equal(rows_of(f, i, 0), 2);
        }
        assert_int_equal(calls[i].c.runs, 2); /* in the batch, then alone */
    }
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", f->child)), 0);
    assert_int_equal(after.retried - before.retried, WRITERS);
}

#define GROUP_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        GROUP_TEST(test_concurrent_saves_all_durable),
        GROUP_TEST(test_failed_call_loses_nothing_of_others),
        GROUP_TEST(test_failed_commit_retries_the_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
