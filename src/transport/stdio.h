/*
 * stdio.h — the stdio transport: one JSON-RPC message per line on stdin,
 * responses and notifications one per line on stdout, logs on stderr.
 * A slow tool never blocks cancellation, pings or the responses a tool is
 * waiting for (legacy sampling/elicitation): requests that may wait run on
 * a pool of worker threads (at most 16, kept for the session). Requests
 * that cannot block, and SQL tools while nothing else is in flight, run on
 * the thread that read them, which saves two thread hand-offs per call; a
 * SQL tool still running after MCP_SLOW_MS hands the reading to a pool
 * thread (leader/follower) and finishes where it is. Exits on EOF after
 * in-flight requests finished.
 */
#ifndef DBMCP_TRANSPORT_STDIO_H
#define DBMCP_TRANSPORT_STDIO_H

#include <stdio.h>

#include "mcp/server.h"

/* Serve `id` on in/out until EOF. Returns 0 (EOF) or an error code. */
int stdio_serve(mcp_server *srv, const mcp_identity *id, FILE *in, FILE *out, dbmcp_error *err);

#endif
