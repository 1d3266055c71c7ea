/*
 * server.c — server lifecycle, sessions, the catalog watcher and API-key
 * authentication; see server.h. MCP methods are in methods.c, the tools/call
 * path in dispatch.c.
 *
 * The catalog watcher sleeps on a store_listener (store/notify.h) until a
 * change counter moves — bumped by triggers on the registry tables,
 * dbmcp_settings, dbmcp_api_keys and dbmcp_sessions, whoever writes them:
 * another replica, the CLI, the admin UI or plain SQL. Then it reads the
 * counters and does what moved: a catalog change drops cached snapshots
 * and tells sessions and listen streams; a settings change reloads them;
 * a key change looks for revoked keys in use; a sessions change lets the
 * transport check the sessions it holds open. Every WATCH_FULL_MS it does
 * all of it regardless.
 */
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ids.h"
#include "core/log.h"
#include "core/version.h"
#include "mcp/internal.h"
#include "store/migrate.h"
#include "store/pg_guard.h"
#include "tools/tool.h"

#define WATCH_FULL_MS 5000 /* a full tick at least this often, changes or not */

static const char *supported_versions[] = {"2026-07-28", "2025-11-25", "2025-06-18",
                                           "2025-03-26", "2024-11-05", NULL};

const char *const *mcp_supported_versions(void)
{
    return supported_versions;
}

int mcp_version_supported(const char *version)
{
    for (int i = 0; version && supported_versions[i]; i++)
        if (strcmp(version, supported_versions[i]) == 0)
            return 1;
    return 0;
}

const char *mcp_request_modern_version(const jsonrpc_msg *msg)
{
    json_t *meta = json_object_get(msg->params, "_meta");
    return json_string_value(json_object_get(meta, MCP_META_PROTOCOL));
}

/* Seconds since the epoch, for the times /status reports. */
static double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- snapshots ------------------------------------------------------------ */

static void drop_snapshots_locked(mcp_server *srv)
{
    for (int i = 0; i < srv->n_snaps; i++)
        catalog_snapshot_unref(srv->snaps[i].snap);
    srv->n_snaps = 0;
}

static int versions_equal(const reg_versions *a, const reg_versions *b)
{
    return a->tools == b->tools && a->prompts == b->prompts && a->resources == b->resources;
}

catalog_snapshot *mcp_snapshot_get(mcp_server *srv, const char *iface, dbmcp_error *err)
{
    pthread_mutex_lock(&srv->lock);
    for (int i = 0; i < srv->n_snaps; i++) {
        if (strcmp(srv->snaps[i].iface, iface) == 0 &&
            versions_equal(&srv->snaps[i].snap->versions, &srv->versions)) {
            catalog_snapshot *s = catalog_snapshot_ref(srv->snaps[i].snap);
            pthread_mutex_unlock(&srv->lock);
            return s;
        }
    }
    pthread_mutex_unlock(&srv->lock);

    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return NULL;
    catalog_snapshot *snap = NULL;
    int rc = catalog_snapshot_load(db, iface, srv->allowed_tools, &snap, err);
    store_pool_release(srv->catalog, db);
    if (rc)
        return NULL;
    catalog_snapshot_drop_invalid(snap, tools_builtin_exists);

    pthread_mutex_lock(&srv->lock);
    if (!srv->watcher_started)
        srv->versions = snap->versions;
    if (versions_equal(&snap->versions, &srv->versions)) {
        int slot = -1;
        for (int i = 0; i < srv->n_snaps; i++)
            if (strcmp(srv->snaps[i].iface, iface) == 0)
                slot = i;
        if (slot < 0 && srv->n_snaps < MCP_MAX_SNAPSHOTS)
            slot = srv->n_snaps++;
        else if (slot >= 0)
            catalog_snapshot_unref(srv->snaps[slot].snap);
        if (slot >= 0) {
            snprintf(srv->snaps[slot].iface, sizeof srv->snaps[slot].iface, "%s", iface);
            srv->snaps[slot].snap = catalog_snapshot_ref(snap);
        }
    }
    pthread_mutex_unlock(&srv->lock);
    return snap;
}

/* --- sessions ------------------------------------------------------------- */

mcp_session *mcp_session_create(mcp_server *srv, const mcp_identity *id, const char *transport)
{
    char sid[37];
    ids_uuid(sid);
    return mcp_session_new(srv, sid, id, transport);
}

mcp_session *mcp_session_new(mcp_server *srv, const char *sid, const mcp_identity *id,
                             const char *transport)
{
    mcp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->refs = 1;
    s->srv = srv;
    snprintf(s->id, sizeof s->id, "%s", sid);
    s->who = *id;
    snprintf(s->transport, sizeof s->transport, "%s", transport ? transport : "");
    s->log_level = mcp_log_level_index("info");
    s->subscriptions = json_object();
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->pending_cond, NULL);
    pthread_mutex_lock(&srv->lock);
    s->seen = srv->versions;
    s->next = srv->sessions;
    srv->sessions = s;
    pthread_mutex_unlock(&srv->lock);
    return s;
}

mcp_session *mcp_session_ref(mcp_session *s)
{
    if (s)
        __atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
    return s;
}

static void unlink_session(mcp_session *s)
{
    mcp_server *srv = s->srv;
    pthread_mutex_lock(&srv->lock);
    for (mcp_session **p = &srv->sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
}

void mcp_session_unref(mcp_session *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST) > 0)
        return;
    unlink_session(s);
    while (s->inflight) {
        inflight *f = s->inflight;
        s->inflight = f->next;
        json_decref(f->id);
        free(f);
    }
    while (s->pending) {
        pending_request *p = s->pending;
        s->pending = p->next;
        json_decref(p->response);
        free(p);
    }
    json_decref(s->client_caps);
    json_decref(s->subscriptions);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->pending_cond);
    free(s);
}

const char *mcp_session_id(const mcp_session *s)
{
    return s->id;
}

const mcp_identity *mcp_session_identity(const mcp_session *s)
{
    return &s->who;
}

void mcp_session_set_sink(mcp_session *s, mcp_sink sink)
{
    pthread_mutex_lock(&s->lock);
    s->sink = sink;
    pthread_mutex_unlock(&s->lock);
}

int mcp_session_initialized(const mcp_session *s)
{
    return s->initialized;
}

const char *mcp_session_protocol(const mcp_session *s)
{
    return s->protocol;
}

int mcp_session_send_new(mcp_session *s, const mcp_call_ctx *ctx, json_t *msg)
{
    int rc = mcp_session_send(s, ctx, msg);
    json_decref(msg);
    return rc;
}

int mcp_session_send(mcp_session *s, const mcp_call_ctx *ctx, json_t *msg)
{
    if (ctx && ctx->sink.send)
        return ctx->sink.send(ctx->sink.ctx, msg);
    pthread_mutex_lock(&s->lock);
    mcp_sink sink = s->sink;
    int rc = sink.send ? sink.send(sink.ctx, msg) : -1;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static const char *log_levels[] = {"debug",    "info",  "notice",    "warning", "error",
                                   "critical", "alert", "emergency", NULL};

int mcp_log_level_index(const char *level)
{
    for (int i = 0; level && log_levels[i]; i++)
        if (strcmp(level, log_levels[i]) == 0)
            return i;
    return -1;
}

/* --- cancellation ----------------------------------------------------------- */

inflight *mcp_inflight_add(mcp_session *s, json_t *id)
{
    inflight *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->id = json_incref(id);
    pthread_mutex_lock(&s->lock);
    f->next = s->inflight;
    s->inflight = f;
    pthread_mutex_unlock(&s->lock);
    return f;
}

void mcp_inflight_remove(mcp_session *s, inflight *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&s->lock);
    for (inflight **p = &s->inflight; *p; p = &(*p)->next) {
        if (*p == f) {
            *p = f->next;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    json_decref(f->id);
    free(f);
}

struct inflight *mcp_request_track(mcp_session *s, const jsonrpc_msg *msg)
{
    return s && msg && msg->kind == JSONRPC_REQUEST ? mcp_inflight_add(s, msg->id) : NULL;
}

void mcp_request_untrack(mcp_session *s, struct inflight *flight)
{
    mcp_inflight_remove(s, flight);
}

void mcp_inflight_cancel(mcp_session *s, json_t *id)
{
    pthread_mutex_lock(&s->lock);
    for (inflight *f = s->inflight; f; f = f->next)
        if (json_equal(f->id, id))
            f->cancelled = 1;
    pthread_cond_broadcast(&s->pending_cond);
    pthread_mutex_unlock(&s->lock);
}

void mcp_session_close_input(mcp_session *s)
{
    pthread_mutex_lock(&s->lock);
    s->input_closed = 1;
    pthread_cond_broadcast(&s->pending_cond);
    pthread_mutex_unlock(&s->lock);
}

void mcp_session_cancel_all(mcp_session *s)
{
    pthread_mutex_lock(&s->lock);
    for (inflight *f = s->inflight; f; f = f->next)
        f->cancelled = 1;
    pthread_cond_broadcast(&s->pending_cond);
    pthread_mutex_unlock(&s->lock);
}

/* --- server→client requests ------------------------------------------------ */

json_t *mcp_session_client_request(mcp_session *s, const mcp_call_ctx *ctx, const char *method,
                                   json_t *params, atomic_int *cancelled, int timeout_ms,
                                   dbmcp_error *err)
{
    pending_request *p = calloc(1, sizeof *p);
    if (!p) {
        json_decref(params);
        dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    snprintf(p->id, sizeof p->id, "dbmcp-%ld", ++s->next_request_id);
    p->next = s->pending;
    s->pending = p;
    pthread_mutex_unlock(&s->lock);

    json_t *idv = json_string(p->id);
    json_t *req = jsonrpc_request(idv, method, params);
    json_decref(idv);
    int sent = mcp_session_send(s, ctx, req);
    json_decref(req);

    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    while (sent == 0 && !p->done && rc != ETIMEDOUT && !(cancelled && *cancelled) &&
           !s->input_closed)
        rc = pthread_cond_timedwait(&s->pending_cond, &s->lock, &deadline);
    for (pending_request **q = &s->pending; *q; q = &(*q)->next) {
        if (*q == p) {
            *q = p->next;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);

    json_t *response = p->response;
    int done = p->done;
    free(p);
    if (sent != 0) {
        dbmcp_error_set(err, DBMCP_EIO, "the client cannot receive requests on this connection");
        json_decref(response);
        return NULL;
    }
    if (!done) {
        dbmcp_error_set(err, DBMCP_ETIMEOUT, "the client did not answer %s in time", method);
        json_decref(response);
        return NULL;
    }
    json_t *error = json_object_get(response, "error");
    if (error) {
        dbmcp_error_set(err, DBMCP_EINVAL, "the client refused %s: %s", method,
                        json_string_value(json_object_get(error, "message")) ?: "error");
        json_decref(response);
        return NULL;
    }
    json_t *result = json_incref(json_object_get(response, "result"));
    json_decref(response);
    return result;
}

void mcp_session_deliver_response(mcp_session *s, const jsonrpc_msg *msg)
{
    const char *id = json_string_value(msg->id);
    if (!id)
        return;
    pthread_mutex_lock(&s->lock);
    for (pending_request *p = s->pending; p; p = p->next) {
        if (strcmp(p->id, id) == 0 && !p->done) {
            p->response = json_incref(msg->raw);
            p->done = 1;
            pthread_cond_broadcast(&s->pending_cond);
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* --- catalog watcher ---------------------------------------------------------- */

static void notify_session_changes(mcp_server *srv, mcp_session *s, const reg_versions *now)
{
    if (!s->initialized)
        return;
    if (s->seen.tools != now->tools)
        mcp_session_send_new(s, NULL,
                             jsonrpc_notification("notifications/tools/list_changed", NULL));
    if (s->seen.prompts != now->prompts)
        mcp_session_send_new(s, NULL,
                             jsonrpc_notification("notifications/prompts/list_changed", NULL));
    if (s->seen.resources != now->resources) {
        mcp_session_send_new(s, NULL,
                             jsonrpc_notification("notifications/resources/list_changed", NULL));
        dbmcp_error err;
        store *db = store_pool_acquire(srv->catalog, &err);
        if (db) {
            pthread_mutex_lock(&s->lock);
            json_t *subs = json_deep_copy(s->subscriptions);
            pthread_mutex_unlock(&s->lock);
            const char *uri;
            json_t *stamp;
            json_object_foreach (subs, uri, stamp) {
                char *now_stamp = reg_resource_stamp(db, uri);
                const char *old = json_string_value(stamp);
                if ((now_stamp == NULL) != (old == NULL) ||
                    (now_stamp && old && strcmp(now_stamp, old) != 0)) {
                    mcp_session_send_new(s, NULL,
                                         jsonrpc_notification("notifications/resources/updated",
                                                              json_pack("{s:s}", "uri", uri)));
                    pthread_mutex_lock(&s->lock);
                    json_object_set_new(s->subscriptions, uri,
                                        now_stamp ? json_string(now_stamp) : json_null());
                    pthread_mutex_unlock(&s->lock);
                    mcp_session_save_stamp(s, db, uri, now_stamp);
                }
                free(now_stamp);
            }
            json_decref(subs);
            store_pool_release(srv->catalog, db);
        }
    }
    s->seen = *now;
}

static void listener_send(mcp_listener *l, const char *method)
{
    json_t *msg = jsonrpc_notification(
        method, json_pack("{s:{s:s}}", "_meta", "io.modelcontextprotocol/subscriptionId", l->id));
    l->sink.send(l->sink.ctx, msg);
    json_decref(msg);
}

static void notify_listeners(mcp_server *srv, int tools, int prompts, int resources)
{
    for (mcp_listener *l = srv->listeners; l; l = l->next) {
        if (tools && l->want_tools)
            listener_send(l, "notifications/tools/list_changed");
        if (prompts && l->want_prompts)
            listener_send(l, "notifications/prompts/list_changed");
        if (resources && l->want_resources)
            listener_send(l, "notifications/resources/list_changed");
    }
}

void mcp_server_announce_change(mcp_server *srv, const char *kind)
{
    pthread_mutex_lock(&srv->lock);
    notify_listeners(srv, strcmp(kind, "tools") == 0, strcmp(kind, "prompts") == 0,
                     strcmp(kind, "resources") == 0);
    pthread_mutex_unlock(&srv->lock);
}

/* Log one setting whose value differs between old and now (NULL: unset).
 * Settings hold no secrets (those come only from the environment), so the
 * values are shown, cut to keep a line short. */
static void log_setting_change(const char *key, const char *was, const char *now)
{
    log_msg(LOG_INFO, "settings", "setting %s changed: %s%.80s%s -> %s%.80s%s", key, was ? "'" : "",
            was ? was : "(unset)", was ? "'" : "", now ? "'" : "", now ? now : "(unset)",
            now ? "'" : "");
}

/* Log every key whose value differs between the two {key: value} objects;
 * returns how many. */
static int log_settings_diff(json_t *old, json_t *now)
{
    int changed = 0;
    const char *key;
    json_t *v;
    json_object_foreach (now, key, v) {
        const char *was = json_string_value(json_object_get(old, key));
        const char *is = json_string_value(v);
        if (was && is && strcmp(was, is) == 0)
            continue;
        log_setting_change(key, was, is);
        changed++;
    }
    json_object_foreach (old, key, v) {
        if (json_object_get(now, key))
            continue;
        log_setting_change(key, json_string_value(v), NULL);
        changed++;
    }
    return changed;
}

/* Reload dbmcp_settings into srv->settings (they are not versioned; the
 * table is small and read every tick) and log what changed since the last
 * read. Returns how many keys changed, or -1 with err filled. */
static int refresh_settings(mcp_server *srv, store *db, dbmcp_error *err)
{
    json_t *all = NULL;
    if (reg_settings_all(db, &all, err) != 0)
        return -1;
    pthread_mutex_lock(&srv->lock);
    json_t *old = srv->settings;
    srv->settings = json_incref(all);
    pthread_mutex_unlock(&srv->lock);
    /* The first read at start is no change. */
    int changed = old ? log_settings_diff(old, all) : 0;
    json_decref(old);
    json_decref(all);
    return changed;
}

int mcp_server_apply_log_level(mcp_server *srv, dbmcp_error *err)
{
    dbmcp_error_clear(err);
    if (log_level_pinned())
        return 0;
    char name[32];
    log_level now = log_get_level(), want = LOG_INFO;
    if (mcp_server_setting(srv, "log.level", name, sizeof name) && log_level_parse(name, &want)) {
        log_msg(LOG_WARN, "settings",
                "setting log.level: '%.20s' is not debug, info, warn or error; the level stays %s",
                name, log_level_name(now));
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "setting log.level: '%.20s' is not debug, info, warn or error",
                               name);
    }
    if (want == now)
        return 0;
    log_set_level(want);
    /* Said at the level that is leaving or arriving, whichever shows. */
    log_msg(want < now ? want : now, "settings", "log level %s -> %s", log_level_name(now),
            log_level_name(want));
    return 0;
}

int mcp_server_reload_settings(mcp_server *srv, int *changed, dbmcp_error *err)
{
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    int n = refresh_settings(srv, db, err);
    store_pool_release(srv->catalog, db);
    if (n < 0)
        return err->code;
    if (changed)
        *changed = n;
    return 0;
}

void mcp_server_on_key_revoked(mcp_server *srv, mcp_key_revoked_fn fn, void *ctx)
{
    pthread_mutex_lock(&srv->revoke_mu);
    srv->revoked_fn = fn;
    srv->revoked_ctx = ctx;
    pthread_mutex_unlock(&srv->revoke_mu);
}

/* The API keys live sessions carry, as a set {key_id: true}; NULL when
 * none does. */
static json_t *keys_in_use(mcp_server *srv)
{
    json_t *set = NULL;
    pthread_mutex_lock(&srv->lock);
    for (mcp_session *s = srv->sessions; s; s = s->next) {
        if (!s->who.key_id[0])
            continue;
        if (!set)
            set = json_object();
        json_object_set_new(set, s->who.key_id, json_true());
    }
    pthread_mutex_unlock(&srv->lock);
    return set;
}

/* Revocation is a row update, not a catalog change: look for revoked keys
 * among those in use and tell the transport (see mcp_server_on_key_revoked). */
static void check_revocations(mcp_server *srv, store *db)
{
    pthread_mutex_lock(&srv->revoke_mu);
    json_t *in_use = srv->revoked_fn ? keys_in_use(srv) : NULL;
    reg_api_key *keys = NULL;
    size_t n = 0;
    dbmcp_error err;
    if (in_use && reg_api_key_list(db, &keys, &n, &err) == 0) {
        for (size_t i = 0; i < n; i++)
            if (keys[i].revoked_at && json_object_get(in_use, keys[i].id))
                srv->revoked_fn(srv->revoked_ctx, keys[i].id);
        reg_api_key_array_free(keys, n);
    }
    pthread_mutex_unlock(&srv->revoke_mu);
    json_decref(in_use);
}

void mcp_server_on_sessions_changed(mcp_server *srv, mcp_sessions_changed_fn fn, void *ctx)
{
    pthread_mutex_lock(&srv->revoke_mu);
    srv->sessions_fn = fn;
    srv->sessions_ctx = ctx;
    pthread_mutex_unlock(&srv->revoke_mu);
}

static void sessions_changed(mcp_server *srv)
{
    pthread_mutex_lock(&srv->revoke_mu);
    if (srv->sessions_fn)
        srv->sessions_fn(srv->sessions_ctx);
    pthread_mutex_unlock(&srv->revoke_mu);
}

/* One look at the database: `full` does everything, else only what the
 * change counters say moved since the last tick. */
static void watcher_tick(mcp_server *srv, int full)
{
    dbmcp_error err;
    reg_versions now;
    store_counters seen = srv->counters, counters = seen;
    store *db = store_pool_acquire(srv->catalog, &err);
    if (!db)
        return;
    if (store_counters_read(db, &counters, &err) != 0)
        full = 1;
    int rc = reg_versions_get(db, &now, &err);
    if (full || counters.settings != seen.settings)
        refresh_settings(srv, db, &err);
    if (full || counters.keys != seen.keys)
        check_revocations(srv, db);
    store_pool_release(srv->catalog, db);
    srv->counters = counters;
    if (full || counters.sessions != seen.sessions)
        sessions_changed(srv);
    if (rc)
        return;
    pthread_mutex_lock(&srv->lock);
    if (versions_equal(&now, &srv->versions)) {
        pthread_mutex_unlock(&srv->lock);
        return;
    }
    reg_versions old = srv->versions;
    srv->versions = now;
    srv->catalog_changed_at = unix_now();
    drop_snapshots_locked(srv);
    notify_listeners(srv, old.tools != now.tools, old.prompts != now.prompts,
                     old.resources != now.resources);
    int n = 0;
    for (mcp_session *s = srv->sessions; s; s = s->next)
        n++;
    mcp_session **list = calloc((size_t)n + 1, sizeof *list);
    n = 0;
    for (mcp_session *s = srv->sessions; list && s; s = s->next)
        list[n++] = mcp_session_ref(s);
    pthread_mutex_unlock(&srv->lock);
    log_msg(LOG_INFO, "catalog", "catalog changed (tools %lld, prompts %lld, resources %lld)",
            (long long)now.tools, (long long)now.prompts, (long long)now.resources);
    for (int i = 0; list && i < n; i++) {
        notify_session_changes(srv, list[i], &now);
        mcp_session_unref(list[i]);
    }
    free(list);
}

static int watcher_stopping(mcp_server *srv)
{
    pthread_mutex_lock(&srv->lock);
    int stop = srv->stopping;
    pthread_mutex_unlock(&srv->lock);
    return stop;
}

/* Sleep ms unless stopped (after a failed wait on the listener). */
static void watcher_nap(mcp_server *srv, int ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&srv->lock);
    if (!srv->stopping)
        pthread_cond_timedwait(&srv->stop_cond, &srv->lock, &ts);
    pthread_mutex_unlock(&srv->lock);
}

static void *watcher_main(void *arg)
{
    mcp_server *srv = arg;
    double last_full = ids_monotonic_ms();
    while (!watcher_stopping(srv)) {
        dbmcp_error err;
        double left = WATCH_FULL_MS - (ids_monotonic_ms() - last_full);
        int rc = store_listener_wait(srv->changes, left > 0 ? (int)left : 0, &err);
        if (watcher_stopping(srv))
            break;
        if (rc < 0) {
            log_msg(LOG_WARN, "catalog", "waiting for changes: %s", err.message);
            watcher_nap(srv, srv->watch_interval_ms);
        }
        int full = rc < 0 || ids_monotonic_ms() - last_full >= WATCH_FULL_MS;
        if (full)
            last_full = ids_monotonic_ms();
        watcher_tick(srv, full);
    }
    return NULL;
}

/* The watcher's listener, and the counters it starts from. */
static int open_listener(mcp_server *srv, dbmcp_error *err)
{
    int rc = store_listener_open(srv->db_url, srv->watch_interval_ms, &srv->changes, err);
    store *db = rc ? NULL : store_pool_acquire(srv->catalog, err);
    if (!rc && !db)
        rc = err->code;
    if (db) {
        rc = store_counters_read(db, &srv->counters, err);
        store_pool_release(srv->catalog, db);
    }
    return rc;
}

void mcp_listener_close(mcp_server *srv, mcp_listener *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&srv->lock);
    for (mcp_listener **p = &srv->listeners; *p; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            break;
        }
    }
    pthread_mutex_unlock(&srv->lock);
    free(l);
}

/* --- lifecycle ------------------------------------------------------------------ */

static int open_and_check(mcp_server *srv, dbmcp_error *err)
{
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    int version = 0;
    int rc = store_schema_version(db, &version, err);
    /* A PostgreSQL URI may hold a password: name that database by its identity. */
    int pg = strcmp(store_dialect(db), "postgres") == 0;
    if (!rc && version == 0 && pg)
        rc = dbmcp_error_set(err, DBMCP_EVERSION,
                             "database %s is not initialised; run `dbmcp init --db URI` first",
                             store_identity(db));
    else if (!rc && version == 0)
        rc = dbmcp_error_set(err, DBMCP_EVERSION,
                             "database %s is not initialised; run `dbmcp init --db %s` first",
                             srv->db_url, srv->db_url);
    if (!rc && version < store_schema_latest()) {
        int applied = 0;
        rc = store_migrate(db, &applied, err);
        if (!rc)
            log_msg(LOG_INFO, "store", "migrated schema from version %d (%d migrations)", version,
                    applied);
    }
    if (!rc)
        rc = store_schema_check(db, err);
    if (!rc) {
        char *v = reg_setting_get(db, "server.page_size");
        if (v && atoi(v) > 0)
            srv->page_size = atoi(v);
        free(v);
        v = reg_setting_get(db, "server.list_ttl_ms");
        if (v && atoi(v) >= 0)
            srv->list_ttl_ms = atoi(v);
        free(v);
        v = reg_setting_get(db, "audit.flush_ms");
        if (v && atoi(v) > 0)
            srv->audit_flush_ms = atoi(v);
        free(v);
        v = reg_setting_get(db, "audit.lag_warn_ms");
        if (v && atoi(v) > 0)
            srv->audit_lag_warn_ms = atoi(v);
        free(v);
        rc = reg_versions_get(db, &srv->versions, err);
    }
    if (!rc) {
        dbmcp_error ignored;
        refresh_settings(srv, db, &ignored);
    }
    store_pool_release(srv->catalog, db);
    return rc;
}

static void load_state_key(mcp_server *srv)
{
    const char *hex = getenv("DBMCP_STATE_KEY");
    size_t len = 0;
    if (hex &&
        sodium_hex2bin(srv->state_key, sizeof srv->state_key, hex, strlen(hex), NULL, &len, NULL) ==
            0 &&
        len == sizeof srv->state_key)
        return;
    randombytes_buf(srv->state_key, sizeof srv->state_key);
}

/* Query handles beyond the configured pool: query.max_concurrent as read
 * at start. */
static int query_pool_extra(mcp_server *srv)
{
    long n = mcp_server_setting_long(srv, "query.max_concurrent", QUERY_CAPS_TOTAL_DEFAULT);
    return n < 1 ? 1 : n > QUERY_CAPS_MAX ? QUERY_CAPS_MAX : (int)n;
}

/* Refusals logged one by one; past this many only counted (a superuser
 * as the query role has hundreds: its own attributes come first). */
#define ROLE_REFUSALS_LOGGED 40

typedef struct role_report {
    const char *role;
    int refusals; /* seen so far */
} role_report;

/* Longest fix statement logged on one line (the log cuts lines at 2 KiB). */
#define ROLE_FIX_LINE_MAX 1500

/* fix (a REVOKE EXECUTE ON FUNCTION list too long for one log line) as
 * several complete REVOKEs, cut between functions, one per line. */
static void log_long_fix(log_level level, const char *fix)
{
    static const char head[] = "REVOKE EXECUTE ON FUNCTION ";
    const char *from = NULL;
    for (const char *p = strstr(fix, " FROM "); p; p = strstr(p + 1, " FROM "))
        from = p;
    if (strncmp(fix, head, sizeof head - 1) != 0 || !from) {
        log_msg(level, "query-role", "fix: %s", fix);
        return;
    }
    const char *start = fix + sizeof head - 1, *cut = NULL;
    int depth = 0;
    for (const char *p = start; p <= from; p++) {
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (p < from && !(depth == 0 && p[0] == ',' && p[1] == ' '))
            continue;
        /* p ends a function: cut before it when the line would grow too long. */
        if (cut && (size_t)(p - start) > ROLE_FIX_LINE_MAX) {
            log_msg(level, "query-role", "fix: %s%.*s%s", head, (int)(cut - start), start, from);
            start = cut + 2;
        }
        cut = p;
    }
    log_msg(level, "query-role", "fix: %s%.*s%s", head, (int)(from - start), start, from);
}

/* One finding of pg_guard_check in the operator log, with its fix. */
static void log_role_finding(const pg_guard_finding *f, void *arg)
{
    role_report *r = arg;
    if (f->severity == PG_GUARD_REFUSE && ++r->refusals > ROLE_REFUSALS_LOGGED)
        return;
    log_level level = f->severity == PG_GUARD_REFUSE ? LOG_ERROR : LOG_WARN;
    const char *what = f->severity == PG_GUARD_REFUSE ? "refused:" : "warning:";
    if (strlen(f->object) + strlen(f->fix) <= ROLE_FIX_LINE_MAX) {
        log_msg(level, "query-role", "%s %s (%s): %s; fix: %s", what, r->role, f->code, f->object,
                f->fix);
        return;
    }
    log_msg(level, "query-role", "%s %s (%s): %.1200s; fix: on the lines below", what, r->role,
            f->code, f->object);
    log_long_fix(level, f->fix);
}

/* PostgreSQL: the role the query connection logged in as must be fit to
 * run agent SQL (store/pg_guard.h): every refusal and warning is logged
 * with the statement that fixes it, and any refusal stops the start. */
static int check_query_role(store *db, dbmcp_error *err)
{
    store_stmt *st = NULL;
    char role[128] = "";
    int rc = store_prepare(db, "SELECT current_user", &st, err);
    if (!rc && (rc = store_step(st, err)) == STORE_ROW) {
        snprintf(role, sizeof role, "%s", store_column_text(st, 0) ? store_column_text(st, 0) : "");
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ESTORE, "the query connection has no current user");
    }
    store_finalize(st);
    int refusals = 0;
    role_report report = {role, 0};
    if (!rc)
        rc = pg_guard_check(db, role, NULL, log_role_finding, &report, &refusals, err);
    if (rc == DBMCP_EDENIED) {
        char first[sizeof err->message];
        snprintf(first, sizeof first, "%s", err->message);
        dbmcp_error_set(err, DBMCP_EDENIED,
                        "refusing to serve: %d refusal%s of the query connection's role (%d "
                        "logged above, each with its fix); the first: %.800s",
                        refusals, refusals == 1 ? "" : "s",
                        refusals < ROLE_REFUSALS_LOGGED ? refusals : ROLE_REFUSALS_LOGGED, first);
    } else if (rc) {
        dbmcp_error_prefix(err, "checking the query connection's role");
    }
    return rc;
}

/* Least privilege: refuse to serve when a query handle could write, and
 * on PostgreSQL when its role may do more than read the user's data. */
static int verify_query_connection(mcp_server *srv, dbmcp_error *err)
{
    store *db = store_pool_acquire(srv->query, err);
    if (!db && store_url_is_postgres(srv->query_db_url))
        dbmcp_error_prefix(err, "the query connection (--query-db, or --db as the query role "
                                "with the password DBMCP_QUERY_PASSWORD)");
    if (!db)
        return err->code;
    int rc = strcmp(store_dialect(db), "postgres") == 0 ? check_query_role(db, err) : 0;
    if (!rc)
        rc = store_verify_readonly(db, err);
    store_pool_release(srv->query, db);
    return rc;
}

int mcp_server_create(const mcp_server_config *cfg, mcp_server **out, dbmcp_error *err)
{
    *out = NULL;
    if (ids_init() != 0)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot initialise the random generator");
    mcp_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->stop_cond, NULL);
    pthread_mutex_init(&srv->revoke_mu, NULL);
    srv->started_ms = ids_monotonic_ms();
    srv->started_at = unix_now();
    srv->db_url = strdup(cfg->db_url);
    srv->query_db_url = strdup(cfg->query_db_url ? cfg->query_db_url : cfg->db_url);
    srv->allowed_tools = cfg->allowed_tools ? strdup(cfg->allowed_tools) : NULL;
    srv->server_name = strdup(cfg->server_name ? cfg->server_name : "dbmcp");
    srv->watch_interval_ms = cfg->watch_interval_ms > 0 ? cfg->watch_interval_ms : 500;
    srv->page_size = 50;
    srv->list_ttl_ms = 60000;
    srv->audit_flush_ms = AUDIT_FLUSH_MS_DEFAULT;
    srv->audit_lag_warn_ms = AUDIT_LAG_WARN_MS_DEFAULT;
    int pool = cfg->pool_size > 0 ? cfg->pool_size : 4;
    srv->caps = query_caps_create();
    load_state_key(srv);
    srv->server_info = json_pack("{s:s, s:s, s:s}", "name", srv->server_name, "title",
                                 "dbmcp — database MCP server", "version", DBMCP_VERSION);
    int rc = srv->caps ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = store_pool_create(srv->db_url, STORE_READWRITE, pool, &srv->catalog, err);
    if (!rc)
        rc = open_and_check(srv, err);
    /* Room for every agent query the cap admits (as set at start) beside
     * the schema tools, so a query under the cap never queues for a
     * handle; handles open only when that many are in use at once. */
    if (!rc)
        rc = store_pool_create(srv->query_db_url, STORE_READONLY, pool + query_pool_extra(srv),
                               &srv->query, err);
    if (!rc)
        rc = verify_query_connection(srv, err);
    audit_config audit = {srv->audit_flush_ms, 0, srv->audit_lag_warn_ms, 0};
    if (!rc && !(srv->audit = audit_queue_create(srv->catalog, &audit)))
        rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot start the audit writer");
    if (!rc && mcp_tasks_create(srv) != 0)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "cannot start the task workers");
    if (!rc)
        rc = open_listener(srv, err);
    if (!rc && pthread_create(&srv->watcher, NULL, watcher_main, srv) != 0)
        rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot start the catalog watcher");
    if (rc) {
        mcp_server_free(srv);
        return rc;
    }
    srv->watcher_started = 1;
    *out = srv;
    return 0;
}

int mcp_server_setting(mcp_server *srv, const char *key, char *out, size_t size)
{
    pthread_mutex_lock(&srv->lock);
    const char *v = json_string_value(json_object_get(srv->settings, key));
    int found = v != NULL;
    if (found)
        snprintf(out, size, "%s", v);
    pthread_mutex_unlock(&srv->lock);
    return found;
}

long mcp_server_setting_long(mcp_server *srv, const char *key, long def)
{
    char buf[64], *end = NULL;
    if (!mcp_server_setting(srv, key, buf, sizeof buf))
        return def;
    long n = strtol(buf, &end, 10);
    return (end == buf || *end) ? def : n;
}

void mcp_server_flush_audit(mcp_server *srv)
{
    audit_queue_flush(srv->audit);
}

void mcp_server_free(mcp_server *srv)
{
    if (!srv)
        return;
    pthread_mutex_lock(&srv->lock);
    srv->stopping = 1;
    pthread_cond_broadcast(&srv->stop_cond);
    pthread_mutex_unlock(&srv->lock);
    mcp_tasks_stop(srv);
    store_listener_wake(srv->changes);
    if (srv->watcher_started)
        pthread_join(srv->watcher, NULL);
    store_listener_close(srv->changes);
    audit_queue_free(srv->audit);
    pthread_mutex_lock(&srv->lock);
    drop_snapshots_locked(srv);
    while (srv->listeners) {
        mcp_listener *l = srv->listeners;
        srv->listeners = l->next;
        free(l);
    }
    pthread_mutex_unlock(&srv->lock);
    store_pool_free(srv->query);
    query_caps_free(srv->caps);
    store_pool_free(srv->catalog);
    json_decref(srv->server_info);
    json_decref(srv->settings);
    free(srv->db_url);
    free(srv->query_db_url);
    free(srv->allowed_tools);
    free(srv->server_name);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->stop_cond);
    pthread_mutex_destroy(&srv->revoke_mu);
    free(srv);
}

/* --- identity -------------------------------------------------------------------- */

static void hash_secret(const char *secret, char hex[65])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)secret, strlen(secret), NULL, 0);
    sodium_bin2hex(hex, 65, h, sizeof h);
}

void mcp_key_hash_secret(const char *secret, char hex[65])
{
    hash_secret(secret, hex);
}

int mcp_key_create(store *db, const reg_api_key *spec, char key_out[MCP_KEY_SIZE], char id_out[13],
                   dbmcp_error *err)
{
    char secret[41], hash[65];
    ids_token(id_out, 12);
    ids_token(secret, 40);
    hash_secret(secret, hash);
    reg_api_key key = *spec;
    key.id = id_out;
    key.secret_hash = hash;
    int rc = reg_api_key_insert(db, &key, err);
    if (!rc)
        snprintf(key_out, MCP_KEY_SIZE, "dbmcp_%s_%s", id_out, secret);
    sodium_memzero(secret, sizeof secret);
    return rc;
}

store *mcp_server_catalog_acquire(mcp_server *srv, dbmcp_error *err)
{
    return store_pool_acquire(srv->catalog, err);
}

void mcp_server_catalog_release(mcp_server *srv, store *db)
{
    store_pool_release(srv->catalog, db);
}

/* Split "dbmcp_<id>_<secret>"; returns 0 when the shape is right. */
static int split_key(const char *key, char id[33], const char **secret)
{
    if (!key || strncmp(key, "dbmcp_", 6) != 0)
        return -1;
    const char *p = key + 6;
    const char *sep = strchr(p, '_');
    if (!sep || sep == p || (size_t)(sep - p) > 32 || strlen(sep + 1) < 16)
        return -1;
    memcpy(id, p, (size_t)(sep - p));
    id[sep - p] = '\0';
    *secret = sep + 1;
    return 0;
}

static void fill_identity(mcp_identity *out, const char *principal, const char *iface,
                          const char *user, const char *agent, const char *key_id)
{
    memset(out, 0, sizeof *out);
    snprintf(out->principal, sizeof out->principal, "%s", principal ? principal : "");
    snprintf(out->interface, sizeof out->interface, "%s", iface ? iface : "default");
    snprintf(out->user_id, sizeof out->user_id, "%s", user && *user ? user : out->principal);
    snprintf(out->agent_id, sizeof out->agent_id, "%s", agent ? agent : "");
    snprintf(out->key_id, sizeof out->key_id, "%s", key_id ? key_id : "");
}

/* Record last use at most once a minute per key: `keys list` shows it, and
 * a write per request would serialise every HTTP call on the writer lock. */
static void touch_if_stale(store *db, const reg_api_key *key)
{
    char now[32];
    ids_now_iso(now);
    if (key->last_used_at && strlen(key->last_used_at) >= 16 && strlen(now) >= 16 &&
        strncmp(key->last_used_at, now, 16) == 0)
        return; /* same minute */
    reg_api_key_touch(db, key->id);
}

int mcp_server_authenticate(mcp_server *srv, const char *api_key, mcp_identity *out,
                            dbmcp_error *err)
{
    char id[33];
    const char *secret;
    if (split_key(api_key, id, &secret) != 0)
        return dbmcp_error_set(err, DBMCP_EDENIED, "malformed API key");
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    reg_api_key key;
    int rc = reg_api_key_get(db, id, &key, err);
    if (rc == 0) {
        char hex[65];
        hash_secret(secret, hex);
        if (!key.secret_hash || strlen(key.secret_hash) != 64 ||
            sodium_memcmp(hex, key.secret_hash, 64) != 0)
            rc = dbmcp_error_set(err, DBMCP_EDENIED, "invalid API key");
        else if (key.revoked_at)
            rc = dbmcp_error_set(err, DBMCP_EDENIED, "API key %s was revoked", id);
        else {
            fill_identity(out, key.principal, key.interface, key.user_id, key.agent_id, key.id);
            out->admin = key.role && strcmp(key.role, "admin") == 0;
            touch_if_stale(db, &key);
        }
    } else if (rc == DBMCP_ENOTFOUND) {
        rc = dbmcp_error_set(err, DBMCP_EDENIED, "invalid API key");
    }
    store_pool_release(srv->catalog, db);
    reg_api_key_free(&key);
    return rc;
}

int mcp_server_local_identity(mcp_server *srv, const char *principal, const char *interface_name,
                              mcp_identity *out, dbmcp_error *err)
{
    const char *iface = interface_name && *interface_name ? interface_name : "default";
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    reg_interface row;
    int rc = reg_interface_get(db, iface, &row, err);
    store_pool_release(srv->catalog, db);
    if (!rc && !row.enabled)
        rc = dbmcp_error_set(err, DBMCP_EDENIED,
                             "interface '%s' is disabled (enable it with `dbmcp interfaces enable "
                             "%s`)",
                             iface, iface);
    reg_interface_free(&row);
    if (rc)
        return rc;
    fill_identity(out, principal && *principal ? principal : "local", iface, NULL, NULL, NULL);
    return 0;
}
