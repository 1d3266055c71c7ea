/*
 * jsonrpc.c — parse and build JSON-RPC 2.0 envelopes; see jsonrpc.h.
 */
#include "mcp/jsonrpc.h"

#include <stdlib.h>
#include <string.h>

void jsonrpc_msg_free(jsonrpc_msg *m)
{
    if (!m)
        return;
    json_decref(m->id);
    free(m->method);
    json_decref(m->params);
    json_decref(m->result);
    json_decref(m->error);
    json_decref(m->raw);
    free(m);
}

static jsonrpc_msg *invalid(json_t *id, const char *why, json_t **error_response)
{
    *error_response = jsonrpc_error(id ? id : json_null(), JSONRPC_INVALID_REQUEST, why, NULL);
    return NULL;
}

static int valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

jsonrpc_msg *jsonrpc_parse(const char *buf, size_t len, json_t **error_response)
{
    *error_response = NULL;
    if (len > JSONRPC_MAX_MESSAGE) {
        *error_response =
            jsonrpc_error(json_null(), JSONRPC_INVALID_REQUEST, "message too large", NULL);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!root) {
        char msg[256];
        snprintf(msg, sizeof msg, "Parse error: %s at line %d column %d", jerr.text, jerr.line,
                 jerr.column);
        *error_response = jsonrpc_error(json_null(), JSONRPC_PARSE_ERROR, msg, NULL);
        return NULL;
    }
    if (json_is_array(root)) {
        json_decref(root);
        return invalid(NULL, "Invalid Request: batches are not supported", error_response);
    }
    if (!json_is_object(root)) {
        json_decref(root);
        return invalid(NULL, "Invalid Request: a message must be a JSON object", error_response);
    }
    json_t *id = json_object_get(root, "id");
    json_t *ver = json_object_get(root, "jsonrpc");
    json_t *method = json_object_get(root, "method");
    json_t *params = json_object_get(root, "params");
    json_t *reply_id = valid_id(id) ? id : NULL;
    jsonrpc_msg *out = NULL;

    if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0) {
        invalid(reply_id, "Invalid Request: jsonrpc must be \"2.0\"", error_response);
        goto done;
    }
    if (id && !valid_id(id)) {
        invalid(NULL, "Invalid Request: id must be a string or an integer", error_response);
        goto done;
    }
    if (method && (!json_is_string(method) ||
                   strlen(json_string_value(method)) != json_string_length(method))) {
        invalid(reply_id, "Invalid Request: method must be a string without NUL characters",
                error_response);
        goto done;
    }
    if (params && !json_is_object(params)) {
        invalid(reply_id, "Invalid Request: params must be an object", error_response);
        goto done;
    }
    out = calloc(1, sizeof *out);
    if (!out)
        goto done;
    out->raw = json_incref(root);
    if (method) {
        out->kind = id ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
        out->method = strdup(json_string_value(method));
        out->id = json_incref(id);
        out->params = json_incref(params);
    } else {
        json_t *result = json_object_get(root, "result");
        json_t *error = json_object_get(root, "error");
        if (!id || (!result == !error)) {
            jsonrpc_msg_free(out);
            out = NULL;
            invalid(reply_id, "Invalid Request: missing method", error_response);
            goto done;
        }
        out->kind = JSONRPC_RESPONSE;
        out->id = json_incref(id);
        out->result = json_incref(result);
        out->error = json_incref(error);
    }
done:
    json_decref(root);
    return out;
}

json_t *jsonrpc_result(json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result",
                     result ? result : json_object());
}

json_t *jsonrpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *err = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (data)
        json_object_set_new(err, "data", data);
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error",
                     err);
}

json_t *jsonrpc_notification(const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    if (params)
        json_object_set_new(m, "params", params);
    return m;
}

json_t *jsonrpc_request(json_t *id, const char *method, json_t *params)
{
    json_t *m = json_pack("{s:s, s:O, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params)
        json_object_set_new(m, "params", params);
    return m;
}
