/*
 * sql_tool.c — the handler of report tools: a catalog row whose handler is
 * reviewed SQL with :named parameters. Arguments are bound, never spliced
 * into the text; parameters named :_user_id, :_agent_id and :_principal are
 * filled from the caller's identity and can never come from arguments (the
 * schema validator refuses unknown properties, and these are bound last).
 * The statement runs on the read-only query connection and the result is
 * one compact markdown table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tool.h"

#define SQL_TOOL_MAX_ROWS 500
#define SQL_TOOL_MAX_CELL 500

typedef struct text_buf {
    char *data;
    size_t len, cap;
} text_buf;

static int buf_append(text_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static void buf_puts(text_buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

/* Append a cell with pipes and newlines escaped, cut at SQL_TOOL_MAX_CELL
 * bytes on a UTF-8 boundary. */
static void buf_cell(text_buf *b, const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p; p++, n++) {
        if (n >= SQL_TOOL_MAX_CELL && ((unsigned char)*p & 0xC0) != 0x80) {
            buf_puts(b, "…");
            return;
        }
        if (*p == '|')
            buf_puts(b, "\\|");
        else if (*p == '\n')
            buf_puts(b, "\\n");
        else if (*p == '\r')
            buf_puts(b, "\\r");
        else
            buf_append(b, p, 1);
    }
}

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

static void render_header(text_buf *b, store_stmt *st)
{
    int cols = store_column_count(st);
    buf_puts(b, "|");
    for (int c = 0; c < cols; c++) {
        buf_puts(b, " ");
        buf_cell(b, store_column_name(st, c));
        buf_puts(b, " |");
    }
    buf_puts(b, "\n|");
    for (int c = 0; c < cols; c++)
        buf_puts(b, " --- |");
    buf_puts(b, "\n");
}

static void render_row(text_buf *b, store_stmt *st)
{
    int cols = store_column_count(st);
    buf_puts(b, "|");
    for (int c = 0; c < cols; c++) {
        buf_puts(b, " ");
        if (store_column_type(st, c) == STORE_NULL) {
            buf_puts(b, "NULL");
        } else if (store_column_type(st, c) == STORE_BLOB) {
            char tmp[64];
            snprintf(tmp, sizeof tmp, "<binary %zu bytes>", store_column_bytes(st, c));
            buf_puts(b, tmp);
        } else {
            buf_cell(b, store_column_text(st, c));
        }
        buf_puts(b, " |");
    }
    buf_puts(b, "\n");
}

int tools_sql_handler(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    if (!env->query_db)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the tool could not run",
                                       "no query connection for SQL tool %s", env->tool->name);
    char *sql = NULL;
    if (asprintf(&sql, "/* dbmcp call_id=%s tool=%s */ %s", env->call_id, env->tool->name,
                 env->tool->handler) < 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    store_stmt *st;
    int rc = store_prepare(env->query_db, sql, &st, err);
    free(sql);
    if (rc)
        return rc;
    bind_all(env, st, args);
    text_buf b = {0};
    int64_t rows = 0;
    int more = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (rows == 0)
            render_header(&b, st);
        if (rows == SQL_TOOL_MAX_ROWS) {
            more = 1;
            break;
        }
        render_row(&b, st);
        rows++;
        if (env->cancelled && *env->cancelled) {
            rc = dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
            break;
        }
    }
    if (rows == 0 && rc == STORE_DONE)
        buf_puts(&b, "(no rows)\n");
    store_finalize(st);
    if (rc < 0) {
        free(b.data);
        return rc;
    }
    char meta[128];
    snprintf(meta, sizeof meta, "\n%lld row%s%s", (long long)rows, rows == 1 ? "" : "s",
             more ? " shown; more rows exist" : "");
    buf_puts(&b, meta);
    tool_output_text(out, b.data ? b.data : "");
    free(b.data);
    env->rows = rows;
    return 0;
}
