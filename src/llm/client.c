/*
 * client.c — llm_chat over libcurl: one POST per attempt with connect and
 * total timeouts and a response size limit; a 2xx text/event-stream answer
 * is fed to the stream parser as it arrives, anything else is buffered and
 * parsed (or normalised as an error) at the end; retries with exponential
 * backoff and equal jitter, or the server's Retry-After / retry-after-ms,
 * when the error is retryable (see llm.h for which are). The API key is
 * read from the environment at each call and only ever put in a header.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/curl_lib.h"
#include "core/trace.h"
#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/metrics.h"
#include "llm/internal.h"

static void real_sleep(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

void (*llm_sleep_fn)(long ms) = real_sleep;

/* One attempt's state, reset before each. */
typedef struct attempt {
    const llm_config *cfg;
    const llm_request *req;
    CURL *curl;
    llm_buf body;       /* buffered (non-stream) body */
    llm_stream *stream; /* set once a 2xx event stream starts */
    int too_large;      /* the buffered body passed the limit */
    int stream_failed;  /* the parser refused the stream */
    llm_error stream_err;
    char content_type[128];
    char retry_after[64];
    char retry_after_ms[32];
} attempt;

/* The value of header line "Name: value" when its name is name, copied. */
static void header_take(const char *line, size_t len, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return;
    llm_copy_line(out, size, line + n + 1, len - n - 1);
}

static size_t on_header(char *data, size_t size, size_t count, void *userp)
{
    attempt *a = userp;
    size_t len = size * count;
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) { /* a new response (after 1xx) */
        a->content_type[0] = a->retry_after[0] = a->retry_after_ms[0] = '\0';
        return len;
    }
    header_take(data, len, "content-type", a->content_type, sizeof a->content_type);
    header_take(data, len, "retry-after", a->retry_after, sizeof a->retry_after);
    header_take(data, len, "retry-after-ms", a->retry_after_ms, sizeof a->retry_after_ms);
    return len;
}

static long status_of(CURL *curl)
{
    long status = 0;
    curl_api.curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

static size_t on_body(char *data, size_t size, size_t count, void *userp)
{
    attempt *a = userp;
    size_t len = size * count;
    long status = status_of(a->curl);
    if (!a->stream && !a->body.len && status >= 200 && status < 300 &&
        strcasestr(a->content_type, "text/event-stream")) {
        a->stream = llm_stream_new(a->cfg->provider, a->cfg->max_response_bytes);
        if (!a->stream)
            return 0;
    }
    if (a->stream) {
        if (llm_stream_feed(a->stream, data, len, a->req->on_delta, a->req->on_delta_ctx,
                            &a->stream_err) != 0) {
            a->stream_failed = 1;
            return 0;
        }
        return len;
    }
    if (a->body.len + len > a->cfg->max_response_bytes) {
        a->too_large = 1;
        return 0;
    }
    return llm_buf_add(&a->body, data, len) ? 0 : len;
}

static int transport_error(const attempt *a, CURLcode rc, const char *detail, llm_error *err)
{
    llm_provider p = a->cfg->provider;
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return llm_error_local(err, p, LLM_ERR_TIMEOUT, 1, "no complete answer in time: %s",
                               detail);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR: return llm_error_local(err, p, LLM_ERR_CONNECT, 1, "%s", detail);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return llm_error_local(err, p, LLM_ERR_CONFIG, 0, "%s", detail);
    default: return llm_error_local(err, p, LLM_ERR_CONNECT, 1, "%s", detail);
    }
}

/* The outcome of a finished transfer into out / err. */
static int attempt_result(attempt *a, CURLcode rc, const char *curl_msg, llm_response *out,
                          llm_error *err)
{
    llm_provider p = a->cfg->provider;
    long status = status_of(a->curl);
    if (a->stream_failed) {
        *err = a->stream_err;
        return err->base.code;
    }
    if (a->too_large)
        return llm_error_local(err, p, LLM_ERR_TOO_LARGE, 0, "the answer is longer than %zu bytes",
                               a->cfg->max_response_bytes);
    if (a->stream) {
        /* A cut connection after a complete stream (finish_reason seen) is
         * still an answer; before, finish says it was truncated. */
        int frc = llm_stream_finish(a->stream, out, err);
        if (frc && rc == CURLE_OPERATION_TIMEDOUT && err->kind == LLM_ERR_TRUNCATED)
            return transport_error(a, rc, "the stream stopped", err);
        return frc;
    }
    if (rc != CURLE_OK)
        return transport_error(a, rc, curl_msg, err);
    if (status < 200 || status >= 300) {
        llm_http_headers h = {a->content_type, a->retry_after[0] ? a->retry_after : NULL,
                              a->retry_after_ms[0] ? a->retry_after_ms : NULL};
        llm_error_from_http(p, (int)status, &h, a->body.data, a->body.len, err);
        return err->base.code;
    }
    return llm_response_parse(p, a->body.data, a->body.len, out, err);
}

/* One HTTP attempt. */
static int attempt_run(attempt *a, const char *url, struct curl_slist *headers, const char *body,
                       llm_response *out, llm_error *err)
{
    char curl_msg[CURL_ERROR_SIZE] = "";
    a->curl = curl_api.curl_easy_init();
    if (!a->curl)
        return llm_error_local(err, a->cfg->provider, LLM_ERR_OTHER, 0, "curl_easy_init failed");
    CURL *c = a->curl;
    curl_api.curl_easy_setopt(c, CURLOPT_URL, url);
    curl_api.curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_api.curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_api.curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_api.curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_api.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, a->cfg->connect_timeout_ms);
    curl_api.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, a->cfg->timeout_ms);
    curl_api.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_api.curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_api.curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_api.curl_easy_setopt(c, CURLOPT_USERAGENT, "dbmcp");
    curl_api.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_msg);
    curl_api.curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_api.curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_api.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    trace_span span; /* one per HTTP request: docs/operations.md, "Traces" */
    char span_name[TRACE_NAME_MAX];
    snprintf(span_name, sizeof span_name, "chat %.80s", a->cfg->model);
    trace_span_begin(&span, span_name, TRACE_KIND_CLIENT, NULL);
    trace_span_set_str(&span, "gen_ai.operation.name", "chat");
    trace_span_set_str(&span, "gen_ai.provider.name", llm_provider_name(a->cfg->provider));
    trace_span_set_str(&span, "gen_ai.request.model", a->cfg->model);
    CURLcode rc = curl_api.curl_easy_perform(c);
    if (rc != CURLE_OK && !curl_msg[0])
        snprintf(curl_msg, sizeof curl_msg, "%s", curl_api.curl_easy_strerror(rc));
    int result = attempt_result(a, rc, curl_msg, out, err);
    long status = 0;
    curl_api.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status)
        trace_span_set_int(&span, "http.response.status_code", status);
    if (result == 0) {
        trace_span_set_int(&span, "gen_ai.usage.input_tokens", out->tokens_in);
        trace_span_set_int(&span, "gen_ai.usage.output_tokens", out->tokens_out);
    } else {
        trace_span_set_error(&span, llm_error_kind_name(err->kind));
    }
    trace_span_end(&span);
    curl_api.curl_easy_cleanup(c);
    a->curl = NULL;
    return result;
}

static void attempt_reset(attempt *a)
{
    llm_buf_free(&a->body);
    llm_stream_free(a->stream);
    a->stream = NULL;
    a->too_large = a->stream_failed = 0;
    llm_error_clear(&a->stream_err);
    a->content_type[0] = a->retry_after[0] = a->retry_after_ms[0] = '\0';
}

/* The wait before retry number `retry` (0-based): the server's request when
 * given, else base * 2^retry with equal jitter, capped. -1: do not retry
 * (the server asks for longer than the cap). */
static long backoff_ms(const llm_config *cfg, const llm_error *err, int retry)
{
    if (err->retry_after_ms >= 0)
        return err->retry_after_ms > cfg->backoff_max_ms ? -1 : err->retry_after_ms;
    long step = cfg->backoff_base_ms;
    for (int i = 0; i < retry && step < cfg->backoff_max_ms; i++)
        step *= 2;
    if (step > cfg->backoff_max_ms)
        step = cfg->backoff_max_ms;
    long half = step / 2;
    return half + (half > 0 ? (long)randombytes_uniform((uint32_t)(half + 1)) : 0);
}

static struct curl_slist *headers_build(const llm_config *cfg, const llm_request *req,
                                        const char *key)
{
    struct curl_slist *h = NULL, *next;
    char line[1024];
    const char *fixed[] = {"Content-Type: application/json", "Expect:",
                           req->stream ? "Accept: text/event-stream" : "Accept: application/json"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        if (!(next = curl_api.curl_slist_append(h, fixed[i])))
            goto fail;
        h = next;
    }
    if (key) {
        if (cfg->provider == LLM_PROVIDER_AZURE)
            snprintf(line, sizeof line, "api-key: %s", key);
        else
            snprintf(line, sizeof line, "Authorization: Bearer %s", key);
        next = curl_api.curl_slist_append(h, line);
        sodium_memzero(line, sizeof line);
        if (!next)
            goto fail;
        h = next;
    }
    return h;
fail:
    curl_api.curl_slist_free_all(h);
    return NULL;
}

/* Key, URL, body and headers of a call; 0 or a negative code with err. */
static int call_prepare(const llm_config *cfg, const llm_request *req, char *url, size_t url_size,
                        char **body, struct curl_slist **headers, llm_error *err)
{
    dbmcp_error e;
    if (llm_config_check(cfg, &e) != 0 || llm_config_chat_url(cfg, url, url_size, &e) != 0)
        return llm_error_local(err, cfg->provider, LLM_ERR_CONFIG, 0, "%s", e.message);
    const char *key = NULL;
    if (cfg->api_key_env[0]) {
        key = getenv(cfg->api_key_env);
        if (!key || !*key)
            return llm_error_local(err, cfg->provider, LLM_ERR_CONFIG, 0,
                                   "the environment variable %s (llm.api_key_env) holding the "
                                   "API key is not set",
                                   cfg->api_key_env);
        if (strlen(key) > 900 || strpbrk(key, "\r\n"))
            return llm_error_local(err, cfg->provider, LLM_ERR_CONFIG, 0,
                                   "the API key in %s is not a single line of at most 900 bytes",
                                   cfg->api_key_env);
    }
    json_t *doc = llm_request_to_json(cfg, req, &e);
    if (!doc)
        return llm_error_local(err, cfg->provider, LLM_ERR_BAD_REQUEST, 0, "%s", e.message);
    *body = json_dump_compact(doc);
    json_decref(doc);
    *headers = *body ? headers_build(cfg, req, key) : NULL;
    if (!*body || !*headers)
        return llm_error_local(err, cfg->provider, LLM_ERR_OTHER, 0, "out of memory");
    return 0;
}

int llm_chat(const llm_config *cfg, const llm_request *req, llm_response *out, llm_error *err)
{
    memset(out, 0, sizeof *out);
    llm_error_clear(err);
    double start = ids_monotonic_ms();
    char url[1024];
    char *body = NULL;
    struct curl_slist *headers = NULL;
    dbmcp_error lib_err;
    int rc = curl_lib_open(&lib_err) != 0
                 ? llm_error_local(err, cfg->provider, LLM_ERR_CONFIG, 0, "%s", lib_err.message)
                 : call_prepare(cfg, req, url, sizeof url, &body, &headers, err);
    attempt a;
    memset(&a, 0, sizeof a);
    a.cfg = cfg;
    a.req = req;
    int attempts = 0;
    for (int prepared = rc == 0; prepared;) {
        attempt_reset(&a);
        llm_response_free(out);
        attempts++;
        rc = attempt_run(&a, url, headers, body, out, err);
        if (rc == 0 || !err->retryable || attempts > cfg->max_retries)
            break;
        if (a.stream && llm_stream_text_delivered(a.stream) > 0)
            break; /* the caller has shown text already: no silent restart */
        long wait = backoff_ms(cfg, err, attempts - 1);
        if (wait < 0)
            break;
        if (wait > 0)
            llm_sleep_fn(wait);
    }
    attempt_reset(&a);
    free(body);
    if (headers) /* none when libcurl could not be opened */
        curl_api.curl_slist_free_all(headers);
    out->attempts = attempts;
    out->latency_ms = ids_monotonic_ms() - start;
    err->attempts = attempts;
    if (rc)
        llm_error_finish(err);
    /* labelled with the configured model (the answer's may be anything) */
    metrics_llm_call(llm_provider_name(cfg->provider),
                     cfg->model[0] ? cfg->model : cfg->azure_deployment, rc ? 0 : out->tokens_in,
                     rc ? 0 : out->tokens_out, attempts > 1 ? attempts - 1 : 0, rc != 0);
    return rc;
}
