/*
 * sessions_store.h — the SQL of legacy MCP sessions in the database
 * (dbmcp_sessions, dbmcp_session_subscriptions; schema 0007). mcp/sessions.c
 * holds the rules (when to write, what a replica may serve); these
 * functions read and write rows.
 *
 * A row is what any replica needs to go on serving a session another
 * replica created: the caller's identity, the negotiated protocol, client
 * info and capabilities, log level, whether the client said initialized,
 * and its resource subscriptions. `rev` grows with every change of that
 * state, so a replica holding a copy knows when to read it again;
 * last_used_at and stream_until are written while the session is used and
 * do not change rev.
 *
 * Transactions: none is opened here except where a function says so;
 * sessions_store_lock_key is for the caller's transaction.
 * Times are UTC ISO-8601 text (core/ids.h).
 */
#ifndef DBMCP_STORE_SESSIONS_STORE_H
#define DBMCP_STORE_SESSIONS_STORE_H

#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

/* One row of dbmcp_sessions. */
typedef struct sessions_row {
    char id[40];
    char key_id[33];     /* '' without auth */
    char principal[129]; /* identity of the caller, fixed for the session */
    char interface[65];
    char user_id[129];
    char agent_id[129];
    char transport[16];
    char protocol[16];
    char client_name[129];
    char client_version[65];
    char *client_caps; /* JSON object text or NULL; owned (sessions_row_free) */
    char log_level[16];
    int initialized;
    int64_t rev;
    char created_at[32];
    char last_used_at[32];
} sessions_row;

/* Free what a row owns (not the row). */
void sessions_row_free(sessions_row *r);

/* --- one session ---------------------------------------------------------- */

/* Insert a new row (rev 1; created_at = last_used_at = now). */
int sessions_store_insert(store *db, const sessions_row *r, const char *now, dbmcp_error *err);
/* The row of session id; DBMCP_ENOTFOUND when there is none. */
int sessions_store_get(store *db, const char *id, sessions_row *out, dbmcp_error *err);
/* Only rev and last_used_at of session id (the check made on every
 * request); DBMCP_ENOTFOUND when there is none. */
int sessions_store_probe(store *db, const char *id, int64_t *rev, char last_used_at[32],
                         dbmcp_error *err);
/* last_used_at = now and, when stream_until is not NULL, stream_until.
 * DBMCP_ENOTFOUND when the row is gone. */
int sessions_store_touch(store *db, const char *id, const char *now, const char *stream_until,
                         dbmcp_error *err);
/* Set initialized = 1 / log_level, and rev + 1; *rev gets the new rev.
 * DBMCP_ENOTFOUND when the row is gone. */
int sessions_store_set_initialized(store *db, const char *id, int64_t *rev, dbmcp_error *err);
int sessions_store_set_log_level(store *db, const char *id, const char *level, int64_t *rev,
                                 dbmcp_error *err);
/* End session id (its subscriptions go with it). */
int sessions_store_delete(store *db, const char *id, dbmcp_error *err);

/* --- subscriptions ----------------------------------------------------------- */

/* Add (or re-stamp) a subscription and bump the session's rev, in one
 * transaction of its own; *rev gets the new rev. DBMCP_ENOTFOUND when the
 * session is gone. stamp may be NULL. */
int sessions_store_subscribe(store *db, const char *id, const char *uri, const char *stamp,
                             int64_t *rev, dbmcp_error *err);
/* Remove one and bump rev, likewise. */
int sessions_store_unsubscribe(store *db, const char *id, const char *uri, int64_t *rev,
                               dbmcp_error *err);
/* Record the stamp the client was last told of (rev unchanged). */
int sessions_store_subscription_stamp(store *db, const char *id, const char *uri, const char *stamp,
                                      dbmcp_error *err);
/* fn(ctx, uri, stamp) for each subscription of session id (stamp may be
 * NULL); stops early when fn returns nonzero. */
int sessions_store_subscriptions(store *db, const char *id,
                                 int (*fn)(void *ctx, const char *uri, const char *stamp),
                                 void *ctx, dbmcp_error *err);

/* --- every session -------------------------------------------------------- */

/* In the caller's transaction: wait until no other transaction is
 * creating a session of key_id, so counting and inserting are one step
 * (SQLite: the transaction's write lock already does it). */
int sessions_store_lock_key(store *db, const char *key_id, dbmcp_error *err);
/* Rows of key_id into *n. */
int sessions_store_count_key(store *db, const char *key_id, int64_t *n, dbmcp_error *err);
/* The sessions of key_id no replica holds a GET stream of (stream_until
 * NULL or before now), least recently used first, at most `limit`:
 * fn(ctx, id) for each, until it returns nonzero. */
int sessions_store_idle_of_key(store *db, const char *key_id, const char *now, int limit,
                               int (*fn)(void *ctx, const char *id), void *ctx, dbmcp_error *err);
/* End every session unused since before `before` whose stream lease ran
 * out before `now`; *n (may be NULL) gets how many. */
int sessions_store_expire(store *db, const char *before, const char *now, int64_t *n,
                          dbmcp_error *err);

#endif
