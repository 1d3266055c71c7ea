/*
 * sql_tag.c — the comment tag every statement from a tool carries, so a
 * database-side log line (slow query log, engine trace) can be joined to the
 * audit row of the call that ran it; and the call's names and bounds the
 * query connection opens it with (store_call_begin), which tag it there too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tools/tool.h"

#define SQL_TAG_FIELD 64 /* longest value of one field */

/* Copy one tag value: characters that could end the comment or confuse a
 * log parser become '_'; empty is "-". */
static void tag_field(char *out, size_t size, const char *value)
{
    size_t n = 0;
    for (const char *p = value ? value : ""; *p && n + 1 < size && n < SQL_TAG_FIELD; p++) {
        char c = *p;
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == ':' || c == '@' || c == '+' ||
                    c == '/';
        out[n++] = plain ? c : '_';
    }
    if (n == 0 && size > 1)
        out[n++] = '-';
    out[n] = '\0';
}

char *tool_tagged_sql(const tool_env *env, const char *sql)
{
    return tool_tag_sql(env->call_id, env->tool ? env->tool->name : NULL, env->client_name,
                        env->model, sql);
}

char *tool_tag_sql(const char *call_id_value, const char *tool_value, const char *client_value,
                   const char *model_value, const char *sql)
{
    char call_id[SQL_TAG_FIELD + 1], tool[SQL_TAG_FIELD + 1];
    char client[SQL_TAG_FIELD + 1], model[SQL_TAG_FIELD + 1];
    tag_field(call_id, sizeof call_id, call_id_value);
    tag_field(tool, sizeof tool, tool_value);
    tag_field(client, sizeof client, client_value);
    tag_field(model, sizeof model, model_value);
    char *out = NULL;
    if (asprintf(&out, "/* dbmcp call_id=%s tool=%s client=%s model=%s */ %s", call_id, tool,
                 client, model, sql) < 0)
        return NULL;
    return out;
}

store_call tool_store_call(tool_env *env, int time_limit_ms)
{
    long memory = env->setting_long
                      ? env->setting_long(env, "query.max_memory_bytes", TOOLS_QUERY_MEMORY_DEFAULT)
                      : TOOLS_QUERY_MEMORY_DEFAULT;
    store_call call = {
        .call_id = env->call_id,
        .tool = env->tool ? env->tool->name : NULL,
        .time_limit_ms = time_limit_ms,
        .memory_bytes = tools_query_memory_bytes(memory),
    };
    return call;
}
