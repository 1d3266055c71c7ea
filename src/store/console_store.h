/*
 * console_store.h — the admin console's own rows: login sessions
 * (dbmcp_console_sessions) and the audit as the console reads it.
 *
 * A console session is keyed by the BLAKE2b hash of its cookie, never the
 * cookie itself. It is valid while it has not expired and its admin key is
 * neither revoked nor demoted nor deleted: revoking the key ends its
 * console sessions at once, on every replica (they share the table).
 *
 * Ownership: console_session holds fixed-size copies (nothing to free);
 * console_audit_query returns a new json_t array the caller decrefs.
 */
#ifndef DBMCP_STORE_CONSOLE_STORE_H
#define DBMCP_STORE_CONSOLE_STORE_H

#include <jansson.h>

#include "store/store.h"

typedef struct console_session {
    char key_id[33];     /* the admin key that logged in */
    char principal[129]; /* its principal, for the audit */
    char csrf_token[65]; /* must come back in X-CSRF-Token on every change */
    char expires_at[32]; /* UTC ISO-8601 */
} console_session;

/* --- sessions ------------------------------------------------------------- */

/* Store a new session (and remove expired ones, of every key). */
int console_session_insert(store *db, const char *id_hash, const console_session *s,
                           dbmcp_error *err);
/* The session with this hash if it is valid at `now` (ISO-8601);
 * DBMCP_ENOTFOUND when unknown, expired or its key is no longer an
 * active admin key. */
int console_session_get(store *db, const char *id_hash, const char *now, console_session *out,
                        dbmcp_error *err);
/* End one session (logout); 0 also when it did not exist. */
int console_session_delete(store *db, const char *id_hash, dbmcp_error *err);

/* --- audit ------------------------------------------------------------------ */

/* Filters of console_audit_query; NULL or "" fields match everything. */
typedef struct console_audit_filter {
    const char *since;     /* ts >= since (ISO-8601 prefix, e.g. 2026-12-01T09:00) */
    const char *until;     /* ts < until */
    const char *principal; /* exact */
    const char *target;    /* exact: tool name, URI, prompt name, or an admin action's row */
    const char *status;    /* ok | error | denied | cancelled */
    const char *call_id;   /* exact: one call */
    int limit;             /* newest rows kept: 1..1000, default 100 */
} console_audit_filter;

/* Matching audit rows, newest first, as an array of objects with every
 * column of dbmcp_audit (null where the row has none; change_json parsed
 * into "change" when it is valid JSON). */
int console_audit_query(store *db, const console_audit_filter *f, json_t **out, dbmcp_error *err);

#endif
