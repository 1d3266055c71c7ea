/*
 * builtin.c — the table of builtin tool handlers and the general ones
 * (echo, server_info). A catalog row with handler_kind 'builtin' names one
 * of these; conformance fixtures live in conformance.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/builtins.h"
#include "tools/tool.h"

void tool_output_text(tool_output *out, const char *text)
{
    if (!out->content)
        out->content = json_array();
    json_array_append_new(out->content, json_pack("{s:s, s:s}", "type", "text", "text", text));
}

void tool_output_free(tool_output *out)
{
    json_decref(out->content);
    json_decref(out->structured);
    json_decref(out->input_required);
    json_decref(out->missing_capabilities);
    free(out->audit_sql);
    free(out->request_state);
    memset(out, 0, sizeof *out);
}

static int builtin_echo(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env;
    (void)err;
    tool_output_text(out, json_string_value(json_object_get(args, "text")));
    return 0;
}

static int builtin_server_info(tool_env *env, const json_t *args, tool_output *out,
                               dbmcp_error *err)
{
    (void)args;
    (void)err;
    json_t *info =
        json_pack("{s:O, s:s, s:s, s:s}", "server", env->server_info, "interface", env->interface,
                  "principal", env->principal, "protocol", env->protocol ? env->protocol : "");
    char *text = json_dumps(info, JSON_INDENT(2));
    tool_output_text(out, text ? text : "{}");
    free(text);
    out->structured = info;
    return 0;
}

typedef struct builtin_entry {
    const char *name;
    tool_handler_fn fn;
} builtin_entry;

static const builtin_entry general_builtins[] = {
    {"echo", builtin_echo},
    {"server_info", builtin_server_info},
    {"list_tables", tools_schema_list_tables},
    {"describe_table", tools_schema_describe_table},
    {"search_objects", tools_schema_search_objects},
    {"execute_query", tools_execute_query},
    {NULL, NULL},
};

/* Builtins that read user data: the dispatcher checks out a read-only
 * query connection (tool_env.query_db) for them, as for SQL handlers. */
static const char *const query_builtins[] = {"list_tables", "describe_table", "search_objects",
                                             "execute_query", NULL};

int tools_builtin_needs_query(const char *name)
{
    for (int i = 0; name && query_builtins[i]; i++)
        if (strcmp(query_builtins[i], name) == 0)
            return 1;
    return 0;
}

/* Builtins that only compute from their arguments: bounded CPU, no I/O, no
 * waiting on the client. Transports may run them on the reading thread. */
static const char *const quick_builtins[] = {"echo", "server_info", NULL};

int tools_builtin_is_quick(const char *name)
{
    for (int i = 0; name && quick_builtins[i]; i++)
        if (strcmp(quick_builtins[i], name) == 0)
            return 1;
    return 0;
}

tool_handler_fn tools_builtin_find(const char *name)
{
    if (!name)
        return NULL;
    for (const builtin_entry *e = general_builtins; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e->fn;
    return tools_conformance_find(name);
}

int tools_builtin_exists(const char *name)
{
    return tools_builtin_find(name) != NULL;
}
