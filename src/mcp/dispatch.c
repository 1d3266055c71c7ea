/*
 * dispatch.c — the one path every tool call takes, whoever sends it (an MCP
 * client, `dbmcp call`, later the agent loop and the admin UI):
 *
 *   resolve the tool in the caller's interface (an unlisted tool answers
 *   exactly like an unknown one) → validate the arguments against its
 *   input schema (strict) → policy → handler → format → audit.
 *
 * Validation failures are tool results with isError (the model reads the
 * message and corrects itself); unknown tools and malformed params are
 * JSON-RPC errors. Handler failures show the agent err->public_message with
 * the call id; the operator detail goes to the audit row and the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonschema.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/text_safe.h"
#include "core/trace.h"
#include "mcp/internal.h"
#include "mcp/query_caps.h"
#include "tools/tool.h"

typedef struct dispatch_state {
    mcp_server *srv;
    mcp_session *session;
    mcp_call_ctx *ctx;
    json_t *progress_token; /* borrowed */
    int log_level;          /* minimum level sent; -1 = none */
    inflight *flight;       /* for cancellation */
} dispatch_state;

/* --- audit ------------------------------------------------------------------ */

static void copy_str(char *dst, size_t size, const char *src)
{
    text_safe_copy(dst, size, src, 0);
}

/* Caller-chosen names (clientInfo, the model claim) are stored without
 * control characters: they are printed on operators' terminals. */
static void copy_name(char *dst, size_t size, const char *src)
{
    text_safe_copy(dst, size, src, TEXT_SAFE_STRIP);
}

/* A bounded copy of sql_text (owned, freed here). */
static char *bound_sql(char *sql_text)
{
    if (!sql_text || strlen(sql_text) <= AUDIT_SQL_MAX)
        return sql_text;
    char *bounded = text_safe_bound(sql_text, AUDIT_SQL_MAX, 0);
    free(sql_text);
    return bounded;
}

int mcp_audit_simple(mcp_server *srv, mcp_session *s, const mcp_call_ctx *ctx, const char *method,
                     const char *target, const char *call_id, double start_ms, const char *status,
                     int code, const char *detail, size_t bytes, int64_t rows, char *sql_text,
                     int durable)
{
    reg_audit_row row;
    memset(&row, 0, sizeof row);
    copy_str(row.call_id, sizeof row.call_id, call_id);
    ids_now_iso(row.ts);
    copy_str(row.principal, sizeof row.principal, s->who.principal);
    copy_str(row.key_id, sizeof row.key_id, s->who.key_id);
    copy_str(row.interface, sizeof row.interface, s->who.interface);
    copy_str(row.user_id, sizeof row.user_id, s->who.user_id);
    copy_str(row.agent_id, sizeof row.agent_id, s->who.agent_id);
    copy_str(row.auth_subject, sizeof row.auth_subject, s->who.subject);
    copy_str(row.auth_issuer, sizeof row.auth_issuer, s->who.issuer);
    copy_str(row.auth_token_id, sizeof row.auth_token_id, s->who.token_id);
    copy_name(row.client_name, sizeof row.client_name, s->client_name);
    copy_name(row.client_version, sizeof row.client_version, s->client_version);
    copy_name(row.model, sizeof row.model, ctx ? ctx->model : NULL);
    copy_str(row.transport, sizeof row.transport,
             ctx && ctx->transport ? ctx->transport : s->transport);
    copy_str(row.protocol, sizeof row.protocol, s->protocol);
    copy_str(row.method, sizeof row.method, method);
    trace_current_trace_id(row.trace_id);
    row.target = text_safe_bound(target, AUDIT_TARGET_MAX, 0);
    row.status = status;
    row.error_class = code ? dbmcp_code_name(code) : NULL;
    row.error_detail = detail && *detail ? text_safe_bound(detail, AUDIT_DETAIL_MAX, 0) : NULL;
    row.duration_ms = ids_monotonic_ms() - start_ms;
    row.bytes_out = (int64_t)bytes;
    row.rows_out = rows;
    row.sql_text = bound_sql(sql_text);
    uint64_t ticket = audit_queue_push(srv->audit, &row);
    if (!durable)
        return 0;
    long wait_ms = mcp_server_setting_long(srv, "audit.max_wait_ms", MCP_AUDIT_MAX_WAIT_DEFAULT);
    wait_ms = wait_ms < MCP_AUDIT_MAX_WAIT_MIN   ? MCP_AUDIT_MAX_WAIT_MIN
              : wait_ms > MCP_AUDIT_MAX_WAIT_MAX ? MCP_AUDIT_MAX_WAIT_MAX
                                                 : wait_ms;
    int rc = audit_queue_wait(srv->audit, ticket, (int)wait_ms);
    if (rc)
        log_msg(LOG_WARN, "audit",
                "call %s (%s %.200s): result withheld, its audit row is not committed after %ld ms",
                call_id, method, target ? target : "", wait_ms);
    return rc;
}

/* --- caps on concurrent agent queries ------------------------------------------ */

/* Whom the per-caller cap counts: the API key, else the principal. */
static void caps_caller(const mcp_identity *who, char *out, size_t size)
{
    if (who->key_id[0])
        snprintf(out, size, "key:%s", who->key_id);
    else
        snprintf(out, size, "principal:%s", who->principal);
}

static long cap_setting(mcp_server *srv, const char *key, long def)
{
    long v = mcp_server_setting_long(srv, key, def);
    return v < 1 ? 1 : v > QUERY_CAPS_MAX ? QUERY_CAPS_MAX : v;
}

int mcp_query_enter(mcp_server *srv, const mcp_identity *who, dbmcp_error *err)
{
    char caller[180];
    caps_caller(who, caller, sizeof caller);
    long total = cap_setting(srv, "query.max_concurrent", QUERY_CAPS_TOTAL_DEFAULT);
    long per_key = cap_setting(srv, "query.max_concurrent_per_key", QUERY_CAPS_PER_KEY_DEFAULT);
    query_caps_verdict v = query_caps_enter(srv->caps, caller, total, per_key);
    if (v == QUERY_CAPS_OK)
        return 0;
    if (v == QUERY_CAPS_KEY_FULL) {
        dbmcp_error_set(err, DBMCP_EDENIED, "query.max_concurrent_per_key (%ld) reached by %s",
                        per_key, caller);
        snprintf(err->public_message, sizeof err->public_message,
                 "Too many queries are running for this %s: at most %ld at once (setting "
                 "query.max_concurrent_per_key). Wait for one to finish, then try again",
                 who->key_id[0] ? "API key" : "caller", per_key);
    } else {
        dbmcp_error_set(err, DBMCP_EDENIED, "query.max_concurrent (%ld) reached", total);
        snprintf(err->public_message, sizeof err->public_message,
                 "Too many queries are running on this server: at most %ld at once (setting "
                 "query.max_concurrent). Try again in a moment",
                 total);
    }
    return DBMCP_EDENIED;
}

void mcp_query_leave(mcp_server *srv, const mcp_identity *who)
{
    char caller[180];
    caps_caller(who, caller, sizeof caller);
    query_caps_leave(srv->caps, caller);
}

/* --- env callbacks ------------------------------------------------------------ */

static void env_progress(tool_env *env, double progress, double total, const char *message)
{
    dispatch_state *d = env->opaque;
    if (d->ctx->task_id) {
        /* A task's progress is read with tasks/get: its request has ended. */
        mcp_tasks_progress(d->srv, d->ctx->task_id, progress, total, message);
        return;
    }
    if (!d->progress_token)
        return;
    json_t *params =
        json_pack("{s:O, s:f}", "progressToken", d->progress_token, "progress", progress);
    if (total > 0)
        json_object_set_new(params, "total", json_real(total));
    if (message)
        json_object_set_new(params, "message", json_string(message));
    mcp_session_send_new(d->session, d->ctx,
                         jsonrpc_notification("notifications/progress", params));
}

static void env_log(tool_env *env, const char *level, json_t *data)
{
    dispatch_state *d = env->opaque;
    int idx = mcp_log_level_index(level);
    if (idx < 0 || d->log_level < 0 || idx < d->log_level) {
        json_decref(data);
        return;
    }
    json_t *params = json_pack("{s:s, s:s, s:o}", "level", level, "logger", "dbmcp", "data", data);
    mcp_session_send_new(d->session, d->ctx, jsonrpc_notification("notifications/message", params));
}

static json_t *env_client_request(tool_env *env, const char *method, json_t *params,
                                  dbmcp_error *err)
{
    dispatch_state *d = env->opaque;
    if (env->stateless) {
        json_decref(params);
        dbmcp_error_set(err, DBMCP_EINVAL,
                        "protocol 2026-07-28 has no server-to-client requests; use input_required");
        return NULL;
    }
    return mcp_session_client_request(d->session, d->ctx, method, params,
                                      d->flight ? &d->flight->cancelled : NULL, 60000, err);
}

static long env_setting_long(tool_env *env, const char *key, long def)
{
    dispatch_state *d = env->opaque;
    return mcp_server_setting_long(d->srv, key, def);
}

static int env_setting_str(tool_env *env, const char *key, char *out, size_t size)
{
    dispatch_state *d = env->opaque;
    return mcp_server_setting(d->srv, key, out, size);
}

static void env_announce(tool_env *env, const char *kind)
{
    dispatch_state *d = env->opaque;
    mcp_server_announce_change(d->srv, kind);
}

/* --- results ---------------------------------------------------------------- */

static json_t *error_result(const char *text, const char *call_id)
{
    char buf[768];
    snprintf(buf, sizeof buf, "%s (call id %s)", text, call_id);
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", buf, "isError", 1);
}

static json_t *success_result(mcp_server *srv, tool_output *out, const reg_tool *tool,
                              const char *call_id)
{
    if (out->input_required) {
        json_t *r = json_pack("{s:s, s:O}", "resultType", "input_required", "inputRequests",
                              json_object_get(out->input_required, "inputRequests"));
        if (out->request_state) {
            char *sealed = mcp_state_seal(srv, out->request_state);
            if (sealed)
                json_object_set_new(r, "requestState", json_string(sealed));
            free(sealed);
        }
        return r;
    }
    json_t *r = json_pack("{s:O}", "content", out->content ? out->content : json_array());
    if (out->structured) {
        dbmcp_error verr;
        if (tool->output_schema && jsonschema_validate(tool->output_schema, out->structured, &verr))
            log_msg(LOG_WARN, "dispatch",
                    "tool %s: structuredContent does not match outputSchema: %s", tool->name,
                    verr.message);
        json_object_set(r, "structuredContent", out->structured);
    }
    if (out->is_error)
        json_object_set_new(r, "isError", json_true());
    (void)call_id;
    return r;
}

/* Bytes of content returned to the caller (texts, base64 data, embedded
 * resources), for the audit: cheaper than serialising the result again. */
static size_t content_bytes(const json_t *result)
{
    size_t n = 0, i;
    json_t *block;
    json_array_foreach (json_object_get(result, "content"), i, block) {
        json_t *res = json_object_get(block, "resource");
        n += json_string_length(json_object_get(block, "text")) +
             json_string_length(json_object_get(block, "data")) +
             json_string_length(json_object_get(res, "text")) +
             json_string_length(json_object_get(res, "blob"));
    }
    json_t *structured = json_object_get(result, "structuredContent");
    return n + (structured ? json_compact_size(structured) : 0);
}

/* --- the path --------------------------------------------------------------------- */

static tool_handler_fn resolve_handler(const reg_tool *t)
{
    if (strcmp(t->handler_kind, "sql") == 0)
        return tools_sql_handler;
    return tools_builtin_find(t->handler);
}

static void fill_env(tool_env *env, dispatch_state *d, const reg_tool *tool, const char *call_id,
                     const jsonrpc_msg *msg)
{
    mcp_session *s = d->session;
    memset(env, 0, sizeof *env);
    env->tool = tool;
    env->call_id = call_id;
    env->principal = s->who.principal;
    env->interface = s->who.interface;
    env->user_id = s->who.user_id;
    env->agent_id = s->who.agent_id;
    env->client_name = s->client_name;
    env->model = d->ctx->model ? d->ctx->model : "";
    env->protocol = s->protocol;
    env->request_meta = json_get_obj(msg->params, "_meta");
    env->stateless = d->ctx->stateless || mcp_request_modern_version(msg) != NULL;
    /* Stateless requests speak for themselves; legacy ones for the session. */
    env->client_capabilities =
        env->stateless ? json_get_obj(env->request_meta, MCP_META_CLIENT_CAPS) : s->client_caps;
    d->log_level = env->stateless ? mcp_log_level_index(json_get_str(
                                        env->request_meta, "io.modelcontextprotocol/logLevel"))
                                  : s->log_level;
    env->input_responses = json_object_get(msg->params, "inputResponses");
    env->cancelled = d->flight ? &d->flight->cancelled : NULL;
    env->server_info = d->srv->server_info;
    env->rows = -1;
    env->progress = env_progress;
    env->log = env_log;
    env->client_request = env_client_request;
    env->announce_change = env_announce;
    env->setting_long = env_setting_long;
    env->setting_str = env_setting_str;
    env->opaque = d;
}

static int run_handler(dispatch_state *d, tool_env *env, tool_handler_fn fn, json_t *args,
                       tool_output *out, dbmcp_error *err)
{
    store *qdb = NULL;
    if (strcmp(env->tool->handler_kind, "sql") == 0 ||
        tools_builtin_needs_query(env->tool->handler)) {
        qdb = store_pool_acquire(d->srv->query, err);
        if (!qdb)
            return err->code;
        env->query_db = qdb;
        /* Whatever the SQL calls, the engine memory it may hold is bounded
         * (this thread steps every statement of the handler). */
        store_set_memory_budget(
            qdb, tools_query_memory_bytes(
                     env->setting_long(env, "query.max_memory_bytes", TOOLS_QUERY_MEMORY_DEFAULT)));
        store_set_cancel_flag(qdb, env->cancelled);
        if (d->ctx && d->ctx->on_slow)
            store_set_slow_hook(qdb, MCP_SLOW_MS, d->ctx->on_slow, d->ctx->slow_arg);
    }
    store *idb = NULL;
    if (strcmp(env->tool->handler_kind, "builtin") == 0 &&
        tools_builtin_needs_internal(env->tool->handler)) {
        idb = store_pool_acquire(d->srv->catalog, err);
        if (!idb) {
            if (qdb)
                store_pool_release(d->srv->query, qdb);
            return err->code;
        }
        env->internal_db = idb;
    }
    int rc = fn(env, args, out, err);
    if (idb)
        store_pool_release(d->srv->catalog, idb);
    if (qdb) {
        store_set_cancel_flag(qdb, NULL);
        store_set_slow_hook(qdb, 0, NULL, NULL);
        store_set_time_limit(qdb, 0);
        store_set_memory_budget(qdb, 0);
        store_pool_release(d->srv->query, qdb);
    }
    return rc;
}

static int set_rpc(int *rpc_code, char *rpc_message, size_t size, int code, const char *text)
{
    *rpc_code = code;
    snprintf(rpc_message, size, "%s", text);
    return code;
}

/* What a call came to, for its answer and its audit row. */
typedef struct call_outcome {
    json_t *result;     /* the CallToolResult, or NULL for a JSON-RPC error */
    const char *status; /* audit status */
    int code;           /* audit error class (0: none) */
    int64_t rows;       /* rows shown, -1: not a query */
    char *sql_text;     /* SQL for the audit (owned), or NULL */
    int durable;        /* the handler ran and could read data or change state:
                           the answer waits for the committed audit row */
    int *rpc_code;      /* JSON-RPC error out-parameters of mcp_dispatch_tool_call */
    char *rpc_message;
    size_t rpc_message_size;
    json_t **rpc_data;
} call_outcome;

/* Run the handler of a validated call, within the caps on agent queries
 * when it runs SQL, and fill o. */
static void run_call(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const reg_tool *tool,
                     tool_handler_fn fn, json_t *args, const char *call_id, const jsonrpc_msg *msg,
                     inflight *flight, const char *state_plain, call_outcome *o, dbmcp_error *err)
{
    int agent_sql =
        strcmp(tool->handler_kind, "sql") == 0 || tools_builtin_runs_agent_sql(tool->handler);
    if (agent_sql && mcp_query_enter(srv, &s->who, err) != 0) {
        o->result = error_result(err->public_message, call_id);
        o->status = "denied";
        o->code = err->code;
        return;
    }
    dispatch_state d = {srv, s, ctx, NULL, -1, NULL};
    d.progress_token = json_object_get(json_get_obj(msg->params, "_meta"), "progressToken");
    d.flight = flight;
    tool_env env;
    fill_env(&env, &d, tool, call_id, msg);
    env.request_state = state_plain;
    tool_output out = {0};
    int rc = run_handler(&d, &env, fn, args, &out, err);
    if (agent_sql)
        mcp_query_leave(srv, &s->who);
    o->durable =
        strcmp(tool->handler_kind, "builtin") != 0 || !tools_builtin_is_quick(tool->handler);
    o->rows = env.rows;
    char sql_setting[8] = "on";
    mcp_server_setting(srv, "audit.sql_text", sql_setting, sizeof sql_setting);
    if (out.audit_sql && strcmp(sql_setting, "off") != 0) {
        o->sql_text = out.audit_sql;
        out.audit_sql = NULL;
    }
    if (rc == 0 && out.missing_capabilities) {
        set_rpc(o->rpc_code, o->rpc_message, o->rpc_message_size, MCP_MISSING_CLIENT_CAPABILITY,
                "Missing required client capability");
        o->status = "denied";
        o->code = DBMCP_EDENIED;
        *o->rpc_data = json_pack("{s:O}", "requiredCapabilities", out.missing_capabilities);
    } else if (rc == 0 && out.protocol_error) {
        set_rpc(o->rpc_code, o->rpc_message, o->rpc_message_size, JSONRPC_INTERNAL_ERROR,
                out.protocol_error);
        o->status = "error";
        o->code = DBMCP_EINTERNAL;
        dbmcp_error_set(err, DBMCP_EINTERNAL, "%s", out.protocol_error);
    } else if (rc == 0) {
        o->result = success_result(srv, &out, tool, call_id);
        o->status = out.is_error ? "error" : "ok";
    } else {
        log_msg(LOG_WARN, "dispatch", "call %s tool %s failed: %s", call_id, tool->name,
                err->message);
        o->result =
            error_result(err->public_message[0] ? err->public_message : "The tool failed", call_id);
        o->status = rc == DBMCP_ETIMEOUT && d.flight && d.flight->cancelled ? "cancelled" : "error";
        o->code = rc;
    }
    tool_output_free(&out);
}

/* Count a finished call in the metrics under the catalog's name of the
 * tool — NULL when the caller's catalog holds none: the name the caller
 * sent never becomes a label. */
static void count_call(const mcp_session *s, const mcp_call_ctx *ctx, const char *tool, int failed,
                       double start_ms)
{
    metrics_tool_call_end(tool ? tool : METRICS_UNKNOWN_TOOL, s->who.interface,
                          ctx && ctx->transport ? ctx->transport : s->transport, failed,
                          (ids_monotonic_ms() - start_ms) / 1000.0);
}

/* How a call of tool runs: as is, as a task (the client declared the
 * tasks extension and the tool supports tasks), or refused (the tool
 * needs tasks and the client did not declare them). A task's own run
 * (ctx->task_id) runs as is. */
typedef enum call_mode { CALL_DIRECT, CALL_TASK, CALL_NEEDS_TASKS } call_mode;

static call_mode mode_of(mcp_session *s, const mcp_call_ctx *ctx, const reg_tool *tool,
                         const jsonrpc_msg *msg)
{
    if (!tool || ctx->task_id)
        return CALL_DIRECT;
    tools_task_kind kind = tools_task_support(tool);
    if (kind == TOOLS_TASK_FORBIDDEN)
        return CALL_DIRECT;
    if (mcp_tasks_declared(s, msg))
        return CALL_TASK;
    return kind == TOOLS_TASK_REQUIRED ? CALL_NEEDS_TASKS : CALL_DIRECT;
}

json_t *mcp_dispatch_tool_call(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx,
                               const catalog_snapshot *snap, const jsonrpc_msg *msg, int *rpc_code,
                               char *rpc_message, size_t rpc_message_size, json_t **rpc_data,
                               inflight *flight)
{
    /* A task's run comes back here (ctx->task_id): it is validated,
     * counted and audited there, once per run. */
    const char *tool_name = json_get_str(msg->params, "name");
    if (snap && mode_of(s, ctx, catalog_find_tool(snap, tool_name), msg) == CALL_TASK)
        return mcp_tasks_call(srv, s, ctx, msg, flight, rpc_code, rpc_message, rpc_message_size,
                              rpc_data);
    double start = ids_monotonic_ms();
    metrics_tool_call_begin();
    char call_id[37];
    ids_uuid(call_id);
    const char *name = json_get_str(msg->params, "name");
    json_t *args_in = json_object_get(msg->params, "arguments");
    dbmcp_error err;
    dbmcp_error_clear(&err);
    char text[600];

    const reg_tool *tool = snap ? catalog_find_tool(snap, name) : NULL;
    tool_handler_fn fn = tool ? resolve_handler(tool) : NULL;
    if (!tool || !fn || (args_in && !json_is_object(args_in))) {
        /* An unlisted tool is a refusal (status denied, class not_found),
         * audited like an unknown one; arguments that are not an object
         * are the caller's error. */
        int unlisted = !tool || !fn;
        if (unlisted) {
            /* the name is the caller's: cut on a character boundary */
            char *shown = text_safe_bound(name ? name : "(missing name)", 256, 0);
            snprintf(text, sizeof text, "Unknown tool: %s", shown ? shown : "");
            free(shown);
        } else
            snprintf(text, sizeof text, "arguments must be a JSON object");
        set_rpc(rpc_code, rpc_message, rpc_message_size, JSONRPC_INVALID_PARAMS, text);
        mcp_audit_simple(srv, s, ctx, "tools/call", name, call_id, start,
                         unlisted ? "denied" : "error", unlisted ? DBMCP_ENOTFOUND : DBMCP_EINVAL,
                         text, 0, -1, NULL, 0);
        count_call(s, ctx, tool ? tool->name : NULL, 1, start);
        return NULL;
    }

    json_t *args = args_in ? json_deep_copy(args_in) : json_object();
    jsonschema_apply_defaults(tool->input_schema, args);
    call_outcome o = {NULL,    "ok", 0, -1, NULL, 0, rpc_code, rpc_message, rpc_message_size,
                      rpc_data};
    const char *request_state = json_get_str(msg->params, "requestState");
    char *state_plain = NULL;

    if (jsonschema_validate_strict(tool->input_schema, args, &err) != 0) {
        o.result = error_result(err.public_message, call_id);
        o.status = "error";
        o.code = err.code;
    } else if (request_state && !(state_plain = mcp_state_open(srv, request_state))) {
        set_rpc(rpc_code, rpc_message, rpc_message_size, JSONRPC_INVALID_PARAMS,
                "Invalid params: requestState failed its integrity check");
        o.status = "denied";
        o.code = DBMCP_EDENIED;
        dbmcp_error_set(&err, DBMCP_EDENIED, "tampered or foreign requestState");
    } else if (mode_of(s, ctx, tool, msg) == CALL_NEEDS_TASKS) {
        set_rpc(rpc_code, rpc_message, rpc_message_size, MCP_MISSING_CLIENT_CAPABILITY,
                "Missing required client capability: this tool runs only as a task "
                "(extension " MCP_TASKS_EXTENSION ")");
        *rpc_data =
            json_pack("{s:{s:{s:{}}}}", "requiredCapabilities", "extensions", MCP_TASKS_EXTENSION);
        o.status = "denied";
        o.code = DBMCP_EDENIED;
        dbmcp_error_set(&err, DBMCP_EDENIED, "the tool needs the tasks extension");
    } else {
        run_call(srv, s, ctx, tool, fn, args, call_id, msg, flight, state_plain, &o, &err);
    }
    if (o.result)
        json_object_set_new(o.result, "_meta", json_pack("{s:s}", "dbmcp/callId", call_id));
    trace_current_set_str("dbmcp.call_id", call_id);
    trace_current_set_str("dbmcp.status", o.status);
    int audited = mcp_audit_simple(srv, s, ctx, "tools/call", name, call_id, start, o.status,
                                   o.code, o.code ? err.message : NULL, content_bytes(o.result),
                                   o.rows, o.sql_text, o.durable);
    if (audited != 0 && o.result) {
        /* Fail closed: no result leaves before its audit row is committed. */
        json_decref(o.result);
        o.result = error_result(MCP_AUDIT_WITHHELD, call_id);
        json_object_set_new(o.result, "_meta", json_pack("{s:s}", "dbmcp/callId", call_id));
    }
    count_call(s, ctx, tool->name, !o.result || audited != 0 || strcmp(o.status, "ok") != 0, start);
    free(state_plain);
    json_decref(args);
    return o.result;
}
