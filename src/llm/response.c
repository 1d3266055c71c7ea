/*
 * response.c — a non-streaming chat completion body parsed once into an
 * llm_response (see llm.h): choices[0].message with content as a string or
 * parts, tool calls with their arguments parsed (repaired when needed),
 * finish reason, usage, model and id. A body that is an error document is
 * that error, whatever the status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "llm/internal.h"

static int invalid(llm_provider provider, llm_error *err, const char *why)
{
    return llm_error_local(err, provider, LLM_ERR_INVALID_RESPONSE, 0, "%s", why);
}

static int usage_read(llm_response *out, const json_t *usage)
{
    if (!json_is_object(usage))
        return 0;
    const json_t *in = json_object_get(usage, "prompt_tokens");
    const json_t *o = json_object_get(usage, "completion_tokens");
    if (json_is_integer(in))
        out->tokens_in = (int)json_integer_value(in);
    if (json_is_integer(o))
        out->tokens_out = (int)json_integer_value(o);
    out->usage_reported = json_is_integer(in) || json_is_integer(o);
    return 0;
}

/* The tool calls of a message (or a legacy function_call) into out. */
static int tool_calls_read(llm_message *m, const json_t *message)
{
    const json_t *calls = json_object_get(message, "tool_calls");
    const json_t *legacy = json_object_get(message, "function_call");
    size_t n = json_is_array(calls) ? json_array_size(calls) : 0;
    if (!n && json_is_object(legacy)) {
        m->tool_calls = calloc(1, sizeof *m->tool_calls);
        if (!m->tool_calls ||
            llm_tool_call_set(m->tool_calls, "call_0", json_get_str(legacy, "name"),
                              json_object_get(legacy, "arguments")) != 0)
            return DBMCP_ENOMEM;
        m->tool_call_count = 1;
        return 0;
    }
    if (!n)
        return 0;
    if (n > LLM_MAX_TOOL_CALLS)
        return DBMCP_ETOOBIG;
    m->tool_calls = calloc(n, sizeof *m->tool_calls);
    if (!m->tool_calls)
        return DBMCP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(calls, i);
        const json_t *fn = json_object_get(c, "function");
        char fallback[32];
        const char *id = json_get_str(c, "id");
        if (!id || !*id) {
            snprintf(fallback, sizeof fallback, "call_%zu", i);
            id = fallback;
        }
        if (llm_tool_call_set(&m->tool_calls[i], id, json_get_str(fn, "name"),
                              json_object_get(fn, "arguments")) != 0)
            return DBMCP_ENOMEM;
        m->tool_call_count++;
    }
    return 0;
}

static int message_read(llm_response *out, const json_t *message)
{
    llm_buf text = {0};
    int present = llm_content_append(&text, json_object_get(message, "content"));
    if (present < 0)
        return DBMCP_ENOMEM;
    if (present > 0)
        out->message.content = text.data ? text.data : strdup("");
    else
        llm_buf_free(&text);
    if (present > 0 && !out->message.content)
        return DBMCP_ENOMEM;
    return tool_calls_read(&out->message, message);
}

/* The parsed document doc into out; 0 or a negative code with err set. */
static int document_read(llm_provider provider, const json_t *doc, llm_response *out,
                         llm_error *err)
{
    if (llm_error_from_document(provider, 200, doc, err))
        return err->base.code;
    if (!json_is_object(doc))
        return invalid(provider, err, "the body is not a JSON object");
    const json_t *choices = json_object_get(doc, "choices");
    const json_t *choice = json_array_get(choices, 0);
    const json_t *message = json_object_get(choice, "message");
    if (!json_is_array(choices))
        return invalid(provider, err, "the body has no choices array");
    if (!json_is_object(message))
        return invalid(provider, err, "choices[0] has no message object");
    int failed = 0;
    out->id = llm_strdup(json_get_str(doc, "id"), &failed);
    out->model = llm_strdup(json_get_str(doc, "model"), &failed);
    out->finish_raw = llm_strdup(json_get_str(choice, "finish_reason"), &failed);
    out->finish_reason = llm_finish_parse(out->finish_raw);
    usage_read(out, json_object_get(doc, "usage"));
    int rc = failed ? DBMCP_ENOMEM : message_read(out, message);
    if (rc == DBMCP_ETOOBIG)
        return llm_error_local(err, provider, LLM_ERR_TOO_LARGE, 0,
                               "more than %d tool calls in one message", LLM_MAX_TOOL_CALLS);
    if (rc)
        return llm_error_local(err, provider, LLM_ERR_OTHER, 0, "out of memory");
    llm_response_settle(out);
    /* Some servers say "stop" while sending tool calls; the calls win. */
    if (out->has_tool_calls && out->finish_reason == LLM_FINISH_STOP)
        out->finish_reason = LLM_FINISH_TOOL_CALLS;
    return 0;
}

int llm_response_parse(llm_provider provider, const char *body, size_t len, llm_response *out,
                       llm_error *err)
{
    memset(out, 0, sizeof *out);
    llm_error_clear(err);
    if (!body || !len)
        return invalid(provider, err, "the body is empty");
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, 0, &jerr);
    if (!doc) {
        llm_http_headers none = {0};
        llm_error_from_http(provider, 200, &none, body, len, err);
        char detail[sizeof err->message];
        snprintf(detail, sizeof detail, "a 200 body that is not JSON (%.100s at %d): %.300s",
                 jerr.text, jerr.position, err->message);
        return llm_error_local(err, provider, LLM_ERR_INVALID_RESPONSE, 0, "%s", detail);
    }
    int rc = document_read(provider, doc, out, err);
    json_decref(doc);
    if (rc)
        llm_response_free(out);
    return rc;
}
