/*
 * execute_query.c — the execute_query builtin: settings, row caps, text
 * admission, the guarded run on the query connection and the safe failure
 * (the stages are described in execute_query.h).
 *
 * What bounds one statement:
 *   - time: query.timeout_ms (store_set_time_limit), enforced by the
 *     store's watchdog thread, which interrupts the statement at the
 *     deadline even inside a long function call (it stops when that call
 *     returns);
 *   - memory: query.max_memory_bytes (64 MiB), everything the engine
 *     holds for the call's statements (set by dispatch for every handler
 *     on the query connection, store_set_memory_budget);
 *   - the store's query budget (store_set_query_budget), lifted again
 *     before returning: the size of any value built or read
 *     (query.max_value_bytes, 1 MiB; SQLite: SQLITE_LIMIT_LENGTH): string
 *     doubling, zeroblob, randomblob, hex, replace and group_concat
 *     blow-ups fail with "too big", so no single function call works on
 *     more than that; a stored value larger than that cannot be read
 *     (length() and typeof() still work); LIKE/GLOB pattern length
 *     (query.max_like_pattern); statement length (4 bytes per admitted
 *     character); and the store's fixed bounds of agent SQL: expression
 *     depth, UNION/EXCEPT/INTERSECT terms, no attached databases.
 *     Parameters are not limited: admission refuses them in agent text,
 *     an unbound one is NULL, and FTS5 binds its own internal statements
 *     on the same connection;
 *   - rows fetched: max_rows + 1, whatever the statement would produce.
 * What does not, and why it is still bounded (on SQLite):
 *   - one function call runs to its end before the interrupt takes
 *     effect. With values of at most 1 MiB each call is short: the known
 *     quadratic built-ins (instr, replace, trim) are replaced by linear
 *     ones on query handles; printf/format, json_patch and embed are left
 *     off the default allowlist; LIKE/GLOB cost about value bytes x
 *     pattern length (1 MiB x 100).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "tools/execute_query.h"
#include "tools/render.h"
#include "tools/sql_admission.h"
#include "tools/sql_failure.h"

#define EXECUTE_QUERY_MAX_ROWS_DEFAULT 25
#define EXECUTE_QUERY_MAX_ROWS_LIMIT 500
#define EXECUTE_QUERY_TIMEOUT_MS 10000
#define EXECUTE_QUERY_CELL_MAX 500
#define EXECUTE_QUERY_BYTE_CAP 262144
#define EXECUTE_QUERY_VALUE_BYTES (1024 * 1024)
#define EXECUTE_QUERY_LIKE_PATTERN 100
/* Upper bounds for the settings above (a larger value is lowered). */
#define EXECUTE_QUERY_MAX_CHARS_CEILING 1000000
#define EXECUTE_QUERY_TIMEOUT_CEILING (10 * 60 * 1000)
#define EXECUTE_QUERY_CELL_CEILING 1000000

/* The sentence a database failure of no class sql_failure.h explains
 * shows the agent; dispatch appends " (call id …)". */
#define EXECUTE_QUERY_FAILED "The query failed. The details are in the operator log"

/* A setting as a number clamped to [lo, hi]; def when unset or not a
 * number. */
static long setting_clamped(tool_env *env, const char *key, long def, long lo, long hi)
{
    long v = env->setting_long ? env->setting_long(env, key, def) : def;
    return v < lo ? lo : v > hi ? hi : v;
}

void execute_query_settings_load(tool_env *env, execute_query_settings *s)
{
    memset(s, 0, sizeof *s);
    s->max_chars = (size_t)setting_clamped(env, "query.max_chars", SQL_ADMISSION_MAX_CHARS_DEFAULT,
                                           1, EXECUTE_QUERY_MAX_CHARS_CEILING);
    s->max_rows_limit = (int)setting_clamped(
        env, "query.max_rows_limit", EXECUTE_QUERY_MAX_ROWS_LIMIT, 1, EXECUTE_QUERY_ROWS_CEILING);
    s->max_rows_default = (int)setting_clamped(
        env, "query.max_rows_default", EXECUTE_QUERY_MAX_ROWS_DEFAULT, 1, s->max_rows_limit);
    s->timeout_ms = (int)setting_clamped(env, "query.timeout_ms", EXECUTE_QUERY_TIMEOUT_MS, 1,
                                         EXECUTE_QUERY_TIMEOUT_CEILING);
    s->cell_max = (size_t)setting_clamped(env, "query.cell_max", EXECUTE_QUERY_CELL_MAX, 1,
                                          EXECUTE_QUERY_CELL_CEILING);
    s->byte_cap =
        (size_t)setting_clamped(env, "query.byte_cap", EXECUTE_QUERY_BYTE_CAP, 256, LONG_MAX);
    s->max_value_bytes = (int)setting_clamped(env, "query.max_value_bytes",
                                              EXECUTE_QUERY_VALUE_BYTES, 1024, INT_MAX);
    s->max_like_pattern =
        (int)setting_clamped(env, "query.max_like_pattern", EXECUTE_QUERY_LIKE_PATTERN, 1, 50000);
    s->dialect = env->query_db && strcmp(store_dialect(env->query_db), "postgres") == 0
                     ? SQL_DIALECT_POSTGRES
                     : SQL_DIALECT_SQLITE;
    s->functions[0] = '\0';
    if (env->setting_str &&
        env->setting_str(env, "query.functions", s->functions, sizeof s->functions))
        s->functions_too_long = strlen(s->functions) >= sizeof s->functions - 1;
    /* An empty setting means the reviewed default. */
    if (!s->functions[0])
        snprintf(s->functions, sizeof s->functions, "%s",
                 sql_admission_dialect_functions(s->dialect));
}

/* Replace a store error's public message with what the agent may see:
 * the class of the failure f (sql_failure.h), else the one generic
 * sentence; the operator message keeps the engine's detail. */
static int safe_failure(store *db, const char *sql, int rc, const store_failure *f,
                        const execute_query_settings *s, const store_call *call, dbmcp_error *err)
{
    char detail[sizeof err->message];
    snprintf(detail, sizeof detail, "execute_query: %.1000s", err->message);
    dbmcp_error_set_private(err, rc, EXECUTE_QUERY_FAILED, "%s", detail);
    sql_failure_context c = {
        .sql = sql,
        .dialect = s->dialect,
        .timeout_ms = s->timeout_ms,
        .timeout_setting = "query.timeout_ms",
        .memory_bytes = call ? call->memory_bytes : 0,
        .value_bytes = s->max_value_bytes,
        .functions = s->functions,
    };
    return sql_failure_explain(db, rc, f, &c, err);
}

int execute_query_run(store *db, const char *sql, const execute_query_settings *s,
                      const store_call *call, int max_rows, atomic_int *cancelled, char **text,
                      int64_t *rows, dbmcp_error *err)
{
    *text = NULL;
    *rows = 0;
    dbmcp_error ignored;
    store_failure failure = {0};
    int rc = store_set_function_allowlist(db, s->functions, err);
    if (rc) {
        store_set_function_allowlist(db, NULL, &ignored); /* drop a partial list */
        return safe_failure(db, sql, rc, &failure, s, call, err);
    }
    store_query_budget budget = {
        .value_bytes = s->max_value_bytes,
        .sql_bytes = (int)(s->max_chars * 4 + 1024),
        .pattern_bytes = s->max_like_pattern,
    };
    store_set_query_budget(db, &budget);
    double start = ids_monotonic_ms();
    store_set_time_limit(db, s->timeout_ms);

    /* Prepared (parsed, nothing run) before the call's own transaction on
     * PostgreSQL opens (store_call_begin), so the driver may prepare it
     * again when the server could not type a parameter; run inside it. */
    store_stmt *st = NULL;
    rc = store_prepare(db, sql, &st, err);
    if (rc)
        store_last_failure(db, &failure);
    int in_call = 0;
    if (!rc && call && (rc = store_call_begin(db, call, err)) == 0)
        in_call = 1;
    render_table table;
    render_table_init(&table, (render_limits){max_rows, s->cell_max, s->byte_cap});
    if (!rc && (rc = render_table_from_stmt(&table, st, cancelled, err)) != 0)
        store_last_failure(db, &failure);
    store_finalize(st);
    if (in_call)
        store_call_end(db); /* an unfit handle is closed by the pool */
    if (!rc) {
        *rows = table.rows; /* finish resets the table */
        *text = render_table_finish(&table, ids_monotonic_ms() - start);
        if (!*text)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory rendering the result");
    }
    render_table_free(&table);

    store_set_time_limit(db, 0);
    store_set_query_budget(db, NULL);
    store_set_function_allowlist(db, NULL, &ignored);
    return rc ? safe_failure(db, sql, rc, &failure, s, call, err) : 0;
}

/* Stage 3: the rows to show and, when the agent asked for more than the
 * limit, a note saying so (note[0] == '\0' otherwise). */
static int rows_wanted(const json_t *args, const execute_query_settings *s, char *note, size_t size)
{
    note[0] = '\0';
    const json_t *v = json_object_get(args, "max_rows");
    if (!json_is_integer(v))
        return s->max_rows_default;
    json_int_t asked = json_integer_value(v);
    if (asked < 1)
        return 1;
    if (asked > s->max_rows_limit) {
        snprintf(note, size,
                 "\nmax_rows %lld is above this server's limit; at most %d rows are shown",
                 (long long)asked, s->max_rows_limit);
        return s->max_rows_limit;
    }
    return (int)asked;
}

int tools_execute_query(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    const json_t *q = json_object_get(args, "query");
    if (!json_is_string(q))
        return dbmcp_error_set(err, DBMCP_EINVAL, "query must be a string");
    const char *query = json_string_value(q);
    size_t len = json_string_length(q);
    free(out->audit_sql);
    out->audit_sql = strndup(query, len);

    execute_query_settings *s = malloc(sizeof *s);
    if (!s)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    execute_query_settings_load(env, s);
    char note[128];
    int max_rows = rows_wanted(args, s, note, sizeof note);
    int rc;
    if (s->functions_too_long) {
        rc = dbmcp_error_set_private(err, DBMCP_EINTERNAL, EXECUTE_QUERY_FAILED,
                                     "execute_query: the setting query.functions is longer than "
                                     "%d bytes",
                                     EXECUTE_QUERY_FUNCTIONS_MAX - 1);
        free(s);
        return rc;
    }
    sql_admission_policy policy = {s->max_chars, s->functions, s->dialect};
    sql_admission_rule rule;
    rc = sql_admit(query, len, &policy, &rule, err);
    if (rc) {
        /* The operator log and the audit row name the rule; the agent's
         * sentence stays as it is. */
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n, " (admission rule %s)",
                 sql_admission_rule_name(rule));
        free(s);
        return rc;
    }
    if (!env->query_db) {
        free(s);
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, EXECUTE_QUERY_FAILED,
                                       "execute_query: no query connection");
    }
    char *sql = tool_tagged_sql(env, query);
    char *text = NULL;
    int64_t rows = 0;
    store_call call = tool_store_call(env, s->timeout_ms);
    rc = sql ? execute_query_run(env->query_db, sql, s, &call, max_rows, env->cancelled, &text,
                                 &rows, err)
             : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    free(sql);
    free(s);
    if (rc)
        return rc;
    if (note[0]) {
        char *with_note = NULL;
        if (asprintf(&with_note, "%s%s", text, note) >= 0) {
            free(text);
            text = with_note;
        }
    }
    tool_output_text(out, text);
    free(text);
    env->rows = rows;
    return 0;
}
