/*
 * test_audit.c — the audit writer (src/mcp/audit.h) against a real
 * database whose write lock another connection holds: rows are retried
 * rather than dropped, a caller waiting for its row learns that it is not
 * committed yet, a full queue makes pushers wait instead of growing, and
 * shutdown gives up only after its grace.
 *
 * Each test gets a fresh, migrated database file under $TMPDIR, a pool of
 * one read-write handle whose busy timeout is 100 ms (so "longer than the
 * busy timeout" takes a fraction of a second) and a second handle, the
 * lock holder. Where a test waits for the writer to reach a state it polls
 * the writer's figures (audit_queue_stats) with a deadline of 20 s; no
 * assertion depends on how long anything took.
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

#include "mcp/audit.h"
#include "store/migrate.h"
#include "store/registry.h"
#include "store/store.h"

#define BUSY_TIMEOUT_MS 100
#define DEADLINE_MS 20000

typedef struct fixture {
    char dir[512];
    char path[600];
    store_pool *pool; /* the writer's: one handle */
    store *holder;    /* takes the write lock */
    store *reader;    /* counts rows */
} fixture;

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/dbmcp-audit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/audit.db", f->dir);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = NULL;
    if (store_open(f->path, STORE_READWRITE | STORE_CREATE, &db, &err) != 0 ||
        store_migrate(db, NULL, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    store_close(db);
    if (store_pool_create(f->path, STORE_READWRITE, 1, &f->pool, &err) != 0 ||
        store_open(f->path, STORE_READWRITE, &f->holder, &err) != 0 ||
        store_open(f->path, STORE_READWRITE, &f->reader, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    store *w = store_pool_acquire(f->pool, &err);
    if (!w)
        return -1;
    store_set_busy_timeout(w, BUSY_TIMEOUT_MS);
    store_pool_release(f->pool, w);
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    store_close(f->reader);
    store_close(f->holder);
    store_pool_free(f->pool);
    for (int i = 0; suffixes[i]; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s%s", f->path, suffixes[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

/* --- helpers ------------------------------------------------------------------ */

static void make_row(reg_audit_row *r, const char *call_id)
{
    memset(r, 0, sizeof *r);
    snprintf(r->call_id, sizeof r->call_id, "%s", call_id);
    snprintf(r->ts, sizeof r->ts, "2026-01-01T00:00:00.000Z");
    snprintf(r->principal, sizeof r->principal, "tester");
    snprintf(r->interface, sizeof r->interface, "default");
    snprintf(r->transport, sizeof r->transport, "cli");
    snprintf(r->method, sizeof r->method, "tools/call");
    r->target = strdup("execute_query");
    r->status = "ok";
    r->rows_out = -1;
}

static uint64_t push_call(audit_queue *q, const char *call_id)
{
    reg_audit_row r;
    make_row(&r, call_id);
    return audit_queue_push(q, &r);
}

typedef struct row_count {
    const char *call_id;
    int n;
} row_count;

static void count_row(void *ctx, const char *const *cols)
{
    row_count *c = ctx;
    if (cols[1] && strcmp(cols[1], c->call_id) == 0)
        c->n++;
}

/* Rows of call_id in dbmcp_audit. */
static int rows_of(fixture *f, const char *call_id)
{
    row_count c = {call_id, 0};
    reg_audit_filter filter = {NULL, NULL, NULL, 100000};
    dbmcp_error err;
    assert_int_equal(reg_audit_list(f->reader, &filter, count_row, &c, &err), 0);
    return c.n;
}

static void hold_write_lock(fixture *f)
{
    dbmcp_error err;
    assert_int_equal(store_begin(f->holder, &err), 0);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void pause_10ms(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* Poll the writer's figures until at least `attempts` writes failed. */
static void wait_failed_attempts(audit_queue *q, uint64_t attempts, audit_stats *st)
{
    double deadline = now_ms() + DEADLINE_MS;
    do {
        audit_queue_stats(q, st);
        if (st->failed_attempts >= attempts)
            return;
        pause_10ms();
    } while (now_ms() < deadline);
    fail_msg("the writer made %llu failed attempts, expected %llu",
             (unsigned long long)st->failed_attempts, (unsigned long long)attempts);
}

/* --- tests ---------------------------------------------------------------------- */

/* A caller waiting for its row returns once it is in the table. */
static void test_wait_returns_when_committed(void **state)
{
    fixture *f = *state;
    audit_queue *q = audit_queue_create(f->pool, NULL);
    assert_non_null(q);
    uint64_t t = push_call(q, "call-committed");
    assert_true(t > 0);
    assert_int_equal(audit_queue_wait(q, t, -1), 0);
    assert_int_equal(rows_of(f, "call-committed"), 1);
    audit_queue_free(q);
    assert_int_equal(rows_of(f, "call-committed"), 1);
}

/* The old writer tried twice and dropped the batch; this one keeps
 * trying for as long as the lock is held, and writes each row once. */
static void test_lock_held_past_busy_timeout_is_retried(void **state)
{
    fixture *f = *state;
    audit_queue *q = audit_queue_create(f->pool, NULL);
    hold_write_lock(f);
    char ids[5][16];
    uint64_t last = 0;
    for (int i = 0; i < 5; i++) {
        snprintf(ids[i], sizeof ids[i], "call-locked-%d", i);
        last = push_call(q, ids[i]);
    }
    assert_int_equal(audit_queue_wait(q, last, 50), DBMCP_ETIMEOUT);
    audit_stats st;
    wait_failed_attempts(q, 3, &st);
    assert_int_equal(st.pending, 5);
    assert_true(st.oldest_ms > 0);
    assert_int_equal(st.written, 0);
    assert_int_equal(rows_of(f, ids[0]), 0);

    store_rollback(f->holder);
    assert_int_equal(audit_queue_wait(q, last, -1), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rows_of(f, ids[i]), 1);
    audit_queue_stats(q, &st);
    assert_int_equal(st.written, 5);
    assert_int_equal(st.pending, 0);
    audit_queue_free(q);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rows_of(f, ids[i]), 1);
}

typedef struct pusher {
    audit_queue *q;
    atomic_int pushed; /* rows pushed so far */
} pusher;

static void *push_ten(void *arg)
{
    pusher *p = arg;
    for (int i = 0; i < 10; i++) {
        char id[32];
        snprintf(id, sizeof id, "call-full-%d", i);
        push_call(p->q, id);
        atomic_fetch_add(&p->pushed, 1);
    }
    return NULL;
}

/* A full queue makes the pusher wait (bounded memory), and nothing it
 * pushed is lost once the lock goes. */
static void test_full_queue_waits_instead_of_dropping(void **state)
{
    fixture *f = *state;
    audit_config cfg = {0};
    cfg.max_bytes = 3 * (sizeof(reg_audit_row) + 64);
    audit_queue *q = audit_queue_create(f->pool, &cfg);
    hold_write_lock(f);
    pusher p = {q, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, push_ten, &p), 0);

    audit_stats st;
    double deadline = now_ms() + DEADLINE_MS;
    do {
        audit_queue_stats(q, &st);
        if (st.waited_for_room > 0)
            break;
        pause_10ms();
    } while (now_ms() < deadline);
    assert_true(st.waited_for_room > 0);
    assert_true(atomic_load(&p.pushed) < 10);
    assert_true(st.pending_bytes <= cfg.max_bytes);

    store_rollback(f->holder);
    pthread_join(th, NULL);
    assert_int_equal(audit_queue_flush(q), 0);
    audit_queue_stats(q, &st);
    assert_true(st.max_pending <= 3);
    for (int i = 0; i < 10; i++) {
        char id[32];
        snprintf(id, sizeof id, "call-full-%d", i);
        assert_int_equal(rows_of(f, id), 1);
    }
    audit_queue_free(q);
}

/* Shutdown does not wait forever for a lock that is never released: a
 * flush returns after the grace, and past it the rows go to the operator
 * log and free returns. */
static void test_free_gives_up_after_grace(void **state)
{
    fixture *f = *state;
    audit_config cfg = {0};
    cfg.stop_grace_ms = 300;
    audit_queue *q = audit_queue_create(f->pool, &cfg);
    hold_write_lock(f);
    push_call(q, "call-never");
    /* the shutdown order of the HTTP transport: flush, then free; the
     * flush spends the grace, free then gives up at the next refusal */
    assert_int_equal(audit_queue_flush(q), DBMCP_ETIMEOUT);
    audit_queue_free(q);
    store_rollback(f->holder);
    assert_int_equal(rows_of(f, "call-never"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_wait_returns_when_committed, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_lock_held_past_busy_timeout_is_retried, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_full_queue_waits_instead_of_dropping, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_free_gives_up_after_grace, fixture_setup,
                                        fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
