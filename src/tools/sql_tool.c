/*
 * sql_tool.c — the handler of report tools: a catalog row whose handler is
 * reviewed SQL with :named parameters. Arguments are bound, never spliced
 * into the text; parameters named :_user_id, :_agent_id and :_principal are
 * filled from the caller's identity and can never come from arguments (the
 * schema validator refuses unknown properties, and these are bound last).
 * The statement runs on the read-only query connection, inside the call's
 * own read-only transaction on PostgreSQL (store_call_begin), and the
 * result is one compact markdown table (render.c) within the limits of the settings
 * report.max_rows, query.cell_max and query.byte_cap.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "tools/render.h"
#include "tools/sql_failure.h"
#include "tools/tool.h"

#define SQL_TOOL_DEFAULT_MAX_ROWS 100
#define SQL_TOOL_LIMIT_MAX_ROWS 5000
#define SQL_TOOL_DEFAULT_CELL_MAX 500
#define SQL_TOOL_LIMIT_CELL_MAX 1000000
#define SQL_TOOL_DEFAULT_BYTE_CAP 262144

static int is_integral(double d)
{
    return d == floor(d) && fabs(d) < 9007199254740992.0;
}

static void bind_argument(store_stmt *st, const char *pname, const json_t *v)
{
    if (!v || json_is_null(v))
        store_bind_null(st, pname);
    else if (json_is_integer(v))
        store_bind_int(st, pname, json_integer_value(v));
    else if (json_is_real(v) && is_integral(json_real_value(v)))
        store_bind_int(st, pname, (int64_t)json_real_value(v)); /* 2024.0 is the integer 2024 */
    else if (json_is_real(v))
        store_bind_double(st, pname, json_real_value(v));
    else if (json_is_boolean(v))
        store_bind_int(st, pname, json_is_true(v));
    else if (json_is_string(v))
        store_bind_text(st, pname, json_string_value(v));
    else {
        char *text = json_dumps(v, JSON_COMPACT);
        store_bind_text(st, pname, text);
        free(text);
    }
}

static void bind_all(tool_env *env, store_stmt *st, const json_t *args)
{
    int n = store_param_count(st);
    for (int i = 0; i < n; i++) {
        const char *pname = store_param_name(st, i);
        if (!pname || pname[0] != ':')
            continue;
        const char *key = pname + 1;
        if (strcmp(key, "_user_id") == 0)
            store_bind_text(st, pname, env->user_id);
        else if (strcmp(key, "_agent_id") == 0)
            store_bind_text(st, pname, env->agent_id && *env->agent_id ? env->agent_id : NULL);
        else if (strcmp(key, "_principal") == 0)
            store_bind_text(st, pname, env->principal);
        else if (key[0] == '_')
            store_bind_null(st, pname);
        else
            bind_argument(st, pname, json_object_get(args, key));
    }
}

#define SQL_TOOL_DEFAULT_TIMEOUT_MS TOOLS_REPORT_TIMEOUT_DEFAULT_MS /* report.timeout_ms */
#define SQL_TOOL_LIMIT_TIMEOUT_MS 600000                            /* ten minutes at most */

/* A setting as a number clamped to [lo, hi] (def when unset or not a
 * number). */
int tools_report_timeout_ms(long setting)
{
    return setting < 1                           ? 1
           : setting > SQL_TOOL_LIMIT_TIMEOUT_MS ? SQL_TOOL_LIMIT_TIMEOUT_MS
                                                 : (int)setting;
}

size_t tools_query_memory_bytes(long setting)
{
    const long lo = 1L << 20, hi = 4L << 30;
    return (size_t)(setting < lo ? lo : setting > hi ? hi : setting);
}

static long setting_clamped(tool_env *env, const char *key, long def, long lo, long hi)
{
    long v = env->setting_long ? env->setting_long(env, key, def) : def;
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

/* Limits: report.max_rows clamped to 1..5000; query.cell_max (at most a
 * million) and query.byte_cap fall back to their defaults when not
 * positive. */
static render_limits sql_tool_limits(tool_env *env)
{
    render_limits limits = render_limits_default();
    limits.max_rows = (int)setting_clamped(env, "report.max_rows", SQL_TOOL_DEFAULT_MAX_ROWS, 1,
                                           SQL_TOOL_LIMIT_MAX_ROWS);
    long cell_max = setting_clamped(env, "query.cell_max", SQL_TOOL_DEFAULT_CELL_MAX, 0,
                                    SQL_TOOL_LIMIT_CELL_MAX);
    long byte_cap = setting_clamped(env, "query.byte_cap", SQL_TOOL_DEFAULT_BYTE_CAP, 0, LONG_MAX);
    limits.cell_max = cell_max > 0 ? (size_t)cell_max : SQL_TOOL_DEFAULT_CELL_MAX;
    limits.byte_cap = byte_cap > 0 ? (size_t)byte_cap : SQL_TOOL_DEFAULT_BYTE_CAP;
    return limits;
}

/* The agent's sentence for the failure rc of the tool's SQL (sql_failure.h). */
static int report_failure(tool_env *env, int rc, const store_failure *f, int timeout_ms,
                          dbmcp_error *err)
{
    sql_failure_context c = {
        .sql = env->tool->handler,
        .dialect = strcmp(store_dialect(env->query_db), "postgres") == 0 ? SQL_DIALECT_POSTGRES
                                                                         : SQL_DIALECT_SQLITE,
        .operator_sql = 1,
        .timeout_ms = timeout_ms,
        .timeout_setting = "report.timeout_ms",
        .memory_bytes = tool_store_call(env, timeout_ms).memory_bytes,
    };
    return sql_failure_explain(env->query_db, rc, f, &c, err);
}

/* Run the tool's SQL with its arguments bound and answer with the table;
 * out->audit_sql gets the text as run, whether it succeeds or not. */
int tools_sql_handler(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    if (!env->query_db)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the tool could not run",
                                       "no query connection for SQL tool %s", env->tool->name);
    char *sql = tool_tagged_sql(env, env->tool->handler);
    if (!sql)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    free(out->audit_sql);
    out->audit_sql = sql;
    double start = ids_monotonic_ms();
    /* Reviewed SQL still gets a time limit: data grows after review. The
     * dispatcher resets it when the connection goes back to the pool. */
    int timeout_ms = (int)setting_clamped(env, "report.timeout_ms", SQL_TOOL_DEFAULT_TIMEOUT_MS, 1,
                                          SQL_TOOL_LIMIT_TIMEOUT_MS);
    store_set_time_limit(env->query_db, timeout_ms);
    /* On PostgreSQL the statement runs inside the call's read-only
     * transaction (store_call_begin), as agent SQL does; it is prepared
     * before, so the driver may prepare it again when the server could not
     * type a parameter. */
    store_stmt *st = NULL;
    store_failure failure;
    int rc = store_prepare(env->query_db, sql, &st, err);
    if (rc) {
        store_last_failure(env->query_db, &failure);
        return report_failure(env, rc, &failure, timeout_ms, err);
    }
    store_call call = tool_store_call(env, timeout_ms);
    rc = store_call_begin(env->query_db, &call, err);
    if (rc) {
        store_finalize(st);
        return rc;
    }
    bind_all(env, st, args);
    render_table table;
    render_table_init(&table, sql_tool_limits(env));
    rc = render_table_from_stmt(&table, st, env->cancelled, err);
    store_last_failure(env->query_db, &failure);
    store_finalize(st);
    store_call_end(env->query_db); /* an unfit handle is closed by the pool */
    if (rc < 0) {
        render_table_free(&table);
        return report_failure(env, rc, &failure, timeout_ms, err);
    }
    int64_t rows = table.rows; /* finish resets the table */
    char *text = render_table_finish(&table, ids_monotonic_ms() - start);
    if (!text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    tool_output_text(out, text);
    free(text);
    env->rows = rows;
    return 0;
}
