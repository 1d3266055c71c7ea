/*
 * sessions_store.c — the SQL of legacy MCP sessions (sessions_store.h).
 */
#include "store/sessions_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/dialect.h"

#define ROW_COLUMNS                                                                                \
    "id, key_id, principal, interface, user_id, agent_id, transport, protocol, client_name,"       \
    " client_version, client_caps, log_level, initialized, rev, created_at, last_used_at"

void sessions_row_free(sessions_row *r)
{
    if (!r)
        return;
    free(r->client_caps);
    r->client_caps = NULL;
}

static void copy_column(char *dst, size_t size, store_stmt *st, int i)
{
    const char *v = store_column_text(st, i);
    snprintf(dst, size, "%s", v ? v : "");
}

/* Step a statement without rows (or whose rows are ignored) and finalize. */
static int run(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* Step a statement returning one integer (RETURNING rev) and finalize;
 * DBMCP_ENOTFOUND when it returned no row. */
static int run_returning(store_stmt *st, int64_t *out, dbmcp_error *err)
{
    int rc = store_step(st, err);
    if (rc == STORE_ROW && out)
        *out = store_column_int(st, 0);
    store_finalize(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int sessions_store_insert(store *db, const sessions_row *r, const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "INSERT INTO dbmcp_sessions (id, key_id, principal, interface, user_id, agent_id,"
        " transport, protocol, client_name, client_version, client_caps, log_level, initialized,"
        " rev, created_at, last_used_at) VALUES (:id, :key, :principal, :interface, :user,"
        " :agent, :transport, :protocol, :cname, :cversion, :caps, :level, :init, 1, :now, :now)",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", r->id);
    store_bind_text(st, ":key", r->key_id);
    store_bind_text(st, ":principal", r->principal);
    store_bind_text(st, ":interface", r->interface);
    store_bind_text(st, ":user", r->user_id);
    store_bind_text(st, ":agent", r->agent_id);
    store_bind_text(st, ":transport", r->transport);
    store_bind_text(st, ":protocol", r->protocol);
    store_bind_text(st, ":cname", r->client_name);
    store_bind_text(st, ":cversion", r->client_version);
    store_bind_text(st, ":caps", r->client_caps);
    store_bind_text(st, ":level", r->log_level);
    store_bind_int(st, ":init", r->initialized ? 1 : 0);
    store_bind_text(st, ":now", now);
    return run(st, err);
}

int sessions_store_get(store *db, const char *id, sessions_row *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc =
        store_prepare(db, "SELECT " ROW_COLUMNS " FROM dbmcp_sessions WHERE id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        copy_column(out->id, sizeof out->id, st, 0);
        copy_column(out->key_id, sizeof out->key_id, st, 1);
        copy_column(out->principal, sizeof out->principal, st, 2);
        copy_column(out->interface, sizeof out->interface, st, 3);
        copy_column(out->user_id, sizeof out->user_id, st, 4);
        copy_column(out->agent_id, sizeof out->agent_id, st, 5);
        copy_column(out->transport, sizeof out->transport, st, 6);
        copy_column(out->protocol, sizeof out->protocol, st, 7);
        copy_column(out->client_name, sizeof out->client_name, st, 8);
        copy_column(out->client_version, sizeof out->client_version, st, 9);
        const char *caps = store_column_text(st, 10);
        out->client_caps = caps ? strdup(caps) : NULL;
        copy_column(out->log_level, sizeof out->log_level, st, 11);
        out->initialized = store_column_int(st, 12) != 0;
        out->rev = store_column_int(st, 13);
        copy_column(out->created_at, sizeof out->created_at, st, 14);
        copy_column(out->last_used_at, sizeof out->last_used_at, st, 15);
        if (caps && !out->client_caps)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_finalize(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int sessions_store_probe(store *db, const char *id, int64_t *rev, char last_used_at[32],
                         dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        store_prepare(db, "SELECT rev, last_used_at FROM dbmcp_sessions WHERE id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *rev = store_column_int(st, 0);
        copy_column(last_used_at, 32, st, 1);
    }
    store_finalize(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int sessions_store_touch(store *db, const char *id, const char *now, const char *stream_until,
                         dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           stream_until ? "UPDATE dbmcp_sessions SET last_used_at = :now,"
                                          " stream_until = :until WHERE id = :id"
                                        : "UPDATE dbmcp_sessions SET last_used_at = :now"
                                          " WHERE id = :id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":now", now);
    if (stream_until)
        store_bind_text(st, ":until", stream_until);
    if ((rc = run(st, err)))
        return rc;
    return store_changes(db) > 0 ? 0 : DBMCP_ENOTFOUND;
}

int sessions_store_set_initialized(store *db, const char *id, int64_t *rev, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_sessions SET initialized = 1, rev = rev + 1"
                           " WHERE id = :id RETURNING rev",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    return run_returning(st, rev, err);
}

int sessions_store_set_log_level(store *db, const char *id, const char *level, int64_t *rev,
                                 dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_sessions SET log_level = :level, rev = rev + 1"
                           " WHERE id = :id RETURNING rev",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":level", level);
    return run_returning(st, rev, err);
}

int sessions_store_delete(store *db, const char *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_sessions WHERE id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    return run(st, err);
}

/* --- subscriptions ----------------------------------------------------------------- */

static int bump_rev(store *db, const char *id, int64_t *rev, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db, "UPDATE dbmcp_sessions SET rev = rev + 1 WHERE id = :id RETURNING rev", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    return run_returning(st, rev, err);
}

/* Run one statement on (id, uri[, stamp]) and bump rev, in a transaction. */
static int subscription_change(store *db, const char *sql, const char *id, const char *uri,
                               const char *stamp, int64_t *rev, dbmcp_error *err)
{
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    rc = bump_rev(db, id, rev, err); /* first: a gone session fails before the insert's FK */
    store_stmt *st = NULL;
    if (!rc)
        rc = store_prepare(db, sql, &st, err);
    if (!rc) {
        store_bind_text(st, ":id", id);
        store_bind_text(st, ":uri", uri);
        store_bind_text(st, ":stamp", stamp);
        rc = run(st, err);
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

int sessions_store_subscribe(store *db, const char *id, const char *uri, const char *stamp,
                             int64_t *rev, dbmcp_error *err)
{
    return subscription_change(db,
                               "INSERT INTO dbmcp_session_subscriptions (session_id, uri, stamp)"
                               " VALUES (:id, :uri, :stamp) ON CONFLICT (session_id, uri)"
                               " DO UPDATE SET stamp = excluded.stamp",
                               id, uri, stamp, rev, err);
}

int sessions_store_unsubscribe(store *db, const char *id, const char *uri, int64_t *rev,
                               dbmcp_error *err)
{
    return subscription_change(db,
                               "DELETE FROM dbmcp_session_subscriptions"
                               " WHERE session_id = :id AND uri = :uri",
                               id, uri, NULL, rev, err);
}

int sessions_store_subscription_stamp(store *db, const char *id, const char *uri, const char *stamp,
                                      dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_session_subscriptions SET stamp = :stamp"
                           " WHERE session_id = :id AND uri = :uri",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":uri", uri);
    store_bind_text(st, ":stamp", stamp);
    return run(st, err);
}

int sessions_store_subscriptions(store *db, const char *id,
                                 int (*fn)(void *ctx, const char *uri, const char *stamp),
                                 void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT uri, stamp FROM dbmcp_session_subscriptions"
                           " WHERE session_id = :id ORDER BY uri",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    while ((rc = store_step(st, err)) == STORE_ROW)
        if (fn(ctx, store_column_text(st, 0), store_column_text(st, 1)))
            break;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- every session ------------------------------------------------------------------- */

int sessions_store_lock_key(store *db, const char *key_id, dbmcp_error *err)
{
    char sql[256];
    store_stmt *st;
    int rc = dialect_format(db, DIALECT_SESSION_KEY_LOCK, sql, sizeof sql, err);
    if (!rc)
        rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key_id);
    return run(st, err);
}

int sessions_store_count_key(store *db, const char *key_id, int64_t *n, dbmcp_error *err)
{
    store_stmt *st;
    *n = 0;
    int rc = store_prepare(db, "SELECT count(*) FROM dbmcp_sessions WHERE key_id = :k", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key_id);
    return run_returning(st, n, err);
}

int sessions_store_idle_of_key(store *db, const char *key_id, const char *now, int limit,
                               int (*fn)(void *ctx, const char *id), void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT id FROM dbmcp_sessions WHERE key_id = :k AND"
                           " (stream_until IS NULL OR stream_until < :now)"
                           " ORDER BY last_used_at, id LIMIT :lim",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key_id);
    store_bind_text(st, ":now", now);
    store_bind_int(st, ":lim", limit);
    while ((rc = store_step(st, err)) == STORE_ROW)
        if (fn(ctx, store_column_text(st, 0)))
            break;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int sessions_store_expire(store *db, const char *before, const char *now, int64_t *n,
                          dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "DELETE FROM dbmcp_sessions WHERE last_used_at < :before AND"
                           " (stream_until IS NULL OR stream_until < :now)",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":before", before);
    store_bind_text(st, ":now", now);
    if ((rc = run(st, err)))
        return rc;
    if (n)
        *n = store_changes(db);
    return 0;
}
