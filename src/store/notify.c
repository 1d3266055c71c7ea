/*
 * notify.c — change counters and the listener that waits for them
 * (notify.h).
 *
 * Today every engine is polled: the listener reads
 * sum(dbmcp_changes.version) every poll_ms on its own connection and
 * reports a change when the sum moved (each counter only grows, so any
 * bump moves the sum). Between reads it sleeps on a condition variable, so
 * store_listener_wake ends a wait at once.
 *
 * PostgreSQL needs one driver entry to sleep instead (schema
 * postgres/0007_sessions.sql already NOTIFYs dbmcp_changes with every
 * bump). With it, listener_engine_wait below becomes, for that dialect:
 * after (re)connecting, store_exec(db, "LISTEN dbmcp_changes") and compare
 * the counters with the last seen (what changed while disconnected); then
 *     rc = store_wait_notify(db, timeout_ms, l->wake_pipe[0], err);
 * with the wake pipe written by store_listener_wake instead of the
 * condition variable. Its contract (driver entry `wait_notify`):
 *     int store_wait_notify(store *db, int timeout_ms, int wake_fd,
 *                           dbmcp_error *err);
 *   Wait until a notification for a channel this connection LISTENs to
 *   arrives, wake_fd (-1: none) becomes readable, or timeout_ms (-1: no
 *   limit) passes, without using CPU meanwhile (PostgreSQL: PQconsumeInput
 *   and PQnotifies, then poll() on PQsocket and wake_fd). Returns 1 when
 *   at least one notification arrived, every pending one consumed and
 *   freed (their payloads are not needed: the counters say what moved); 0
 *   on timeout or wake_fd (whose bytes it leaves unread); a negative code
 *   with err filled when the connection broke (the caller closes and
 *   reopens). SQLite has no notifications: DBMCP_ESTORE "not supported".
 */
#include "store/notify.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct store_listener {
    char *url;           /* owned copy */
    int poll_ms;         /* between reads of the counters */
    store *db;           /* NULL after a failure: the next wait reopens */
    int64_t seen;        /* sum of the counters at the last look */
    int have_seen;       /* seen is valid */
    pthread_mutex_t mu;  /* guards woken */
    pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled by store_listener_wake */
    int woken;           /* a wake not yet consumed by a wait */
};

static const char *const channels[] = {"catalog", "settings", "keys", "sessions"};

int store_counters_read(store *db, store_counters *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db, "SELECT channel, version FROM dbmcp_changes", &st, err);
    if (rc)
        return rc;
    int64_t *slot[] = {&out->catalog, &out->settings, &out->keys, &out->sessions};
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *name = store_column_text(st, 0);
        for (size_t i = 0; name && i < sizeof channels / sizeof channels[0]; i++)
            if (strcmp(name, channels[i]) == 0)
                *slot[i] = store_column_int(st, 1);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Sleep on l->cond until the monotonic time `until` (ms) or a wake;
 * returns 1 when woken (the wake is consumed). */
static int sleep_until(store_listener *l, double until)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(until / 1000.0);
    ts.tv_nsec = (long)((until - (double)ts.tv_sec * 1000.0) * 1e6);
    if (ts.tv_nsec < 0)
        ts.tv_nsec = 0;
    if (ts.tv_nsec >= 1000000000L)
        ts.tv_nsec = 999999999L;
    pthread_mutex_lock(&l->mu);
    while (!l->woken && now_ms() < until)
        if (pthread_cond_timedwait(&l->cond, &l->mu, &ts) == ETIMEDOUT)
            break;
    int woken = l->woken;
    l->woken = 0;
    pthread_mutex_unlock(&l->mu);
    return woken;
}

/* Connect when not connected. */
static int ensure_open(store_listener *l, dbmcp_error *err)
{
    return l->db ? 0 : store_open(l->url, STORE_READWRITE, &l->db, err);
}

/* Read the sum of the counters; 1 when it moved since the last look. */
static int look(store_listener *l, dbmcp_error *err)
{
    int64_t sum = 0;
    int rc = ensure_open(l, err);
    if (!rc)
        rc = store_query_int(l->db,
                             "SELECT CAST(coalesce(sum(version), 0) AS BIGINT) FROM dbmcp_changes",
                             0, &sum, err);
    if (rc) {
        store_close(l->db);
        l->db = NULL;
        return rc;
    }
    int moved = l->have_seen && sum != l->seen;
    l->seen = sum;
    l->have_seen = 1;
    return moved;
}

int store_listener_open(const char *url, int poll_ms, store_listener **out, dbmcp_error *err)
{
    *out = NULL;
    store_listener *l = calloc(1, sizeof *l);
    if (!l || !(l->url = strdup(url))) {
        free(l);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    l->poll_ms = poll_ms > 0 ? poll_ms : 500;
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &a);
    pthread_condattr_destroy(&a);
    int rc = look(l, err);
    if (rc < 0) {
        store_listener_close(l);
        return rc;
    }
    *out = l;
    return 0;
}

/* The engine's wait (see the file comment for PostgreSQL's). */
static int listener_engine_wait(store_listener *l, int timeout_ms, dbmcp_error *err)
{
    double start = now_ms(), deadline = start + (timeout_ms > 0 ? timeout_ms : 0);
    if (!l->db) { /* reconnect, and report what changed while away */
        int rc = look(l, err);
        if (rc != 0)
            return rc;
    }
    for (double next = start + l->poll_ms;; next += l->poll_ms) {
        if (sleep_until(l, next < deadline ? next : deadline))
            return 0;
        int rc = look(l, err);
        if (rc != 0)
            return rc;
        if (now_ms() >= deadline)
            return 0;
    }
}

int store_listener_wait(store_listener *l, int timeout_ms, dbmcp_error *err)
{
    return listener_engine_wait(l, timeout_ms, err);
}

void store_listener_wake(store_listener *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->woken = 1;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mu);
}

void store_listener_close(store_listener *l)
{
    if (!l)
        return;
    store_close(l->db);
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cond);
    free(l->url);
    free(l);
}
