/*
 * embed_http.c — the embedder that calls an OpenAI-compatible service:
 * POST {url}/embeddings with {"model": M, "input": [texts]} over libcurl.
 *
 * Inputs go in batches of embed.batch; each batch is one request, tried
 * up to 1 + embed.retries times. Connection failures, timeouts, 429 and
 * 5xx are retried after a delay: the service's Retry-After (seconds) or
 * retry-after-ms when it sends one (up to HTTP_RETRY_AFTER_MAX_MS; a
 * longer wish fails at once), else exponential backoff from 250 ms.
 * 400, 401, 403, 404 and other client errors fail at once: sending the
 * same request again cannot help. The reply body is bounded
 * (HTTP_MAX_BODY) and parsed once: data[i].embedding arrays of numbers,
 * placed by data[i].index when every item has one, checked for count,
 * dimension (the configured one, or the first reply's) and finiteness,
 * then L2-normalised.
 *
 * The API key is read from the environment variable named by
 * embed.api_key_env at each request and only ever put in the
 * Authorization header; it is never logged, stored or put in an error.
 * The service's body appears only in the operator message (err->message,
 * a short excerpt of its error text), never in err->public_message.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/curl_lib.h"
#include "core/trace.h"
#include "core/textnorm.h"
#include "core/vector.h"
#include "search/embed_internal.h"

#define HTTP_MAX_BODY (64u * 1024 * 1024) /* reply bytes accepted */
#define HTTP_RETRY_AFTER_MAX_MS 60000     /* longest Retry-After honoured */
#define HTTP_BACKOFF_MS 250               /* first backoff; doubles per attempt */
#define HTTP_BACKOFF_MAX_MS 8000
#define HTTP_EXCERPT 200 /* bytes of a service error shown to the operator */

typedef struct http_embedder {
    char *endpoint;    /* {url}/embeddings; owned */
    char *model;       /* sent as "model"; owned */
    char *api_key_env; /* name of the env var with the key, NULL = no key; owned */
    int batch;         /* inputs per request */
    int timeout_ms;    /* per attempt */
    int retries;       /* extra attempts */
} http_embedder;

/* One attempt's reply. */
typedef struct http_reply {
    char *body; /* owned, NUL-terminated */
    size_t len, cap;
    int too_big;         /* the body passed HTTP_MAX_BODY: transfer aborted */
    long retry_after_ms; /* from Retry-After / retry-after-ms, -1 when absent */
    long status;         /* HTTP status, 0 when no reply */
} http_reply;

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    http_reply *r = ctx;
    size_t n = size * nmemb;
    if (n > HTTP_MAX_BODY - r->len) {
        r->too_big = 1;
        return 0; /* aborts the transfer */
    }
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 16384;
        while (cap < r->len + n + 1)
            cap *= 2;
        char *grown = realloc(r->body, cap);
        if (!grown)
            return 0;
        r->body = grown;
        r->cap = cap;
    }
    memcpy(r->body + r->len, data, n);
    r->len += n;
    r->body[r->len] = '\0';
    return n;
}

/* Retry-After: <seconds> (the HTTP-date form is left to the backoff) and
 * OpenAI's retry-after-ms: <ms>, which wins when both are sent. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
    http_reply *r = ctx;
    size_t n = size * nmemb;
    char line[128];
    if (n >= sizeof line)
        return n;
    memcpy(line, data, n);
    line[n] = '\0';
    char *end;
    if (strncasecmp(line, "retry-after-ms:", 15) == 0) {
        double ms = strtod(line + 15, &end);
        if (end != line + 15 && ms >= 0)
            r->retry_after_ms = ms > 1e9 ? 1000000000L : (long)ms;
    } else if (strncasecmp(line, "retry-after:", 12) == 0 && r->retry_after_ms < 0) {
        long s = strtol(line + 12, &end, 10);
        if (end != line + 12 && s >= 0)
            r->retry_after_ms = s > 1000000 ? 1000000000L : s * 1000;
    }
    return n;
}

/* The request body {"model": M, "input": [texts]}; malloc'd or NULL. */
static int request_body(const http_embedder *h, const char *const *texts, size_t n, char **out,
                        dbmcp_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(texts[i]);
        if (text_utf8_valid_prefix(texts[i], len) != len)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "text %zu to embed is not valid UTF-8 (at byte %zu)", i,
                                   text_utf8_valid_prefix(texts[i], len));
    }
    json_t *input = json_array();
    for (size_t i = 0; input && i < n; i++)
        if (json_array_append_new(input, json_stringn(texts[i], strlen(texts[i])))) {
            json_decref(input);
            input = NULL;
        }
    json_t *body = input ? json_pack("{s:s,s:o}", "model", h->model, "input", input) : NULL;
    *out = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    return *out ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
}

/* An excerpt of the service's error text for the operator: error.message,
 * error (a string) or the raw start of the body, control bytes as '?'. */
static void error_excerpt(const http_reply *r, char *out, size_t cap)
{
    out[0] = '\0';
    if (!r->body || !r->len)
        return;
    json_t *doc = json_loadb(r->body, r->len, 0, NULL);
    const char *msg = NULL;
    json_t *e = json_object_get(doc, "error");
    if (json_is_string(e))
        msg = json_string_value(e);
    else if (json_is_string(json_object_get(e, "message")))
        msg = json_string_value(json_object_get(e, "message"));
    if (!msg)
        msg = r->body;
    size_t i = 0;
    for (; msg[i] && i < HTTP_EXCERPT && i + 1 < cap; i++)
        out[i] = (unsigned char)msg[i] < 0x20 ? '?' : msg[i];
    out[i] = '\0';
    json_decref(doc);
}

typedef enum attempt_result { ATTEMPT_OK, ATTEMPT_RETRY, ATTEMPT_FAIL } attempt_result;

/* Read the key; 0 or an error naming the variable (never its value). */
static int bearer_header(const http_embedder *h, char *out, size_t cap, dbmcp_error *err)
{
    out[0] = '\0';
    if (!h->api_key_env)
        return 0;
    const char *key = getenv(h->api_key_env);
    if (!key || !*key)
        return dbmcp_error_set_private(err, DBMCP_EDENIED, "the embedding service has no API key",
                                       "environment variable %s (embed.api_key_env) is not set",
                                       h->api_key_env);
    if (strpbrk(key, "\r\n") || strlen(key) + 32 > cap)
        return dbmcp_error_set_private(err, DBMCP_EINVAL,
                                       "the embedding service's API key is invalid",
                                       "environment variable %s (embed.api_key_env) holds a line "
                                       "break or is longer than %zu bytes",
                                       h->api_key_env, cap - 32);
    snprintf(out, cap, "Authorization: Bearer %s", key);
    return 0;
}

/* One POST. ATTEMPT_OK: status 200 and the body in r. ATTEMPT_RETRY or
 * ATTEMPT_FAIL: err says why. */
static attempt_result post_once(const http_embedder *h, const char *body, http_reply *r,
                                dbmcp_error *err)
{
    char auth[4096 + 64];
    if (bearer_header(h, auth, sizeof auth, err))
        return ATTEMPT_FAIL;
    CURL *c = curl_api.curl_easy_init();
    struct curl_slist *hdrs = curl_api.curl_slist_append(NULL, "Content-Type: application/json");
    struct curl_slist *more =
        hdrs ? curl_api.curl_slist_append(hdrs, "Accept: application/json") : NULL;
    if (more && auth[0])
        more = curl_api.curl_slist_append(more, auth);
    explicit_bzero(auth, sizeof auth);
    if (!c || !more) {
        curl_api.curl_slist_free_all(hdrs);
        curl_api.curl_easy_cleanup(c);
        dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        return ATTEMPT_FAIL;
    }
    hdrs = more;
    curl_api.curl_easy_setopt(c, CURLOPT_URL, h->endpoint);
    curl_api.curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_api.curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_api.curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_api.curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_api.curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_api.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
    curl_api.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                              (long)(h->timeout_ms < 10000 ? h->timeout_ms : 10000));
    curl_api.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_api.curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_api.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    char curl_msg[CURL_ERROR_SIZE] = "";
    curl_api.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_msg);
    CURLcode cc = curl_api.curl_easy_perform(c);
    curl_api.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_api.curl_easy_cleanup(c);
    curl_api.curl_slist_free_all(hdrs); /* holds the key: libcurl copied nothing we keep */

    if (r->too_big) {
        dbmcp_error_set_private(err, DBMCP_ETOOBIG, "the embedding service's reply is too large",
                                "embedding service %s: reply larger than %u bytes", h->endpoint,
                                HTTP_MAX_BODY);
        return ATTEMPT_FAIL;
    }
    if (cc != CURLE_OK) {
        int code = cc == CURLE_OPERATION_TIMEDOUT ? DBMCP_ETIMEOUT : DBMCP_EIO;
        dbmcp_error_set_private(err, code,
                                code == DBMCP_ETIMEOUT
                                    ? "the embedding service did not answer in time"
                                    : "the embedding service is unreachable",
                                "embedding service %s: %s", h->endpoint,
                                curl_msg[0] ? curl_msg : curl_api.curl_easy_strerror(cc));
        /* A bad URL, certificate or memory stays bad on the next attempt. */
        int lasting = cc == CURLE_OUT_OF_MEMORY || cc == CURLE_URL_MALFORMAT ||
                      cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_PEER_FAILED_VERIFICATION ||
                      cc == CURLE_SSL_CACERT_BADFILE || cc == CURLE_SSL_CERTPROBLEM;
        return lasting ? ATTEMPT_FAIL : ATTEMPT_RETRY;
    }
    if (r->status == 200)
        return ATTEMPT_OK;
    char excerpt[HTTP_EXCERPT + 1];
    error_excerpt(r, excerpt, sizeof excerpt);
    long s = r->status;
    int retry = s == 429 || s == 408 || s >= 500;
    int code = s == 401 || s == 403 ? DBMCP_EDENIED
               : s == 404           ? DBMCP_ENOTFOUND
               : s == 429           ? DBMCP_ETIMEOUT
               : retry              ? DBMCP_EIO
                                    : DBMCP_EINVAL;
    const char *hint = s == 401 || s == 403 ? " (check the key in embed.api_key_env)"
                       : s == 404           ? " (check embed.url and embed.model)"
                                            : "";
    char pub[160];
    snprintf(pub, sizeof pub, "the embedding service answered HTTP %ld%s", s,
             s == 401 || s == 403 ? ": credentials refused" : "");
    dbmcp_error_set_private(err, code, pub, "embedding service %s answered HTTP %ld%s: %s",
                            h->endpoint, s, hint, excerpt[0] ? excerpt : "(no body)");
    return retry ? ATTEMPT_RETRY : ATTEMPT_FAIL;
}

/* "invalid reply: <what>" for the operator, a fixed sentence for the agent. */
static int invalid_reply(dbmcp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int invalid_reply(dbmcp_error *err, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return dbmcp_error_set_private(err, DBMCP_EINVAL,
                                   "the embedding service returned an invalid reply",
                                   "invalid reply: %s", what);
}

/* Check data[] of a reply: count, one length for all, the limit; sets
 * *dim and *with_index (items carrying an integer "index"). */
static int check_items(const json_t *data, size_t n, int *dim, size_t *with_index, dbmcp_error *err)
{
    if (!json_is_array(data))
        return invalid_reply(err, "no \"data\" array");
    if (json_array_size(data) != n)
        return invalid_reply(err, "%zu embeddings for the %zu inputs sent", json_array_size(data),
                             n);
    size_t i;
    json_t *item;
    *with_index = 0;
    json_array_foreach (data, i, item) {
        json_t *emb = json_object_get(item, "embedding");
        size_t len = json_array_size(emb);
        if (!json_is_array(emb) || len == 0)
            return invalid_reply(err, "data[%zu].embedding is not a non-empty array", i);
        if (len > EMBED_MAX_DIM)
            return invalid_reply(err, "data[%zu].embedding has %zu dimensions (the limit is %d)", i,
                                 len, EMBED_MAX_DIM);
        if (i == 0)
            *dim = (int)len;
        else if (len != (size_t)*dim)
            return invalid_reply(err, "data[%zu].embedding has %zu numbers, data[0] has %d", i, len,
                                 *dim);
        if (json_is_integer(json_object_get(item, "index")))
            (*with_index)++;
    }
    return 0;
}

/* Copy data[] into v (n * dim floats), placed by index when every item
 * has one. */
static int copy_items(const json_t *data, size_t n, int dim, int by_index, float *v,
                      dbmcp_error *err)
{
    char *seen = calloc(n, 1);
    if (!seen)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = 0;
    size_t i;
    json_t *item;
    json_array_foreach (data, i, item) {
        size_t slot = i;
        if (by_index) {
            json_int_t ix = json_integer_value(json_object_get(item, "index"));
            if (ix < 0 || (size_t)ix >= n || seen[ix]) {
                rc = invalid_reply(err, "data[%zu].index is out of range or repeated", i);
                break;
            }
            slot = (size_t)ix;
        }
        seen[slot] = 1;
        json_t *x;
        size_t j;
        json_array_foreach (json_object_get(item, "embedding"), j, x) {
            double d = json_number_value(x);
            if (!json_is_number(x) || !isfinite(d) || fabs(d) > 3.4e38) {
                rc = invalid_reply(err, "data[%zu].embedding[%zu] is not a finite float32 number",
                                   i, j);
                break;
            }
            v[slot * (size_t)dim + j] = (float)d;
        }
        if (rc)
            break;
    }
    free(seen);
    return rc;
}

int embed_http_parse_reply(const char *body, size_t len, size_t n, float **vecs, int *dim,
                           dbmcp_error *err)
{
    *vecs = NULL;
    *dim = 0;
    if (n == 0)
        return invalid_reply(err, "no inputs were sent");
    json_error_t jerr;
    json_t *doc = json_loadb(body ? body : "", body ? len : 0, 0, &jerr);
    if (!doc)
        return invalid_reply(err, "not JSON (%s, at byte %zu)", jerr.text, (size_t)jerr.position);
    json_t *data = json_object_get(doc, "data");
    size_t with_index = 0;
    int rc = check_items(data, n, dim, &with_index, err);
    float *v = rc ? NULL : calloc(n * (size_t)*dim, sizeof *v);
    if (!rc && !v)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = copy_items(data, n, *dim, with_index == n, v, err);
    json_decref(doc);
    if (rc) {
        free(v);
        *dim = 0;
        return rc;
    }
    /* A service's vector is refused rather than stored when it cannot be
     * compared: all zeros (or values below float32 range) has no direction. */
    for (size_t k = 0; !rc && k < n; k++) {
        vec_fault f = vec_normalize(v + k * (size_t)*dim, *dim, NULL);
        if (f != VEC_OK)
            rc = invalid_reply(err, "the embedding of input %zu %s", k, vec_fault_text(f));
    }
    if (rc) {
        free(v);
        *dim = 0;
        return rc;
    }
    *vecs = v;
    return 0;
}

/* The reply's vectors, the endpoint named in the operator message. */
static int parse_reply(const http_embedder *h, const http_reply *r, size_t n, float **vecs,
                       int *dim, dbmcp_error *err)
{
    int rc = embed_http_parse_reply(r->body, r->len, n, vecs, dim, err);
    if (rc && rc != DBMCP_ENOMEM) {
        char detail[sizeof err->message];
        snprintf(detail, sizeof detail, "%s", err->message);
        dbmcp_error_set_private(err, rc, "the embedding service returned an invalid reply",
                                "embedding service %s: %.900s", h->endpoint, detail);
    }
    return rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* One batch with retries; out receives n * dim floats (dim learned on the
 * first reply when still unknown; out may be NULL for a probe). */
static int embed_batch(embedder *e, const char *const *texts, size_t n, float *out,
                       dbmcp_error *err)
{
    http_embedder *h = e->impl;
    char *body;
    if (request_body(h, texts, n, &body, err))
        return err->code;
    int rc = 0;
    for (int attempt = 0;; attempt++) {
        http_reply r = {NULL, 0, 0, 0, -1, 0};
        trace_span span; /* one per HTTP request: docs/operations.md, "Traces" */
        char span_name[TRACE_NAME_MAX];
        snprintf(span_name, sizeof span_name, "embeddings %.80s", h->model);
        trace_span_begin(&span, span_name, TRACE_KIND_CLIENT, NULL);
        trace_span_set_str(&span, "gen_ai.operation.name", "embeddings");
        trace_span_set_str(&span, "gen_ai.request.model", h->model);
        trace_span_set_int(&span, "dbmcp.embedding.inputs", (int64_t)n);
        trace_span_set_int(&span, "dbmcp.attempt", attempt + 1);
        attempt_result a = post_once(h, body, &r, err);
        if (r.status)
            trace_span_set_int(&span, "http.response.status_code", r.status);
        if (a != ATTEMPT_OK)
            trace_span_set_error(&span, dbmcp_code_name(err->code));
        trace_span_end(&span);
        if (a == ATTEMPT_OK) {
            float *v = NULL;
            int dim = 0;
            rc = parse_reply(h, &r, n, &v, &dim, err);
            if (!rc)
                rc = embedder_learn_dim(e, dim, err);
            if (!rc && out)
                memcpy(out, v, n * (size_t)dim * sizeof *v);
            free(v);
            free(r.body);
            break;
        }
        free(r.body);
        rc = err->code;
        if (a == ATTEMPT_FAIL || attempt >= h->retries) {
            if (a == ATTEMPT_RETRY && attempt > 0) {
                char note[64];
                snprintf(note, sizeof note, "after %d attempts", attempt + 1);
                dbmcp_error_prefix(err, note);
            }
            break;
        }
        long delay = r.retry_after_ms >= 0 ? r.retry_after_ms
                                           : (long)HTTP_BACKOFF_MS << (attempt < 5 ? attempt : 5);
        if (delay > HTTP_RETRY_AFTER_MAX_MS) {
            dbmcp_error_prefix(err, "the service asked to wait longer than 60 s before retrying");
            break;
        }
        if (r.retry_after_ms < 0 && delay > HTTP_BACKOFF_MAX_MS)
            delay = HTTP_BACKOFF_MAX_MS;
        sleep_ms(delay);
    }
    free(body);
    return rc;
}

static int http_embed(embedder *e, const char *const *texts, size_t n, float *out, dbmcp_error *err)
{
    http_embedder *h = e->impl;
    size_t dim = (size_t)embedder_dim(e);
    for (size_t i = 0; i < n; i += (size_t)h->batch) {
        size_t m = n - i < (size_t)h->batch ? n - i : (size_t)h->batch;
        int rc = embed_batch(e, texts + i, m, out + i * dim, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int http_probe(embedder *e, dbmcp_error *err)
{
    const char *probe[] = {"dimension probe"};
    return embed_batch(e, probe, 1, NULL, err);
}

static void http_free(void *impl)
{
    http_embedder *h = impl;
    if (!h)
        return;
    free(h->endpoint);
    free(h->model);
    free(h->api_key_env);
    free(h);
}

static const embedder_ops http_ops = {http_embed, http_probe, http_free};

static int check_config(const embedder_config *cfg, dbmcp_error *err)
{
    if (!cfg->url || !*cfg->url)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "embed.url is required when embed.kind is 'http'");
    if (strncmp(cfg->url, "http://", 7) != 0 && strncmp(cfg->url, "https://", 8) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "embed.url must start with http:// or https://");
    if (strlen(cfg->url) > 2000 || strpbrk(cfg->url, " \r\n\t"))
        return dbmcp_error_set(
            err, DBMCP_EINVAL,
            "embed.url must be at most 2000 bytes without spaces or line breaks");
    if (!cfg->model || !*cfg->model || strlen(cfg->model) > 150 ||
        text_utf8_valid_prefix(cfg->model, strlen(cfg->model)) != strlen(cfg->model))
        return dbmcp_error_set(
            err, DBMCP_EINVAL,
            "embed.model is required when embed.kind is 'http' (1 to 150 bytes of UTF-8)");
    if (cfg->dim < 0 || cfg->dim > EMBED_MAX_DIM)
        return dbmcp_error_set(err, DBMCP_EINVAL, "embed.dim must be 0 (learn) to %d",
                               EMBED_MAX_DIM);
    if (cfg->batch < 0 || cfg->batch > 2048)
        return dbmcp_error_set(err, DBMCP_EINVAL, "embed.batch must be 1 to 2048");
    if (cfg->timeout_ms < 0 || cfg->timeout_ms > 600000)
        return dbmcp_error_set(err, DBMCP_EINVAL, "embed.timeout_ms must be 100 to 600000");
    if (cfg->retries < -1 || cfg->retries > 10)
        return dbmcp_error_set(err, DBMCP_EINVAL, "embed.retries must be 0 to 10");
    if (cfg->api_key_env && !getenv(cfg->api_key_env))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "embed.api_key_env names %.100s, but that environment variable is "
                               "not set",
                               cfg->api_key_env);
    return 0;
}

int embedder_http_init(embedder *e, const embedder_config *cfg, dbmcp_error *err)
{
    int rc = check_config(cfg, err);
    if (rc)
        return rc;
    if ((rc = curl_lib_open(err)) != 0)
        return rc;
    http_embedder *h = calloc(1, sizeof *h);
    if (!h)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    size_t ulen = strlen(cfg->url);
    while (ulen > 0 && cfg->url[ulen - 1] == '/')
        ulen--;
    h->endpoint = malloc(ulen + sizeof "/embeddings");
    h->model = strdup(cfg->model);
    h->api_key_env = cfg->api_key_env && *cfg->api_key_env ? strdup(cfg->api_key_env) : NULL;
    if (!h->endpoint || !h->model || (cfg->api_key_env && *cfg->api_key_env && !h->api_key_env)) {
        http_free(h);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    memcpy(h->endpoint, cfg->url, ulen);
    strcpy(h->endpoint + ulen, "/embeddings");
    h->batch = cfg->batch > 0 ? cfg->batch : 32;
    h->timeout_ms = cfg->timeout_ms > 0 ? (cfg->timeout_ms < 100 ? 100 : cfg->timeout_ms) : 30000;
    h->retries = cfg->retries > 0 ? cfg->retries : cfg->retries < 0 ? 0 : 3;
    e->ops = &http_ops;
    e->impl = h;
    atomic_store(&e->dim, cfg->dim);
    snprintf(e->model_base, sizeof e->model_base, "http:%s", cfg->model);
    return 0;
}
