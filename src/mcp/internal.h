/*
 * internal.h — private to mcp/: the server and session structs shared by
 * server.c (lifecycle, sessions, catalog watcher), methods.c (the MCP
 * methods), dispatch.c (the one tools/call path) and state.c (requestState).
 */
#ifndef DBMCP_MCP_INTERNAL_H
#define DBMCP_MCP_INTERNAL_H

#include <stdatomic.h>
#include <pthread.h>

#include "catalog/catalog.h"
#include "mcp/audit.h"
#include "mcp/query_caps.h"
#include "mcp/server.h"
#include "store/notify.h"
#include "store/registry.h"

#define MCP_MAX_SNAPSHOTS 64

typedef struct snapshot_slot {
    char iface[65];
    catalog_snapshot *snap; /* one reference held by the server */
} snapshot_slot;

/* A request in flight on a session (for cancellation). */
typedef struct inflight {
    json_t *id;           /* request id (owned ref) */
    atomic_int cancelled; /* set by notifications/cancelled or disconnect */
    struct inflight *next;
} inflight;

/* A server→client request waiting for its response. */
typedef struct pending_request {
    char id[48];
    json_t *response; /* the whole response message once it arrived */
    int done;
    struct pending_request *next;
} pending_request;

struct mcp_listener {
    mcp_sink sink;
    mcp_identity who;
    char id[40];    /* subscriptionId tagged on every notification */
    int want_tools; /* filter from params.notifications */
    int want_prompts;
    int want_resources;
    struct mcp_listener *next;
};

struct mcp_server {
    char *db_url;
    char *query_db_url;  /* the query connection's database (owned); never logged */
    char *allowed_tools; /* owned copy or NULL */
    char *server_name;
    int watch_interval_ms;
    int page_size;         /* items per list page */
    int list_ttl_ms;       /* modern ttlMs */
    int audit_flush_ms;    /* audit writer interval */
    int audit_lag_warn_ms; /* audit lag past which the writer warns */
    store_pool *catalog;   /* read-write, dbmcp_* tables */
    store_pool *query;     /* read-only, user data */
    audit_queue *audit;
    query_caps *caps;            /* agent queries running, in all and per caller */
    unsigned char state_key[32]; /* HMAC key for requestState */
    json_t *server_info;         /* {name, version, title} */
    double started_ms;           /* monotonic, at mcp_server_create (stats.c) */
    double started_at;           /* unix time, likewise */
    double catalog_changed_at;   /* unix time the watcher saw versions move; guarded by lock */

    pthread_mutex_t lock; /* guards everything below */
    snapshot_slot snaps[MCP_MAX_SNAPSHOTS];
    int n_snaps;
    reg_versions versions;   /* latest seen by the watcher */
    json_t *settings;        /* dbmcp_settings as {key: value}, refreshed by the watcher */
    mcp_session *sessions;   /* all live sessions (for notifications) */
    mcp_listener *listeners; /* modern listen streams */
    int stopping;
    pthread_cond_t stop_cond;
    pthread_mutex_t revoke_mu;     /* guards the four below; held while calling them */
    mcp_key_revoked_fn revoked_fn; /* see mcp_server_on_key_revoked */
    void *revoked_ctx;
    mcp_sessions_changed_fn sessions_fn; /* see mcp_server_on_sessions_changed */
    void *sessions_ctx;
    pthread_t watcher;
    int watcher_started;
    struct mcp_tasks *tasks; /* tasks.c: the workers running tasks */
    store_listener *changes; /* what the watcher waits on; its thread only */
    store_counters counters; /* as of the watcher's last tick; its thread only */
};

struct mcp_session {
    int refs; /* atomic */
    mcp_server *srv;
    char id[40];
    mcp_identity who;
    char transport[16];
    char protocol[16]; /* negotiated (legacy) or last seen (modern) */
    int initialized;
    int log_level; /* index into the syslog levels; -1 = off */
    char client_name[129];
    char client_version[65];
    json_t *client_caps; /* owned, may be NULL */
    reg_versions seen;   /* versions the client was last told about */

    pthread_mutex_t lock; /* guards sink, inflight, pending, subs */
    mcp_sink sink;
    inflight *inflight;
    pending_request *pending;
    pthread_cond_t pending_cond;
    long next_request_id;
    int input_closed;      /* the client can no longer answer (stdio EOF) */
    json_t *subscriptions; /* {uri: updated_at stamp} */
    mcp_session *next;     /* in srv->sessions */

    /* A legacy HTTP session kept in dbmcp_sessions (sessions.c), so that any
     * replica serves it. Set once by mcp_session_persist or _load. */
    int persisted;
    int64_t rev; /* the row's rev this copy reflects; guarded by lock */
};

/* server.c */
catalog_snapshot *mcp_snapshot_get(mcp_server *srv, const char *iface, dbmcp_error *err);
/* mcp_session_create with a given id (a session loaded from the database). */
mcp_session *mcp_session_new(mcp_server *srv, const char *sid, const mcp_identity *id,
                             const char *transport);
/* Send msg (borrowed) to ctx's sink, else the session sink. 0 when sent. */
int mcp_session_send(mcp_session *s, const mcp_call_ctx *ctx, json_t *msg);
/* Same, and release msg. */
int mcp_session_send_new(mcp_session *s, const mcp_call_ctx *ctx, json_t *msg);
int mcp_log_level_index(const char *level);
inflight *mcp_inflight_add(mcp_session *s, json_t *id);
void mcp_inflight_remove(mcp_session *s, inflight *f);
void mcp_inflight_cancel(mcp_session *s, json_t *id);
/* Legacy server→client request; waits up to timeout_ms. New ref or NULL. */
json_t *mcp_session_client_request(mcp_session *s, const mcp_call_ctx *ctx, const char *method,
                                   json_t *params, atomic_int *cancelled, int timeout_ms,
                                   dbmcp_error *err);
void mcp_session_deliver_response(mcp_session *s, const jsonrpc_msg *msg);

/* methods.c */
json_t *mcp_methods_handle(mcp_server *srv, mcp_session *s, const jsonrpc_msg *msg,
                           mcp_call_ctx *ctx);

/* dispatch.c — the single tools/call path. Returns the CallToolResult, or
 * NULL with *rpc_code/rpc_message (and *rpc_data) set for protocol-level
 * errors. snap is the caller's catalog snapshot (borrowed, held for the
 * call); flight is the request's cancellation record (may be NULL). */
json_t *mcp_dispatch_tool_call(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx,
                               const catalog_snapshot *snap, const jsonrpc_msg *msg, int *rpc_code,
                               char *rpc_message, size_t rpc_message_size, json_t **rpc_data,
                               inflight *flight);
/* Queue one audit row; takes ownership of sql_text (may be NULL). With
 * `durable` (the call read user data or may have changed state) wait until
 * the row is committed, at most `audit.max_wait_ms`: 0 when it is (always
 * 0 without `durable`), DBMCP_ETIMEOUT when it is not yet; the caller then
 * withholds its result and answers MCP_AUDIT_WITHHELD instead. The row
 * stays queued and is written when the database takes it. */
int mcp_audit_simple(mcp_server *srv, mcp_session *s, const mcp_call_ctx *ctx, const char *method,
                     const char *target, const char *call_id, double start_ms, const char *status,
                     int code, const char *detail, size_t bytes, int64_t rows, char *sql_text,
                     int durable);
/* Count one agent query (execute_query, an SQL tool, an `sql` resource
 * template) of `who` against query.max_concurrent and
 * query.max_concurrent_per_key. 0, or DBMCP_EDENIED with a public message
 * naming the cap and its setting; every 0 needs one mcp_query_leave. */
int mcp_query_enter(mcp_server *srv, const mcp_identity *who, dbmcp_error *err);
void mcp_query_leave(mcp_server *srv, const mcp_identity *who);

/* What a caller sees instead of a result whose audit row is not committed
 * within audit.max_wait_ms (with " (call id …)" appended). */
#define MCP_AUDIT_WITHHELD                                                                         \
    "The result is withheld: the audit log could not record this call in time. Try again later"
/* audit.max_wait_ms: default and bounds, in milliseconds. */
#define MCP_AUDIT_MAX_WAIT_DEFAULT 30000
#define MCP_AUDIT_MAX_WAIT_MIN 100
#define MCP_AUDIT_MAX_WAIT_MAX 600000

/* Tell listen streams (and legacy sessions) that a list changed now,
 * without waiting for the watcher ("tools", "prompts" or "resources"). */
void mcp_server_announce_change(mcp_server *srv, const char *kind);

/* sessions.c — a persisted session's state changes, written to its row
 * (nothing for a session that is not persisted; failures are logged: the
 * copy in memory has the change either way). */
void mcp_session_save_initialized(mcp_session *s);
void mcp_session_save_log_level(mcp_session *s);
/* on: subscribed with this stamp (may be NULL); 0: unsubscribed. */
void mcp_session_save_subscription(mcp_session *s, const char *uri, const char *stamp, int on);
/* The stamp the client was told of last (resources/updated sent), on the
 * caller's catalog handle db. */
void mcp_session_save_stamp(mcp_session *s, store *db, const char *uri, const char *stamp);

/* tasks.c — tools/call as tasks (the io.modelcontextprotocol/tasks
 * extension). The extension's name, as clients declare it. */
#define MCP_TASKS_EXTENSION "io.modelcontextprotocol/tasks"
int mcp_tasks_create(mcp_server *srv);
/* Stop the workers: running tasks are cancelled, then joined. */
void mcp_tasks_stop(mcp_server *srv);
/* Nonzero when the request (or, for a legacy session, its initialize)
 * declared the tasks extension in its client capabilities. */
int mcp_tasks_declared(const mcp_session *s, const jsonrpc_msg *msg);
/* Run a validated tools/call of a task-supporting tool for a client that
 * declared the extension: the handler runs on a task worker; when it ends
 * within tasks.after_ms its result is returned as is, else the call
 * becomes a task and the CreateTaskResult is returned. NULL with the
 * rpc_* out-parameters set for a JSON-RPC error. The worker's run of the
 * call is audited (once per run) by dispatch. */
json_t *mcp_tasks_call(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const jsonrpc_msg *msg,
                       inflight *flight, int *rpc_code, char *rpc_message, size_t rpc_message_size,
                       json_t **rpc_data);
/* tasks/get, tasks/update, tasks/cancel. NULL with the rpc_* set for an
 * error. */
json_t *mcp_tasks_method(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const jsonrpc_msg *msg,
                         int *rpc_code, char *rpc_message, size_t rpc_message_size,
                         json_t **rpc_data);
/* A task's run reports progress (written to its row). */
void mcp_tasks_progress(mcp_server *srv, const char *task_id, double progress, double total,
                        const char *message);

/* state.c — requestState: payload protected by HMAC-SHA256. */
char *mcp_state_seal(const mcp_server *srv, const char *payload);
/* Returns the payload (malloc'd) or NULL when tampered or malformed. */
char *mcp_state_open(const mcp_server *srv, const char *sealed);

#endif
