/*
 * tasks_store.h — the SQL of MCP tasks (dbmcp_tasks; schema 0013). A task
 * is a tools/call that runs on past its answer: mcp/tasks.c holds the
 * rules (when a call becomes a task, who runs it, what a caller may see);
 * these functions read and write rows.
 *
 * Every function that serves a caller takes the caller's `owner`
 * ("key:<id>" or "principal:<name>") and matches it together with the id
 * and the expiry: a task of another owner, an expired one and one that
 * never existed are all DBMCP_ENOTFOUND, told apart by nobody.
 *
 * Terminal statuses (completed, failed, cancelled) never change again:
 * the statements that move a task refuse a terminal row.
 * Times are UTC ISO-8601 text (core/ids.h). JSON columns are text.
 */
#ifndef DBMCP_STORE_TASKS_STORE_H
#define DBMCP_STORE_TASKS_STORE_H

#include "core/error.h"
#include "store/store.h"

/* One row of dbmcp_tasks. Text pointers are owned (tasks_row_free). */
typedef struct tasks_row {
    char id[40];
    char owner[256];
    char interface[65];
    char tool[129];
    char call_id[40];
    char status[16];       /* working, input_required, completed, failed, cancelled */
    char *status_message;  /* or NULL */
    double progress;       /* -1: none reported */
    double progress_total; /* 0: unknown */
    char *request;         /* tools/call params (JSON) */
    char *input_requests;  /* pending (JSON object) or NULL */
    char *input_responses; /* gathered (JSON object) or NULL */
    char *request_state;   /* sealed state of the last input_required round, or NULL */
    char *result;          /* CallToolResult (JSON) or NULL */
    char *error;           /* JSON-RPC error object (JSON) or NULL */
    int cancel_requested;
    char replica[128];
    char created_at[32];
    char updated_at[32];
    char expires_at[32];
} tasks_row;

void tasks_row_free(tasks_row *r);

/* Nonzero for completed, failed and cancelled. */
int tasks_status_terminal(const char *status);

/* Insert a new task (status working; created_at = updated_at = now). */
int tasks_store_insert(store *db, const tasks_row *r, const char *now, dbmcp_error *err);
/* The row of task id for owner, unless it expired by now;
 * DBMCP_ENOTFOUND otherwise. */
int tasks_store_get(store *db, const char *id, const char *owner, const char *now, tasks_row *out,
                    dbmcp_error *err);
/* Move a running task to `status` with what goes with it (any may be
 * NULL): the result, the error, the pending input requests and the sealed
 * request state of an input_required round. DBMCP_ENOTFOUND when the row
 * is gone or already terminal (cancelled meanwhile): the outcome is
 * dropped. */
int tasks_store_finish(store *db, const char *id, const char *status, const char *message,
                       const char *result, const char *error, const char *input_requests,
                       const char *request_state, const char *now, dbmcp_error *err);
/* Record progress of a running task (a no-op for a terminal one). */
int tasks_store_progress(store *db, const char *id, double progress, double total,
                         const char *message, const char *now, dbmcp_error *err);
/* tasks/cancel: a task that is not terminal becomes cancelled with
 * cancel_requested = 1; a terminal one is left as it is. 0 in both cases,
 * DBMCP_ENOTFOUND when owner has no such task. */
int tasks_store_cancel(store *db, const char *id, const char *owner, const char *now,
                       dbmcp_error *err);
/* tasks/update: merge `responses` (JSON object text) into the gathered
 * answers and drop the answered keys from the pending requests, in one
 * transaction. *resume is set when the task was input_required and
 * nothing is pending any more: it is then working again, and the caller
 * runs it with the gathered answers. Keys that were not asked are kept
 * out. DBMCP_ENOTFOUND when owner has no such task. */
int tasks_store_answer(store *db, const char *id, const char *owner, const char *responses,
                       const char *now, int *resume, dbmcp_error *err);
/* Whether task id was cancelled (by any replica): 1, 0, or a negative
 * code. A task that is gone counts as cancelled. */
int tasks_store_cancelled(store *db, const char *id, dbmcp_error *err);
/* Delete every task that expired by now; *n (may be NULL) gets how many. */
int tasks_store_expire(store *db, const char *now, int64_t *n, dbmcp_error *err);

#endif
