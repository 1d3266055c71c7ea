/*
 * audit.h — the audit writer: completed calls are queued and written in
 * batches by a background thread, which commits many calls' rows in one
 * transaction.
 *
 * Durability. A caller that must not answer before its row is committed
 * (a call that read user data or changed state) pushes its row and waits
 * for it with audit_queue_wait: the writer commits at once when anyone
 * waits, so concurrent calls share one commit. Other rows are written
 * every `flush_ms`, when 256 are queued, on audit_queue_flush and on
 * audit_queue_free.
 *
 * Never dropped. A batch the database refuses (another process holds the
 * write lock past the busy timeout, the disk is full) is retried, with a
 * growing pause of at most one second, until it is written; rows pushed
 * meanwhile wait behind it. The queue is bounded in bytes (`max_bytes`):
 * a push past the bound waits until the writer made room (backpressure),
 * it does not drop. Only audit_queue_free gives up: rows still refused
 * `stop_grace_ms` after it was called (or after the start of a flush just
 * before it that timed out) are written to the operator log (one line
 * each), not to the table.
 *
 * Lag. While the oldest pending row is older than `lag_warn_ms` the writer
 * logs a warning with the queue depth and the failed attempts, at most
 * once per `lag_warn_ms`, and an info line once it has caught up;
 * audit_queue_stats gives the same figures.
 */
#ifndef DBMCP_MCP_AUDIT_H
#define DBMCP_MCP_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "store/registry.h"
#include "store/store.h"

typedef struct audit_queue audit_queue;

/* Bounds of the audit fields a caller can fill, in bytes. Longer text is
 * cut on a character boundary and ends in "…[truncated, N bytes]"
 * (core/text_safe.h); client name, client version and model also lose
 * their control characters. The fixed-size fields of reg_audit_row bound
 * the rest (client name 128, client version 64, model 128). */
#define AUDIT_TARGET_MAX 512       /* tool name, resource URI, prompt name */
#define AUDIT_DETAIL_MAX 4096      /* operator error detail */
#define AUDIT_SQL_MAX (128 * 1024) /* SQL text (execute_query admits 32,000 characters) */

/* Defaults of audit_config. */
#define AUDIT_FLUSH_MS_DEFAULT 200
#define AUDIT_MAX_BYTES_DEFAULT (64u * 1024 * 1024)
#define AUDIT_LAG_WARN_MS_DEFAULT 5000
#define AUDIT_STOP_GRACE_MS_DEFAULT 10000

typedef struct audit_config {
    int flush_ms;      /* interval for rows nobody waits for; <= 0: default */
    size_t max_bytes;  /* queued bytes past which a push waits; 0: default */
    int lag_warn_ms;   /* warn while the oldest pending row is older; <= 0: default */
    int stop_grace_ms; /* how long free (and a flush) retry refused rows; <= 0: default */
} audit_config;

/* What the writer did and what is pending now. */
typedef struct audit_stats {
    size_t pending;           /* rows queued or in the batch being written */
    size_t pending_bytes;     /* their bytes, as counted against max_bytes */
    double oldest_ms;         /* age of the oldest pending row; 0 when none */
    uint64_t written;         /* rows committed since the start */
    uint64_t failed_attempts; /* batch writes the database refused */
    uint64_t waited_for_room; /* pushes that waited for the queue to shrink */
    uint64_t logged_only;     /* rows given up at shutdown (operator log only) */
    double max_lag_ms;        /* the oldest age any row reached before commit */
    size_t max_pending;       /* the most rows pending at once */
} audit_stats;

/* Start the writer on connections from `pool` (not owned); cfg may be NULL
 * (defaults). NULL when the thread cannot start. */
audit_queue *audit_queue_create(store_pool *pool, const audit_config *cfg);
/* Flush (retrying at most stop_grace_ms), stop the writer, log its
 * figures, free. NULL is a no-op. */
void audit_queue_free(audit_queue *q);
/* Queue a row; takes ownership of row->target, error_detail and sql_text.
 * Waits while the queue is full. Returns the row's ticket for
 * audit_queue_wait (0 when the row could not be queued: out of memory,
 * logged). */
uint64_t audit_queue_push(audit_queue *q, reg_audit_row *row);
/* Wait until the row of `ticket` is committed, at most timeout_ms (< 0: no
 * limit). 0 when it is, DBMCP_ETIMEOUT when not yet (it stays queued and
 * is still written), DBMCP_ENOMEM for ticket 0. */
int audit_queue_wait(audit_queue *q, uint64_t ticket, int timeout_ms);
/* Write everything queued now and wait until it is written, at most
 * stop_grace_ms; DBMCP_ETIMEOUT when rows are still pending. */
int audit_queue_flush(audit_queue *q);
/* The writer's figures (see audit_stats). */
void audit_queue_stats(audit_queue *q, audit_stats *out);

#endif
