/*
 * jsonrpc.h — JSON-RPC 2.0 messages, independent of any transport.
 *
 * A transport hands raw bytes to jsonrpc_parse, which validates the envelope
 * once and yields a jsonrpc_msg; everything above works on that struct.
 * Batches (JSON arrays) are refused: MCP removed them in 2025-06-18.
 *
 * Ownership: jsonrpc_parse returns a message the caller frees with
 * jsonrpc_msg_free; the builders return new json_t references the caller
 * owns (json_decref).
 */
#ifndef DBMCP_MCP_JSONRPC_H
#define DBMCP_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

/* Standard JSON-RPC codes. */
#define JSONRPC_PARSE_ERROR -32700
#define JSONRPC_INVALID_REQUEST -32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS -32602
#define JSONRPC_INTERNAL_ERROR -32603
/* MCP codes. */
#define MCP_RESOURCE_NOT_FOUND_LEGACY -32002
#define MCP_HEADER_MISMATCH -32020
#define MCP_MISSING_CLIENT_CAPABILITY -32021
#define MCP_UNSUPPORTED_VERSION -32022
/* dbmcp: a cap on concurrent work was reached; the message names it (server-defined range). */
#define MCP_SERVER_BUSY -32000

/* Largest message any transport accepts (bytes). */
#define JSONRPC_MAX_MESSAGE (4 * 1024 * 1024)

typedef enum jsonrpc_kind {
    JSONRPC_REQUEST,      /* has id and method */
    JSONRPC_NOTIFICATION, /* method, no id */
    JSONRPC_RESPONSE      /* id and result or error (answers a server→client request) */
} jsonrpc_kind;

typedef struct jsonrpc_msg {
    jsonrpc_kind kind;
    json_t *id;     /* string or integer; NULL for notifications; owned reference */
    char *method;   /* owned; NULL for responses */
    json_t *params; /* object, or NULL when absent; owned reference */
    json_t *result; /* responses only; owned reference */
    json_t *error;  /* responses only; owned reference */
    json_t *raw;    /* the whole parsed message; owned reference */
} jsonrpc_msg;

/* Parse one message of `len` bytes. On failure returns NULL and sets
 * *error_response to a complete JSON-RPC error object to send back (id null
 * when unknown), or leaves it NULL when nothing should be sent. */
jsonrpc_msg *jsonrpc_parse(const char *buf, size_t len, json_t **error_response);
void jsonrpc_msg_free(jsonrpc_msg *msg);

/* {"jsonrpc":"2.0","id":id,"result":result}; steals result. */
json_t *jsonrpc_result(json_t *id, json_t *result);
/* {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}; steals data. */
json_t *jsonrpc_error(json_t *id, int code, const char *message, json_t *data);
/* {"jsonrpc":"2.0","method":…[,"params":…]}; steals params. */
json_t *jsonrpc_notification(const char *method, json_t *params);
/* A server→client request; steals params. */
json_t *jsonrpc_request(json_t *id, const char *method, json_t *params);

#endif
