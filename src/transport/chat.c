/*
 * chat.c — POST /v1/chat: parse the request once, run agent_chat with the
 * caller's identity through the MCP server's dispatch, answer JSON (see
 * chat.h).
 */
#include "transport/chat.h"

#include <string.h>

#include "agent/run.h"
#include "core/curl_lib.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "mcp/agent_port.h"

typedef struct chat_body {
    const char *message;
    const char *session;
    const char *plan;
} chat_body;

static json_t *error_body(unsigned *status, unsigned code, const char *kind, const char *message)
{
    *status = code;
    return json_pack("{s:{s:s, s:s}}", "error", "code", kind, "message", message);
}

/* Validate the parsed body into *out (strings borrowed from doc). NULL, or
 * the message saying which member breaks which rule. */
static const char *parse_body(const json_t *doc, chat_body *out, char *why, size_t size)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(doc))
        return "the body must be a JSON object {\"message\": …}";
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)doc, key, v) {
        const char **slot = strcmp(key, "message") == 0   ? &out->message
                            : strcmp(key, "session") == 0 ? &out->session
                            : strcmp(key, "plan") == 0    ? &out->plan
                                                          : NULL;
        if (!slot) {
            snprintf(why, size, "unknown member '%.64s' (allowed: message, session, plan)", key);
            return why;
        }
        if (json_is_null(v) && slot != &out->message)
            continue;
        if (!json_is_string(v)) {
            snprintf(why, size, "member '%s' must be a string", key);
            return why;
        }
        *slot = json_string_value(v);
    }
    if (!out->message || !*out->message)
        return "member 'message' is required and must not be empty";
    return NULL;
}

json_t *http_chat_handle(mcp_server *srv, const mcp_identity *who, const char *body, size_t len,
                         unsigned *status)
{
    json_error_t jerr;
    json_t *doc = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        char why[256];
        snprintf(why, sizeof why, "the body is not JSON: %s", jerr.text);
        return error_body(status, 400, "invalid_request", why);
    }
    chat_body cb;
    char why[160];
    const char *problem = parse_body(doc, &cb, why, sizeof why);
    if (problem) {
        json_t *out = error_body(status, 400, "invalid_request", problem);
        json_decref(doc);
        return out;
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = NULL;
    if (curl_lib_open(&err) != 0 || mcp_agent_open_catalog(srv, &db, &err) != 0) {
        log_msg(LOG_ERROR, "http", "/v1/chat: %s", err.message);
        json_decref(doc);
        return error_body(status, 500, "internal", "the chat could not start");
    }
    mcp_agent_ports ports;
    memset(&ports, 0, sizeof ports);
    ports.srv = srv;
    ports.who = *who;
    agent_env env = {db, NULL, mcp_agent_port_open, mcp_agent_port_close, &ports};
    agent_chat_request req = {0};
    req.message = cb.message;
    req.session_id = cb.session;
    req.plan = cb.plan;
    req.interface = who->interface;
    req.principal = who->principal;
    req.user_id = who->user_id;
    req.agent_id = who->agent_id;
    req.transport = "http";
    agent_chat_result res;
    int rc = agent_chat(&env, &req, &res, &err);
    json_t *out;
    if (rc == 0) {
        *status = 200;
        out = agent_chat_result_json(&res);
    } else if (rc == DBMCP_EINVAL || rc == DBMCP_ENOTFOUND) {
        out = error_body(status, rc == DBMCP_EINVAL ? 400 : 404,
                         rc == DBMCP_EINVAL ? "invalid_request" : "not_found",
                         err.public_message[0] ? err.public_message : err.message);
    } else {
        log_msg(LOG_ERROR, "http", "/v1/chat: %s", err.message);
        out = error_body(status, 500, "internal", "the chat failed inside dbmcp");
    }
    agent_chat_result_free(&res);
    store_close(db);
    json_decref(doc);
    return out;
}
