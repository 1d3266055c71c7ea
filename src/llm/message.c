/*
 * message.c — the typed model's memory: messages, tool calls (with their
 * argument parsing through the repair engine), requests and responses, and
 * the small buffer and text helpers the other llm/ files share. See llm.h
 * for ownership: every pointer in these structs is owned by its struct.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json_repair.h"
#include "core/jsonutil.h"
#include "llm/internal.h"

#define ARGUMENTS_MAX_BYTES ((size_t)1 << 20) /* one tool call's argument text */

/* --- buffers and text ---------------------------------------------------- */

int llm_buf_add(llm_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            return -1;
        b->data = grown;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

void llm_buf_free(llm_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

char *llm_strdup(const char *src, int *failed)
{
    if (!src)
        return NULL;
    char *copy = strdup(src);
    if (!copy && failed)
        *failed = 1;
    return copy;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
    size_t need = s[0] < 0x80             ? 1
                  : (s[0] & 0xE0) == 0xC0 ? 2
                  : (s[0] & 0xF0) == 0xE0 ? 3
                  : (s[0] & 0xF8) == 0xF0 ? 4
                                          : 0;
    if (!need || need > n || (need == 2 && s[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < need; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return need;
}

void llm_copy_line(char *field, size_t size, const char *text, size_t len)
{
    size_t out = 0;
    if (!size)
        return;
    for (size_t i = 0; text && i < len;) {
        const unsigned char *p = (const unsigned char *)text + i;
        size_t n = utf8_length(p, len - i);
        if (!n) {
            i++;
            continue;
        }
        i += n;
        int space = n == 1 && (iscntrl(*p) || *p == ' ');
        if (space && (out == 0 || field[out - 1] == ' '))
            continue;
        if (out + n >= size)
            break;
        if (space)
            field[out++] = ' ';
        else
            for (size_t k = 0; k < n; k++)
                field[out++] = (char)p[k];
    }
    while (out > 0 && field[out - 1] == ' ')
        out--;
    field[out] = '\0';
}

int llm_content_append(llm_buf *b, const json_t *content)
{
    if (json_is_string(content))
        return llm_buf_add(b, json_string_value(content), json_string_length(content)) ? -1 : 1;
    if (!json_is_array(content))
        return 0;
    size_t i;
    const json_t *part;
    json_array_foreach (content, i, part) {
        const json_t *text = json_is_string(part) ? part : json_object_get(part, "text");
        const char *type = json_get_str(part, "type");
        if (type && strcmp(type, "text") != 0 && strcmp(type, "output_text") != 0)
            continue;
        if (json_is_string(text) &&
            llm_buf_add(b, json_string_value(text), json_string_length(text)) != 0)
            return -1;
    }
    return 1;
}

/* --- names --------------------------------------------------------------- */

const char *llm_role_name(llm_role role)
{
    switch (role) {
    case LLM_ROLE_SYSTEM: return "system";
    case LLM_ROLE_USER: return "user";
    case LLM_ROLE_ASSISTANT: return "assistant";
    case LLM_ROLE_TOOL: return "tool";
    }
    return "user";
}

const char *llm_finish_name(llm_finish f)
{
    switch (f) {
    case LLM_FINISH_STOP: return "stop";
    case LLM_FINISH_LENGTH: return "length";
    case LLM_FINISH_TOOL_CALLS: return "tool_calls";
    case LLM_FINISH_CONTENT_FILTER: return "content_filter";
    case LLM_FINISH_ERROR: return "error";
    case LLM_FINISH_OTHER: return "other";
    }
    return "other";
}

llm_finish llm_finish_parse(const char *text)
{
    static const struct {
        const char *name;
        llm_finish finish;
    } map[] = {
        {"stop", LLM_FINISH_STOP},
        {"eos", LLM_FINISH_STOP},
        {"end_turn", LLM_FINISH_STOP},
        {"stop_sequence", LLM_FINISH_STOP},
        {"length", LLM_FINISH_LENGTH},
        {"model_length", LLM_FINISH_LENGTH},
        {"max_tokens", LLM_FINISH_LENGTH},
        {"tool_calls", LLM_FINISH_TOOL_CALLS},
        {"tool_call", LLM_FINISH_TOOL_CALLS},
        {"function_call", LLM_FINISH_TOOL_CALLS},
        {"content_filter", LLM_FINISH_CONTENT_FILTER},
        {"error", LLM_FINISH_ERROR},
    };
    if (!text)
        return LLM_FINISH_OTHER;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcasecmp(text, map[i].name) == 0)
            return map[i].finish;
    return LLM_FINISH_OTHER;
}

/* --- tool calls ---------------------------------------------------------- */

static void tool_call_free(llm_tool_call *tc)
{
    free(tc->id);
    free(tc->name);
    free(tc->arguments);
    json_decref(tc->args);
    free(tc->args_error);
    memset(tc, 0, sizeof *tc);
}

static int blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

static int arguments_fail(llm_tool_call *tc, const char *why)
{
    tc->args_error = strdup(why);
    return tc->args_error ? DBMCP_EINVAL : DBMCP_ENOMEM;
}

int llm_tool_call_parse_arguments(llm_tool_call *tc)
{
    json_decref(tc->args);
    free(tc->args_error);
    tc->args = NULL;
    tc->args_error = NULL;
    tc->repaired = 0;
    const char *text = tc->arguments ? tc->arguments : "";
    size_t len = strlen(text);
    if (blank(text)) {
        tc->args = json_object();
        return tc->args ? 0 : DBMCP_ENOMEM;
    }
    if (len > ARGUMENTS_MAX_BYTES)
        return arguments_fail(tc, "the arguments are longer than 1 MiB");
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(v)) {
        tc->args = v;
        return 0;
    }
    int was_valid = v != NULL && !json_is_string(v);
    json_decref(v);
    if (was_valid)
        return arguments_fail(tc, "the arguments must be a JSON object");
    repair_options opt = {0};
    opt.max_bytes = ARGUMENTS_MAX_BYTES;
    repair_result r;
    dbmcp_error err;
    if (repair_json(text, len, &opt, &r, &err) != 0) {
        char why[600];
        snprintf(why, sizeof why, "the arguments are not valid JSON (%.500s)", err.message);
        return arguments_fail(tc, why);
    }
    v = json_loadb(r.output, r.output_len, JSON_DECODE_ANY, NULL);
    repair_result_free(&r);
    if (!json_is_object(v)) {
        json_decref(v);
        return arguments_fail(tc, "the arguments must be a JSON object");
    }
    tc->args = v;
    tc->repaired = 1;
    return 0;
}

int llm_tool_call_set(llm_tool_call *tc, const char *id, const char *name, const json_t *arguments)
{
    int failed = 0;
    memset(tc, 0, sizeof *tc);
    tc->id = llm_strdup(id ? id : "", &failed);
    tc->name = llm_strdup(name ? name : "", &failed);
    if (json_is_string(arguments))
        tc->arguments = llm_strdup(json_string_value(arguments), &failed);
    else if (arguments && !json_is_null(arguments))
        tc->arguments = json_dump_compact(arguments), failed |= tc->arguments == NULL;
    else
        tc->arguments = llm_strdup("", &failed);
    if (failed) {
        tool_call_free(tc);
        return DBMCP_ENOMEM;
    }
    return llm_tool_call_parse_arguments(tc) == DBMCP_ENOMEM ? DBMCP_ENOMEM : 0;
}

llm_tool_call *llm_message_add_tool_call(llm_message *m, const char *id, const char *name,
                                         const char *arguments)
{
    if (m->tool_call_count >= LLM_MAX_TOOL_CALLS)
        return NULL;
    llm_tool_call *grown = realloc(m->tool_calls, (m->tool_call_count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    m->tool_calls = grown;
    json_t *args = arguments ? json_string(arguments) : NULL;
    if (arguments && !args)
        return NULL;
    llm_tool_call *tc = &m->tool_calls[m->tool_call_count];
    int rc = llm_tool_call_set(tc, id, name, args);
    json_decref(args);
    if (rc != 0)
        return NULL;
    m->tool_call_count++;
    return tc;
}

/* --- messages ------------------------------------------------------------ */

void llm_message_free(llm_message *m)
{
    free(m->content);
    for (size_t i = 0; i < m->tool_call_count; i++)
        tool_call_free(&m->tool_calls[i]);
    free(m->tool_calls);
    free(m->tool_call_id);
    free(m->name);
    memset(m, 0, sizeof *m);
}

static int tool_call_copy(llm_tool_call *dst, const llm_tool_call *src)
{
    int failed = 0;
    memset(dst, 0, sizeof *dst);
    dst->id = llm_strdup(src->id, &failed);
    dst->name = llm_strdup(src->name, &failed);
    dst->arguments = llm_strdup(src->arguments, &failed);
    dst->args_error = llm_strdup(src->args_error, &failed);
    dst->args = src->args ? json_deep_copy(src->args) : NULL;
    dst->repaired = src->repaired;
    if (failed || (src->args && !dst->args)) {
        tool_call_free(dst);
        return DBMCP_ENOMEM;
    }
    return 0;
}

int llm_message_copy(llm_message *dst, const llm_message *src)
{
    int failed = 0;
    memset(dst, 0, sizeof *dst);
    dst->role = src->role;
    dst->content = llm_strdup(src->content, &failed);
    dst->tool_call_id = llm_strdup(src->tool_call_id, &failed);
    dst->name = llm_strdup(src->name, &failed);
    if (!failed && src->tool_call_count) {
        dst->tool_calls = calloc(src->tool_call_count, sizeof *dst->tool_calls);
        failed = dst->tool_calls == NULL;
        for (size_t i = 0; !failed && i < src->tool_call_count; i++) {
            failed = tool_call_copy(&dst->tool_calls[i], &src->tool_calls[i]) != 0;
            if (!failed)
                dst->tool_call_count++;
        }
    }
    if (failed) {
        llm_message_free(dst);
        return DBMCP_ENOMEM;
    }
    return 0;
}

/* --- requests ------------------------------------------------------------ */

void llm_request_init(llm_request *req)
{
    memset(req, 0, sizeof *req);
    req->temperature = -1;
}

void llm_request_free(llm_request *req)
{
    for (size_t i = 0; i < req->message_count; i++)
        llm_message_free(&req->messages[i]);
    free(req->messages);
    json_decref(req->tools);
    free(req->tool_choice_name);
    free(req->model);
    json_decref(req->extra);
    llm_request_init(req);
}

/* A new zeroed message at the end of req, or NULL. */
static llm_message *request_grow(llm_request *req)
{
    if (req->message_count == req->message_capacity) {
        size_t cap = req->message_capacity ? req->message_capacity * 2 : 8;
        llm_message *grown = realloc(req->messages, cap * sizeof *grown);
        if (!grown)
            return NULL;
        req->messages = grown;
        req->message_capacity = cap;
    }
    llm_message *m = &req->messages[req->message_count];
    memset(m, 0, sizeof *m);
    return m;
}

llm_message *llm_request_add(llm_request *req, llm_role role, const char *content)
{
    llm_message *m = request_grow(req);
    int failed = 0;
    if (!m)
        return NULL;
    m->role = role;
    m->content = llm_strdup(content, &failed);
    if (failed)
        return NULL;
    req->message_count++;
    return m;
}

int llm_request_add_message(llm_request *req, const llm_message *src)
{
    llm_message *m = request_grow(req);
    if (!m || llm_message_copy(m, src) != 0)
        return DBMCP_ENOMEM;
    req->message_count++;
    return 0;
}

int llm_request_add_tool_result(llm_request *req, const char *tool_call_id, const char *name,
                                const char *content)
{
    llm_message *m = request_grow(req);
    int failed = 0;
    if (!m)
        return DBMCP_ENOMEM;
    m->role = LLM_ROLE_TOOL;
    m->tool_call_id = llm_strdup(tool_call_id ? tool_call_id : "", &failed);
    m->name = llm_strdup(name, &failed);
    m->content = llm_strdup(content ? content : "", &failed);
    if (failed) {
        llm_message_free(m);
        return DBMCP_ENOMEM;
    }
    req->message_count++;
    return 0;
}

/* --- responses ----------------------------------------------------------- */

void llm_response_free(llm_response *r)
{
    llm_message_free(&r->message);
    free(r->finish_raw);
    free(r->model);
    free(r->id);
    memset(r, 0, sizeof *r);
}

void llm_response_settle(llm_response *r)
{
    r->message.role = LLM_ROLE_ASSISTANT;
    r->has_tool_calls = r->message.tool_call_count > 0;
    r->repaired = 0;
    for (size_t i = 0; i < r->message.tool_call_count; i++)
        if (r->message.tool_calls[i].repaired)
            r->repaired = 1;
}
