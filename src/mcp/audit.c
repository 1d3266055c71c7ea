/*
 * audit.c — batched background audit writer; see audit.h.
 */
#include "mcp/audit.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

#define AUDIT_BATCH 256

struct audit_queue {
    store_pool *pool;    /* not owned */
    int flush_ms;        /* writer wake-up interval */
    reg_audit_row *rows; /* pending rows */
    size_t n, cap;
    int stopping;        /* set by audit_queue_free */
    int flush_requested; /* set by audit_queue_flush until the queue is empty */
    int writing;         /* writer holds a batch outside the lock */
    pthread_mutex_t lock;
    pthread_cond_t wake;    /* signalled on push-over-batch, flush, stop */
    pthread_cond_t drained; /* signalled after each written batch */
    pthread_t thread;
};

static void free_rows(reg_audit_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].target);
        free(rows[i].error_detail);
        free(rows[i].sql_text);
    }
    free(rows);
}

static void write_batch(audit_queue *q, reg_audit_row *rows, size_t n)
{
    dbmcp_error err;
    for (int attempt = 0; attempt < 2; attempt++) {
        store *db = store_pool_acquire(q->pool, &err);
        if (!db)
            continue;
        int rc = reg_audit_insert(db, rows, n, &err);
        store_pool_release(q->pool, db);
        if (rc == 0)
            return;
    }
    log_msg(LOG_ERROR, "audit", "could not write %zu audit rows: %s", n, err.message);
}

static void take_and_write(audit_queue *q)
{
    reg_audit_row *rows = q->rows;
    size_t n = q->n;
    q->rows = NULL;
    q->n = q->cap = 0;
    q->writing = 1;
    pthread_mutex_unlock(&q->lock);
    write_batch(q, rows, n);
    free_rows(rows, n);
    pthread_mutex_lock(&q->lock);
    q->writing = 0;
    pthread_cond_broadcast(&q->drained);
}

static void *writer_main(void *arg)
{
    audit_queue *q = arg;
    int timed_out = 0;
    pthread_mutex_lock(&q->lock);
    for (;;) {
        if (q->n > 0 && (timed_out || q->flush_requested || q->stopping || q->n >= AUDIT_BATCH)) {
            take_and_write(q);
            continue;
        }
        q->flush_requested = 0;
        pthread_cond_broadcast(&q->drained);
        if (q->stopping)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)q->flush_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        timed_out = pthread_cond_timedwait(&q->wake, &q->lock, &ts) == ETIMEDOUT;
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

audit_queue *audit_queue_create(store_pool *pool, int flush_ms)
{
    audit_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->pool = pool;
    q->flush_ms = flush_ms > 0 ? flush_ms : 200;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    pthread_cond_init(&q->drained, NULL);
    if (pthread_create(&q->thread, NULL, writer_main, q) != 0) {
        free(q);
        return NULL;
    }
    return q;
}

void audit_queue_push(audit_queue *q, reg_audit_row *row)
{
    pthread_mutex_lock(&q->lock);
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        reg_audit_row *p = realloc(q->rows, cap * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&q->lock);
            log_msg(LOG_ERROR, "audit", "out of memory: audit row for %s dropped", row->call_id);
            free(row->target);
            free(row->error_detail);
            free(row->sql_text);
            return;
        }
        q->rows = p;
        q->cap = cap;
    }
    q->rows[q->n++] = *row;
    if (q->n >= AUDIT_BATCH)
        pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
}

void audit_queue_flush(audit_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    if (q->n > 0 || q->writing) {
        q->flush_requested = 1;
        pthread_cond_signal(&q->wake);
        while (q->n > 0 || q->writing)
            pthread_cond_wait(&q->drained, &q->lock);
    }
    pthread_mutex_unlock(&q->lock);
}

void audit_queue_free(audit_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    q->stopping = 1;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    free_rows(q->rows, q->n);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->wake);
    pthread_cond_destroy(&q->drained);
    free(q);
}
