/*
 * http_observe.c — /metrics and /status of `serve --http`: who may read
 * them (http_metrics_load), the metrics secret, and the two bodies; see
 * http_observe.h.
 *
 * The secret is held only as its BLAKE2b-256 hash and compared hash to
 * hash with sodium_memcmp, so neither its bytes nor its length leak
 * through timing, and it never appears in a log line or an error.
 */
#include "transport/http_observe.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/metrics.h"
#include "core/otlp.h"
#include "core/log.h"
#include "core/replica.h"
#include "core/version.h"
#include "mcp/server_stats.h"
#include "store/replicas_store.h"

#define METRICS_KEY_ENV "DBMCP_METRICS_KEY"
#define METRICS_ACCESS_ENV "DBMCP_HTTP_METRICS"
#define METRICS_ACCESS_SETTING "http.metrics"
#define METRICS_KEY_MIN 16
#define METRICS_KEY_MAX 256

/* --- configuration -------------------------------------------------------- */

static void key_hash(const char *key, size_t n, unsigned char out[32])
{
    crypto_generichash(out, 32, (const unsigned char *)key, n, NULL, 0);
}

/* The secret of key mode: visible ASCII, METRICS_KEY_MIN to _MAX bytes. */
static int load_secret(http_metrics_config *cfg, const char *from, dbmcp_error *err)
{
    const char *key = getenv(METRICS_KEY_ENV);
    size_t n = key ? strlen(key) : 0;
    if (n == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s is \"key\" but %s is not set (the secret scrapers send as "
                               "Authorization: Bearer …)",
                               from, METRICS_KEY_ENV);
    int visible = 1;
    for (size_t i = 0; i < n; i++)
        visible &= key[i] > 0x20 && key[i] < 0x7f;
    if (n < METRICS_KEY_MIN || n > METRICS_KEY_MAX || !visible)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s must be %d to %d visible ASCII characters without spaces "
                               "(e.g. `openssl rand -hex 32`)",
                               METRICS_KEY_ENV, METRICS_KEY_MIN, METRICS_KEY_MAX);
    key_hash(key, n, cfg->key_hash);
    return 0;
}

int http_metrics_load(mcp_server *srv, http_metrics_config *cfg, dbmcp_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    char setting[64];
    const char *from = METRICS_ACCESS_ENV;
    const char *v = getenv(METRICS_ACCESS_ENV);
    if (!v || !*v) {
        from = METRICS_ACCESS_SETTING;
        v = srv && mcp_server_setting(srv, METRICS_ACCESS_SETTING, setting, sizeof setting) &&
                    *setting
                ? setting
                : "loopback";
    }
    if (strcmp(v, "loopback") == 0) {
        cfg->access = HTTP_METRICS_LOOPBACK;
        return 0;
    }
    if (strcmp(v, "off") == 0) {
        cfg->access = HTTP_METRICS_OFF;
        return 0;
    }
    if (strcmp(v, "key") == 0) {
        cfg->access = HTTP_METRICS_KEY;
        return load_secret(cfg, from, err);
    }
    return dbmcp_error_set(err, DBMCP_EINVAL, "%s: \"%.40s\" is not loopback, key or off", from, v);
}

int http_metrics_key_matches(const http_metrics_config *cfg, const char *token, size_t n)
{
    if (cfg->access != HTTP_METRICS_KEY || n == 0 || n > METRICS_KEY_MAX)
        return 0;
    unsigned char h[32];
    key_hash(token, n, h);
    return sodium_memcmp(h, cfg->key_hash, sizeof h) == 0;
}

/* --- /metrics ------------------------------------------------------------------ */

static void pool_gauges(metrics_pool *out, const char *name, const store_pool_usage *u)
{
    *out = (metrics_pool){name,        u->size,  u->in_use,      u->waiting,
                          u->acquires, u->waits, u->wait_seconds};
}

char *http_observe_metrics(mcp_server *srv, const http_observe_live *live, size_t *len)
{
    mcp_server_stats st;
    mcp_server_stats_get(srv, &st);
    metrics_gauges g;
    metrics_gauges_init(&g);
    g.version = DBMCP_VERSION;
    g.start_time = st.started_at;
    g.resident_bytes = metrics_resident_bytes();
    g.audit_rows = (long long)st.audit.pending;
    g.audit_bytes = (long long)st.audit.pending_bytes;
    g.audit_oldest_s = st.audit.oldest_ms / 1000.0;
    g.audit_written = (long long)st.audit.written;
    g.audit_failed = (long long)st.audit.failed_attempts;
    pool_gauges(&g.pools[0], "catalog", &st.catalog);
    pool_gauges(&g.pools[1], "query", &st.query);
    g.n_pools = 2;
    g.embed_pending = st.embed_pending;
    g.embed_due = st.embed_due;
    g.embed_failing = st.embed_failing;
    g.http_open = live->connections_open;
    g.http_waiting = live->connections_waiting;
    g.http_accepted = live->connections_accepted;
    g.http_refused = live->connections_refused;
    g.http_sessions = live->sessions;
    g.http_in_flight = live->in_flight;
    otlp_stats ts;
    otlp_stats_get(&ts);
    g.trace_exported = (long long)ts.exported;
    g.trace_dropped_full = (long long)ts.dropped_full;
    g.trace_dropped_error = (long long)ts.dropped_error;
    g.trace_failures = (long long)ts.requests_failed;
    g.trace_queued = (long long)ts.queued;
    return metrics_render(&g, len);
}

/* --- /status ------------------------------------------------------------------ */

/* "2026-12-02T13:58:16.366Z" for a unix time; JSON null for 0. */
static json_t *iso_time(double t)
{
    if (t <= 0)
        return json_null();
    time_t secs = (time_t)t;
    struct tm tm;
    char day[24], out[32];
    gmtime_r(&secs, &tm);
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, sizeof out, "%s.%03dZ", day, (int)((t - (double)secs) * 1000));
    return json_string(out);
}

/* Seconds to the millisecond: what a reader of /status can use. */
static double millis(double seconds)
{
    return floor(seconds * 1000.0 + 0.5) / 1000.0;
}

/* A count, or null when the database did not answer (-1). */
static json_t *count_or_null(int64_t n)
{
    return n < 0 ? json_null() : json_integer((json_int_t)n);
}

static json_t *pool_status(const store_pool_usage *u)
{
    return json_pack("{s:i, s:i, s:i, s:I, s:f}", "size", u->size, "in_use", u->in_use, "waiting",
                     u->waiting, "waits", (json_int_t)u->waits, "wait_s", millis(u->wait_seconds));
}

static json_t *queues_status(const mcp_server_stats *st, const http_observe_live *live)
{
    json_t *audit =
        json_pack("{s:I, s:I, s:f, s:I, s:I}", "rows", (json_int_t)st->audit.pending, "bytes",
                  (json_int_t)st->audit.pending_bytes, "oldest_s",
                  millis(st->audit.oldest_ms / 1000.0), "written", (json_int_t)st->audit.written,
                  "failed_attempts", (json_int_t)st->audit.failed_attempts);
    json_t *jobs =
        json_pack("{s:o, s:o, s:o}", "pending", count_or_null(st->embed_pending), "due",
                  count_or_null(st->embed_due), "failing", count_or_null(st->embed_failing));
    json_t *pools = json_pack("{s:o, s:o}", "catalog", pool_status(&st->catalog), "query",
                              pool_status(&st->query));
    json_t *conns = json_pack("{s:i, s:i}", "open", (int)live->connections_open, "waiting",
                              (int)live->connections_waiting);
    return json_pack("{s:o, s:o, s:o, s:o}", "audit", audit, "embedding_jobs", jobs, "db_pools",
                     pools, "http_connections", conns);
}

json_t *http_observe_status(mcp_server *srv, const http_observe_live *live)
{
    mcp_server_stats st;
    mcp_server_stats_get(srv, &st);
    json_t *catalog =
        json_pack("{s:I, s:I, s:I, s:o}", "tools_version", (json_int_t)st.tools_version,
                  "prompts_version", (json_int_t)st.prompts_version, "resources_version",
                  (json_int_t)st.resources_version, "changed_at", iso_time(st.catalog_changed_at));
    json_t *in_flight =
        json_pack("{s:I, s:i}", "tool_calls", (json_int_t)metrics_tool_calls_in_flight(),
                  "http_requests", (int)live->in_flight);
    return json_pack("{s:s, s:f, s:o, s:o, s:i, s:o, s:o, s:o}", "version", DBMCP_VERSION,
                     "uptime_s", millis(st.uptime_s), "started_at", iso_time(st.started_at),
                     "schema_version", count_or_null(st.schema_version), "sessions",
                     (int)live->sessions, "in_flight", in_flight, "queues",
                     queues_status(&st, live), "catalog", catalog);
}

/* --- the fleet ---------------------------------------------------------------- */

/* "2026-12-02T13:58:16.366Z" for the start of this server, into out[32]. */
static void started_iso(mcp_server *srv, char out[32])
{
    mcp_server_stats st;
    mcp_server_stats_get(srv, &st);
    json_t *t = iso_time(st.started_at);
    snprintf(out, 32, "%s", json_string_value(t) ? json_string_value(t) : "");
    json_decref(t);
}

int http_observe_heartbeat(mcp_server *srv, const http_observe_live *live, const char *url,
                           int expire_s, dbmcp_error *err)
{
    json_t *status = http_observe_status(srv, live);
    char *text = status ? json_dumps(status, JSON_COMPACT) : NULL;
    json_decref(status);
    if (!text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    char started[32];
    started_iso(srv, started);
    int rc = DBMCP_ESTORE;
    store *db = mcp_server_catalog_acquire(srv, err);
    if (db) {
        rc = store_replica_beat(db, replica_id(), url, started, text, expire_s, err);
        mcp_server_catalog_release(srv, db);
    }
    free(text);
    return rc;
}

void http_observe_heartbeat_end(mcp_server *srv)
{
    dbmcp_error err;
    store *db = mcp_server_catalog_acquire(srv, &err);
    int rc = db ? store_replica_remove(db, replica_id(), &err) : err.code;
    if (db)
        mcp_server_catalog_release(srv, db);
    if (rc)
        log_msg(LOG_WARN, "fleet", "this replica's row stays in dbmcp_replicas: %s", err.message);
}

json_t *http_observe_fleet(mcp_server *srv, int heartbeat_s)
{
    dbmcp_error err;
    store *db = mcp_server_catalog_acquire(srv, &err);
    if (!db)
        return NULL;
    json_t *rows = NULL;
    if (store_replica_list_json(db, HTTP_FLEET_STALE_BEATS * heartbeat_s, &rows, &err) != 0)
        rows = NULL;
    mcp_server_catalog_release(srv, db);
    return rows;
}
