/*
 * loop.c — the tool-calling loop of one plan step (see loop.h).
 *
 * The request (llm_request) is the single conversation state: the loop
 * appends the model's assistant messages and one tool message per call,
 * and the budget edits it in place. Tool arguments were parsed once by the
 * LLM client (strict, then the repair engine); here they are only
 * validated against the tool's schema and handed to the port.
 */
#include "agent/loop.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_store.h"
#include "core/ids.h"
#include "core/jsonschema.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "store/registry.h"

static const char *const status_names[] = {"running", "answered", "asked", "limit", "error"};

const char *agent_status_name(agent_status s)
{
    return (unsigned)s < 5 ? status_names[s] : "error";
}

/* --- settings ------------------------------------------------------------------ */

static double setting_number(store *db, const char *key, double def, double min, double max)
{
    char *v = db ? reg_setting_get(db, key) : NULL;
    if (!v)
        return def;
    char *end = NULL;
    double d = strtod(v, &end);
    int ok = end && end != v && *end == '\0' && d >= min && d <= max;
    if (!ok)
        log_msg(LOG_WARN, "agent", "setting %s=%s ignored (expected a number %g..%g)", key, v, min,
                max);
    free(v);
    return ok ? d : def;
}

void agent_limits_load(store *db, agent_limits *out)
{
    out->max_corrections = (int)setting_number(db, "agent.max_corrections", 3, 0, 100);
    out->max_tokens = (long)setting_number(db, "agent.max_tokens", 200000, 100, 1e9);
    out->max_seconds = setting_number(db, "agent.max_seconds", 300, 1, 86400);
    out->context_window = (long)setting_number(db, "agent.context_window", 32768, 256, 1e8);
    out->reply_reserve = (long)setting_number(db, "agent.reply_reserve", 4096, 0, 1e7);
    out->tool_result_max = (long)setting_number(db, "agent.tool_result_max_bytes",
                                                AGENT_TOOL_RESULT_MAX_DEFAULT, 256, 1 << 24);
}

/* --- tools ------------------------------------------------------------------------ */

static int name_listed(const json_t *only, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach (only, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
            return 1;
    return 0;
}

json_t *agent_tools_openai(const json_t *catalog, const json_t *only)
{
    json_t *out = json_array();
    size_t i;
    json_t *t;
    json_array_foreach (catalog, i, t) {
        const char *name = json_get_str(t, "name");
        if (!name || (json_is_array(only) && !name_listed(only, name)))
            continue;
        json_t *params = json_object_get(t, "inputSchema");
        json_t *fn = json_pack("{s:s, s:s, s:O}", "name", name, "description",
                               json_get_str(t, "description") ? json_get_str(t, "description") : "",
                               "parameters", params ? params : json_object());
        json_array_append_new(out, json_pack("{s:s, s:o}", "type", "function", "function", fn));
    }
    return out;
}

static const json_t *catalog_tool(const agent_loop *loop, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach (loop->catalog, i, t)
        if (name && json_get_str(t, "name") && strcmp(json_get_str(t, "name"), name) == 0)
            return t;
    return NULL;
}

static int ensure_catalog(agent_loop *loop, dbmcp_error *err)
{
    if (loop->catalog)
        return 0;
    loop->catalog = loop->port.list(loop->port.ctx, err);
    return loop->catalog ? 0 : (err->code ? err->code : DBMCP_EINTERNAL);
}

/* --- records ------------------------------------------------------------------------- */

/* The message just appended to req, to the caller's hook. */
static void notify_last(const agent_loop *loop, const llm_request *req)
{
    if (loop->on_message && req->message_count > 0)
        loop->on_message(loop->on_message_ctx, &req->messages[req->message_count - 1]);
}

static void tool_log_add(agent_loop *loop, const char *name, const json_t *args, const char *status,
                         const char *detail)
{
    if (!loop->tool_log)
        loop->tool_log = json_array();
    json_t *e = json_pack("{s:i, s:s, s:O?, s:s}", "step", loop->step_no, "name", name ? name : "",
                          "arguments", args, "status", status);
    if (e && detail)
        json_object_set_new(e, "detail", json_string(detail));
    json_array_append_new(loop->tool_log, e);
}

static size_t response_bytes(const llm_response *r)
{
    size_t n = r->message.content ? strlen(r->message.content) : 0;
    for (size_t i = 0; i < r->message.tool_call_count; i++)
        n += r->message.tool_calls[i].arguments ? strlen(r->message.tool_calls[i].arguments) : 0;
    return n;
}

static void record_call(agent_loop *loop, const char *purpose, const llm_response *resp,
                        const llm_error *lerr, int failed)
{
    agent_llm_call_row row;
    memset(&row, 0, sizeof row);
    ids_uuid(row.call_id);
    row.run_id = loop->run_id;
    row.step_no = loop->step_no;
    row.iteration = strcmp(purpose, "summary") == 0 ? 0 : loop->iteration;
    row.purpose = purpose;
    row.provider = llm_provider_name(loop->llm->provider);
    row.model = resp && resp->model ? resp->model : loop->llm->model;
    row.tokens_in = resp && resp->usage_reported ? resp->tokens_in : -1;
    row.tokens_out = resp && resp->usage_reported ? resp->tokens_out : -1;
    row.latency_ms = resp ? resp->latency_ms : 0;
    row.attempts = failed ? lerr->attempts : resp->attempts;
    row.finish_reason = failed ? NULL : llm_finish_name(resp->finish_reason);
    row.repaired = resp ? resp->repaired : 0;
    row.error_class = failed ? llm_error_kind_name(lerr->kind) : NULL;
    row.error_detail = failed ? lerr->base.message : NULL;
    row.principal = loop->principal;
    row.interface = loop->interface;
    row.user_id = loop->user_id;
    row.agent_id = loop->agent_id;
    row.transport = loop->transport;
    row.bytes_out = resp ? response_bytes(resp) : 0;
    dbmcp_error err;
    if (agent_store_llm_call(loop->db, &row, &err) != 0)
        log_msg(LOG_ERROR, "agent", "LLM call record of run %s not written: %s", loop->run_id,
                err.message);
    loop->llm_calls++;
    if (resp && resp->usage_reported) {
        loop->tokens_in += resp->tokens_in;
        loop->tokens_out += resp->tokens_out;
    }
}

/* One LLM call with its record. Returns 0 or the llm_chat code. */
static int call_model(agent_loop *loop, const char *purpose, const llm_request *req,
                      llm_response *resp, llm_error *lerr)
{
    llm_error_clear(lerr);
    double t0 = ids_monotonic_ms();
    int rc = llm_chat(loop->llm, req, resp, lerr);
    if (resp->latency_ms <= 0)
        resp->latency_ms = ids_monotonic_ms() - t0;
    record_call(loop, purpose, resp, lerr, rc != 0);
    return rc;
}

/* --- outcomes ----------------------------------------------------------------------- */

static int finish(agent_outcome *out, agent_status st, const char *text, const char *detail)
{
    out->status = st;
    out->text = text ? strdup(text) : NULL;
    out->detail = detail ? strdup(detail) : NULL;
    return 0;
}

static int finish_fmt(agent_outcome *out, agent_status st, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int finish_fmt(agent_outcome *out, agent_status st, const char *detail, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return finish(out, st, text, detail);
}

void agent_outcome_free(agent_outcome *o)
{
    if (!o)
        return;
    free(o->text);
    free(o->detail);
    memset(o, 0, sizeof *o);
}

/* --- summaries ------------------------------------------------------------------------- */

static const char *const builtin_summary_prompt =
    "Summarise the following part of a conversation between a user, an assistant and its "
    "tools in at most 200 words. Keep every figure, name, date, identifier and open question "
    "exactly; drop pleasantries and repetitions. Answer with the summary only.";

static char *stretch_as_text(const llm_message *m, size_t n)
{
    json_t *lines = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s}", "role", llm_role_name(m[i].role));
        if (m[i].content)
            json_object_set_new(o, "content", json_string(m[i].content));
        if (m[i].name)
            json_object_set_new(o, "tool", json_string(m[i].name));
        for (size_t j = 0; j < m[i].tool_call_count; j++) {
            json_t *calls = json_object_get(o, "calls");
            if (!calls)
                json_object_set_new(o, "calls", calls = json_array());
            json_array_append_new(
                calls,
                json_pack("{s:s, s:s}", "name",
                          m[i].tool_calls[j].name ? m[i].tool_calls[j].name : "", "arguments",
                          m[i].tool_calls[j].arguments ? m[i].tool_calls[j].arguments : ""));
        }
        json_array_append_new(lines, o);
    }
    char *text = json_dumps(lines, JSON_INDENT(1));
    json_decref(lines);
    return text;
}

static char *summarise(void *ctx, const llm_message *messages, size_t n, dbmcp_error *err)
{
    agent_loop *loop = ctx;
    char *text = stretch_as_text(messages, n);
    if (!text) {
        dbmcp_error_set(err, DBMCP_ENOMEM, "summary: out of memory");
        return NULL;
    }
    llm_request req;
    llm_request_init(&req);
    llm_request_add(&req, LLM_ROLE_SYSTEM,
                    loop->summary_prompt ? loop->summary_prompt : builtin_summary_prompt);
    llm_request_add(&req, LLM_ROLE_USER, text);
    free(text);
    llm_response resp;
    memset(&resp, 0, sizeof resp);
    llm_error lerr;
    char *summary = NULL;
    if (call_model(loop, "summary", &req, &resp, &lerr) == 0 && resp.message.content &&
        *resp.message.content && !resp.has_tool_calls)
        summary = strdup(resp.message.content);
    else
        dbmcp_error_set(err, DBMCP_EIO, "summary failed: %s",
                        lerr.kind ? lerr.base.message : "no text in the answer");
    llm_response_free(&resp);
    llm_request_free(&req);
    return summary;
}

/* --- tool calls ---------------------------------------------------------------------------- */

/* The text the model gets from a CallToolResult, capped at max bytes. */
static char *result_text(const json_t *result, long max)
{
    size_t cap = 256, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[0] = '\0';
    if (json_is_true(json_object_get(result, "isError"))) {
        memcpy(out, "Tool error: ", 13);
        len = 12;
    }
    size_t i;
    json_t *block;
    json_array_foreach (json_object_get(result, "content"), i, block) {
        char *dump = NULL;
        const char *t = json_get_str(block, "text");
        if (!t)
            t = dump = json_dump_compact(block);
        size_t tl = t ? strlen(t) : 0;
        if (len + tl + 2 > cap) {
            cap = (len + tl + 2) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(dump);
                free(out);
                return NULL;
            }
            out = grown;
        }
        if (i > 0)
            out[len++] = '\n';
        memcpy(out + len, t ? t : "", tl);
        len += tl;
        out[len] = '\0';
        free(dump);
    }
    if ((long)len > max) {
        size_t cut = (size_t)max;
        while (cut > 0 && ((unsigned char)out[cut] & 0xC0) == 0x80)
            cut--; /* never inside a UTF-8 sequence */
        char *grown = realloc(out, cut + 96);
        if (!grown) {
            free(out);
            return NULL;
        }
        out = grown;
        snprintf(out + cut, 96, "\n[… cut at %ld bytes]", max);
    }
    return out;
}

/* Problem with a call before it may run, as the message the model gets;
 * NULL when the call is valid. */
static char *call_problem(agent_loop *loop, const llm_tool_call *tc, const json_t *allowed)
{
    char msg[1400];
    const json_t *tool = catalog_tool(loop, tc->name);
    if (!tc->name || !tool || (json_is_array(allowed) && !name_listed(allowed, tc->name))) {
        snprintf(msg, sizeof msg,
                 "Tool call failed: there is no tool named '%s' in this step. Call one of the "
                 "tools you were given, or answer without a tool.",
                 tc->name ? tc->name : "");
        return strdup(msg);
    }
    if (!tc->args) {
        snprintf(msg, sizeof msg,
                 "Tool call failed: the arguments of %s are not a valid JSON object (%s). Call "
                 "%s again with the arguments as one JSON object.",
                 tc->name, tc->args_error ? tc->args_error : "unreadable", tc->name);
        return strdup(msg);
    }
    json_t *copy = json_deep_copy(tc->args);
    const json_t *schema = json_object_get(tool, "inputSchema");
    jsonschema_apply_defaults(schema, copy);
    dbmcp_error verr;
    dbmcp_error_clear(&verr);
    int rc = jsonschema_validate_strict(schema, copy, &verr);
    json_decref(copy);
    if (rc == 0)
        return NULL;
    snprintf(msg, sizeof msg,
             "Tool call failed: %s. Fix the arguments and call %s again; the schema of its "
             "arguments is in the tool definition.",
             verr.public_message[0] ? verr.public_message : verr.message, tc->name);
    return strdup(msg);
}

/* Answer one tool call with a tool message. *corrected is set when the
 * call was refused before running. */
static int answer_call(agent_loop *loop, llm_request *req, const llm_tool_call *tc,
                       const json_t *allowed, int *corrected, char **problem_out)
{
    char *problem = call_problem(loop, tc, allowed);
    char *text = NULL;
    *corrected = problem != NULL;
    if (problem) {
        tool_log_add(loop, tc->name, tc->args, "invalid", problem);
        text = problem;
        *problem_out = strdup(problem);
    } else {
        dbmcp_error err;
        dbmcp_error_clear(&err);
        json_t *args = json_deep_copy(tc->args);
        json_t *result = loop->port.call(loop->port.ctx, tc->name, args, loop->llm->model, &err);
        json_decref(args);
        loop->tool_calls++;
        if (result) {
            text = result_text(result, loop->limits.tool_result_max > 0
                                           ? loop->limits.tool_result_max
                                           : AGENT_TOOL_RESULT_MAX_DEFAULT);
            tool_log_add(loop, tc->name, tc->args,
                         json_is_true(json_object_get(result, "isError")) ? "error" : "ok", NULL);
            json_decref(result);
        } else {
            char msg[700];
            snprintf(msg, sizeof msg, "Tool error: %s",
                     err.public_message[0] ? err.public_message : "the call was refused");
            text = strdup(msg);
            tool_log_add(loop, tc->name, tc->args, "refused", err.message);
        }
    }
    /* Copies: appending may move the message that holds tc. */
    char *id = strdup(tc->id ? tc->id : ""), *name = tc->name ? strdup(tc->name) : NULL;
    int rc = text && id ? llm_request_add_tool_result(req, id, name, text) : DBMCP_ENOMEM;
    if (rc == 0)
        notify_last(loop, req);
    free(text);
    free(id);
    free(name);
    return rc;
}

/* --- the step -------------------------------------------------------------------------- */

static void set_tool_choice(llm_request *req, const char *choice)
{
    free(req->tool_choice_name);
    req->tool_choice_name = NULL;
    if (!choice || strcmp(choice, "auto") == 0)
        req->tool_choice = LLM_TOOL_CHOICE_AUTO;
    else if (strcmp(choice, "required") == 0)
        req->tool_choice = LLM_TOOL_CHOICE_REQUIRED;
    else if (strcmp(choice, "none") == 0)
        req->tool_choice = LLM_TOOL_CHOICE_NONE;
    else {
        req->tool_choice = LLM_TOOL_CHOICE_FUNCTION;
        req->tool_choice_name = strdup(choice);
    }
}

/* Tools and tool_choice of the step. A step with tool_choice none sends no
 * tools (providers refuse tool_choice without tools) and no tool_choice. */
static int prepare_tools(agent_loop *loop, llm_request *req, const agent_step *step,
                         dbmcp_error *err)
{
    json_decref(req->tools);
    req->tools = NULL;
    set_tool_choice(req, step->tool_choice);
    if (req->tool_choice == LLM_TOOL_CHOICE_NONE) {
        req->tool_choice = LLM_TOOL_CHOICE_UNSET;
        return 0;
    }
    int rc = ensure_catalog(loop, err);
    if (rc)
        return rc;
    req->tools = agent_tools_openai(loop->catalog, step->tools);
    if (json_array_size(req->tools) == 0) {
        json_decref(req->tools);
        req->tools = NULL;
        req->tool_choice = LLM_TOOL_CHOICE_UNSET;
    }
    return 0;
}

static int over_limits(agent_loop *loop, agent_outcome *out)
{
    double elapsed = (ids_monotonic_ms() - loop->started_ms) / 1000.0;
    if (elapsed > loop->limits.max_seconds)
        return finish_fmt(out, AGENT_LIMIT, "agent.max_seconds",
                          "I have to stop here: this run took longer than its time limit (%.0f "
                          "seconds) before the model gave a final answer.",
                          loop->limits.max_seconds) == 0;
    if (loop->tokens_in + loop->tokens_out > loop->limits.max_tokens)
        return finish_fmt(out, AGENT_LIMIT, "agent.max_tokens",
                          "I have to stop here: this run used its token budget (%ld of %ld "
                          "tokens) before the model gave a final answer.",
                          loop->tokens_in + loop->tokens_out, loop->limits.max_tokens) == 0;
    return 0;
}

static int fit_budget(agent_loop *loop, llm_request *req, agent_outcome *out, int *ended,
                      dbmcp_error *err)
{
    char *tools_text = req->tools ? json_dump_compact(req->tools) : NULL;
    agent_budget b = {loop->limits.context_window, loop->limits.reply_reserve,
                      agent_tokens_text(tools_text), loop->pinned_prefix, loop->question_index};
    free(tools_text);
    *ended = 0;
    int rc = agent_budget_fit(req, &b, summarise, loop, &loop->last_budget, err);
    loop->question_index = b.question_index;
    if (loop->last_budget.stubbed || loop->last_budget.summarised || loop->last_budget.dropped)
        log_msg(LOG_INFO, "agent",
                "run %s: context %ld → %ld tokens (%d stubbed, %d summarised, %d dropped)",
                loop->run_id, loop->last_budget.before, loop->last_budget.after,
                loop->last_budget.stubbed, loop->last_budget.summarised, loop->last_budget.dropped);
    if (rc == DBMCP_ETOOBIG) {
        *ended = 1;
        return finish(out, AGENT_LIMIT,
                      "The conversation no longer fits the language model's context window, "
                      "even after shortening old tool results. Please start a new chat.",
                      err->message);
    }
    return rc;
}

static int provider_failed(agent_outcome *out, const llm_error *lerr)
{
    char detail[1200];
    snprintf(detail, sizeof detail, "%s (HTTP %d, %s): %s", llm_error_kind_name(lerr->kind),
             lerr->http_status, lerr->provider, lerr->base.message);
    if (lerr->kind == LLM_ERR_CONTENT_FILTER)
        return finish(out, AGENT_ERROR,
                      "The language model service refused this request with its content filter, "
                      "so I cannot answer it.",
                      detail);
    if (lerr->kind == LLM_ERR_CONTEXT_LENGTH)
        return finish(out, AGENT_LIMIT,
                      "The conversation is too long for the language model. Please start a new "
                      "chat.",
                      detail);
    /* Waiting helps only when the service, not its configuration, failed. */
    int setup = lerr->kind == LLM_ERR_CONFIG || lerr->kind == LLM_ERR_AUTH ||
                lerr->kind == LLM_ERR_QUOTA || lerr->kind == LLM_ERR_BAD_REQUEST;
    const char *next = setup ? "The operator has to correct the language model's settings (the "
                               "operator log says what is wrong)."
                       : lerr->kind == LLM_ERR_CONNECT
                           ? "If this persists, the operator has to check the language model's "
                             "address (the operator log names it)."
                           : "Please try again later.";
    return finish_fmt(
        out, AGENT_ERROR, detail, "I could not get an answer from the language model: %s. %s",
        lerr->base.public_message[0] ? lerr->base.public_message : "the service failed", next);
}

/* The model's final text for the step (stop, or anything without calls). */
static int final_text(agent_outcome *out, const llm_response *resp)
{
    const char *content = resp->message.content ? resp->message.content : "";
    if (resp->finish_reason == LLM_FINISH_CONTENT_FILTER)
        return finish(out, AGENT_ERROR,
                      "The language model's content filter stopped the answer, so I cannot "
                      "answer this question.",
                      "finish_reason content_filter");
    if (resp->finish_reason == LLM_FINISH_LENGTH) {
        size_t n = strlen(content) + 96;
        char *text = malloc(n);
        if (!text)
            return DBMCP_ENOMEM;
        snprintf(text, n, "%s%s[The answer was cut off at the model's output limit.]", content,
                 *content ? "\n\n" : "");
        out->status = AGENT_LIMIT;
        out->text = text;
        out->detail = strdup("finish_reason length");
        return 0;
    }
    if (!*content)
        return finish(out, AGENT_ERROR, "The language model returned an empty answer.",
                      "empty content without tool calls");
    return finish(out, AGENT_ANSWERED, content, NULL);
}

/* Answer every call of the last assistant message; *stop set when the
 * corrections are used up (out filled). */
static int answer_calls(agent_loop *loop, llm_request *req, const agent_step *step,
                        agent_outcome *out, int *stop)
{
    size_t at = req->message_count - 1;
    size_t n = req->messages[at].tool_call_count;
    char *last_problem = NULL;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        int corrected = 0;
        /* re-read: appending may move the messages array */
        const llm_tool_call *tc = &req->messages[at].tool_calls[i];
        char *problem = NULL;
        rc = answer_call(loop, req, tc, step->tools, &corrected, &problem);
        if (corrected) {
            loop->corrections++;
            free(last_problem);
            last_problem = problem;
        } else {
            free(problem);
        }
    }
    *stop = 0;
    if (!rc && loop->corrections > loop->limits.max_corrections) {
        *stop = 1;
        finish_fmt(out, AGENT_LIMIT, last_problem,
                   "I have to stop here: the model's tool calls were still invalid after %d "
                   "corrections, so I have no reliable answer.",
                   loop->limits.max_corrections);
    }
    free(last_problem);
    return rc;
}

int agent_loop_step(agent_loop *loop, llm_request *req, const agent_step *step, agent_outcome *out,
                    dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    loop->step_no = step->step_no;
    if (!loop->started_ms)
        loop->started_ms = ids_monotonic_ms();
    int rc = prepare_tools(loop, req, step, err);
    if (rc)
        return finish(out, AGENT_ERROR, "The tools of this chat could not be loaded.",
                      err->message);
    req->stream = loop->stream;
    int max_iter = step->max_iterations > 0 ? step->max_iterations : 4;
    for (loop->iteration = 1; loop->iteration <= max_iter; loop->iteration++) {
        if (over_limits(loop, out))
            return 0;
        int ended = 0;
        if ((rc = fit_budget(loop, req, out, &ended, err)) != 0 || ended)
            return rc;
        llm_response resp;
        memset(&resp, 0, sizeof resp);
        llm_error lerr;
        if (call_model(loop, "chat", req, &resp, &lerr) != 0) {
            llm_response_free(&resp);
            return provider_failed(out, &lerr);
        }
        if (!resp.has_tool_calls) {
            rc = final_text(out, &resp);
            llm_response_free(&resp);
            return rc;
        }
        rc = llm_request_add_message(req, &resp.message);
        llm_response_free(&resp);
        if (!rc)
            notify_last(loop, req);
        int stop = 0;
        if (!rc)
            rc = answer_calls(loop, req, step, out, &stop);
        if (rc)
            return dbmcp_error_set(err, rc, "agent loop: out of memory");
        if (stop)
            return 0;
        /* A forced choice applies once: afterwards the model may answer. */
        if (req->tool_choice == LLM_TOOL_CHOICE_REQUIRED ||
            req->tool_choice == LLM_TOOL_CHOICE_FUNCTION)
            set_tool_choice(req, "auto");
    }
    char detail[96];
    snprintf(detail, sizeof detail, "step %d: max_iterations %d", step->step_no, max_iter);
    return finish_fmt(out, AGENT_LIMIT, detail,
                      "I have to stop here: the model was still calling tools after %d rounds in "
                      "this step, so I have no final answer. Please narrow the question.",
                      max_iter);
}

int agent_loop_tool_step(agent_loop *loop, llm_request *req, const agent_step *step, json_t *args,
                         dbmcp_error *err)
{
    loop->step_no = step->step_no;
    loop->iteration = 0;
    int rc = ensure_catalog(loop, err);
    if (rc)
        return rc;
    char id[16];
    snprintf(id, sizeof id, "plan%dstep", step->step_no % 1000);
    char *arg_text = json_dump_compact(args);
    llm_message *m = llm_request_add(req, LLM_ROLE_ASSISTANT, NULL);
    llm_tool_call *tc = m ? llm_message_add_tool_call(m, id, step->tool, arg_text) : NULL;
    free(arg_text);
    if (!tc)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "tool step: out of memory");
    notify_last(loop, req);
    int corrected = 0;
    char *problem = NULL;
    json_t *only = json_pack("[s]", step->tool);
    rc = answer_call(loop, req, &req->messages[req->message_count - 1].tool_calls[0], only,
                     &corrected, &problem);
    json_decref(only);
    if (corrected)
        log_msg(LOG_WARN, "agent", "run %s step %d: deterministic call of %s refused: %s",
                loop->run_id, step->step_no, step->tool, problem);
    free(problem);
    return rc ? dbmcp_error_set(err, rc, "tool step: out of memory") : 0;
}

void agent_loop_free(agent_loop *loop)
{
    json_decref(loop->catalog);
    json_decref(loop->tool_log);
    loop->catalog = loop->tool_log = NULL;
}
