/*
 * chat.h — POST /v1/chat on `dbmcp serve --http`: one chat run of the LLM
 * orchestrator for the web UI, authenticated like /mcp (bearer API key; the
 * key fixes principal, interface, user and agent scope).
 *
 * Request body (JSON object, at most http.max_body bytes):
 *   {"message": "…", "session": "ID"?, "plan": "NAME"?}
 * Only plans of the key's interface are candidates (and may be named).
 * Response 200: {run_id, session, status, answer, plan, selection, steps,
 * tool_calls, analysis, usage} — also when the run ended with a question
 * ("asked"), a limit or a provider error (the answer says so honestly).
 * Errors: 400 {"error":{"code":"invalid_request","message":…}} (body not a
 * JSON object, message missing or empty, unknown member, wrong type),
 * 404 {"error":{"code":"not_found",…}} (session of another user or unknown,
 * plan unknown for this interface), 500 {"error":{"code":"internal",…}}.
 * The run executes on the connection's thread (libmicrohttpd runs one per
 * connection), so a long chat delays only its own connection.
 */
#ifndef DBMCP_TRANSPORT_CHAT_H
#define DBMCP_TRANSPORT_CHAT_H

#include <jansson.h>
#include <stddef.h>

#include "mcp/server.h"

/* Run the chat for body[0..len) as `who`; *status gets the HTTP status.
 * Returns the response body (new reference, never NULL unless out of
 * memory). */
json_t *http_chat_handle(mcp_server *srv, const mcp_identity *who, const char *body, size_t len,
                         unsigned *status);

#endif
