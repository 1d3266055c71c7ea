/*
 * http.h — the Streamable HTTP transport: one MCP endpoint, `/mcp`, served
 * with libmicrohttpd, speaking both protocol eras (see mcp/server.h).
 *
 * The transport owns everything that is HTTP: binding, Host/Origin checks
 * against DNS rebinding, bearer API keys, the legacy session table
 * (Mcp-Session-Id), the modern request headers, SSE framing, keep-alives,
 * cancellation on disconnect and graceful shutdown. Everything that is MCP
 * goes through mcp_handle; the transport never interprets a method's
 * params beyond the header mirroring the spec requires.
 *
 * Requests
 * --------
 * Every POST carries one JSON-RPC message (batches are refused by
 * jsonrpc_parse). Its era decides the rest:
 *   legacy (no params._meta protocol version): `initialize` creates a
 *     session whose id comes back in `Mcp-Session-Id`; every later message
 *     must carry that header. Sessions live in the database, so every
 *     replica (each `dbmcp serve --http` on the same database, behind a
 *     load balancer without sticky sessions) serves them, and DELETE on
 *     any replica ends them on all. They are bound to the API key that
 *     created them, end when it is revoked, and expire after
 *     limits.session_idle_s without use on any replica. A key at its
 *     max_sessions_per_key, counted over all replicas, gets room by ending
 *     its least recently used session that no replica holds a GET stream
 *     of and no request here uses; only when none can be is `initialize`
 *     refused. max_sessions bounds the sessions one process keeps in
 *     memory: past it, idle copies are dropped (those sessions live on and
 *     are loaded again when used).
 *   modern (params._meta["io.modelcontextprotocol/protocolVersion"]):
 *     stateless; each request gets a per-request session. The headers
 *     `MCP-Protocol-Version`, `Mcp-Method` and (tools/call, prompts/get:
 *     params.name; resources/read: params.uri; tasks/get|update|cancel:
 *     params.taskId) `Mcp-Name` must mirror the body; `Mcp-Name` may use
 *     the `=?base64?…?=` sentinel. Mcp-Session-Id is ignored.
 * A request runs on a worker thread. When its answer is ready within a
 * short grace period and nothing else was sent, the reply is one
 * application/json body (so modern errors get their HTTP status).
 * Otherwise, if the client accepts text/event-stream, the reply is an SSE
 * stream: `event: message` / `data: <json>` events for notifications,
 * progress and (legacy) server→client requests, then the response, then
 * the stream ends. A client that accepts only JSON gets JSON and loses
 * request-scoped notifications. A request that opens a listen stream
 * (ctx.keep_open) keeps its SSE stream until the client leaves or the
 * server stops. Closing a modern response stream cancels the request.
 *
 * Status codes (error bodies are JSON-RPC error objects; `id` is the
 * request's when known, absent otherwise)
 * ------------------------------------------------------------------------
 *  200  JSON response, SSE stream, RFC 9728 metadata
 *  202  notification or response accepted (empty body)
 *  204  DELETE ended the session
 *  400  unparsable JSON / invalid envelope (-32700, -32600); legacy message
 *       without Mcp-Session-Id, unsupported MCP-Protocol-Version (-32600);
 *       modern header missing or not matching the body (-32020); modern
 *       version not supported (-32022, data {supported, requested});
 *       modern-looking request without valid _meta (-32602); modern
 *       errors -32020/-32021/-32022 returned by the server
 *  401  no or bad bearer key or access token; `WWW-Authenticate: Bearer
 *       resource_metadata="http://HOST:PORT/.well-known/oauth-protected-resource"`,
 *       with single sign-on (mcp/oidc.h) also `, scope="…"` and, when a
 *       token was refused, `, error="invalid_token"`
 *  403  Origin not loopback or listed; Host not loopback on a loopback bind;
 *       an access token whose scopes select no interface
 *       (error="insufficient_scope")
 *  404  unknown path; unknown or expired session (ended on any replica),
 *       or a session created with another key; modern method not found
 *       (-32601)
 *  405  method other than GET/POST/DELETE on /mcp (Allow header); GET or
 *       DELETE with a modern MCP-Protocol-Version
 *  406  Accept allows neither application/json nor text/event-stream
 *       (GET: not text/event-stream); a missing Accept allows both
 *  408  the request line and headers, or the body, did not arrive within
 *       header_timeout_s / body_timeout_s (the connection is closed)
 *  413  body larger than max_body
 *  503  (Retry-After: 1) too many requests in flight, overall or with the
 *       caller's key; too many sessions with none idle to drop; no
 *       connection slot within wait_timeout_s, or the waiting queue full;
 *       shutting down; the database holding the sessions failed
 *
 * Other endpoints: GET /.well-known/oauth-protected-resource[/mcp] returns
 * {"resource":"http://HOST:PORT/mcp","bearer_methods_supported":["header"],
 * "resource_name":"dbmcp"} (HOST:PORT from a valid Host header, else the
 * bind address). GET /mcp with a legacy session id opens the session's
 * SSE stream (list_changed, resources/updated, requests outside a POST);
 * a newer GET replaces an older one; `: keepalive` comments every 15 s.
 *
 * POST /v1/chat (bearer key as for /mcp) runs one chat of the LLM
 * orchestrator on the connection's thread; see transport/chat.h.
 *
 * GET /metrics (Prometheus text 0.0.4, core/metrics.h) and GET /status
 * (JSON) are for monitoring; http_metrics_config says who may read them
 * (403 for a peer loopback mode refuses, 401 without the metrics secret in
 * key mode, 404 when off, 405 for other methods); see
 * transport/http_observe.h.
 *
 * Connections: a thread of our own accepts them and hands them to
 * libmicrohttpd within max_connections and max_connections_per_ip; the
 * rest wait without a thread (transport/http_admit.h). Each phase of
 * reading a request has a deadline, so a client that trickles bytes cannot
 * hold a connection.
 *
 * Threading: libmicrohttpd runs one thread per connection; requests run
 * on worker threads (capped); the calling thread waits for SIGTERM/SIGINT
 * (and handles SIGHUP).
 * Only one http_serve may run per process (the signal handler is global).
 */
#ifndef DBMCP_TRANSPORT_HTTP_H
#define DBMCP_TRANSPORT_HTTP_H

#include <stddef.h>

#include "core/error.h"
#include "mcp/server.h"

/* The bounds that keep one client from starving the others. Each is a
 * setting (`http.<name>` in dbmcp_settings) and an environment variable
 * (DBMCP_HTTP_<NAME>, which wins); http_limits_load fills them, and a zero
 * field means its default. docs/security.md lists them with the test
 * that proves each. */
typedef struct http_limits {
    int max_connections;        /* connections served at once (512); more wait */
    int max_connections_per_ip; /* of them from one client address (64) */
    int max_waiting;            /* accepted connections waiting for a slot, held
                                   without a thread (2048); beyond: 503 */
    int wait_timeout_s;         /* a waiting connection gets 503 after this (10) */
    int header_timeout_s;       /* request line and headers must arrive within (10) */
    int body_timeout_s;         /* the body must arrive within this after the headers (30) */
    int idle_timeout_s;         /* a connection idle between requests is closed (30);
                                   also the inactivity limit while reading or writing */
    int max_in_flight;          /* requests running at once, all keys (128) */
    int max_in_flight_per_key;  /* of them with one API key (32) */
    int max_sessions;           /* legacy sessions this process keeps in memory (10000) */
    int max_sessions_per_key;   /* legacy sessions of one API key, all replicas (100) */
    int session_idle_s;         /* a legacy session unused this long on every replica
                                   expires (900) */
    int shutdown_grace_ms;      /* SIGTERM: time running requests get before they are
                                   cancelled (10000); re-read on SIGHUP */
} http_limits;

/* Who may read GET /metrics and GET /status: the setting http.metrics
 * (variable DBMCP_HTTP_METRICS, which wins). The bearer secret of
 * HTTP_METRICS_KEY comes only from the environment (DBMCP_METRICS_KEY),
 * never from the database; API keys for /mcp do not open these pages. */
typedef enum http_metrics_access {
    HTTP_METRICS_LOOPBACK = 0, /* "loopback" (default): peers on a loopback address whose
                                  request carries no Forwarded, X-Forwarded-For or
                                  X-Real-IP header (a proxy in front) */
    HTTP_METRICS_KEY,          /* "key": any peer, with Authorization: Bearer <secret> */
    HTTP_METRICS_OFF           /* "off": 404, like any unknown path */
} http_metrics_access;

typedef struct http_metrics_config {
    http_metrics_access access;
    unsigned char key_hash[32]; /* BLAKE2b-256 of the secret (HTTP_METRICS_KEY only) */
} http_metrics_config;

typedef struct http_config {
    const char *bind; /* "HOST:PORT"; HOST 127.0.0.1 by default; IPv6 "[::1]:PORT";
                         PORT 0 picks a free port */
    int no_auth;      /* accepted only with a loopback bind (http_serve refuses otherwise) */
    const mcp_identity *anonymous; /* identity used with no_auth (required then) */
    const char **allowed_origins;  /* NULL-terminated extra allowed Origin values (exact, case-
                                      insensitive); NULL = only loopback origins */
    size_t max_body;               /* bytes; 0 = 4 MiB; larger bodies → 413 */
    http_limits limits;            /* zero fields: the defaults */
    const char *public_url;        /* base URL clients reach the server at through a proxy, e.g.
                                      "https://mcp.example.com" (the endpoint is its /mcp); used
                                      in 401 challenges and RFC 9728 metadata, and its host and
                                      origin are accepted. NULL = the Host header / bind address */
    http_metrics_config metrics;   /* access to /metrics and /status; zeroed: loopback only */
} http_config;

/* Fill limits from the environment (DBMCP_HTTP_MAX_CONNECTIONS, …) and
 * srv's settings (http.max_connections, …); unset ones get their default.
 * DBMCP_EINVAL naming the setting when a value is not a whole number in its
 * bounds. */
int http_limits_load(mcp_server *srv, http_limits *limits, dbmcp_error *err);
/* Give fields that are zero (or negative) their defaults; max_waiting 0
 * stays 0 (no queue). */
void http_limits_default(http_limits *limits);
/* Fill metrics from DBMCP_HTTP_METRICS, else the setting http.metrics,
 * else "loopback"; with "key", the secret from DBMCP_METRICS_KEY (16 to
 * 256 bytes of visible ASCII). DBMCP_EINVAL naming the setting or the
 * variable when a value is not one of the three words or the secret is
 * missing or malformed. */
int http_metrics_load(mcp_server *srv, http_metrics_config *metrics, dbmcp_error *err);

/* http_serve's return when the shutdown grace ran out and running
 * requests were cancelled (`serve` then exits with status 3). */
#define HTTP_SERVE_CANCELLED 3
/* A second SIGTERM/SIGINT during the shutdown ends the process at once
 * with status HTTP_EXIT_SIGNAL_BASE + the signal (143, 130), like a
 * process the signal killed; queued audit rows may be lost then. */
#define HTTP_EXIT_SIGNAL_BASE 128

/* Serve until SIGTERM or SIGINT. Prints "listening on http://HOST:PORT/mcp"
 * to stderr once bound. On SIGTERM/SIGINT: close the listening socket (new
 * connections are refused; a new request on an open keep-alive connection
 * gets 503), let running requests finish within limits.shutdown_grace_ms,
 * then cancel them (their audit rows say cancelled), end SSE and listen
 * streams, stop the daemon, drop its copies of the sessions (they live on
 * in the database, for another replica or this one restarted) and call
 * mcp_server_flush_audit. On SIGHUP: re-read the settings, the log level
 * (setting log.level) and the shutdown grace, logging what changed and
 * refusing (keeping the old value, logging why) what does not validate;
 * nothing is dropped. Returns 0, HTTP_SERVE_CANCELLED, or DBMCP_EINVAL
 * (bad bind, no_auth on a non-loopback bind, no anonymous identity) or
 * DBMCP_EIO (cannot bind) with err filled. */
int http_serve(mcp_server *srv, const http_config *cfg, dbmcp_error *err);

#endif
