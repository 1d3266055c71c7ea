/*
 * otlp.c — the OTLP/HTTP JSON span exporter; see otlp.h.
 *
 * The sink (called on the thread that ends a span) renders the span as an
 * OTLP Span object (opentelemetry-proto's JSON mapping: ids as lowercase
 * hex, 64-bit integers as decimal strings, enums as numbers, attributes as
 * [{key, value: {stringValue|intValue|doubleValue}}]) and pushes it into a
 * ring of queue_max pointers under one mutex: never a wait beyond that
 * lock. The sender thread takes up to batch_max at a time and posts them
 * as one ExportTraceServiceRequest.
 */
#include "core/otlp.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "core/curl_lib.h"
#include "core/log.h"
#include "core/trace.h"

typedef struct exporter {
    otlp_config cfg; /* strings below are copies */
    char url[OTLP_ENDPOINT_MAX + 16];
    char *service_name, *service_version, *instance_id;
    json_t **ring; /* queue_max slots */
    size_t head, count;
    int stopping;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
} exporter;

static pthread_mutex_t g_start_lock = PTHREAD_MUTEX_INITIALIZER;
static exporter *g_exp;
static _Atomic uint64_t g_exported, g_dropped_full, g_dropped_error, g_requests_failed;
static _Atomic size_t g_queued;
static _Atomic int g_running;

/* --- encoding ------------------------------------------------------------------------ */

static json_t *any_value(json_t *v)
{
    char num[32];
    if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        return json_pack("{s:s}", "intValue", num);
    }
    if (json_is_real(v))
        return json_pack("{s:f}", "doubleValue", json_real_value(v));
    if (json_is_boolean(v))
        return json_pack("{s:b}", "boolValue", json_is_true(v));
    return json_pack("{s:s}", "stringValue", json_string_value(v) ? json_string_value(v) : "");
}

static json_t *attributes(json_t *attrs)
{
    json_t *out = json_array();
    const char *key;
    json_t *v;
    json_object_foreach (attrs, key, v)
        json_array_append_new(out, json_pack("{s:s, s:o}", "key", key, "value", any_value(v)));
    return out;
}

static json_t *span_json(const trace_span *s)
{
    char tid[33], sid[17], pid[17], start[24], end[24];
    trace_hex(s->ctx.trace_id, 16, tid);
    trace_hex(s->ctx.span_id, 8, sid);
    snprintf(start, sizeof start, "%llu", (unsigned long long)s->start_ns);
    snprintf(end, sizeof end, "%llu", (unsigned long long)s->end_ns);
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:i}", "traceId", tid, "spanId", sid,
                          "name", s->name, "kind", s->kind, "startTimeUnixNano", start,
                          "endTimeUnixNano", end, "flags", (int)s->ctx.flags);
    if (!o)
        return NULL;
    static const uint8_t zero[8];
    if (memcmp(s->parent_id, zero, sizeof zero) != 0) {
        trace_hex(s->parent_id, 8, pid);
        json_object_set_new(o, "parentSpanId", json_string(pid));
    }
    if (s->ctx.tracestate[0])
        json_object_set_new(o, "traceState", json_string(s->ctx.tracestate));
    if (s->attrs)
        json_object_set_new(o, "attributes", attributes(s->attrs));
    json_t *status = json_pack("{s:i}", "code", s->error ? 2 : 1);
    if (s->error && s->message[0])
        json_object_set_new(status, "message", json_string(s->message));
    json_object_set_new(o, "status", status);
    return o;
}

static void add_attr(json_t *arr, const char *key, const char *value)
{
    if (value && *value)
        json_array_append_new(
            arr, json_pack("{s:s, s:{s:s}}", "key", key, "value", "stringValue", value));
}

char *otlp_encode(const otlp_config *cfg, void *spans_json_array)
{
    json_t *res_attrs = json_array();
    add_attr(res_attrs, "service.name", cfg->service_name ? cfg->service_name : "dbmcp");
    add_attr(res_attrs, "service.version", cfg->service_version);
    add_attr(res_attrs, "service.instance.id", cfg->instance_id);
    json_t *scope = json_pack("{s:s}", "name", "dbmcp");
    if (cfg->service_version)
        json_object_set_new(scope, "version", json_string(cfg->service_version));
    json_t *body =
        json_pack("{s:[{s:{s:o}, s:[{s:o, s:O}]}]}", "resourceSpans", "resource", "attributes",
                  res_attrs, "scopeSpans", "scope", scope, "spans", (json_t *)spans_json_array);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    return text;
}

/* --- the sink ---------------------------------------------------------------------------- */

static void sink(trace_span *s)
{
    exporter *e = g_exp;
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    int full = e->count >= (size_t)e->cfg.queue_max;
    pthread_mutex_unlock(&e->lock);
    if (full) {
        atomic_fetch_add(&g_dropped_full, 1);
        return;
    }
    json_t *o = span_json(s);
    if (!o)
        return;
    pthread_mutex_lock(&e->lock);
    if (e->count >= (size_t)e->cfg.queue_max) {
        pthread_mutex_unlock(&e->lock);
        atomic_fetch_add(&g_dropped_full, 1);
        json_decref(o);
        return;
    }
    e->ring[(e->head + e->count) % (size_t)e->cfg.queue_max] = o;
    e->count++;
    atomic_store(&g_queued, e->count);
    if (e->count >= (size_t)e->cfg.batch_max)
        pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
}

/* --- sending ----------------------------------------------------------------------------- */

static size_t discard_body(char *p, size_t size, size_t n, void *ctx)
{
    (void)p;
    (void)ctx;
    return size * n;
}

/* POST the batch; returns 0 when the collector answered 2xx. */
static int post(exporter *e, const char *body)
{
    CURL *c = curl_api.curl_easy_init();
    if (!c)
        return -1;
    struct curl_slist *h = curl_api.curl_slist_append(NULL, "Content-Type: application/json");
    curl_api.curl_easy_setopt(c, CURLOPT_URL, e->url);
    curl_api.curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_api.curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_api.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)e->cfg.timeout_ms);
    curl_api.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)e->cfg.timeout_ms);
    curl_api.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
    CURLcode rc = curl_api.curl_easy_perform(c);
    long status = 0;
    curl_api.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_api.curl_slist_free_all(h);
    curl_api.curl_easy_cleanup(c);
    if (rc != CURLE_OK || status < 200 || status > 299) {
        static _Atomic int warned;
        if (!atomic_exchange(&warned, 1))
            log_msg(LOG_WARN, "trace",
                    "span export to %s failed: %s (status %ld); later failures "
                    "only in dbmcp_trace_export_failures_total",
                    e->url, rc != CURLE_OK ? curl_api.curl_easy_strerror(rc) : "refused", status);
        return -1;
    }
    return 0;
}

/* Take up to batch_max spans and send them; called and returns with the
 * lock held. */
static void send_batch_locked(exporter *e)
{
    size_t n = e->count < (size_t)e->cfg.batch_max ? e->count : (size_t)e->cfg.batch_max;
    json_t *spans = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(spans, e->ring[e->head]);
        e->head = (e->head + 1) % (size_t)e->cfg.queue_max;
    }
    e->count -= n;
    atomic_store(&g_queued, e->count);
    pthread_mutex_unlock(&e->lock);
    char *body = otlp_encode(&e->cfg, spans);
    json_decref(spans);
    if (body && post(e, body) == 0)
        atomic_fetch_add(&g_exported, n);
    else {
        atomic_fetch_add(&g_requests_failed, 1);
        atomic_fetch_add(&g_dropped_error, n);
    }
    free(body);
    pthread_mutex_lock(&e->lock);
}

static void *sender_main(void *arg)
{
    exporter *e = arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        if (e->count >= (size_t)e->cfg.batch_max) {
            send_batch_locked(e);
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long long ns = ts.tv_nsec + (long long)e->cfg.flush_ms * 1000000LL;
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        int rc = pthread_cond_timedwait(&e->wake, &e->lock, &ts);
        if (rc == ETIMEDOUT && e->count > 0)
            send_batch_locked(e);
    }
    while (e->count > 0) /* once, at stop */
        send_batch_locked(e);
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* --- public ---------------------------------------------------------------------------- */

static void exporter_free(exporter *e)
{
    for (size_t i = 0; i < e->count; i++)
        json_decref(e->ring[(e->head + i) % (size_t)e->cfg.queue_max]);
    free(e->ring);
    free(e->service_name);
    free(e->service_version);
    free(e->instance_id);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->wake);
    free(e);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int otlp_start(const otlp_config *cfg, dbmcp_error *err)
{
    const char *ep = cfg ? cfg->endpoint : NULL;
    if (!ep || (strncasecmp(ep, "http://", 7) != 0 && strncasecmp(ep, "https://", 8) != 0))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "trace.otlp_endpoint: \"%.80s\" is not an http:// or https:// URL",
                               ep ? ep : "");
    size_t len = strlen(ep);
    if (len > OTLP_ENDPOINT_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "trace.otlp_endpoint: longer than %d bytes",
                               OTLP_ENDPOINT_MAX);
    int rc = curl_lib_open(err);
    if (rc)
        return rc;
    exporter *e = calloc(1, sizeof *e);
    if (!e)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    e->cfg = *cfg;
    e->cfg.queue_max = cfg->queue_max > 0 ? cfg->queue_max : OTLP_QUEUE_MAX_DEFAULT;
    e->cfg.batch_max = cfg->batch_max > 0 ? cfg->batch_max : OTLP_BATCH_MAX_DEFAULT;
    if (e->cfg.batch_max > e->cfg.queue_max)
        e->cfg.batch_max = e->cfg.queue_max;
    e->cfg.flush_ms = cfg->flush_ms > 0 ? cfg->flush_ms : OTLP_FLUSH_MS_DEFAULT;
    e->cfg.timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : OTLP_TIMEOUT_MS_DEFAULT;
    /* A base URL gets the signal path; a full …/v1/traces URL is kept. */
    while (len > 0 && ep[len - 1] == '/')
        len--;
    int full = len >= 10 && strncmp(ep + len - 10, "/v1/traces", 10) == 0;
    snprintf(e->url, sizeof e->url, "%.*s%s", (int)len, ep, full ? "" : "/v1/traces");
    e->service_name = dup_or_null(cfg->service_name);
    e->service_version = dup_or_null(cfg->service_version);
    e->instance_id = dup_or_null(cfg->instance_id);
    e->cfg.service_name = e->service_name;
    e->cfg.service_version = e->service_version;
    e->cfg.instance_id = e->instance_id;
    e->cfg.endpoint = e->url;
    e->ring = calloc((size_t)e->cfg.queue_max, sizeof *e->ring);
    pthread_mutex_init(&e->lock, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&e->wake, &a);
    pthread_condattr_destroy(&a);
    pthread_mutex_lock(&g_start_lock);
    if (g_exp) {
        pthread_mutex_unlock(&g_start_lock);
        exporter_free(e);
        return dbmcp_error_set(err, DBMCP_EEXISTS, "a span exporter is already running");
    }
    if (!e->ring || pthread_create(&e->thread, NULL, sender_main, e) != 0) {
        pthread_mutex_unlock(&g_start_lock);
        exporter_free(e);
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "the span exporter could not start");
    }
    g_exp = e;
    atomic_store(&g_running, 1);
    trace_set_sink(sink);
    pthread_mutex_unlock(&g_start_lock);
    log_msg(LOG_INFO, "trace", "exporting spans to %s", e->url);
    return 0;
}

void otlp_stop(void)
{
    pthread_mutex_lock(&g_start_lock);
    exporter *e = g_exp;
    if (!e) {
        pthread_mutex_unlock(&g_start_lock);
        return;
    }
    trace_set_sink(NULL);
    pthread_mutex_lock(&e->lock);
    e->stopping = 1;
    pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    /* Spans still ending on other threads saw the sink before it was
     * cleared; they find g_exp gone or the queue empty-and-stopped. */
    g_exp = NULL;
    atomic_store(&g_running, 0);
    atomic_store(&g_queued, 0);
    pthread_mutex_unlock(&g_start_lock);
    exporter_free(e);
}

void otlp_stats_get(otlp_stats *out)
{
    out->exported = atomic_load(&g_exported);
    out->dropped_full = atomic_load(&g_dropped_full);
    out->dropped_error = atomic_load(&g_dropped_error);
    out->requests_failed = atomic_load(&g_requests_failed);
    out->queued = atomic_load(&g_queued);
    out->running = atomic_load(&g_running);
}
