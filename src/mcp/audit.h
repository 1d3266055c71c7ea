/*
 * audit.h — the audit writer: completed calls are queued and written in
 * batches by a background thread, so an audit write never slows or fails
 * a call. The queue is flushed every `flush_ms`, when it holds 256 rows, on
 * audit_queue_flush and on audit_queue_free: only calls still in flight can
 * be lost in a crash. A failed write is retried once, then logged.
 */
#ifndef DBMCP_MCP_AUDIT_H
#define DBMCP_MCP_AUDIT_H

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

/* Start the writer on connections from `pool` (not owned). */
audit_queue *audit_queue_create(store_pool *pool, int flush_ms);
/* Flush, stop the writer, free. NULL is a no-op. */
void audit_queue_free(audit_queue *q);
/* Queue a row; takes ownership of row->target, error_detail and sql_text. */
void audit_queue_push(audit_queue *q, reg_audit_row *row);
/* Write everything queued now and wait until it is written. */
void audit_queue_flush(audit_queue *q);

#endif
