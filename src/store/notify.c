/*
 * notify.c — change counters and the listener that waits for them
 * (notify.h).
 *
 * Each engine waits its own way; either way a wait reports a change only
 * when the sum of the counters moved (each counter only grows, so any bump
 * moves the sum), and the sum is kept across reconnections, so what
 * changed while the listener was away is reported by the first wait after.
 *
 * SQLite is polled: the listener reads sum(dbmcp_changes.version) every
 * poll_ms on its own connection and sleeps between reads.
 *
 * PostgreSQL notifies (schema postgres/0007_sessions.sql: every bump also
 * NOTIFYs dbmcp_changes, delivered at commit). After each (re)connection
 * the listener runs LISTEN dbmcp_changes first and then reads the
 * counters, so a change is either in that read or notified afterwards. It
 * then sleeps in store_wait_notify with no timer of its own and reads the
 * counters again only when a notification came. A broken connection fails
 * the wait; the next one opens a new connection (LISTENing again).
 *
 * store_listener_wake writes a byte to a pipe that every sleep (SQLite's
 * poll() between reads as much as PostgreSQL's wait in the driver)
 * watches; the wait that sees it empties the pipe and returns 0.
 */
#include "store/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct store_listener {
    char *url;        /* owned copy */
    int poll_ms;      /* between reads of the counters, when the engine has no LISTEN */
    store *db;        /* NULL after a failure: the next wait reopens */
    int listens;      /* db LISTENs dbmcp_changes: waits sleep in store_wait_notify */
    int64_t seen;     /* sum of the counters at the last look */
    int have_seen;    /* seen is valid */
    int wake_pipe[2]; /* store_listener_wake writes [1]; every sleep watches [0] */
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

/* Whole milliseconds from now until `until`, rounded up; 0 once past. */
static int ms_until(double until)
{
    double left = until - now_ms();
    return left <= 0 ? 0 : (int)left + 1;
}

/* Empty the wake pipe; 1 when store_listener_wake had written to it. */
static int take_wake(store_listener *l)
{
    char buf[64];
    int woken = 0;
    while (read(l->wake_pipe[0], buf, sizeof buf) > 0)
        woken = 1;
    return woken;
}

/* Sleep until the monotonic time `until` (ms) or a wake; 1 when woken (the
 * wake is consumed). */
static int sleep_until(store_listener *l, double until)
{
    for (;;) {
        struct pollfd p = {.fd = l->wake_pipe[0], .events = POLLIN};
        if (poll(&p, 1, ms_until(until)) > 0)
            return take_wake(l);
        if (now_ms() >= until)
            return take_wake(l);
    }
}

/* Drop the connection after a failure: the next wait reopens it. */
static void disconnect(store_listener *l)
{
    store_close(l->db);
    l->db = NULL;
    l->listens = 0;
}

/* Connect when not connected; on PostgreSQL, LISTEN before anything is
 * read, so no change falls between the read and the LISTEN. */
static int ensure_open(store_listener *l, dbmcp_error *err)
{
    if (l->db)
        return 0;
    int rc = store_open(l->url, STORE_READWRITE, &l->db, err);
    if (!rc && strcmp(store_dialect(l->db), "postgres") == 0) {
        rc = store_exec(l->db, "LISTEN dbmcp_changes", err);
        l->listens = rc == 0;
    }
    if (rc)
        disconnect(l);
    return rc;
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
        disconnect(l);
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
    l->wake_pipe[0] = l->wake_pipe[1] = -1;
    if (pipe2(l->wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        store_listener_close(l);
        return dbmcp_error_set(err, DBMCP_EIO, "change listener: pipe: %s", strerror(errno));
    }
    int rc = look(l, err);
    if (rc < 0) {
        store_listener_close(l);
        return rc;
    }
    *out = l;
    return 0;
}

/* SQLite's wait: read the counters every poll_ms until they moved. */
static int wait_polling(store_listener *l, double deadline, dbmcp_error *err)
{
    for (double next = now_ms() + l->poll_ms;; next += l->poll_ms) {
        if (sleep_until(l, next < deadline ? next : deadline))
            return 0;
        int rc = look(l, err);
        if (rc != 0)
            return rc;
        if (now_ms() >= deadline)
            return 0;
    }
}

/* PostgreSQL's wait: sleep in the driver until notified, then confirm with
 * the counters (a notification read with the answer of the last look may
 * be about a change that look already saw). */
static int wait_notified(store_listener *l, double deadline, dbmcp_error *err)
{
    for (;;) {
        int rc = store_wait_notify(l->db, ms_until(deadline), l->wake_pipe[0], err);
        if (rc < 0) {
            disconnect(l);
            return rc;
        }
        if (rc == 0 && (take_wake(l) || now_ms() >= deadline))
            return 0;
        if (rc == 1 && (rc = look(l, err)) != 0)
            return rc;
        if (now_ms() >= deadline)
            return 0;
    }
}

int store_listener_wait(store_listener *l, int timeout_ms, dbmcp_error *err)
{
    double deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    if (!l->db) { /* reconnect, and report what changed while away */
        int rc = look(l, err);
        if (rc != 0)
            return rc;
    }
    return l->listens ? wait_notified(l, deadline, err) : wait_polling(l, deadline, err);
}

void store_listener_wake(store_listener *l)
{
    if (!l)
        return;
    /* A full pipe already holds a wake; nothing else can fail here. */
    ssize_t n = write(l->wake_pipe[1], "w", 1);
    (void)n;
}

void store_listener_close(store_listener *l)
{
    if (!l)
        return;
    store_close(l->db);
    for (int i = 0; i < 2; i++)
        if (l->wake_pipe[i] >= 0)
            close(l->wake_pipe[i]);
    free(l->url);
    free(l);
}
