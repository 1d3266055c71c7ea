/*
 * stream.c — the incremental parser of a streamed chat completion
 * (text/event-stream). Bytes arrive in any split; complete lines are
 * gathered into events (a blank line ends one), each event's data is one
 * chunk: its delta adds text (string or parts) and tool-call pieces, which
 * are accumulated per index and checked for consistency. An error document
 * in the stream, a broken chunk, an inconsistent delta or the size limit
 * make the stream bad for good: the error is kept and returned by every
 * later feed and by finish. See llm.h for the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "llm/internal.h"

#define LINE_MAX_BYTES ((size_t)4 << 20) /* one SSE line (a chunk) */

typedef struct stream_call {
    char *id, *name; /* from the first delta that carried them */
    llm_buf args;    /* argument text so far */
    int seen;        /* some delta had this index */
} stream_call;

struct llm_stream {
    llm_provider provider;
    size_t max_bytes, total;
    llm_buf line;   /* the current, unfinished line */
    llm_buf data;   /* data lines of the current event, joined by '\n' */
    int has_data;   /* the current event had a data field */
    char event[32]; /* the current event's name ("" = message) */
    int failed;     /* the stream is bad; err holds why */
    llm_error err;
    llm_buf text;     /* assistant text */
    int text_present; /* some delta had content */
    size_t delivered; /* bytes handed to on_delta */
    stream_call calls[LLM_MAX_TOOL_CALLS];
    int call_slots; /* highest index seen + 1 */
    char *finish_raw, *model, *id;
    int done;     /* "data: [DONE]" seen */
    int after_cr; /* the last byte fed was '\r' */
    int at_end;   /* finish is draining what is left */
    int tokens_in, tokens_out, usage_reported;
    llm_delta_fn on_delta; /* of the current feed */
    void *ctx;
};

llm_stream *llm_stream_new(llm_provider provider, size_t max_bytes)
{
    llm_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->provider = provider;
    s->max_bytes = max_bytes ? max_bytes : LLM_DEFAULT_MAX_RESPONSE_BYTES;
    llm_error_clear(&s->err);
    return s;
}

void llm_stream_free(llm_stream *s)
{
    if (!s)
        return;
    llm_buf_free(&s->line);
    llm_buf_free(&s->data);
    llm_buf_free(&s->text);
    for (int i = 0; i < s->call_slots; i++) {
        free(s->calls[i].id);
        free(s->calls[i].name);
        llm_buf_free(&s->calls[i].args);
    }
    free(s->finish_raw);
    free(s->model);
    free(s->id);
    free(s);
}

size_t llm_stream_text_delivered(const llm_stream *s)
{
    return s->delivered;
}

/* Mark the stream bad with a local error; returns the code. */
static int stream_fail(llm_stream *s, llm_error_kind kind, int retryable, const char *what)
{
    s->failed = 1;
    return llm_error_local(&s->err, s->provider, kind, retryable, "stream: %s", what);
}

static int nomem(llm_stream *s)
{
    return stream_fail(s, LLM_ERR_OTHER, 0, "out of memory");
}

/* Replace *field with a copy of value when value is a non-empty string. */
static int keep_string(char **field, const json_t *value)
{
    const char *v = json_string_value(value);
    if (!v || !*v || (*field && strcmp(*field, v) == 0))
        return 0;
    char *copy = strdup(v);
    if (!copy)
        return -1;
    free(*field);
    *field = copy;
    return 0;
}

/* Check a delta's id or name against what the index already has. */
static int call_field(llm_stream *s, char **field, const json_t *value, int index, const char *what)
{
    const char *v = json_string_value(value);
    if (!v || !*v)
        return 0;
    if (*field && strcmp(*field, v) != 0) {
        char why[200];
        snprintf(why, sizeof why,
                 "tool call %d changed its %s mid-stream (\"%.40s\" then \"%.40s\")", index, what,
                 *field, v);
        return stream_fail(s, LLM_ERR_STREAM, 0, why);
    }
    if (!*field && !(*field = strdup(v)))
        return nomem(s);
    return 0;
}

static int tool_delta(llm_stream *s, const json_t *delta, size_t position)
{
    const json_t *jindex = json_object_get(delta, "index");
    json_int_t index = json_is_integer(jindex) ? json_integer_value(jindex) : (json_int_t)position;
    if (index < 0 || index >= LLM_MAX_TOOL_CALLS) {
        char why[96];
        snprintf(why, sizeof why, "tool call index %lld outside 0..%d", (long long)index,
                 LLM_MAX_TOOL_CALLS - 1);
        return stream_fail(s, LLM_ERR_TOO_LARGE, 0, why);
    }
    stream_call *c = &s->calls[index];
    const json_t *fn = json_object_get(delta, "function");
    c->seen = 1;
    if ((int)index >= s->call_slots)
        s->call_slots = (int)index + 1;
    int rc = call_field(s, &c->id, json_object_get(delta, "id"), (int)index, "id");
    if (!rc)
        rc = call_field(s, &c->name, json_object_get(fn, "name"), (int)index, "name");
    if (rc)
        return rc;
    const json_t *args = json_object_get(fn, "arguments");
    if (json_is_string(args)) {
        if (llm_buf_add(&c->args, json_string_value(args), json_string_length(args)))
            return nomem(s);
    } else if (args && !json_is_null(args)) { /* a whole object at once (Ollama) */
        char *text = json_dump_compact(args);
        int bad = !text || llm_buf_add(&c->args, text, strlen(text));
        free(text);
        if (bad)
            return nomem(s);
    }
    return 0;
}

static int text_delta(llm_stream *s, const json_t *content)
{
    size_t before = s->text.len;
    int present = llm_content_append(&s->text, content);
    if (present < 0)
        return nomem(s);
    if (present)
        s->text_present = 1;
    size_t added = s->text.len - before;
    if (added && s->on_delta) {
        if (s->on_delta(s->ctx, s->text.data + before, added) != 0)
            return stream_fail(s, LLM_ERR_CANCELLED, 0, "the caller cancelled the stream");
        s->delivered += added;
    }
    return 0;
}

static int chunk_read(llm_stream *s, const json_t *chunk)
{
    if (keep_string(&s->id, json_object_get(chunk, "id")) ||
        keep_string(&s->model, json_object_get(chunk, "model")))
        return nomem(s);
    const json_t *usage = json_object_get(chunk, "usage");
    if (json_is_object(usage)) {
        const json_t *in = json_object_get(usage, "prompt_tokens");
        const json_t *out = json_object_get(usage, "completion_tokens");
        if (json_is_integer(in) || json_is_integer(out)) {
            s->tokens_in = (int)json_integer_value(in);
            s->tokens_out = (int)json_integer_value(out);
            s->usage_reported = 1;
        }
    }
    const json_t *choice = json_array_get(json_object_get(chunk, "choices"), 0);
    if (!choice)
        return 0;
    const json_t *delta = json_object_get(choice, "delta");
    if (!json_is_object(delta))
        delta = json_object_get(choice, "message");
    if (json_is_object(delta)) {
        int rc = text_delta(s, json_object_get(delta, "content"));
        const json_t *calls = json_object_get(delta, "tool_calls");
        size_t i;
        const json_t *call;
        json_array_foreach (calls, i, call) {
            if (!rc)
                rc = tool_delta(s, call, i);
        }
        if (rc)
            return rc;
    }
    if (keep_string(&s->finish_raw, json_object_get(choice, "finish_reason")))
        return nomem(s);
    return 0;
}

/* The event gathered so far is complete: act on it. */
static int event_dispatch(llm_stream *s)
{
    int has_data = s->has_data;
    int is_error = strcmp(s->event, "error") == 0;
    s->has_data = 0;
    s->event[0] = '\0';
    if (!has_data)
        return 0;
    const char *data = s->data.data ? s->data.data : "";
    size_t len = s->data.len;
    int rc = 0;
    if (!is_error && strcmp(data, "[DONE]") == 0) {
        s->done = 1;
    } else {
        json_t *doc = json_loadb(data, len, 0, NULL);
        if (doc && llm_error_from_document(s->provider, 0, doc, &s->err)) {
            s->failed = 1;
            rc = s->err.base.code;
        } else if (is_error) {
            llm_http_headers none = {0};
            llm_error_from_http(s->provider, 0, &none, data, len, &s->err);
            s->err.kind = LLM_ERR_STREAM;
            s->failed = 1;
            rc = llm_error_finish(&s->err);
        } else if (!doc && s->at_end) {
            rc = stream_fail(s, LLM_ERR_TRUNCATED, 1, "the stream ended inside an event");
        } else if (!json_is_object(doc)) {
            rc =
                stream_fail(s, LLM_ERR_INVALID_RESPONSE, 0, "an event's data is not a JSON object");
        } else {
            rc = chunk_read(s, doc);
        }
        json_decref(doc);
    }
    s->data.len = 0;
    if (s->data.data)
        s->data.data[0] = '\0';
    return rc;
}

/* One complete line (without its end). */
static int line_handle(llm_stream *s, const char *line, size_t len)
{
    if (len == 0)
        return event_dispatch(s);
    if (line[0] == ':')
        return 0;
    const char *colon = memchr(line, ':', len);
    size_t name_len = colon ? (size_t)(colon - line) : len;
    const char *value = colon ? colon + 1 : line + len;
    size_t value_len = len - (size_t)(value - line);
    if (value_len && *value == ' ')
        value++, value_len--;
    if (name_len == 4 && memcmp(line, "data", 4) == 0) {
        if ((s->has_data && llm_buf_add(&s->data, "\n", 1)) ||
            llm_buf_add(&s->data, value, value_len))
            return nomem(s);
        s->has_data = 1;
        return 0;
    }
    if (name_len == 5 && memcmp(line, "event", 5) == 0) {
        llm_copy_line(s->event, sizeof s->event, value, value_len);
        return 0;
    }
    if (line[0] == '{') { /* a bare JSON line (an error body sent as the stream) */
        s->data.len = 0;
        if (llm_buf_add(&s->data, line, len))
            return nomem(s);
        s->has_data = 1;
        return event_dispatch(s);
    }
    return 0; /* id:, retry:, unknown fields */
}

int llm_stream_feed(llm_stream *s, const char *data, size_t len, llm_delta_fn on_delta, void *ctx,
                    llm_error *err)
{
    s->on_delta = on_delta;
    s->ctx = ctx;
    if (!s->failed && s->total + len > s->max_bytes) {
        char why[96];
        snprintf(why, sizeof why, "longer than %zu bytes", s->max_bytes);
        stream_fail(s, LLM_ERR_TOO_LARGE, 0, why);
    }
    s->total += len;
    for (size_t i = 0; i < len && !s->failed; i++) {
        char ch = data[i];
        int after_cr = s->after_cr;
        s->after_cr = ch == '\r';
        if (ch != '\n' && ch != '\r') {
            if (s->line.len >= LINE_MAX_BYTES)
                stream_fail(s, LLM_ERR_TOO_LARGE, 0, "a line is longer than 4 MiB");
            else if (llm_buf_add(&s->line, &ch, 1))
                nomem(s);
            continue;
        }
        /* "\r\n" ends one line: skip the '\n' of a pair. */
        if (ch == '\n' && after_cr)
            continue;
        line_handle(s, s->line.data ? s->line.data : "", s->line.len);
        s->line.len = 0;
    }
    if (s->failed) {
        *err = s->err;
        return s->err.base.code ? s->err.base.code : DBMCP_EIO;
    }
    return 0;
}

/* Move the accumulated tool calls into the message. */
static int calls_build(llm_stream *s, llm_message *m)
{
    if (!s->call_slots)
        return 0;
    m->tool_calls = calloc((size_t)s->call_slots, sizeof *m->tool_calls);
    if (!m->tool_calls)
        return -1;
    for (int i = 0; i < s->call_slots; i++) {
        stream_call *c = &s->calls[i];
        if (!c->seen)
            continue;
        json_t *args = json_stringn(c->args.data ? c->args.data : "", c->args.len);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "call_%d", i);
        int rc = !args ? -1
                       : llm_tool_call_set(&m->tool_calls[m->tool_call_count],
                                           c->id ? c->id : fallback, c->name, args);
        json_decref(args);
        if (rc)
            return -1;
        m->tool_call_count++;
    }
    return 0;
}

/* Where a cut stream stopped, for the operator. */
static void cut_where(const llm_stream *s, char *out, size_t size)
{
    for (int i = s->call_slots - 1; i >= 0; i--)
        if (s->calls[i].seen) {
            snprintf(out, size, "inside tool call %d (%.60s) after %zu argument bytes", i,
                     s->calls[i].name ? s->calls[i].name : "?", s->calls[i].args.len);
            return;
        }
    snprintf(out, size, "after %zu bytes of text", s->text.len);
}

int llm_stream_finish(llm_stream *s, llm_response *out, llm_error *err)
{
    memset(out, 0, sizeof *out);
    s->at_end = 1;
    if (!s->failed && s->line.len) {
        line_handle(s, s->line.data, s->line.len);
        s->line.len = 0;
    }
    if (!s->failed)
        event_dispatch(s);
    int failed = 0;
    out->id = llm_strdup(s->id, &failed);
    out->model = llm_strdup(s->model, &failed);
    out->finish_raw = llm_strdup(s->finish_raw, &failed);
    out->finish_reason = llm_finish_parse(s->finish_raw);
    out->tokens_in = s->tokens_in;
    out->tokens_out = s->tokens_out;
    out->usage_reported = s->usage_reported;
    if (s->text_present) {
        out->message.content = strdup(s->text.data ? s->text.data : "");
        failed |= out->message.content == NULL;
    }
    if (!failed && calls_build(s, &out->message) != 0)
        failed = 1;
    llm_response_settle(out);
    if (failed && !s->failed)
        nomem(s);
    if (!s->failed && !s->done && !s->finish_raw) {
        char where[160];
        cut_where(s, where, sizeof where);
        char why[200];
        snprintf(why, sizeof why, "the stream ended before its end, %s", where);
        stream_fail(s, LLM_ERR_TRUNCATED, 1, why);
        out->truncated = 1;
    }
    if (s->failed && s->err.kind == LLM_ERR_TRUNCATED)
        out->truncated = 1;
    if (s->failed) {
        out->finish_reason = LLM_FINISH_ERROR;
        *err = s->err;
        return s->err.base.code ? s->err.base.code : DBMCP_EIO;
    }
    if (out->has_tool_calls && out->finish_reason == LLM_FINISH_STOP)
        out->finish_reason = LLM_FINISH_TOOL_CALLS;
    return 0;
}

int llm_stream_parse(llm_provider provider, const char *text, size_t len, llm_response *out,
                     llm_error *err)
{
    llm_error_clear(err);
    memset(out, 0, sizeof *out);
    llm_stream *s = llm_stream_new(provider, 0);
    if (!s)
        return llm_error_local(err, provider, LLM_ERR_OTHER, 0, "out of memory");
    llm_stream_feed(s, text, len, NULL, NULL, err);
    int rc = llm_stream_finish(s, out, err);
    llm_stream_free(s);
    return rc;
}
