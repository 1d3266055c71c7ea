/*
 * execute_query.h — the execute_query tool: agent-written SQL on the
 * read-only query connection, in seed 001's eight stages.
 *
 *   1 schema      strict input schema (dispatch, before the handler):
 *                 query ≤ 32000 characters, max_rows an integer 1..5000
 *   2 policy      the interface's tool list and DBMCP_ALLOWED_TOOLS; a
 *                 call id per call (dispatch)
 *   3 row caps    max_rows defaults to query.max_rows_default (25) and is
 *                 lowered to query.max_rows_limit (500), itself at most
 *                 EXECUTE_QUERY_ROWS_CEILING; one row more is fetched to
 *                 say that more exist
 *   4 admission   sql_admit (sql_admission.h) with query.max_chars,
 *                 query.functions and the query connection's dialect
 *   5 execution   the guarded query connection (store.h): the authorizer
 *                 with the same function allowlist (SQLite; on PostgreSQL
 *                 the query role's privileges and the call's read-only
 *                 transaction, store_call_begin), a time limit
 *                 (query.timeout_ms), the query budget
 *                 (query.max_value_bytes, query.max_like_pattern, no
 *                 ATTACH, bounded expression depth), and
 *                 the statement tagged `/ * dbmcp call_id=… tool=… client=…
 *                 model=… * /` so database-side logs join the audit
 *   6–7 cells and rendering   render.h with query.cell_max and
 *                 query.byte_cap
 *   8 safe failure  a database error reaches the agent as one sentence
 *                 it can act on (tools/sql_failure.h: unknown table or
 *                 column with close names it may see, syntax error near a
 *                 token, a limit and its value, …), else as one generic
 *                 sentence (dispatch adds the call id); the operator log
 *                 and the audit row keep the engine's detail
 *
 * The connection's own settings (function allowlist, budget, time limit)
 * are restored before the handler returns: the handle goes back to a pool
 * shared with report tools.
 */
#ifndef DBMCP_TOOLS_EXECUTE_QUERY_H
#define DBMCP_TOOLS_EXECUTE_QUERY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/sql_admission.h"
#include "tools/tool.h"

/* The compiled-in maximum of max_rows: a higher query.max_rows_limit is
 * lowered to it. */
#define EXECUTE_QUERY_ROWS_CEILING 5000
/* Room for the setting query.functions (a longer list is refused). */
#define EXECUTE_QUERY_FUNCTIONS_MAX 16384

/* The settings of one call, read once at its start. */
typedef struct execute_query_settings {
    size_t max_chars;       /* query.max_chars: characters admitted (32000) */
    int max_rows_default;   /* query.max_rows_default: rows shown without max_rows (25) */
    int max_rows_limit;     /* query.max_rows_limit: highest max_rows honoured (500) */
    int timeout_ms;         /* query.timeout_ms: time limit of the statement (10000) */
    size_t cell_max;        /* query.cell_max: characters per cell (500) */
    size_t byte_cap;        /* query.byte_cap: bytes of the table (262144) */
    int max_value_bytes;    /* query.max_value_bytes: longest value built (1 MiB) */
    int max_like_pattern;   /* query.max_like_pattern: longest LIKE/GLOB pattern (100) */
    int functions_too_long; /* query.functions did not fit: refuse to run */
    sql_dialect dialect;    /* the query connection's SQL: which rules admit a query */
    char functions[EXECUTE_QUERY_FUNCTIONS_MAX]; /* query.functions or the dialect's default */
} execute_query_settings;

/* Read the settings through env (defaults where unset; numbers clamped to
 * sane ranges). */
void execute_query_settings_load(tool_env *env, execute_query_settings *s);

/* Stages 5–7 without admission: run sql (already admitted, tag included)
 * on the query connection db under the settings' guards, inside the call
 * `call` (store_call_begin/_end: on PostgreSQL the read-only transaction of
 * store/pg_guard.h; NULL: none), at most max_rows rows shown. On success
 * *text is the rendered table (caller frees) and *rows the rows shown. On
 * failure err->message has the operator detail and err->public_message
 * the sentence for the agent (sql_failure.h), read from db's schema after
 * the statement's guards are lifted. The guards are removed again before
 * returning. Exposed for the hostile-input tests, which send refused text
 * straight to the engine to prove it harmless. */
int execute_query_run(store *db, const char *sql, const execute_query_settings *s,
                      const store_call *call, int max_rows, atomic_int *cancelled, char **text,
                      int64_t *rows, dbmcp_error *err);

/* The builtin handler (all eight stages that are not dispatch's). */
int tools_execute_query(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err);

#endif
