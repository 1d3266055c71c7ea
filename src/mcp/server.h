/*
 * server.h — the MCP server core: sessions, protocol eras and method
 * dispatch, independent of any transport.
 *
 * A transport (stdio, HTTP, the CLI's `dbmcp call`) turns bytes into a
 * jsonrpc_msg, finds or creates the mcp_session for the caller and calls
 * mcp_handle. Both protocol eras share one code path:
 *   - 2025-11-25 and earlier ("legacy"): `initialize` fixes the session's
 *     protocol version and client info; notifications go to the session sink.
 *   - 2026-07-28 ("modern"): every request carries
 *     _meta["io.modelcontextprotocol/protocolVersion"]; the session is a
 *     per-request one created by the transport from the caller's identity.
 *
 * The caller's identity (principal, interface, user and agent scope) comes
 * from the transport — API key or configured stdio principal — and never
 * from request arguments.
 *
 * Threading: mcp_handle may be called concurrently from several threads,
 * also for the same session. Sinks must be thread-safe.
 *
 * Ownership: returned json_t are new references for the caller. Sessions
 * are reference counted (mcp_session_ref/unref) so a session closed by one
 * thread stays valid for requests still running on it.
 */
#ifndef DBMCP_MCP_SERVER_H
#define DBMCP_MCP_SERVER_H

#include <jansson.h>

#include "core/error.h"
#include "mcp/jsonrpc.h"
#include "store/registry.h"

typedef struct mcp_server mcp_server;
typedef struct mcp_session mcp_session;
typedef struct mcp_listener mcp_listener;

#define MCP_LATEST_LEGACY "2025-11-25"
#define MCP_MODERN "2026-07-28"
#define MCP_META_PROTOCOL "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CLIENT_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"

/* Who is calling. Fixed by the transport for the life of a session. */
typedef struct mcp_identity {
    char principal[129]; /* principal name, "" when running without auth */
    char interface[65];  /* interface whose catalog the caller sees */
    char user_id[129];   /* scope: user */
    char agent_id[129];  /* scope: agent, "" = any */
    char key_id[33];     /* API key id, "" for stdio/CLI */
    int admin;           /* the key's role is "admin": it may open the console */
    /* Single sign-on (mcp/oidc.h): the access token's sub, iss and jti, for
     * the audit; "" for API keys, stdio and the CLI. */
    char subject[129];
    char issuer[257];
    char token_id[129];
} mcp_identity;

/* Where the server sends messages that are not the response itself
 * (notifications, server→client requests). send() borrows msg; it must be
 * safe to call from any thread and return quickly. Returns 0 when sent, -1
 * when the peer is gone. Lifetime: a session sink is not called after
 * mcp_session_set_sink replaced it returns; a request's sink (ctx.sink) is
 * not called after mcp_handle returns, unless the request opened a listen
 * stream, whose sink is used until mcp_listener_close returns. */
typedef struct mcp_sink {
    int (*send)(void *ctx, json_t *msg);
    void *ctx;
} mcp_sink;

typedef struct mcp_server_config {
    const char *db_url;        /* SQLite path or postgres:// URI: the catalog connection */
    const char *query_db_url;  /* the query connection's database (agent SQL, report tools,
                                  sql templates); NULL: db_url. On PostgreSQL a URI that logs
                                  in as the query role, checked by pg_guard_check at start */
    const char *allowed_tools; /* comma-separated allowlist narrowing every interface; NULL = all */
    int pool_size;             /* catalog/query connections kept open (default 4) */
    int watch_interval_ms;     /* how often catalog changes are polled (default 500) */
    const char *server_name;   /* serverInfo.name (default "dbmcp") */
} mcp_server_config;

/* Per-request facts from the transport. Zero-initialise, then fill. */
typedef struct mcp_call_ctx {
    mcp_sink sink;           /* request-scoped notifications and server→client requests;
                                a NULL send falls back to the session sink */
    const char *transport;   /* "stdio", "http" or "cli" (audit) */
    const char *model;       /* model name from a transport header, or NULL */
    const char *traceparent; /* W3C traceparent header (transport), or NULL; the request's
                                params._meta.traceparent wins (core/trace.h) */
    const char *tracestate;  /* its tracestate header, or NULL */
    int stateless;           /* the transport routed this request as 2026-07-28 (stateless):
                                _meta is validated and legacy-only methods are refused.
                                Also implied when params._meta names a protocol version. */
    int keep_open;           /* out: the request opened a stream (subscriptions/listen):
                                keep the sink alive, later call mcp_listener_close */
    mcp_listener *listener;  /* out: set together with keep_open */
    int cancelled;           /* out: the client cancelled the request while it ran; the
                                response is still returned (and audited as cancelled), a
                                transport that can stay silent should not send it */
    /* Set by a transport that runs a MCP_RUN_WATCHED request on its reading
     * thread: called once, from the handling thread, when the request's SQL
     * has run for MCP_SLOW_MS, so the transport can let another thread read
     * (cancellations, other requests) meanwhile. NULL: not watched. */
    void (*on_slow)(void *arg);
    void *slow_arg;
    /* In: the request's registration by mcp_request_track, made by a
     * transport that queues requests before handling them, so that a
     * notifications/cancelled read while the request waited still cancels
     * it. The transport releases it (mcp_request_untrack) after mcp_handle.
     * NULL: mcp_handle registers the request when it starts. */
    struct inflight *flight;
    /* Set by mcp/tasks.c when it runs a tools/call as a task (the id of
     * the task); NULL for every call a transport makes. */
    const char *task_id;
} mcp_call_ctx;

/* How long a watched request may hold the reading thread (see on_slow). */
#define MCP_SLOW_MS 1

/* --- server lifecycle ---------------------------------------------------- */

/* Open the database (checking and migrating the schema), load the catalog
 * and start the background threads (catalog watcher, audit writer). */
int mcp_server_create(const mcp_server_config *cfg, mcp_server **out, dbmcp_error *err);
/* Finish: flush the audit queue, stop threads, close the database. */
void mcp_server_free(mcp_server *srv);
/* A setting's value from dbmcp_settings (as of the last catalog poll) into
 * out; returns 0 when unset. */
int mcp_server_setting(mcp_server *srv, const char *key, char *out, size_t size);
/* An integer setting from dbmcp_settings, or def when unset or not a number. */
long mcp_server_setting_long(mcp_server *srv, const char *key, long def);
/* Read dbmcp_settings now (SIGHUP) instead of at the watcher's next tick;
 * every changed key is logged (the watcher's reads log the same way).
 * *changed (may be NULL) gets how many keys changed. Calls that start
 * afterwards see the new values; running ones keep what they read. */
int mcp_server_reload_settings(mcp_server *srv, int *changed, dbmcp_error *err);
/* Set the operator log level from the setting log.level (debug, info,
 * warn, error; unset: info) unless DBMCP_LOG fixed it. Another value is
 * refused: logged, the level kept, DBMCP_EINVAL. */
int mcp_server_apply_log_level(mcp_server *srv, dbmcp_error *err);
/* Write every queued audit row now (also called on SIGTERM paths). */
void mcp_server_flush_audit(mcp_server *srv);

/* Resolve an API key ("dbmcp_<id>_<secret>") to an identity. Returns 0 or
 * DBMCP_EDENIED (unknown, revoked or wrong secret; constant-time compare). */
int mcp_server_authenticate(mcp_server *srv, const char *api_key, mcp_identity *out,
                            dbmcp_error *err);
/* Fill an identity for a principal named on the command line (stdio, CLI):
 * interface from `interface_name` (or "default"). Fails when the interface
 * does not exist or is disabled. */
int mcp_server_local_identity(mcp_server *srv, const char *principal, const char *interface_name,
                              mcp_identity *out, dbmcp_error *err);

/* Told when an API key that live sessions carry was revoked: called on the
 * catalog watcher's thread, within about one poll interval of
 * `dbmcp keys revoke`, and again on later polls while a session still
 * carries the key. The transport ends what the key holds open (sessions,
 * streams, running requests); requests with the key already get 401. */
typedef void (*mcp_key_revoked_fn)(void *ctx, const char *key_id);
/* Install the callback (NULL removes it; returns once a running call of
 * the previous one has finished). */
void mcp_server_on_key_revoked(mcp_server *srv, mcp_key_revoked_fn fn, void *ctx);

/* Hex BLAKE2b-256 of an API key's secret part, as stored in dbmcp_api_keys. */
void mcp_key_hash_secret(const char *secret, char hex[65]);

/* Length of a whole API key as mcp_key_create writes it, NUL included:
 * "dbmcp_" + 12-character id + "_" + 40-character secret. */
#define MCP_KEY_SIZE 60
/* Create an API key: a random id and secret, the secret's hash stored with
 * the fields of spec (principal, interface, scopes, description, role; its
 * id and secret_hash are ignored) by reg_api_key_insert. The whole key
 * "dbmcp_<id>_<secret>" goes to key_out — the only copy of the secret —
 * and the id to id_out. The one way keys are made: `dbmcp keys create`
 * and the console both call it. */
int mcp_key_create(store *db, const reg_api_key *spec, char key_out[MCP_KEY_SIZE], char id_out[13],
                   dbmcp_error *err);

/* A connection to the catalog database (read/write, dbmcp's own tables)
 * from the server's pool, for the admin console's reads and writes (which
 * go through store/ functions, as the CLI's do); NULL with err filled when
 * none can be had. Give it back with mcp_server_catalog_release. */
store *mcp_server_catalog_acquire(mcp_server *srv, dbmcp_error *err);
void mcp_server_catalog_release(mcp_server *srv, store *db);

/* --- sessions ------------------------------------------------------------ */

/* A new session with one reference held by the caller. transport names it
 * for the audit ("stdio", "http"). */
mcp_session *mcp_session_create(mcp_server *srv, const mcp_identity *id, const char *transport);
mcp_session *mcp_session_ref(mcp_session *s);
/* Drop a reference; the last one cancels in-flight work and frees. */
void mcp_session_unref(mcp_session *s);
/* Random, unguessable id (used as Mcp-Session-Id). Owned by the session. */
const char *mcp_session_id(const mcp_session *s);
const mcp_identity *mcp_session_identity(const mcp_session *s);
/* Where session-level notifications (list_changed, resource updates, log
 * messages outside a request) go. Pass a NULL send to detach. */
void mcp_session_set_sink(mcp_session *s, mcp_sink sink);
/* Nonzero once the client sent notifications/initialized (legacy). A
 * session whose `initialize` returned a result has a non-empty
 * mcp_session_protocol before that. */
int mcp_session_initialized(const mcp_session *s);
/* Negotiated protocol version ("" before initialize). */
const char *mcp_session_protocol(const mcp_session *s);
/* The client can no longer send (stdio EOF): requests in flight finish,
 * but a server→client request waiting for an answer fails at once. */
void mcp_session_close_input(mcp_session *s);
/* Cancel every request in flight on the session (client went away). */
void mcp_session_cancel_all(mcp_session *s);

/* --- sessions in the database (sessions.c) --------------------------------
 *
 * Replicas of one database serve each other's legacy sessions: a session
 * persisted after its `initialize` has a row in dbmcp_sessions with what a
 * replica needs to go on (identity, protocol, client info and capabilities,
 * log level, initialized, subscriptions). A replica that meets an unknown
 * Mcp-Session-Id loads it; one that holds a copy checks the row on every
 * request (one read by primary key) and reads the state again when another
 * replica changed it. The row is the truth: a session whose row is gone
 * (DELETE on any replica, idle expiry, its key revoked, dropped for room)
 * is over everywhere. Sessions that are not persisted (stdio, stateless
 * requests, the CLI) never touch the table. */

/* How the sessions of one API key are capped across replicas. */
typedef struct mcp_session_cap {
    int max_per_key; /* rows of one key, all replicas together */
    /* Whether this replica uses session id now (a request running, a GET
     * stream open): never dropped for room. Called with the database
     * locked for writing: must not use the database. */
    int (*busy)(void *ctx, const char *id);
    /* Told of each session ended to make room, after the fact. */
    void (*dropped)(void *ctx, const char *id);
    void *ctx;
} mcp_session_cap;

/* Persist s (a legacy session whose initialize succeeded). When its key
 * has cap->max_per_key sessions, its least recently used ones that no
 * replica holds a GET stream of and that are not busy here are ended
 * first; DBMCP_ETOOBIG when none can be. */
int mcp_session_persist(mcp_session *s, const mcp_session_cap *cap, dbmcp_error *err);
/* Load session `id` for a caller with API key key_id ("" without auth): a
 * new session (one reference held by the caller) with the identity and
 * state of the row, its use recorded as in mcp_session_sync.
 * DBMCP_ENOTFOUND when there is no such session or it belongs to another
 * key. */
int mcp_session_load(mcp_server *srv, const char *id, const char *key_id, int touch_s,
                     mcp_session **out, dbmcp_error *err);
/* Check a persisted session against its row before serving it: 0 when it
 * lives (state changed by another replica is read again; the last use is
 * written when the row's is older than touch_s seconds), DBMCP_ENOTFOUND
 * when it ended. 0 at once for a session that is not persisted. */
int mcp_session_sync(mcp_session *s, int touch_s, dbmcp_error *err);
/* This replica holds s's GET stream open: keep the row from idle expiry
 * and from being dropped for room for `seconds` more (renew before). */
int mcp_session_hold_stream(mcp_session *s, int seconds, dbmcp_error *err);
/* End s on every replica (delete its row). */
int mcp_session_end(mcp_session *s, dbmcp_error *err);
/* End every persisted session unused for idle_s seconds whose stream
 * lease ran out; *n (may be NULL) gets how many. */
int mcp_sessions_expire(mcp_server *srv, int idle_s, int64_t *n, dbmcp_error *err);

/* Told, on the catalog watcher's thread, when some session changed or
 * ended in the database (any replica, plain SQL), and every few seconds
 * besides: the transport syncs the sessions it holds open (GET streams),
 * which get no requests to notice it by. */
typedef void (*mcp_sessions_changed_fn)(void *ctx);
/* Install the callback (NULL removes it; returns once a running call of
 * the previous one has finished). */
void mcp_server_on_sessions_changed(mcp_server *srv, mcp_sessions_changed_fn fn, void *ctx);

/* --- messages ------------------------------------------------------------ */

/* Handle one message. Requests return the response to send (never NULL);
 * notifications and responses to server→client requests return NULL.
 * For stateless requests the error codes map to HTTP statuses with
 * mcp_http_status_for_error. */
json_t *mcp_handle(mcp_server *srv, mcp_session *s, const jsonrpc_msg *msg, mcp_call_ctx *ctx);

/* Register a request that will be handled later (queued for a worker), so
 * a cancellation that arrives before its handling starts is kept: pass the
 * result as ctx.flight to mcp_handle, then release it with
 * mcp_request_untrack. NULL for a message that is not a request, or when
 * out of memory (mcp_handle then registers it itself). */
struct inflight *mcp_request_track(mcp_session *s, const jsonrpc_msg *msg);
void mcp_request_untrack(mcp_session *s, struct inflight *flight);

/* Where a transport may handle msg (its reading thread must stay free to
 * read the cancellations and responses that running requests wait for). */
typedef enum mcp_run_class {
    MCP_RUN_QUICK,   /* cannot block: reads the in-memory catalog, or a builtin
                        that never waits (echo, server_info); answer inline */
    MCP_RUN_WATCHED, /* blocks only while SQL runs on the query connection (SQL
                        report tools, schema tools, execute_query): may run
                        inline when nothing else is in flight, with ctx.on_slow
                        set to hand reading over after MCP_SLOW_MS */
    MCP_RUN_POOL,    /* may wait on anything (the client, an LLM, locks): hand
                        it to another thread */
} mcp_run_class;
mcp_run_class mcp_request_class(mcp_server *srv, mcp_session *s, const jsonrpc_msg *msg);

/* The protocol version a modern request names in params._meta, or NULL
 * when the request is legacy-style. */
const char *mcp_request_modern_version(const jsonrpc_msg *msg);
/* Nonzero when `version` is a revision this server speaks. */
int mcp_version_supported(const char *version);
/* The revisions this server speaks, newest first, NULL-terminated
 * (static). -32022 errors and server/discover list exactly these. */
const char *const *mcp_supported_versions(void);

/* HTTP status for a stateless (2026-07-28) JSON-RPC error response:
 * -32601 → 404; -32602 (bad _meta), -32020, -32021, -32022 → 400; others 200. */
int mcp_http_status_for_error(const json_t *response);

/* The custom request headers tool `name` declares in the catalog of
 * who's interface (SEP-2243 `x-mcp-header` on a top-level property of
 * its input schema): {"property": "Suffix"} for the header
 * Mcp-Param-Suffix. A new reference; empty for an unknown tool. */
json_t *mcp_tool_header_params(mcp_server *srv, const mcp_identity *who, const char *name);

/* Close a listen stream opened by subscriptions/listen. */
void mcp_listener_close(mcp_server *srv, mcp_listener *l);

#endif
