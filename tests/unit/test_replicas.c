/*
 * test_replicas.c — what replicas sharing one database coordinate through,
 * below the processes: leases (one holder; a dead holder of this machine
 * does not block), embedding job claims (each job to one claimer while the
 * claim lasts, completed only by its holder, taken again after it ran
 * out), the change listener (sleeps until a counter moves, wakes on
 * request) and the rows of legacy sessions (rev, subscriptions, the
 * per-key helpers, expiry, revocation ending them) and the rows of tasks
 * (one replica writes, the other answers; owner scope, sticky terminal
 * statuses, gathered answers, expiry).
 *
 * Each test gets a fresh migrated database and two read-write handles on
 * it, standing for two replicas: a file in its own directory under $TMPDIR
 * (default /tmp), or with DBMCP_TEST_DB=postgresql://… (make unit-pg) a
 * database created on that server for the test and dropped after it.
 * tests/cli/replicas.sh proves the same with two processes.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/ids.h"
#include "core/replica.h"
#include "store/lease.h"
#include "store/memory_store.h"
#include "store/migrate.h"
#include "store/notify.h"
#include "store/sessions_store.h"
#include "store/tasks_store.h"

typedef struct fixture {
    char dir[512];  /* SQLite: mkdtemp directory holding the file */
    char url[1200]; /* the database: a file, or a PostgreSQL URI */
    char pg_db[96]; /* PostgreSQL: the database made for this test, "" on SQLite */
    store *a, *b;   /* two handles: two replicas */
} fixture;

static unsigned test_counter;

/* base with its database replaced by name: libpq takes the last dbname. */
static void url_with_database(char *out, size_t size, const char *base, const char *name)
{
    snprintf(out, size, "%s%sdbname=%s", base, strchr(base, '?') ? "&" : "?", name);
}

/* Run sql on the server of DBMCP_TEST_DB, on its own connection. */
static int on_server(const char *sql, dbmcp_error *err)
{
    store *admin = NULL;
    int rc = store_open(getenv("DBMCP_TEST_DB"), STORE_READWRITE, &admin, err);
    if (!rc)
        rc = store_exec(admin, sql, err);
    store_close(admin);
    return rc;
}

/* A fresh database: a file in a new directory, or with DBMCP_TEST_DB (a
 * PostgreSQL URI) a new database on that server. */
static int fresh_database(fixture *f, dbmcp_error *err)
{
    const char *pg = getenv("DBMCP_TEST_DB");
    if (pg && *pg) {
        char sql[160];
        snprintf(f->pg_db, sizeof f->pg_db, "dbmcp_replicas_%ld_%u", (long)getpid(),
                 ++test_counter);
        snprintf(sql, sizeof sql, "CREATE DATABASE %s", f->pg_db);
        url_with_database(f->url, sizeof f->url, pg, f->pg_db);
        return on_server(sql, err);
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/dbmcp-replicas-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir))
        return dbmcp_error_set(err, DBMCP_EIO, "mkdtemp %s failed", f->dir);
    snprintf(f->url, sizeof f->url, "%s/test.db", f->dir);
    return 0;
}

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || ids_init() != 0)
        return -1;
    dbmcp_error err;
    if (fresh_database(f, &err) != 0 ||
        store_open(f->url, STORE_READWRITE | STORE_CREATE, &f->a, &err) != 0 ||
        store_migrate(f->a, NULL, &err) != 0 ||
        store_open(f->url, STORE_READWRITE, &f->b, &err) != 0) {
        print_error("setup: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    store_close(f->a);
    store_close(f->b);
    if (f->pg_db[0]) {
        char sql[160];
        dbmcp_error err;
        snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", f->pg_db);
        on_server(sql, &err);
    } else {
        char p[1300];
        const char *suffix[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            snprintf(p, sizeof p, "%s%s", f->url, suffix[i]);
            unlink(p);
        }
        rmdir(f->dir);
    }
    free(f);
    return 0;
}

static void exec_ok(store *db, const char *sql)
{
    dbmcp_error err;
    if (store_exec(db, sql, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
}

static int64_t count(store *db, const char *sql)
{
    int64_t n = -1;
    dbmcp_error err;
    if (store_query_int(db, sql, -1, &n, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
    return n;
}

/* --- leases ------------------------------------------------------------------------ */

static void test_lease_one_holder(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    char other[128];
    assert_int_equal(store_lease_take(f->a, "job", "x:1:aa", 60, NULL, 0, &err), 1);
    assert_int_equal(store_lease_take(f->b, "job", "y:2:bb", 60, other, sizeof other, &err), 0);
    assert_string_equal(other, "x:1:aa");
    assert_int_equal(store_lease_take(f->a, "job", "x:1:aa", 60, NULL, 0, &err), 1); /* renew */
    assert_int_equal(store_lease_release(f->b, "job", "y:2:bb", &err), 0); /* not its lease */
    assert_int_equal(store_lease_take(f->b, "job", "y:2:bb", 60, NULL, 0, &err), 0);
    assert_int_equal(store_lease_release(f->a, "job", "x:1:aa", &err), 0);
    assert_int_equal(store_lease_take(f->b, "job", "y:2:bb", 60, NULL, 0, &err), 1);
}

static void test_lease_expired_is_free(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_lease_take(f->a, "job", "x:1:aa", -1, NULL, 0, &err), 1);
    assert_int_equal(store_lease_take(f->b, "job", "y:2:bb", 60, NULL, 0, &err), 1);
}

/* A replica id of this machine whose process has ended. */
static void dead_replica_id(char *out, size_t size)
{
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    const char *self = replica_id();
    const char *c1 = strchr(self, ':'), *c2 = strrchr(self, ':');
    snprintf(out, size, "%.*s:%ld%s", (int)(c1 - self), self, (long)child, c2);
}

static void test_lease_of_dead_holder_is_taken(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    char dead[128];
    dead_replica_id(dead, sizeof dead);
    assert_true(replica_is_dead(dead));
    assert_false(replica_is_dead(replica_id()));
    assert_false(replica_is_dead("elsewhere:1:00000000"));
    assert_int_equal(store_lease_take(f->a, "job", dead, 600, NULL, 0, &err), 1);
    assert_int_equal(store_lease_take(f->b, "job", replica_id(), 60, NULL, 0, &err), 1);
    assert_int_equal(store_lease_take(f->a, "job", "elsewhere:1:00000000", 60, NULL, 0, &err), 0);
}

/* --- embedding job claims ------------------------------------------------------------ */

static void add_items(store *db, int n)
{
    dbmcp_error err;
    char now[32];
    ids_now_iso(now);
    for (int i = 0; i < n; i++) {
        char hash[32], text[64];
        snprintf(hash, sizeof hash, "h%d", i);
        snprintf(text, sizeof text, "item number %d", i);
        int64_t id;
        int existed;
        assert_int_equal(store_begin(db, &err), 0);
        if (mstore_item_put(db, "u", "a", "message", hash, text, now, &id, &existed, &err) != 0)
            fail_msg("item: %s", err.message);
        assert_int_equal(store_commit(db, &err), 0);
    }
}

typedef struct claimed {
    int64_t ids[16];
    int n;
} claimed;

static int on_claim(void *ctx, store_stmt *row)
{
    claimed *c = ctx;
    c->ids[c->n++] = store_column_int(row, 0);
    assert_non_null(store_column_text(row, 3)); /* the item's text */
    return 0;
}

static claimed claim(store *db, const char *who, double lease_s, int limit)
{
    claimed c = {{0}, 0};
    char now[32], until[32];
    dbmcp_error err;
    ids_now_iso(now);
    ids_iso_from_now(lease_s, until);
    if (mstore_jobs_claim(db, who, now, until, limit, on_claim, &c, &err) != 0)
        fail_msg("claim: %s", err.message);
    return c;
}

static int complete(store *db, int64_t id, const char *who)
{
    dbmcp_error err;
    float vec[2] = {1, 0};
    char now[32];
    ids_now_iso(now);
    assert_int_equal(store_begin(db, &err), 0);
    int rc = mstore_job_complete(db, id, who, "u", "a", "m", 2, vec, now, &err);
    assert_int_equal(store_commit(db, &err), 0);
    return rc;
}

static void test_jobs_claimed_once(void **state)
{
    fixture *f = *state;
    add_items(f->a, 3);
    claimed x = claim(f->a, "x", 60, 2);
    claimed y = claim(f->b, "y", 60, 2);
    claimed z = claim(f->a, "z", 60, 2);
    assert_int_equal(x.n, 2);
    assert_int_equal(y.n, 1); /* what x left */
    assert_int_equal(z.n, 0);
    for (int i = 0; i < x.n; i++)
        assert_true(x.ids[i] != y.ids[0]);
    assert_int_equal(complete(f->a, y.ids[0], "x"), DBMCP_ENOTFOUND); /* not x's claim */
    assert_int_equal(complete(f->b, y.ids[0], "y"), 0);
    assert_int_equal(complete(f->b, y.ids[0], "y"), DBMCP_ENOTFOUND); /* once */
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_mem_vectors"), 1);
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_mem_jobs"), 2);
}

static void test_jobs_of_expired_claim_taken_again(void **state)
{
    fixture *f = *state;
    add_items(f->a, 2);
    claimed dead = claim(f->a, "dead", -1, 10); /* a claim that already ran out */
    assert_int_equal(dead.n, 2);
    claimed live = claim(f->b, "live", 60, 10);
    assert_int_equal(live.n, 2);
    assert_int_equal(complete(f->a, live.ids[0], "dead"), DBMCP_ENOTFOUND);
    assert_int_equal(complete(f->b, live.ids[0], "live"), 0);
    dbmcp_error err;
    assert_int_equal(
        mstore_job_fail(f->a, live.ids[1], "dead", 1, "2000-01-01T00:00:00.000Z", "late", &err), 0);
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_mem_jobs WHERE attempts = 0 AND"
                                 " claimed_by = 'live'"),
                     1); /* the late failure changed nothing */
}

/* --- the change listener --------------------------------------------------------------- */

static void *wake_later(void *arg)
{
    usleep(50000);
    store_listener_wake(arg);
    return NULL;
}

static void test_listener(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    store_listener *l = NULL;
    assert_int_equal(store_listener_open(f->url, 20, &l, &err), 0);
    assert_int_equal(store_listener_wait(l, 60, &err), 0); /* nothing changed */
    store_counters before, after;
    assert_int_equal(store_counters_read(f->a, &before, &err), 0);
    exec_ok(f->b, "INSERT INTO dbmcp_settings (key, value) VALUES ('x.y', '1')");
    assert_int_equal(store_listener_wait(l, 10000, &err), 1);
    assert_int_equal(store_counters_read(f->a, &after, &err), 0);
    assert_true(after.settings > before.settings);
    assert_int_equal(after.catalog, before.catalog);
    exec_ok(f->b, "INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind,"
                  " handler) VALUES ('t', 'd', '{}', 'builtin', 'echo')");
    assert_int_equal(store_listener_wait(l, 10000, &err), 1);
    assert_int_equal(store_counters_read(f->a, &before, &err), 0);
    assert_true(before.catalog > after.catalog);
    pthread_t t;
    pthread_create(&t, NULL, wake_later, l);
    double t0 = ids_monotonic_ms();
    assert_int_equal(store_listener_wait(l, 60000, &err), 0); /* woken, long before */
    assert_true(ids_monotonic_ms() - t0 < 30000);
    pthread_join(t, NULL);
    store_listener_close(l);
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* PostgreSQL's listener sleeps without a timer of its own (an idle wait
 * costs no CPU), and a listener whose connection the server ended fails
 * one wait, then reconnects and reports what changed while it was away. */
static void test_listener_pg(void **state)
{
    fixture *f = *state;
    if (!f->pg_db[0])
        skip();
    dbmcp_error err;
    store_listener *l = NULL;
    assert_int_equal(store_listener_open(f->url, 20, &l, &err), 0);
    double cpu0 = thread_cpu_ms();
    assert_int_equal(store_listener_wait(l, 1000, &err), 0);
    assert_true(thread_cpu_ms() - cpu0 < 50); /* SQLite's would have read 50 times */
    exec_ok(f->b, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                  " WHERE datname = current_database() AND pid <> pg_backend_pid()");
    exec_ok(f->b, "INSERT INTO dbmcp_settings (key, value) VALUES ('x.y', '1')");
    assert_true(store_listener_wait(l, 10000, &err) < 0);     /* the connection broke */
    assert_int_equal(store_listener_wait(l, 10000, &err), 1); /* the change made meanwhile */
    exec_ok(f->b, "INSERT INTO dbmcp_settings (key, value) VALUES ('x.z', '1')");
    assert_int_equal(store_listener_wait(l, 10000, &err), 1); /* LISTENing again */
    store_listener_close(l);
}

/* --- sessions ---------------------------------------------------------------------------- */

static void insert_session(store *db, const char *id, const char *key)
{
    sessions_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.key_id, sizeof r.key_id, "%s", key);
    snprintf(r.principal, sizeof r.principal, "p");
    snprintf(r.interface, sizeof r.interface, "default");
    snprintf(r.user_id, sizeof r.user_id, "u");
    snprintf(r.transport, sizeof r.transport, "http");
    snprintf(r.protocol, sizeof r.protocol, "2025-11-25");
    snprintf(r.log_level, sizeof r.log_level, "info");
    r.client_caps = "{\"roots\":{}}";
    char now[32];
    ids_now_iso(now);
    dbmcp_error err;
    if (sessions_store_insert(db, &r, now, &err) != 0)
        fail_msg("insert: %s", err.message);
}

static int add_uri(void *ctx, const char *uri, const char *stamp)
{
    (void)stamp;
    strcat(ctx, uri);
    strcat(ctx, ";");
    return 0;
}

static void test_session_state(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    insert_session(f->a, "s1", "k1");
    int64_t rev = 0;
    char used[32];
    assert_int_equal(sessions_store_probe(f->b, "s1", &rev, used, &err), 0);
    assert_int_equal(rev, 1);
    assert_int_equal(sessions_store_set_initialized(f->b, "s1", &rev, &err), 0);
    assert_int_equal(rev, 2);
    assert_int_equal(sessions_store_set_log_level(f->a, "s1", "error", &rev, &err), 0);
    assert_int_equal(sessions_store_subscribe(f->b, "s1", "file:///x", "t1", &rev, &err), 0);
    assert_int_equal(rev, 4);
    assert_int_equal(sessions_store_subscribe(f->b, "nope", "file:///x", "t1", &rev, &err),
                     DBMCP_ENOTFOUND);
    sessions_row row;
    assert_int_equal(sessions_store_get(f->a, "s1", &row, &err), 0);
    assert_int_equal(row.initialized, 1);
    assert_string_equal(row.log_level, "error");
    assert_string_equal(row.client_caps, "{\"roots\":{}}");
    assert_int_equal(row.rev, 4);
    sessions_row_free(&row);
    char uris[256] = "";
    assert_int_equal(sessions_store_subscriptions(f->a, "s1", add_uri, uris, &err), 0);
    assert_string_equal(uris, "file:///x;");
    assert_int_equal(sessions_store_unsubscribe(f->a, "s1", "file:///x", &rev, &err), 0);
    assert_int_equal(sessions_store_delete(f->b, "s1", &err), 0);
    assert_int_equal(sessions_store_probe(f->a, "s1", &rev, used, &err), DBMCP_ENOTFOUND);
    assert_int_equal(sessions_store_set_initialized(f->a, "s1", &rev, &err), DBMCP_ENOTFOUND);
}

static int collect_id(void *ctx, const char *id)
{
    strcat(ctx, id);
    strcat(ctx, ";");
    return 0;
}

static void test_session_key_and_expiry(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    insert_session(f->a, "old", "k");
    insert_session(f->a, "streamed", "k");
    insert_session(f->a, "new", "k");
    insert_session(f->a, "elsewhere", "k2");
    exec_ok(f->a, "UPDATE dbmcp_sessions SET last_used_at = '2000-01-01T00:00:00.000Z'"
                  " WHERE id IN ('old', 'streamed')");
    exec_ok(f->a, "UPDATE dbmcp_sessions SET stream_until = '2999-01-01T00:00:00.000Z'"
                  " WHERE id = 'streamed'");
    int64_t n = 0;
    assert_int_equal(store_begin(f->a, &err), 0);
    assert_int_equal(sessions_store_lock_key(f->a, "k", &err), 0);
    assert_int_equal(sessions_store_count_key(f->a, "k", &n, &err), 0);
    assert_int_equal(store_commit(f->a, &err), 0);
    assert_int_equal(n, 3);
    char now[32], before[32], ids[256] = "";
    ids_now_iso(now);
    assert_int_equal(sessions_store_idle_of_key(f->a, "k", now, 10, collect_id, ids, &err), 0);
    assert_string_equal(ids, "old;new;"); /* least recently used first; not the streamed one */
    ids_iso_from_now(-3600, before);
    assert_int_equal(sessions_store_expire(f->b, before, now, &n, &err), 0);
    assert_int_equal(n, 1); /* old; streamed holds its lease */
    /* Revoking a key ends its sessions, however it is revoked. */
    exec_ok(f->a, "INSERT INTO dbmcp_interfaces (name) VALUES ('default');"
                  "INSERT INTO dbmcp_principals (name) VALUES ('p');"
                  "INSERT INTO dbmcp_api_keys (id, principal, secret_hash, interface)"
                  " VALUES ('k', 'p', 'x', 'default')");
    exec_ok(f->b, "UPDATE dbmcp_api_keys SET revoked_at = '2026-01-01T00:00:00.000Z'"
                  " WHERE id = 'k'");
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_sessions WHERE key_id = 'k'"), 0);
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_sessions"), 1);
}

static void insert_task(store *db, const char *id, const char *owner, double ttl_s)
{
    tasks_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.owner, sizeof r.owner, "%s", owner);
    snprintf(r.interface, sizeof r.interface, "default");
    snprintf(r.tool, sizeof r.tool, "slow");
    snprintf(r.call_id, sizeof r.call_id, "%s", id);
    snprintf(r.replica, sizeof r.replica, "%s", replica_id());
    ids_iso_from_now(ttl_s, r.expires_at);
    r.request = "{\"name\":\"slow\",\"arguments\":{}}";
    char now[32];
    ids_now_iso(now);
    dbmcp_error err;
    if (tasks_store_insert(db, &r, now, &err) != 0)
        fail_msg("insert: %s", err.message);
}

static void test_task_rows(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    char now[32];
    ids_now_iso(now);
    insert_task(f->a, "t1", "key:k1|default", 60);
    tasks_row r;
    /* the other replica answers; another owner sees nothing */
    assert_int_equal(tasks_store_get(f->b, "t1", "key:k1|default", now, &r, &err), 0);
    assert_string_equal(r.status, "working");
    assert_true(r.progress < 0);
    tasks_row_free(&r);
    assert_int_equal(tasks_store_get(f->b, "t1", "key:k2|default", now, &r, &err), DBMCP_ENOTFOUND);
    assert_int_equal(tasks_store_cancel(f->b, "t1", "key:k2|default", now, &err), DBMCP_ENOTFOUND);
    assert_int_equal(tasks_store_cancelled(f->a, "t1", &err), 0);
    assert_int_equal(tasks_store_progress(f->a, "t1", 3, 10, "step 3", now, &err), 0);
    /* input_required, answered in two parts; an unasked key is dropped */
    assert_int_equal(tasks_store_finish(f->a, "t1", "input_required", NULL, NULL, NULL,
                                        "{\"a\":{},\"b\":{}}", "sealed", now, &err),
                     0);
    int resume = -1;
    assert_int_equal(
        tasks_store_answer(f->b, "t1", "key:k1|default", "{\"a\":1,\"zz\":2}", now, &resume, &err),
        0);
    assert_int_equal(resume, 0);
    assert_int_equal(tasks_store_get(f->a, "t1", "key:k1|default", now, &r, &err), 0);
    assert_string_equal(r.status, "input_required");
    assert_string_equal(r.input_requests, "{\"b\":{}}");
    assert_string_equal(r.request_state, "sealed");
    assert_true(r.progress == 3 && r.progress_total == 10);
    tasks_row_free(&r);
    assert_int_equal(
        tasks_store_answer(f->b, "t1", "key:k1|default", "{\"b\":2}", now, &resume, &err), 0);
    assert_int_equal(resume, 1);
    assert_int_equal(tasks_store_get(f->a, "t1", "key:k1|default", now, &r, &err), 0);
    assert_string_equal(r.status, "working");
    assert_null(r.input_requests);
    assert_string_equal(r.input_responses, "{\"a\":1,\"b\":2}");
    tasks_row_free(&r);
    /* cancelled is terminal: a late outcome is dropped, cancel again is a no-op */
    assert_int_equal(tasks_store_cancel(f->b, "t1", "key:k1|default", now, &err), 0);
    assert_int_equal(tasks_store_cancelled(f->a, "t1", &err), 1);
    assert_int_equal(
        tasks_store_finish(f->a, "t1", "completed", NULL, "{}", NULL, NULL, NULL, now, &err),
        DBMCP_ENOTFOUND);
    assert_int_equal(tasks_store_cancel(f->b, "t1", "key:k1|default", now, &err), 0);
    assert_int_equal(tasks_store_get(f->a, "t1", "key:k1|default", now, &r, &err), 0);
    assert_string_equal(r.status, "cancelled");
    assert_null(r.result);
    tasks_row_free(&r);
    /* expiry: past expires_at a task is not found, then deleted */
    insert_task(f->a, "t2", "key:k1|default", -1);
    assert_int_equal(tasks_store_get(f->b, "t2", "key:k1|default", now, &r, &err), DBMCP_ENOTFOUND);
    int64_t n = 0;
    assert_int_equal(tasks_store_expire(f->b, now, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(count(f->a, "SELECT count(*) FROM dbmcp_tasks"), 1);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_lease_one_holder),
        TEST(test_lease_expired_is_free),
        TEST(test_lease_of_dead_holder_is_taken),
        TEST(test_jobs_claimed_once),
        TEST(test_jobs_of_expired_claim_taken_again),
        TEST(test_listener),
        TEST(test_listener_pg),
        TEST(test_session_state),
        TEST(test_session_key_and_expiry),
        TEST(test_task_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
