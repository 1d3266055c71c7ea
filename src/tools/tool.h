/*
 * tool.h — the contract between the dispatch path and tool handlers.
 *
 * A handler receives arguments already validated against the tool's input
 * schema and policy-checked; it fills a tool_output and returns 0, or
 * returns an error code with err filled (err->public_message is what the
 * agent sees; err->message goes to the operator log and the audit row).
 * Agent-written and report SQL only ever runs on the query connection
 * (tool_env.query_db), opened read-only. Builtins that keep their own
 * state in dbmcp's tables (documents, thesaurus, memory) get a read-write
 * handle to those tables (tool_env.internal_db) and run only their own
 * fixed, parameterised statements on it; they scope every statement by
 * tool_env.user_id / agent_id themselves.
 *
 * The env's callbacks let a handler report progress, send log messages and
 * (legacy clients) ask the client for sampling or elicitation without
 * knowing the transport.
 */
#ifndef DBMCP_TOOLS_TOOL_H
#define DBMCP_TOOLS_TOOL_H

#include <stdatomic.h>
#include <jansson.h>
#include <stdint.h>

#include "core/error.h"
#include "store/registry.h"
#include "store/store.h"

typedef struct tool_env tool_env;

struct tool_env {
    const reg_tool *tool;  /* the catalog row being called */
    const char *call_id;   /* this call's id (audit, SQL comment tag) */
    const char *principal; /* caller identity (never from arguments) */
    const char *interface;
    const char *user_id;
    const char *agent_id;
    const char *client_name;     /* may be "" */
    const char *model;           /* may be "" */
    const char *protocol;        /* negotiated revision */
    json_t *client_capabilities; /* borrowed; may be NULL */
    json_t *request_meta;        /* borrowed params._meta; may be NULL */
    json_t *input_responses;     /* modern multi-round: borrowed inputResponses, or NULL */
    const char *request_state;   /* modern multi-round: verified requestState payload, or NULL */
    store *query_db;             /* read-only connection to user data (may be NULL) */
    store *internal_db;          /* read-write dbmcp_* tables; BUILTIN_INTERNAL only (else NULL) */
    atomic_int *cancelled;       /* nonzero once the client cancelled */
    const json_t *server_info;   /* {name, version, protocols} for server_info */
    int64_t rows;                /* out: rows produced, -1 when not applicable */

    /* Report progress (no-op when the client sent no progressToken). */
    void (*progress)(tool_env *env, double progress, double total, const char *message);
    /* Send notifications/message at level ("debug", "info", …). */
    void (*log)(tool_env *env, const char *level, json_t *data);
    /* Legacy only: send a server→client request (sampling/createMessage,
     * elicitation/create, roots/list) and wait for its result. Returns a new
     * reference or NULL with err filled. */
    json_t *(*client_request)(tool_env *env, const char *method, json_t *params, dbmcp_error *err);
    /* Announce that a catalog list changed ("tools", "prompts", "resources")
     * to listening clients at once. */
    void (*announce_change)(tool_env *env, const char *kind);
    /* A setting (dbmcp_settings, refreshed every catalog poll) as an
     * integer, or def when unset or not a number. */
    long (*setting_long)(tool_env *env, const char *key, long def);
    /* A setting's text into out (size bytes); returns 0 when unset. */
    int (*setting_str)(tool_env *env, const char *key, char *out, size_t size);
    int stateless; /* 2026-07-28 request: use input_required, not client_request */
    void *opaque;  /* owned by the dispatcher */
};

/* What a handler returns. content: array of MCP content blocks (owned);
 * structured: optional structuredContent (owned); is_error: result is a
 * tool-level error the model should see. input_required: modern
 * multi-round — an object {inputRequests, requestState?} (owned); when set,
 * content is ignored. */
typedef struct tool_output {
    json_t *content;
    json_t *structured;
    int is_error;
    json_t *input_required;
    char *request_state;          /* owned plaintext state to protect with HMAC */
    json_t *missing_capabilities; /* owned {capability: {}}: the client lacks what the tool
                                     needs; becomes JSON-RPC error -32021 */
    char *audit_sql;              /* owned: SQL text run, recorded in dbmcp_audit.sql_text
                                     unless the setting audit.sql_text is off */
    char *protocol_error;         /* owned: the call failed below the tool; answered as
                                     JSON-RPC error -32603 with this message */
} tool_output;

/* Whether a tool's calls may run as tasks (MCP tasks extension), from
 * its handler: SQL tools and execute_query may (they can run long); a few
 * conformance fixtures must. tools/list shows it as execution.taskSupport. */
typedef enum tools_task_kind {
    TOOLS_TASK_FORBIDDEN,
    TOOLS_TASK_OPTIONAL,
    TOOLS_TASK_REQUIRED,
} tools_task_kind;
tools_task_kind tools_task_support(const reg_tool *t);
/* "forbidden", "optional" or "required". */
const char *tools_task_kind_name(tools_task_kind k);

typedef int (*tool_handler_fn)(tool_env *env, const json_t *args, tool_output *out,
                               dbmcp_error *err);

/* Append a text block to out->content (creating the array). */
void tool_output_text(tool_output *out, const char *text);
void tool_output_free(tool_output *out);

/* The time limit of operator-written SQL (report tools, sql resource
 * templates) from the report.timeout_ms setting (default 30000): clamped
 * to 1 ms .. 10 minutes. */
#define TOOLS_REPORT_TIMEOUT_DEFAULT_MS 30000
int tools_report_timeout_ms(long setting);

/* The memory budget of one call's SQL on the query connection (agent SQL,
 * report tools, sql resource templates) from query.max_memory_bytes
 * (default 64 MiB): clamped to 1 MiB .. 4 GiB. */
#define TOOLS_QUERY_MEMORY_DEFAULT (64L * 1024 * 1024)
size_t tools_query_memory_bytes(long setting);

/* Builtin handlers by name (NULL when unknown). */
tool_handler_fn tools_builtin_find(const char *name);
/* Nonzero for builtins that never block (pure computation on arguments). */
int tools_builtin_is_quick(const char *name);
/* Nonzero for builtins that read user data through tool_env.query_db. */
int tools_builtin_needs_query(const char *name);
/* Nonzero for builtins that block only on SQL over tool_env.query_db
 * (BUILTIN_QUERY without BUILTIN_INTERNAL): their waiting is watched by
 * the query handle's progress handler. */
int tools_builtin_only_query(const char *name);
/* Nonzero for builtins that run SQL an agent wrote (execute_query). */
int tools_builtin_runs_agent_sql(const char *name);
/* Nonzero for builtins that keep state in dbmcp's own tables
 * (tool_env.internal_db). */
int tools_builtin_needs_internal(const char *name);
/* Nonzero when a builtin of that name exists (catalog validation). */
int tools_builtin_exists(const char *name);
/* Builtin resource-template handlers: content text for a URI the template
 * matched (vars = its variables). Caller frees *text_out. */
int tools_builtin_template_read(const char *handler, const char *uri, const json_t *vars,
                                char **text_out, dbmcp_error *err);
/* The statement as run: a comment tag naming the call id, tool, client and
 * model (so database-side logs join the audit), then sql. Tag values are
 * reduced to [A-Za-z0-9._:@+/-] and 64 characters, so none can end the
 * comment. Caller frees; NULL when out of memory. */
char *tool_tagged_sql(const tool_env *env, const char *sql);
/* The same tag from its values, for SQL run outside a tool call (sql
 * resource templates). Caller frees; NULL when out of memory. */
char *tool_tag_sql(const char *call_id, const char *tool, const char *client, const char *model,
                   const char *sql);
/* The call's names and bounds for store_call_begin on env->query_db: the
 * call id and tool, time_limit_ms, and the memory budget of
 * query.max_memory_bytes (as dispatch sets it on the handle). */
store_call tool_store_call(tool_env *env, int time_limit_ms);
/* The SQL handler: runs tool->handler with arguments bound by name. */
int tools_sql_handler(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err);

#endif
