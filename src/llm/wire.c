/*
 * wire.c — an llm_request as the JSON body a provider expects, with the
 * provider quirks applied here and only here (see llm.h): Mistral's
 * 9-character tool-call ids and content-xor-tool_calls rule, OpenAI's
 * max_completion_tokens, stream_options where they are accepted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "llm/internal.h"

static int mistral_shaped(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (!((id[n] >= 'a' && id[n] <= 'z') || (id[n] >= 'A' && id[n] <= 'Z') ||
              (id[n] >= '0' && id[n] <= '9')))
            return 0;
    return n == LLM_MISTRAL_ID_LEN;
}

void llm_mistral_id(const char *id, char out[LLM_MISTRAL_ID_LEN + 1])
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if (!id)
        id = "";
    if (mistral_shaped(id)) {
        memcpy(out, id, LLM_MISTRAL_ID_LEN + 1);
        return;
    }
    /* FNV-1a 64: stable across runs and platforms, so the same original id
     * gets the same wire id in every request of a conversation. */
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (int i = 0; i < LLM_MISTRAL_ID_LEN; i++) {
        out[i] = alphabet[h % 62];
        h = h / 62 ^ (h << 37);
    }
    out[LLM_MISTRAL_ID_LEN] = '\0';
}

/* The id as it goes on the wire for provider, as a new JSON string. */
static json_t *wire_id(llm_provider provider, const char *id)
{
    if (provider != LLM_PROVIDER_MISTRAL)
        return json_string(id ? id : "");
    char short_id[LLM_MISTRAL_ID_LEN + 1];
    llm_mistral_id(id, short_id);
    return json_string(short_id);
}

/* --- wire → structs ------------------------------------------------------ */

static int role_parse(const char *name, llm_role *out)
{
    static const char *const names[] = {"system", "user", "assistant", "tool"};
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (llm_role)i;
            return 0;
        }
    return -1;
}

/* One wire message into m (zeroed by the caller); 0 or a negative code with
 * err naming messages[i]. */
static int message_from_json(llm_message *m, const json_t *j, size_t i, dbmcp_error *err)
{
    if (!json_is_object(j))
        return dbmcp_error_set(err, DBMCP_EINVAL, "messages[%zu]: must be an object", i);
    if (role_parse(json_get_str(j, "role"), &m->role) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "messages[%zu].role: must be one of system, user, assistant, tool",
                               i);
    const json_t *content = json_object_get(j, "content");
    if (content && !json_is_null(content) && !json_is_string(content) && !json_is_array(content))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "messages[%zu].content: must be a string, an array of parts or null",
                               i);
    llm_buf text = {0};
    int present = llm_content_append(&text, content);
    int failed = present < 0;
    if (present > 0)
        m->content = text.data ? text.data : strdup("");
    else
        llm_buf_free(&text);
    m->tool_call_id = llm_strdup(json_get_str(j, "tool_call_id"), &failed);
    m->name = llm_strdup(json_get_str(j, "name"), &failed);
    if (failed || (present > 0 && !m->content))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "llm: out of memory");
    const json_t *calls = json_object_get(j, "tool_calls");
    if (calls && !json_is_null(calls) && !json_is_array(calls))
        return dbmcp_error_set(err, DBMCP_EINVAL, "messages[%zu].tool_calls: must be an array", i);
    size_t k;
    const json_t *c;
    json_array_foreach (calls, k, c) {
        const json_t *fn = json_object_get(c, "function");
        if (!json_get_str(c, "id") || !json_get_str(fn, "name"))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "messages[%zu].tool_calls[%zu]: needs an id and function.name",
                                   i, k);
        const json_t *args = json_object_get(fn, "arguments");
        char *text_args = json_is_string(args) || !args ? NULL : json_dump_compact(args);
        llm_tool_call *tc =
            llm_message_add_tool_call(m, json_get_str(c, "id"), json_get_str(fn, "name"),
                                      text_args ? text_args : json_string_value(args));
        free(text_args);
        if (!tc)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "messages[%zu].tool_calls: more than %d calls or out of memory",
                                   i, LLM_MAX_TOOL_CALLS);
    }
    if (m->role == LLM_ROLE_TOOL && (!m->tool_call_id || !*m->tool_call_id))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "messages[%zu].tool_call_id: required for a tool message", i);
    return 0;
}

int llm_request_add_json(llm_request *req, const json_t *messages, dbmcp_error *err)
{
    if (!json_is_array(messages))
        return dbmcp_error_set(err, DBMCP_EINVAL, "messages: must be an array");
    size_t i;
    const json_t *j;
    json_array_foreach (messages, i, j) {
        llm_message m;
        memset(&m, 0, sizeof m);
        int rc = message_from_json(&m, j, i, err);
        if (rc == 0)
            rc = llm_request_add_message(req, &m);
        llm_message_free(&m);
        if (rc)
            return rc == DBMCP_ENOMEM ? dbmcp_error_set(err, rc, "llm: out of memory") : rc;
    }
    return 0;
}

/* The argument text sent back for a call: the model's own text when it was
 * valid, the repaired value when it was repaired, "{}" when unrecoverable
 * (so a strict provider does not refuse the whole conversation). */
static json_t *wire_arguments(const llm_tool_call *tc)
{
    if (!tc->args)
        return json_string("{}");
    if (!tc->repaired && tc->arguments)
        return json_string(tc->arguments);
    char *text = json_dump_compact(tc->args);
    json_t *s = text ? json_string(text) : NULL;
    free(text);
    return s;
}

static json_t *wire_tool_call(llm_provider provider, const llm_tool_call *tc)
{
    json_t *fn =
        json_pack("{s:s, s:o*}", "name", tc->name ? tc->name : "", "arguments", wire_arguments(tc));
    return json_pack("{s:o*, s:s, s:o*}", "id", wire_id(provider, tc->id), "type", "function",
                     "function", fn);
}

static json_t *wire_message(llm_provider provider, const llm_message *m, dbmcp_error *err)
{
    json_t *out = json_pack("{s:s}", "role", llm_role_name(m->role));
    if (!out)
        return NULL;
    int calls = m->role == LLM_ROLE_ASSISTANT && m->tool_call_count > 0;
    if (calls) {
        json_t *list = json_array();
        for (size_t i = 0; i < m->tool_call_count; i++)
            json_array_append_new(list, wire_tool_call(provider, &m->tool_calls[i]));
        if (provider != LLM_PROVIDER_MISTRAL)
            json_object_set_new(out, "content", m->content ? json_string(m->content) : json_null());
        json_object_set_new(out, "tool_calls", list);
    } else {
        json_object_set_new(out, "content", json_string(m->content ? m->content : ""));
    }
    if (m->role == LLM_ROLE_TOOL) {
        if (!m->tool_call_id || !*m->tool_call_id) {
            json_decref(out);
            dbmcp_error_set(err, DBMCP_EINVAL, "llm: a tool message has no tool_call_id");
            return NULL;
        }
        json_object_set_new(out, "tool_call_id", wire_id(provider, m->tool_call_id));
    }
    if (m->name && *m->name && (m->role == LLM_ROLE_TOOL || m->role == LLM_ROLE_USER))
        json_object_set_new(out, "name", json_string(m->name));
    return out;
}

static json_t *wire_tool_choice(const llm_request *req, dbmcp_error *err)
{
    switch (req->tool_choice) {
    case LLM_TOOL_CHOICE_UNSET: return NULL;
    case LLM_TOOL_CHOICE_NONE: return json_string("none");
    case LLM_TOOL_CHOICE_AUTO: return json_string("auto");
    case LLM_TOOL_CHOICE_REQUIRED: return json_string("required");
    case LLM_TOOL_CHOICE_FUNCTION:
        if (!req->tool_choice_name || !*req->tool_choice_name) {
            dbmcp_error_set(err, DBMCP_EINVAL, "llm: tool_choice names no function");
            return NULL;
        }
        return json_pack("{s:s, s:{s:s}}", "type", "function", "function", "name",
                         req->tool_choice_name);
    }
    return NULL;
}

json_t *llm_message_to_json(const llm_message *m)
{
    dbmcp_error err;
    if (m->role == LLM_ROLE_TOOL && (!m->tool_call_id || !*m->tool_call_id)) {
        json_t *out =
            json_pack("{s:s, s:s}", "role", "tool", "content", m->content ? m->content : "");
        if (out && m->name)
            json_object_set_new(out, "name", json_string(m->name));
        return out;
    }
    return wire_message(LLM_PROVIDER_OPENAI, m, &err);
}

/* Check what the body cannot be built without; 0 or DBMCP_EINVAL. */
static int request_check(const llm_request *req, dbmcp_error *err)
{
    if (!req->message_count)
        return dbmcp_error_set(err, DBMCP_EINVAL, "llm: the request has no messages");
    if (req->tools && !json_is_array(req->tools))
        return dbmcp_error_set(err, DBMCP_EINVAL, "llm: tools must be a JSON array");
    if (req->extra && !json_is_object(req->extra))
        return dbmcp_error_set(err, DBMCP_EINVAL, "llm: extra must be a JSON object");
    for (size_t i = 0; i < req->message_count; i++)
        if (req->messages[i].tool_call_count > LLM_MAX_TOOL_CALLS)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "llm: message %zu has more than %d tool calls", i,
                                   LLM_MAX_TOOL_CALLS);
    return 0;
}

json_t *llm_request_to_json(const llm_config *cfg, const llm_request *req, dbmcp_error *err)
{
    if (request_check(req, err) != 0)
        return NULL;
    llm_provider provider = cfg->provider;
    const char *model = req->model && *req->model ? req->model : cfg->model;
    json_t *body = json_object(), *messages = json_array();
    if (!body || !messages)
        goto nomem;
    json_object_set_new(body, "model", json_string(model));
    json_object_set(body, "messages", messages);
    for (size_t i = 0; i < req->message_count; i++) {
        json_t *m = wire_message(provider, &req->messages[i], err);
        if (!m)
            goto fail;
        json_array_append_new(messages, m);
    }
    if (req->tools && json_array_size(req->tools) > 0)
        json_object_set(body, "tools", req->tools);
    if (req->tool_choice != LLM_TOOL_CHOICE_UNSET) {
        json_t *choice = wire_tool_choice(req, err);
        if (!choice)
            goto fail;
        json_object_set_new(body, "tool_choice", choice);
    }
    if (req->temperature >= 0)
        json_object_set_new(body, "temperature", json_real(req->temperature));
    if (req->max_tokens > 0)
        json_object_set_new(
            body, provider == LLM_PROVIDER_OPENAI ? "max_completion_tokens" : "max_tokens",
            json_integer(req->max_tokens));
    if (req->stream) {
        json_object_set_new(body, "stream", json_true());
        if (provider != LLM_PROVIDER_MISTRAL)
            json_object_set_new(body, "stream_options", json_pack("{s:b}", "include_usage", 1));
    }
    if (req->extra)
        json_object_update(body, req->extra);
    json_decref(messages);
    return body;
nomem:
    dbmcp_error_set(err, DBMCP_ENOMEM, "llm: out of memory building the request");
fail:
    json_decref(messages);
    json_decref(body);
    return NULL;
}
