/*
 * audit.c — batched background audit writer; see audit.h.
 *
 * Every pushed row gets a ticket, its position in push order. The writer
 * takes the whole queue as one batch, so batches commit in ticket order
 * and "every ticket up to `written` is committed" describes the table
 * exactly; audit_queue_wait compares its ticket with it. `bytes` counts
 * the queue and the batch being written, so the bound holds while a batch
 * is retried.
 */
#include "mcp/audit.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/ids.h"
#include "core/log.h"
#include "core/text_safe.h"

#define AUDIT_BATCH 256
#define AUDIT_RETRY_FIRST_MS 50
#define AUDIT_RETRY_MAX_MS 1000
/* Room in the operator log line for a row given up at shutdown. */
#define AUDIT_LOGGED_TEXT_MAX 512

struct audit_queue {
    store_pool *pool;    /* not owned */
    audit_config cfg;    /* with the defaults filled in */
    reg_audit_row *rows; /* queued rows, not yet taken by the writer */
    double *queued_ms;   /* when each was pushed (monotonic) */
    size_t n, cap;
    size_t bytes;           /* queued rows and the batch being written */
    uint64_t pushed;        /* tickets handed out: the last row pushed has this one */
    uint64_t written;       /* every ticket <= written is committed */
    size_t batch_n;         /* rows of the batch being written (0: none) */
    double batch_oldest;    /* queued_ms of its first row */
    int waiters;            /* callers waiting for the writer (their row, or room) */
    int flush_requested;    /* set by audit_queue_flush until the queue is empty */
    int stopping;           /* set by audit_queue_free */
    double stop_ms;         /* when the stop grace began: free, or a flush that timed out */
    double flush_failed_ms; /* start of the last flush that timed out (0: none since) */
    int gave_up;            /* rows refused past the stop grace went to the log */
    double last_warn_ms;    /* last lag warning */
    int behind;             /* a lag warning awaits its "caught up" line */
    char last_error[256];   /* the database's last refusal */
    audit_stats st;         /* counters (pending figures are computed) */
    pthread_mutex_t lock;   /* guards everything above but pool and cfg */
    pthread_cond_t wake;    /* to the writer: rows to write now, or stop */
    pthread_cond_t retry;   /* to the writer between attempts: stop */
    pthread_cond_t drained; /* from the writer: a batch was settled */
    pthread_t thread;
};

/* --- rows ----------------------------------------------------------------------- */

static void free_row(reg_audit_row *r)
{
    free(r->target);
    free(r->error_detail);
    free(r->sql_text);
    free(r->change_json);
}

static size_t row_bytes(const reg_audit_row *r)
{
    return sizeof *r + sizeof(double) + (r->target ? strlen(r->target) : 0) +
           (r->error_detail ? strlen(r->error_detail) : 0) +
           (r->sql_text ? strlen(r->sql_text) : 0) + (r->change_json ? strlen(r->change_json) : 0);
}

/* The last resort at shutdown: the row as one line of the operator log,
 * long texts shortened to fit it. */
static void log_unwritten_row(const reg_audit_row *r)
{
    char *detail = text_safe_bound(r->error_detail, AUDIT_LOGGED_TEXT_MAX, 0);
    char *sql = text_safe_bound(r->sql_text, AUDIT_LOGGED_TEXT_MAX, 0);
    char *target = text_safe_bound(r->target, AUDIT_LOGGED_TEXT_MAX, 0);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "call_id",
                          r->call_id, "ts", r->ts, "principal", r->principal, "key_id", r->key_id,
                          "interface", r->interface, "user_id", r->user_id, "agent_id", r->agent_id,
                          "client_name", r->client_name, "transport", r->transport, "protocol",
                          r->protocol, "method", r->method);
    if (o) {
        json_object_set_new(o, "target", target ? json_string(target) : json_null());
        json_object_set_new(o, "status", json_string(r->status ? r->status : ""));
        if (r->trace_id[0])
            json_object_set_new(o, "trace_id", json_string(r->trace_id));
        json_object_set_new(o, "error_class",
                            r->error_class ? json_string(r->error_class) : json_null());
        json_object_set_new(o, "error_detail", detail ? json_string(detail) : json_null());
        json_object_set_new(o, "sql_text", sql ? json_string(sql) : json_null());
        json_object_set_new(o, "duration_ms", json_real(r->duration_ms));
        json_object_set_new(o, "bytes_out", json_integer(r->bytes_out));
        json_object_set_new(o, "rows_out", json_integer(r->rows_out));
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    log_msg(LOG_ERROR, "audit",
            "audit row not written (the database refused it until shutdown): %s",
            text ? text : r->call_id);
    free(text);
    json_decref(o);
    free(detail);
    free(sql);
    free(target);
}

/* --- clock ---------------------------------------------------------------------- */

static void deadline_after(struct timespec *ts, double ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    long long ns = (long long)ts->tv_nsec + (long long)(ms * 1e6);
    ts->tv_sec += (time_t)(ns / 1000000000LL);
    ts->tv_nsec = (long)(ns % 1000000000LL);
}

static void cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

/* --- lag ------------------------------------------------------------------------ */

static size_t pending_locked(const audit_queue *q)
{
    return q->n + q->batch_n;
}

static double oldest_ms_locked(const audit_queue *q, double now)
{
    if (q->batch_n)
        return now - q->batch_oldest;
    return q->n ? now - q->queued_ms[0] : 0;
}

/* A lag warning into msg when one is due (at most one per lag_warn_ms
 * while the oldest pending row is older than that); 1 when due. Logged by
 * the caller after unlocking. */
static int lag_warning_locked(audit_queue *q, double now, char *msg, size_t size)
{
    double age = oldest_ms_locked(q, now);
    if (age < q->cfg.lag_warn_ms || now - q->last_warn_ms < q->cfg.lag_warn_ms)
        return 0;
    q->last_warn_ms = now;
    q->behind = 1;
    snprintf(msg, size,
             "audit writer behind: %zu rows pending (%zu bytes), the oldest for %.1f s; %" PRIu64
             " failed write attempts, the last: %s",
             pending_locked(q), q->bytes, age / 1000.0, q->st.failed_attempts,
             q->last_error[0] ? q->last_error : "none");
    return 1;
}

/* --- the writer ----------------------------------------------------------------- */

/* One attempt at the batch; 0 when committed, else the reason in err. */
static int write_once(audit_queue *q, const reg_audit_row *rows, size_t n, dbmcp_error *err)
{
    store *db = store_pool_acquire(q->pool, err);
    if (!db)
        return err->code;
    int rc = reg_audit_insert(db, rows, n, err);
    store_pool_release(q->pool, db);
    return rc;
}

/* Write the batch, retrying until the database takes it. Returns 1 when
 * committed, 0 when given up (only after audit_queue_free was called and
 * stop_grace_ms passed): the rows then went to the operator log. */
static int write_retrying(audit_queue *q, const reg_audit_row *rows, size_t n)
{
    double pause = AUDIT_RETRY_FIRST_MS;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        int give_up = q->gave_up;
        pthread_mutex_unlock(&q->lock);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        if (!give_up && write_once(q, rows, n, &err) == 0)
            return 1;

        char warning[600];
        pthread_mutex_lock(&q->lock);
        double now = ids_monotonic_ms();
        if (!give_up) {
            q->st.failed_attempts++;
            snprintf(q->last_error, sizeof q->last_error, "%.200s", err.message);
            give_up = q->stopping && now - q->stop_ms >= q->cfg.stop_grace_ms;
            q->gave_up = give_up;
        }
        int warn = !give_up && lag_warning_locked(q, now, warning, sizeof warning);
        if (give_up)
            q->st.logged_only += n;
        else {
            struct timespec ts;
            deadline_after(&ts, pause);
            pthread_cond_timedwait(&q->retry, &q->lock, &ts);
        }
        pthread_mutex_unlock(&q->lock);
        if (warn)
            log_msg(LOG_WARN, "audit", "%s", warning);
        if (give_up) {
            for (size_t i = 0; i < n; i++)
                log_unwritten_row(&rows[i]);
            return 0;
        }
        pause = pause * 2 > AUDIT_RETRY_MAX_MS ? AUDIT_RETRY_MAX_MS : pause * 2;
    }
}

/* Take the whole queue as one batch and write it; called and returns with
 * the lock held. */
static void take_and_write(audit_queue *q)
{
    reg_audit_row *rows = q->rows;
    double *queued = q->queued_ms;
    size_t n = q->n;
    uint64_t last = q->pushed;
    q->rows = NULL;
    q->queued_ms = NULL;
    q->n = q->cap = 0;
    q->batch_n = n;
    q->batch_oldest = queued[0];
    pthread_mutex_unlock(&q->lock);

    int committed = write_retrying(q, rows, n);
    double lag = ids_monotonic_ms() - queued[0];
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += row_bytes(&rows[i]);
        free_row(&rows[i]);
    }
    free(rows);
    free(queued);

    pthread_mutex_lock(&q->lock);
    q->batch_n = 0;
    q->bytes -= bytes;
    if (committed) {
        q->written = last;
        q->st.written += n;
        if (lag > q->st.max_lag_ms)
            q->st.max_lag_ms = lag;
    }
    int caught_up = q->behind && q->n == 0;
    if (caught_up)
        q->behind = 0;
    uint64_t failed = q->st.failed_attempts;
    pthread_cond_broadcast(&q->drained);
    pthread_mutex_unlock(&q->lock);
    if (caught_up && committed)
        log_msg(LOG_INFO, "audit",
                "audit writer caught up: %zu rows written %.1f s after the first was queued; "
                "%" PRIu64 " failed write attempts so far",
                n, lag / 1000.0, failed);
    pthread_mutex_lock(&q->lock);
}

static int write_now_locked(const audit_queue *q, int timed_out)
{
    return q->n > 0 && (timed_out || q->flush_requested || q->stopping || q->waiters > 0 ||
                        q->n >= AUDIT_BATCH || q->bytes >= q->cfg.max_bytes);
}

static void *writer_main(void *arg)
{
    audit_queue *q = arg;
    int timed_out = 0;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (write_now_locked(q, timed_out)) {
            take_and_write(q);
            continue;
        }
        if (q->n == 0) {
            q->flush_requested = 0;
            pthread_cond_broadcast(&q->drained);
        }
        if (q->stopping && q->n == 0)
            break;
        struct timespec ts;
        deadline_after(&ts, q->cfg.flush_ms);
        timed_out = pthread_cond_timedwait(&q->wake, &q->lock, &ts) == ETIMEDOUT;
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

/* --- public --------------------------------------------------------------------- */

audit_queue *audit_queue_create(store_pool *pool, const audit_config *cfg)
{
    audit_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->pool = pool;
    if (cfg)
        q->cfg = *cfg;
    if (q->cfg.flush_ms <= 0)
        q->cfg.flush_ms = AUDIT_FLUSH_MS_DEFAULT;
    if (q->cfg.max_bytes == 0)
        q->cfg.max_bytes = AUDIT_MAX_BYTES_DEFAULT;
    if (q->cfg.lag_warn_ms <= 0)
        q->cfg.lag_warn_ms = AUDIT_LAG_WARN_MS_DEFAULT;
    if (q->cfg.stop_grace_ms <= 0)
        q->cfg.stop_grace_ms = AUDIT_STOP_GRACE_MS_DEFAULT;
    q->last_warn_ms = -1e18;
    pthread_mutex_init(&q->lock, NULL);
    cond_init_monotonic(&q->wake);
    cond_init_monotonic(&q->retry);
    cond_init_monotonic(&q->drained);
    if (pthread_create(&q->thread, NULL, writer_main, q) != 0) {
        pthread_mutex_destroy(&q->lock);
        pthread_cond_destroy(&q->wake);
        pthread_cond_destroy(&q->retry);
        pthread_cond_destroy(&q->drained);
        free(q);
        return NULL;
    }
    return q;
}

/* Room for one more row in the arrays; 0 when there is. */
static int reserve_locked(audit_queue *q)
{
    if (q->n < q->cap)
        return 0;
    size_t cap = q->cap ? q->cap * 2 : 64;
    reg_audit_row *rows = realloc(q->rows, cap * sizeof *rows);
    if (!rows)
        return -1;
    q->rows = rows;
    double *queued = realloc(q->queued_ms, cap * sizeof *queued);
    if (!queued)
        return -1;
    q->queued_ms = queued;
    q->cap = cap;
    return 0;
}

uint64_t audit_queue_push(audit_queue *q, reg_audit_row *row)
{
    size_t bytes = row_bytes(row);
    pthread_mutex_lock(&q->lock);
    /* Backpressure: wait for the writer rather than grow past the bound
     * (an empty queue always takes the row, however large). */
    if (q->bytes > 0 && q->bytes + bytes > q->cfg.max_bytes) {
        q->st.waited_for_room++;
        q->waiters++; /* the writer takes the queue now, not at its next tick */
        pthread_cond_signal(&q->wake);
        while (q->bytes > 0 && q->bytes + bytes > q->cfg.max_bytes && !q->gave_up)
            pthread_cond_wait(&q->drained, &q->lock);
        q->waiters--;
    }
    if (reserve_locked(q) != 0) {
        pthread_mutex_unlock(&q->lock);
        log_msg(LOG_ERROR, "audit", "out of memory: audit row for %s dropped", row->call_id);
        free_row(row);
        return 0;
    }
    q->rows[q->n] = *row;
    q->queued_ms[q->n] = ids_monotonic_ms();
    q->n++;
    q->bytes += bytes;
    uint64_t ticket = ++q->pushed;
    if (pending_locked(q) > q->st.max_pending)
        q->st.max_pending = pending_locked(q);
    if (q->n >= AUDIT_BATCH || q->bytes >= q->cfg.max_bytes)
        pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    return ticket;
}

int audit_queue_wait(audit_queue *q, uint64_t ticket, int timeout_ms)
{
    if (ticket == 0)
        return DBMCP_ENOMEM;
    struct timespec ts;
    if (timeout_ms >= 0)
        deadline_after(&ts, timeout_ms);
    pthread_mutex_lock(&q->lock);
    if (q->written < ticket) {
        q->waiters++;
        pthread_cond_signal(&q->wake);
        while (q->written < ticket && !q->gave_up) {
            if (timeout_ms < 0)
                pthread_cond_wait(&q->drained, &q->lock);
            else if (pthread_cond_timedwait(&q->drained, &q->lock, &ts) == ETIMEDOUT)
                break;
        }
        q->waiters--;
    }
    int rc = q->written >= ticket ? 0 : q->gave_up ? DBMCP_ESTORE : DBMCP_ETIMEOUT;
    pthread_mutex_unlock(&q->lock);
    return rc;
}

int audit_queue_flush(audit_queue *q)
{
    if (!q)
        return 0;
    struct timespec ts;
    deadline_after(&ts, q->cfg.stop_grace_ms);
    double started = ids_monotonic_ms();
    pthread_mutex_lock(&q->lock);
    if (q->n > 0 || q->batch_n > 0) {
        q->flush_requested = 1;
        pthread_cond_signal(&q->wake);
        while ((q->n > 0 || q->batch_n > 0) && !q->gave_up)
            if (pthread_cond_timedwait(&q->drained, &q->lock, &ts) == ETIMEDOUT)
                break;
    }
    int rc = q->n > 0 || q->batch_n > 0 ? DBMCP_ETIMEOUT : 0;
    /* A flush the database outlasted already spent the stop grace: a free
     * right after it (shutdown) gives up at the next refusal. */
    q->flush_failed_ms = rc ? started : 0;
    pthread_mutex_unlock(&q->lock);
    return rc;
}

void audit_queue_stats(audit_queue *q, audit_stats *out)
{
    pthread_mutex_lock(&q->lock);
    *out = q->st;
    out->pending = pending_locked(q);
    out->pending_bytes = q->bytes;
    out->oldest_ms = oldest_ms_locked(q, ids_monotonic_ms());
    pthread_mutex_unlock(&q->lock);
}

void audit_queue_free(audit_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->stopping = 1;
    q->stop_ms = q->flush_failed_ms ? q->flush_failed_ms : ids_monotonic_ms();
    pthread_cond_signal(&q->wake);
    pthread_cond_signal(&q->retry);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    /* Worth the operator's attention only when the database pushed back. */
    if (q->st.failed_attempts || q->st.waited_for_room || q->st.logged_only)
        log_msg(LOG_INFO, "audit",
                "audit writer: %" PRIu64 " rows written, %" PRIu64 " failed write attempts, "
                "at most %zu rows pending, the longest lag %.1f s, %" PRIu64
                " pushes waited for room, %" PRIu64 " rows only in this log",
                q->st.written, q->st.failed_attempts, q->st.max_pending, q->st.max_lag_ms / 1000.0,
                q->st.waited_for_room, q->st.logged_only);
    free(q->rows);
    free(q->queued_ms);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->wake);
    pthread_cond_destroy(&q->retry);
    pthread_cond_destroy(&q->drained);
    free(q);
}
