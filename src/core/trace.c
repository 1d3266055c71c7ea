/*
 * trace.c — W3C Trace Context parsing and the thread's current span; see
 * trace.h. The grammar checks follow https://www.w3.org/TR/trace-context/
 * (traceparent section 3.2, tracestate section 3.3) byte by byte: no
 * uppercase hex, no whitespace inside traceparent, bounded sizes.
 */
#include "core/trace.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/ids.h"
#include "core/log.h"
#include "core/text_safe.h"

static _Atomic(trace_sink_fn) g_sink;
static _Thread_local trace_span *t_current;

/* --- W3C Trace Context --------------------------------------------------------- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* n bytes from 2n lowercase hex digits; 0 when every digit is one. */
static int parse_hex(const char *p, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_value(p[2 * i]), lo = hex_value(p[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

static int all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

void trace_hex(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

int trace_parse_traceparent(const char *text, size_t len, trace_context *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: missing");
    if (len > TRACE_PARENT_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "traceparent: %zu bytes, at most %d", len,
                               TRACE_PARENT_MAX);
    if (len < TRACE_PARENT_LEN)
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: %zu bytes, expected %d", len,
                               TRACE_PARENT_LEN);
    uint8_t version;
    if (parse_hex(text, &version, 1) != 0 || text[2] != '-')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "traceparent: version must be 2 lowercase hex digits then '-'");
    if (version == 0xff)
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: version ff is invalid");
    if (version == 0 && len != TRACE_PARENT_LEN)
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: version 00 is exactly %d bytes",
                               TRACE_PARENT_LEN);
    if (version != 0 && len > TRACE_PARENT_LEN && text[TRACE_PARENT_LEN] != '-')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "traceparent: a later version's fields after byte %d start with '-'",
                               TRACE_PARENT_LEN);
    if (parse_hex(text + 3, out->trace_id, 16) != 0 || text[35] != '-')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "traceparent: trace-id must be 32 lowercase hex digits then '-'");
    if (all_zero(out->trace_id, 16))
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: trace-id is all zeros");
    if (parse_hex(text + 36, out->span_id, 8) != 0 || text[52] != '-')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "traceparent: parent-id must be 16 lowercase hex digits then '-'");
    if (all_zero(out->span_id, 8))
        return dbmcp_error_set(err, DBMCP_EINVAL, "traceparent: parent-id is all zeros");
    if (parse_hex(text + 53, &out->flags, 1) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "traceparent: trace-flags must be 2 lowercase hex digits");
    out->valid = 1;
    return 0;
}

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*' ||
           c == '/';
}

/* One list member "key=value" (no surrounding whitespace); 0 when valid. */
static int check_member(const char *p, size_t n, dbmcp_error *err)
{
    const char *eq = memchr(p, '=', n);
    if (!eq)
        return dbmcp_error_set(err, DBMCP_EINVAL, "tracestate: a list member has no '='");
    size_t klen = (size_t)(eq - p), vlen = n - klen - 1;
    const char *at = memchr(p, '@', klen);
    size_t tenant = at ? (size_t)(at - p) : klen;
    size_t system = at ? klen - tenant - 1 : 0;
    if (klen == 0 || klen > 256 ||
        (at && (tenant == 0 || tenant > 241 || system == 0 || system > 14)))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tracestate: a key has a bad length");
    if (!at && !(p[0] >= 'a' && p[0] <= 'z'))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tracestate: a key must start with a-z");
    if (at && !(at[1] >= 'a' && at[1] <= 'z'))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tracestate: a system id must start with a-z");
    for (size_t i = 0; i < klen; i++)
        if (p + i != at && !key_char(p[i]))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "tracestate: a key holds a character outside a-z 0-9 _-*/@");
    if (vlen == 0 || vlen > 256 || eq[vlen] == ' ')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tracestate: a value has a bad length or ends "
                               "in a space");
    for (size_t i = 1; i <= vlen; i++) {
        unsigned char c = (unsigned char)eq[i];
        if (c < 0x20 || c > 0x7e || c == ',' || c == '=')
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "tracestate: a value holds a character outside 0x20-0x7E or "
                                   "',' '='");
    }
    return 0;
}

int trace_check_tracestate(const char *text, size_t len, dbmcp_error *err)
{
    if (len > TRACE_STATE_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "tracestate: %zu bytes, at most %d", len,
                               TRACE_STATE_MAX);
    int members = 0;
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && text[end] != ',')
            end++;
        size_t a = i, b = end;
        while (a < b && (text[a] == ' ' || text[a] == '\t'))
            a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t'))
            b--;
        if (b > a) { /* empty members are allowed and skipped */
            if (++members > TRACE_STATE_MEMBERS)
                return dbmcp_error_set(err, DBMCP_ETOOBIG, "tracestate: more than %d members",
                                       TRACE_STATE_MEMBERS);
            int rc = check_member(text + a, b - a, err);
            if (rc)
                return rc;
        }
        i = end + 1;
    }
    return 0;
}

void trace_format_traceparent(const trace_context *ctx, char out[TRACE_PARENT_LEN + 1])
{
    char tid[33], sid[17], flags[3];
    trace_hex(ctx->trace_id, 16, tid);
    trace_hex(ctx->span_id, 8, sid);
    trace_hex(&ctx->flags, 1, flags);
    snprintf(out, TRACE_PARENT_LEN + 1, "00-%s-%s-%s", tid, sid, flags);
}

/* One traceparent and its tracestate into *out; 1 when valid. */
static int context_from(const char *parent, const char *state, trace_context *out)
{
    dbmcp_error err;
    memset(out, 0, sizeof *out);
    if (!parent)
        return 0;
    if (trace_parse_traceparent(parent, strlen(parent), out, &err) != 0) {
        log_msg(LOG_DEBUG, "trace", "traceparent ignored: %s", err.message);
        return 0;
    }
    if (state && *state) {
        size_t n = strlen(state);
        if (trace_check_tracestate(state, n, &err) == 0)
            memcpy(out->tracestate, state, n + 1);
        else
            log_msg(LOG_DEBUG, "trace", "tracestate dropped: %s", err.message);
    }
    return 1;
}

int trace_context_from_request(const char *meta_parent, const char *meta_state,
                               const char *header_parent, const char *header_state,
                               trace_context *out)
{
    return context_from(meta_parent, meta_state, out) ||
           context_from(header_parent, header_state, out);
}

/* --- spans ------------------------------------------------------------------------- */

void trace_set_sink(trace_sink_fn fn)
{
    atomic_store(&g_sink, fn);
}

int trace_recording(void)
{
    return atomic_load_explicit(&g_sink, memory_order_relaxed) != NULL;
}

static uint64_t unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void random_bytes(uint8_t *out, size_t n)
{
    while (n > 0) {
        uint64_t r = ids_random64();
        size_t k = n < sizeof r ? n : sizeof r;
        memcpy(out, &r, k);
        out += k;
        n -= k;
    }
}

void trace_span_begin(trace_span *s, const char *name, trace_kind kind, const trace_context *parent)
{
    memset(s, 0, sizeof *s);
    int recording = trace_recording();
    const trace_context *from = parent && parent->valid ? parent
                                : t_current             ? &t_current->ctx
                                                        : NULL;
    if (!from && !recording)
        return;
    if (from) {
        s->ctx = *from;
        memcpy(s->parent_id, from->span_id, sizeof s->parent_id);
    } else {
        do
            random_bytes(s->ctx.trace_id, sizeof s->ctx.trace_id);
        while (all_zero(s->ctx.trace_id, sizeof s->ctx.trace_id));
        s->ctx.flags = 1; /* sampled: every span recorded is exported */
        s->ctx.valid = 1;
    }
    do
        random_bytes(s->ctx.span_id, sizeof s->ctx.span_id);
    while (all_zero(s->ctx.span_id, sizeof s->ctx.span_id));
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    s->kind = kind;
    s->recording = recording;
    s->active = 1;
    s->start_ns = recording ? unix_ns() : 0;
    s->previous = t_current;
    t_current = s;
}

void trace_span_begin_leaf(trace_span *s, const char *name, trace_kind kind)
{
    memset(s, 0, sizeof *s);
    if (!t_current || !trace_recording())
        return;
    trace_span *current = t_current;
    trace_span_begin(s, name, kind, &current->ctx);
    t_current = current; /* begin made it current: a leaf is not */
    s->leaf = 1;
}

static json_t *attrs_of(trace_span *s)
{
    if (!s->active || !s->recording)
        return NULL;
    if (!s->attrs)
        s->attrs = json_object();
    return s->attrs;
}

void trace_span_set_str(trace_span *s, const char *key, const char *value)
{
    json_t *a = attrs_of(s);
    if (!a || !value)
        return;
    char *bounded = text_safe_bound(value, TRACE_ATTR_TEXT_MAX, 0);
    if (bounded)
        json_object_set_new(a, key, json_string(bounded));
    free(bounded);
}

void trace_span_set_int(trace_span *s, const char *key, int64_t value)
{
    json_t *a = attrs_of(s);
    if (a)
        json_object_set_new(a, key, json_integer(value));
}

void trace_span_set_error(trace_span *s, const char *message)
{
    if (!s->active)
        return;
    s->error = 1;
    snprintf(s->message, sizeof s->message, "%s", message ? message : "");
}

void trace_span_end(trace_span *s)
{
    if (!s->active)
        return;
    s->active = 0;
    if (!s->leaf && t_current == s)
        t_current = s->previous;
    trace_sink_fn sink = atomic_load(&g_sink);
    if (s->recording && sink) {
        s->end_ns = unix_ns();
        sink(s); /* borrows the span: what it keeps, it copies */
    }
    json_decref(s->attrs);
    s->attrs = NULL;
}

void trace_span_trace_id(const trace_span *s, char out[33])
{
    if (!s->active && !s->ctx.valid) {
        out[0] = '\0';
        return;
    }
    trace_hex(s->ctx.trace_id, 16, out);
}

void trace_current_set_str(const char *key, const char *value)
{
    if (t_current)
        trace_span_set_str(t_current, key, value);
}

void trace_current_trace_id(char out[33])
{
    if (t_current)
        trace_hex(t_current->ctx.trace_id, 16, out);
    else
        out[0] = '\0';
}

const trace_span *trace_current(void)
{
    return t_current;
}

int trace_current_traceparent(char out[TRACE_PARENT_LEN + 1])
{
    if (!t_current)
        return 0;
    trace_format_traceparent(&t_current->ctx, out);
    return 1;
}
