/*
 * sessions.c — legacy sessions kept in the database so that every replica
 * of it serves them (see "sessions in the database" in server.h; the SQL is
 * store/sessions_store.c).
 *
 * What is written when: the whole row once, when the transport persists a
 * session after its initialize; then only what changes — initialized,
 * log level, subscriptions — each as a small update that bumps the row's
 * rev, so replicas holding a copy read those again (mcp_session_sync). The
 * identity, protocol, client info and capabilities never change after
 * initialize and are read only when a replica loads the session. Last use
 * is written at most every few seconds per session: a write per request
 * would queue every replica behind one writer on SQLite.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/log.h"
#include "mcp/internal.h"
#include "store/sessions_store.h"

#define VICTIM_SLACK 64 /* candidates read beyond those needed, for busy ones */

static const char *const level_names[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};

static const char *level_name(int level)
{
    return level >= 0 && level < (int)(sizeof level_names / sizeof level_names[0])
               ? level_names[level]
               : "info";
}

/* --- persisting ----------------------------------------------------------------- */

static void row_from_session(mcp_session *s, sessions_row *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", s->id);
    snprintf(r->key_id, sizeof r->key_id, "%s", s->who.key_id);
    snprintf(r->principal, sizeof r->principal, "%s", s->who.principal);
    snprintf(r->interface, sizeof r->interface, "%s", s->who.interface);
    snprintf(r->user_id, sizeof r->user_id, "%s", s->who.user_id);
    snprintf(r->agent_id, sizeof r->agent_id, "%s", s->who.agent_id);
    snprintf(r->transport, sizeof r->transport, "%s", s->transport);
    pthread_mutex_lock(&s->lock);
    snprintf(r->protocol, sizeof r->protocol, "%s", s->protocol);
    snprintf(r->client_name, sizeof r->client_name, "%s", s->client_name);
    snprintf(r->client_version, sizeof r->client_version, "%s", s->client_version);
    r->client_caps = s->client_caps ? json_dumps(s->client_caps, JSON_COMPACT) : NULL;
    snprintf(r->log_level, sizeof r->log_level, "%s", level_name(s->log_level));
    r->initialized = s->initialized;
    pthread_mutex_unlock(&s->lock);
}

typedef struct victims {
    const mcp_session_cap *cap;
    char (*ids)[40]; /* chosen */
    size_t n, want;
} victims;

static int pick_victim(void *ctx, const char *id)
{
    victims *v = ctx;
    if (v->cap->busy && v->cap->busy(v->cap->ctx, id))
        return 0;
    snprintf(v->ids[v->n++], sizeof v->ids[0], "%s", id);
    return v->n == v->want;
}

/* Inside the transaction: make room for one more session of the key. */
static int make_room(store *db, const char *key, const mcp_session_cap *cap, victims *v,
                     dbmcp_error *err)
{
    int64_t have = 0;
    int rc = sessions_store_lock_key(db, key, err);
    if (!rc)
        rc = sessions_store_count_key(db, key, &have, err);
    if (rc || have < cap->max_per_key)
        return rc;
    v->want = (size_t)(have - cap->max_per_key + 1);
    v->ids = calloc(v->want, sizeof *v->ids);
    if (!v->ids)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    char now[32];
    ids_now_iso(now);
    rc = sessions_store_idle_of_key(db, key, now, (int)v->want + VICTIM_SLACK, pick_victim, v, err);
    if (!rc && v->n < v->want)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "all %d sessions of this API key are in use",
                               cap->max_per_key);
    for (size_t i = 0; !rc && i < v->n; i++)
        rc = sessions_store_delete(db, v->ids[i], err);
    return rc;
}

int mcp_session_persist(mcp_session *s, const mcp_session_cap *cap, dbmcp_error *err)
{
    mcp_server *srv = s->srv;
    sessions_row row;
    row_from_session(s, &row);
    victims v = {cap, NULL, 0, 0};
    char now[32];
    ids_now_iso(now);
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db) {
        sessions_row_free(&row);
        return err->code;
    }
    int rc = store_begin(db, err);
    if (!rc)
        rc = make_room(db, row.key_id, cap, &v, err);
    if (!rc)
        rc = sessions_store_insert(db, &row, now, err);
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    store_pool_release(srv->catalog, db);
    sessions_row_free(&row);
    if (!rc) {
        pthread_mutex_lock(&s->lock);
        s->persisted = 1;
        s->rev = 1;
        pthread_mutex_unlock(&s->lock);
        for (size_t i = 0; cap->dropped && i < v.n; i++)
            cap->dropped(cap->ctx, v.ids[i]);
    }
    free(v.ids);
    return rc;
}

/* --- loading and syncing ---------------------------------------------------------- */

static int add_subscription(void *ctx, const char *uri, const char *stamp)
{
    json_object_set_new(ctx, uri, stamp ? json_string(stamp) : json_null());
    return 0;
}

/* The mutable state of the row (initialized, log level, subscriptions)
 * into s, with rev. */
static int read_state(store *db, mcp_session *s, const sessions_row *row, dbmcp_error *err)
{
    json_t *subs = json_object();
    if (!subs)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = sessions_store_subscriptions(db, row->id, add_subscription, subs, err);
    if (rc) {
        json_decref(subs);
        return rc;
    }
    int level = mcp_log_level_index(row->log_level);
    pthread_mutex_lock(&s->lock);
    s->initialized = row->initialized;
    s->log_level = level >= 0 ? level : s->log_level;
    json_decref(s->subscriptions);
    s->subscriptions = subs;
    s->rev = row->rev;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

/* A new session from a row: identity, protocol and client as the replica
 * that created it recorded them. */
static mcp_session *session_from_row(mcp_server *srv, const sessions_row *row)
{
    mcp_identity who;
    memset(&who, 0, sizeof who);
    snprintf(who.principal, sizeof who.principal, "%s", row->principal);
    snprintf(who.interface, sizeof who.interface, "%s", row->interface);
    snprintf(who.user_id, sizeof who.user_id, "%s", row->user_id);
    snprintf(who.agent_id, sizeof who.agent_id, "%s", row->agent_id);
    snprintf(who.key_id, sizeof who.key_id, "%s", row->key_id);
    mcp_session *s = mcp_session_new(srv, row->id, &who, row->transport);
    if (!s)
        return NULL;
    snprintf(s->protocol, sizeof s->protocol, "%s", row->protocol);
    snprintf(s->client_name, sizeof s->client_name, "%s", row->client_name);
    snprintf(s->client_version, sizeof s->client_version, "%s", row->client_version);
    s->client_caps = row->client_caps ? json_loads(row->client_caps, 0, NULL) : NULL;
    s->persisted = 1;
    return s;
}

/* Write last_used_at when the row's (last_used) is older than touch_s. */
static int touch_if_stale(store *db, const char *id, const char *last_used, int touch_s,
                          dbmcp_error *err)
{
    char stale[32], now[32];
    ids_iso_from_now(-(double)touch_s, stale);
    if (strcmp(last_used, stale) >= 0)
        return 0;
    ids_now_iso(now);
    return sessions_store_touch(db, id, now, NULL, err);
}

int mcp_session_load(mcp_server *srv, const char *id, const char *key_id, int touch_s,
                     mcp_session **out, dbmcp_error *err)
{
    *out = NULL;
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    sessions_row row;
    int rc = sessions_store_get(db, id, &row, err);
    if (!rc && strcmp(row.key_id, key_id) != 0)
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "session not found");
    mcp_session *s = NULL;
    if (!rc && !(s = session_from_row(srv, &row)))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = read_state(db, s, &row, err);
    if (!rc)
        rc = touch_if_stale(db, id, row.last_used_at, touch_s, err);
    store_pool_release(srv->catalog, db);
    sessions_row_free(&row);
    if (rc) {
        mcp_session_unref(s);
        return rc;
    }
    *out = s;
    return 0;
}

int mcp_session_sync(mcp_session *s, int touch_s, dbmcp_error *err)
{
    if (!s->persisted)
        return 0;
    mcp_server *srv = s->srv;
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    int64_t rev = 0;
    char last_used[32];
    int rc = sessions_store_probe(db, s->id, &rev, last_used, err);
    pthread_mutex_lock(&s->lock);
    int changed = !rc && rev != s->rev;
    pthread_mutex_unlock(&s->lock);
    if (changed) {
        sessions_row row;
        rc = sessions_store_get(db, s->id, &row, err);
        if (!rc)
            rc = read_state(db, s, &row, err);
        sessions_row_free(&row);
    }
    if (!rc)
        rc = touch_if_stale(db, s->id, last_used, touch_s, err);
    store_pool_release(srv->catalog, db);
    return rc;
}

int mcp_session_hold_stream(mcp_session *s, int seconds, dbmcp_error *err)
{
    if (!s->persisted)
        return 0;
    store *db = store_pool_acquire(s->srv->catalog, err);
    if (!db)
        return err->code;
    char now[32], until[32];
    ids_now_iso(now);
    ids_iso_from_now((double)seconds, until);
    int rc = sessions_store_touch(db, s->id, now, until, err);
    store_pool_release(s->srv->catalog, db);
    return rc;
}

int mcp_session_end(mcp_session *s, dbmcp_error *err)
{
    if (!s->persisted)
        return 0;
    store *db = store_pool_acquire(s->srv->catalog, err);
    if (!db)
        return err->code;
    int rc = sessions_store_delete(db, s->id, err);
    store_pool_release(s->srv->catalog, db);
    return rc;
}

int mcp_sessions_expire(mcp_server *srv, int idle_s, int64_t *n, dbmcp_error *err)
{
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    char now[32], before[32];
    ids_now_iso(now);
    ids_iso_from_now(-(double)idle_s, before);
    int rc = sessions_store_expire(db, before, now, n, err);
    store_pool_release(srv->catalog, db);
    return rc;
}

/* --- state changes ------------------------------------------------------------------ */

/* Take the new rev when nobody else changed the row in between (else keep
 * the old one: the next sync reads the row again). */
static void adopt_rev(mcp_session *s, int64_t rev)
{
    pthread_mutex_lock(&s->lock);
    if (rev == s->rev + 1)
        s->rev = rev;
    pthread_mutex_unlock(&s->lock);
}

static void save_failed(const mcp_session *s, const char *what, const dbmcp_error *err)
{
    if (err->code != DBMCP_ENOTFOUND) /* ended meanwhile: the next request says so */
        log_msg(LOG_WARN, "sessions", "session %.8s…: %s not saved: %s", s->id, what, err->message);
}

void mcp_session_save_initialized(mcp_session *s)
{
    if (!s->persisted)
        return;
    dbmcp_error err;
    int64_t rev = 0;
    store *db = store_pool_acquire(s->srv->catalog, &err);
    int rc = db ? sessions_store_set_initialized(db, s->id, &rev, &err) : err.code;
    if (db)
        store_pool_release(s->srv->catalog, db);
    if (rc)
        save_failed(s, "initialized", &err);
    else
        adopt_rev(s, rev);
}

void mcp_session_save_log_level(mcp_session *s)
{
    if (!s->persisted)
        return;
    dbmcp_error err;
    int64_t rev = 0;
    pthread_mutex_lock(&s->lock);
    const char *level = level_name(s->log_level);
    pthread_mutex_unlock(&s->lock);
    store *db = store_pool_acquire(s->srv->catalog, &err);
    int rc = db ? sessions_store_set_log_level(db, s->id, level, &rev, &err) : err.code;
    if (db)
        store_pool_release(s->srv->catalog, db);
    if (rc)
        save_failed(s, "log level", &err);
    else
        adopt_rev(s, rev);
}

void mcp_session_save_subscription(mcp_session *s, const char *uri, const char *stamp, int on)
{
    if (!s->persisted)
        return;
    dbmcp_error err;
    int64_t rev = 0;
    store *db = store_pool_acquire(s->srv->catalog, &err);
    int rc = !db  ? err.code
             : on ? sessions_store_subscribe(db, s->id, uri, stamp, &rev, &err)
                  : sessions_store_unsubscribe(db, s->id, uri, &rev, &err);
    if (db)
        store_pool_release(s->srv->catalog, db);
    if (rc)
        save_failed(s, "subscription", &err);
    else
        adopt_rev(s, rev);
}

void mcp_session_save_stamp(mcp_session *s, store *db, const char *uri, const char *stamp)
{
    dbmcp_error err;
    if (s->persisted && sessions_store_subscription_stamp(db, s->id, uri, stamp, &err) != 0)
        save_failed(s, "subscription stamp", &err);
}
