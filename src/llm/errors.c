/*
 * errors.c — one normalised llm_error from whatever a provider answers
 * when something goes wrong (see llm.h for the shapes), the Retry-After
 * parsers, and the fixed public sentences. The provider's own text only
 * ever reaches err->message and err->base.message (the operator's), never
 * err->base.public_message.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/jsonutil.h"
#include "llm/internal.h"

#define ERROR_BODY_MAX ((size_t)1 << 20) /* bodies above this are not parsed */

static const char *const kind_names[] = {
    "none",       "config",           "connect", "timeout",     "auth",           "quota",
    "rate_limit", "overloaded",       "server",  "bad_request", "context_length", "content_filter",
    "too_large",  "invalid_response", "stream",  "truncated",   "cancelled",      "other"};

static const char *const public_texts[] = {
    "no error",
    "the language model is not configured correctly",
    "the language model service could not be reached",
    "the language model service did not answer in time",
    "the language model service refused the credentials",
    "the language model service's quota is exhausted",
    "the language model service is rate limiting requests",
    "the language model service is overloaded",
    "the language model service failed",
    "the language model service rejected the request",
    "the conversation is too long for the model's context window",
    "the language model service's content filter blocked the request",
    "the language model's answer exceeded the size limit",
    "the language model service sent an answer that could not be read",
    "the language model's stream reported an error",
    "the language model's answer was cut off before its end",
    "the language model call was cancelled",
    "the language model call failed"};

const char *llm_error_kind_name(llm_error_kind kind)
{
    if ((unsigned)kind < sizeof kind_names / sizeof *kind_names)
        return kind_names[kind];
    return "other";
}

void llm_error_clear(llm_error *e)
{
    memset(e, 0, sizeof *e);
    e->retry_after_ms = -1;
}

/* --- Retry-After --------------------------------------------------------- */

long llm_retry_after_parse(const char *value, long now_s)
{
    if (!value)
        return -1;
    while (isspace((unsigned char)*value))
        value++;
    if (isdigit((unsigned char)*value)) {
        char *end;
        double seconds = strtod(value, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (*end || seconds < 0 || seconds > 86400.0 * 365)
            return -1;
        return (long)(seconds * 1000.0);
    }
    static const char *const formats[] = {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
                                          "%a %b %e %H:%M:%S %Y"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *end = strptime(value, formats[i], &tm);
        if (!end)
            continue;
        while (isspace((unsigned char)*end))
            end++;
        if (*end)
            continue;
        long at = (long)timegm(&tm);
        return at <= now_s ? 0 : (at - now_s) * 1000L;
    }
    return -1;
}

/* retry-after-ms: a number of milliseconds (may have a fraction). */
static long retry_after_ms_parse(const char *value)
{
    if (!value)
        return -1;
    char *end;
    double ms = strtod(value, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end == value || *end || ms < 0 || ms > 86400e3 * 365)
        return -1;
    return (long)ms;
}

/* A wait written in the message ("Try again in 12 seconds", "Please retry
 * after 6 seconds", "try again in 1.5s", "in 250ms"), or -1. */
static long retry_hint(const char *message)
{
    static const char *const leads[] = {"again in ", "retry after ", "retry in "};
    for (size_t i = 0; i < sizeof leads / sizeof *leads; i++) {
        const char *p = strcasestr(message, leads[i]);
        if (!p)
            continue;
        p += strlen(leads[i]);
        char *end;
        double n = strtod(p, &end);
        if (end == p || n < 0 || n > 86400)
            continue;
        while (*end == ' ')
            end++;
        if (strncasecmp(end, "ms", 2) == 0 || strncasecmp(end, "milli", 5) == 0)
            return (long)n;
        if (*end == 's' || *end == 'S')
            return (long)(n * 1000);
    }
    return -1;
}

/* --- documents ------------------------------------------------------------- */

static void set_text(char *field, size_t size, const json_t *v)
{
    if (json_is_string(v)) {
        llm_copy_line(field, size, json_string_value(v), json_string_length(v));
    } else if (json_is_integer(v)) {
        snprintf(field, size, "%lld", (long long)json_integer_value(v));
    } else if (v && !json_is_null(v)) {
        char *text = json_dump_compact(v);
        if (text)
            llm_copy_line(field, size, text, strlen(text));
        free(text);
    }
}

/* A message that is an object (Mistral's 422: {"detail":[{"loc","msg"}]})
 * as "loc.path: msg; …". */
static void set_message(llm_error *err, const json_t *message)
{
    const json_t *detail = json_is_object(message) ? json_object_get(message, "detail") : message;
    if (!json_is_array(detail)) {
        set_text(err->message, sizeof err->message, detail);
        return;
    }
    char text[1024] = "";
    size_t used = 0, i;
    const json_t *d;
    json_array_foreach (detail, i, d) {
        char loc[256] = "";
        size_t k, lused = 0;
        const json_t *part;
        json_array_foreach (json_object_get(d, "loc"), k, part) {
            char piece[64] = "";
            set_text(piece, sizeof piece, part);
            int n = snprintf(loc + lused, sizeof loc - lused, "%s%s", k ? "." : "", piece);
            if (n < 0 || (size_t)n >= sizeof loc - lused)
                break;
            lused += (size_t)n;
        }
        const char *msg = json_get_str(d, "msg");
        int n = snprintf(text + used, sizeof text - used, "%s%s%s%s", used ? "; " : "", loc,
                         loc[0] ? ": " : "", msg ? msg : "invalid");
        if (n < 0 || (size_t)n >= sizeof text - used)
            break;
        used += (size_t)n;
    }
    llm_copy_line(err->message, sizeof err->message, text, used);
}

/* Fill err's type, code and message from doc when it is an error document
 * of a known shape; 1 when it is, 0 otherwise. */
static int error_fields(const json_t *doc, int status, llm_error *err)
{
    if (json_is_array(doc) && json_array_size(doc) > 0)
        doc = json_array_get(doc, 0);
    if (!json_is_object(doc) || json_object_get(doc, "choices"))
        return 0;
    const json_t *e = json_object_get(doc, "error");
    const char *object = json_get_str(doc, "object");
    if (json_is_object(e)) { /* OpenAI, Azure, vLLM >= 0.10, llama.cpp, Ollama /v1 */
        set_message(err, json_object_get(e, "message"));
        set_text(err->type, sizeof err->type, json_object_get(e, "type"));
        if (!err->type[0])
            set_text(err->type, sizeof err->type, json_object_get(e, "status"));
        set_text(err->code, sizeof err->code, json_object_get(e, "code"));
        const json_t *inner = json_object_get(e, "innererror");
        if (!err->code[0] || strcmp(err->code, "content_filter") == 0)
            if (json_is_object(inner) && json_get_str(inner, "code"))
                set_text(err->code, sizeof err->code, json_object_get(inner, "code"));
        return 1;
    }
    if (json_is_string(e)) { /* Ollama native */
        set_text(err->message, sizeof err->message, e);
        return 1;
    }
    if (object && strcmp(object, "error") == 0) { /* Mistral, vLLM < 0.10 */
        set_message(err, json_object_get(doc, "message"));
        set_text(err->type, sizeof err->type, json_object_get(doc, "type"));
        set_text(err->code, sizeof err->code, json_object_get(doc, "code"));
        return 1;
    }
    const json_t *sc = json_object_get(doc, "statusCode");
    if (json_is_integer(sc) && json_object_get(doc, "message")) { /* Azure API Management */
        set_message(err, json_object_get(doc, "message"));
        set_text(err->code, sizeof err->code, sc);
        return 1;
    }
    if (json_object_get(doc, "detail")) { /* FastAPI servers */
        set_message(err, json_object_get(doc, "detail"));
        return 1;
    }
    if (status >= 400 && json_is_string(json_object_get(doc, "message"))) { /* gateways */
        set_message(err, json_object_get(doc, "message"));
        set_text(err->type, sizeof err->type, json_object_get(doc, "type"));
        set_text(err->code, sizeof err->code, json_object_get(doc, "code"));
        return 1;
    }
    return 0;
}

/* --- classification -------------------------------------------------------- */

static int has(const char *field, const char *word)
{
    return field[0] && strcasestr(field, word) != NULL;
}

static int is_quota(const llm_error *e, int status)
{
    return status == 402 || has(e->code, "insufficient_quota") || has(e->type, "quota") ||
           has(e->code, "quota_exceeded") || has(e->code, "billing") || has(e->type, "billing") ||
           has(e->message, "exceeded your current quota");
}

static int is_context_length(const llm_error *e)
{
    return has(e->code, "context_length") || has(e->type, "context_length") ||
           has(e->type, "context_size") || has(e->message, "context size") ||
           has(e->message, "maximum context length") || has(e->message, "context window") ||
           has(e->message, "context length") || has(e->message, "prompt is too long") ||
           has(e->message, "too many tokens");
}

static int is_content_filter(const llm_error *e)
{
    return has(e->code, "content_filter") || has(e->type, "content_filter") ||
           has(e->code, "ResponsibleAIPolicyViolation") || has(e->code, "content_policy");
}

/* The status a stream error stands for (its numeric code), else 0. */
static int code_status(const llm_error *e)
{
    char *end;
    long n = strtol(e->code, &end, 10);
    return e->code[0] && !*end && n >= 400 && n < 600 ? (int)n : 0;
}

static void classify(llm_error *e, int status)
{
    int s = status >= 400 ? status : code_status(e);
    if (is_quota(e, s))
        e->kind = LLM_ERR_QUOTA;
    else if (is_content_filter(e))
        e->kind = LLM_ERR_CONTENT_FILTER;
    else if (s == 401 || s == 403 || has(e->code, "invalid_api_key") ||
             has(e->type, "authentication") || has(e->type, "permission"))
        e->kind = LLM_ERR_AUTH;
    else if (is_context_length(e))
        e->kind = LLM_ERR_CONTEXT_LENGTH;
    else if (s == 429 || has(e->type, "rate_limit") || has(e->code, "rate_limit") ||
             has(e->type, "RESOURCE_EXHAUSTED"))
        e->kind = LLM_ERR_RATE_LIMIT;
    else if (s == 503 || s == 529 || has(e->type, "overloaded") || has(e->code, "overloaded"))
        e->kind = LLM_ERR_OVERLOADED;
    else if (s == 408 || s == 504)
        e->kind = LLM_ERR_TIMEOUT;
    else if (s >= 500 || has(e->type, "server_error") || has(e->type, "internal"))
        e->kind = LLM_ERR_SERVER;
    else if (s == 409 || s == 425)
        e->kind = LLM_ERR_OTHER;
    else if (s >= 400)
        e->kind = LLM_ERR_BAD_REQUEST;
    else
        e->kind = status ? LLM_ERR_OTHER : LLM_ERR_STREAM;
    switch (e->kind) {
    case LLM_ERR_RATE_LIMIT:
    case LLM_ERR_OVERLOADED:
    case LLM_ERR_TIMEOUT:
    case LLM_ERR_SERVER: e->retryable = 1; break;
    case LLM_ERR_OTHER: e->retryable = s == 409 || s == 425; break;
    default: e->retryable = 0;
    }
}

static int base_code(llm_error_kind kind)
{
    switch (kind) {
    case LLM_ERR_AUTH:
    case LLM_ERR_QUOTA:
    case LLM_ERR_CONTENT_FILTER: return DBMCP_EDENIED;
    case LLM_ERR_TIMEOUT: return DBMCP_ETIMEOUT;
    case LLM_ERR_TOO_LARGE: return DBMCP_ETOOBIG;
    case LLM_ERR_CONFIG:
    case LLM_ERR_BAD_REQUEST:
    case LLM_ERR_CONTEXT_LENGTH:
    case LLM_ERR_CANCELLED: return DBMCP_EINVAL;
    default: return DBMCP_EIO;
    }
}

int llm_error_finish(llm_error *err)
{
    llm_error_kind kind = err->kind ? err->kind : LLM_ERR_OTHER;
    const char *pub =
        public_texts[(unsigned)kind < sizeof public_texts / sizeof *public_texts ? kind
                                                                                 : LLM_ERR_OTHER];
    char status[32] = "";
    if (err->http_status)
        snprintf(status, sizeof status, " (HTTP %d)", err->http_status);
    err->base.code = base_code(kind);
    snprintf(err->base.public_message, sizeof err->base.public_message, "%s%s", pub, status);
    char attempts[32] = "";
    if (err->attempts > 1)
        snprintf(attempts, sizeof attempts, " after %d attempts", err->attempts);
    snprintf(err->base.message, sizeof err->base.message, "llm %s: %s%s%s%s%s%s%s%s: %s",
             err->provider[0] ? err->provider : "?", llm_error_kind_name(kind), status,
             err->type[0] ? " type=" : "", err->type, err->code[0] ? " code=" : "", err->code,
             err->retryable ? " (retryable)" : "", attempts, err->message[0] ? err->message : pub);
    return err->base.code;
}

int llm_error_local(llm_error *err, llm_provider provider, llm_error_kind kind, int retryable,
                    const char *fmt, ...)
{
    int attempts = err->attempts;
    llm_error_clear(err);
    err->attempts = attempts;
    snprintf(err->provider, sizeof err->provider, "%s", llm_provider_name(provider));
    err->kind = kind;
    err->retryable = retryable;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    llm_copy_line(err->message, sizeof err->message, text, strlen(text));
    return llm_error_finish(err);
}

int llm_error_from_document(llm_provider provider, int status, const json_t *doc, llm_error *err)
{
    llm_error probe;
    llm_error_clear(&probe);
    if (!error_fields(doc, status, &probe))
        return 0;
    probe.attempts = err->attempts;
    *err = probe;
    snprintf(err->provider, sizeof err->provider, "%s", llm_provider_name(provider));
    err->http_status = status;
    classify(err, status);
    if (err->retryable)
        err->retry_after_ms = retry_hint(err->message);
    llm_error_finish(err);
    return 1;
}

/* --- bodies that are not JSON -------------------------------------------- */

static int looks_html(const char *body, size_t len, const char *content_type)
{
    if (content_type && strcasestr(content_type, "html"))
        return 1;
    size_t i = 0;
    while (i < len && isspace((unsigned char)body[i]))
        i++;
    return i < len && body[i] == '<';
}

/* "HTML page: <title>" (or the first heading), for the operator. */
static void html_message(llm_error *err, const char *body, size_t len)
{
    static const char *const tags[] = {"<title", "<h1", "<h2"};
    for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
        const char *open = memmem(body, len, tags[t], strlen(tags[t]));
        if (!open)
            continue;
        const char *start = memchr(open, '>', len - (size_t)(open - body));
        if (!start)
            continue;
        start++;
        const char *end = memchr(start, '<', len - (size_t)(start - body));
        size_t n = end ? (size_t)(end - start) : len - (size_t)(start - body);
        char title[200];
        llm_copy_line(title, sizeof title, start, n);
        if (title[0]) {
            snprintf(err->message, sizeof err->message, "HTML page: %s", title);
            return;
        }
    }
    snprintf(err->message, sizeof err->message, "HTML page");
}

void llm_error_from_http(llm_provider provider, int status, const llm_http_headers *h,
                         const char *body, size_t len, llm_error *out)
{
    int attempts = out->attempts;
    llm_error_clear(out);
    out->attempts = attempts;
    snprintf(out->provider, sizeof out->provider, "%s", llm_provider_name(provider));
    out->http_status = status > 0 && status < 1000 ? status : 0;
    if (!body)
        len = 0;
    json_t *doc = NULL;
    if (len > 0 && len <= ERROR_BODY_MAX)
        doc = json_loadb(body, len, JSON_DECODE_ANY, NULL);
    if (doc && error_fields(doc, out->http_status, out)) {
        /* the document said it */
    } else if (len > 0 && !doc && looks_html(body, len, h ? h->content_type : NULL)) {
        html_message(out, body, len > ERROR_BODY_MAX ? ERROR_BODY_MAX : len);
    } else if (len > 0) {
        char line[240];
        llm_copy_line(line, sizeof line, body, len > 4096 ? 4096 : len);
        snprintf(out->message, sizeof out->message, "%s%s", doc ? "unexpected JSON: " : "", line);
    }
    json_decref(doc);
    classify(out, out->http_status);
    if (h) {
        out->retry_after_ms = retry_after_ms_parse(h->retry_after_ms);
        if (out->retry_after_ms < 0)
            out->retry_after_ms = llm_retry_after_parse(h->retry_after, (long)time(NULL));
    }
    if (out->retry_after_ms < 0 && out->retryable)
        out->retry_after_ms = retry_hint(out->message);
    llm_error_finish(out);
}
