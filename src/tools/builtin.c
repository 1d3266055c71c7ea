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
    free(out->protocol_error);
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

static const builtin_entry general_builtins[] = {
    {"echo", builtin_echo, BUILTIN_QUICK},
    {"server_info", builtin_server_info, BUILTIN_QUICK},
    {"list_tables", tools_schema_list_tables, BUILTIN_QUERY},
    {"describe_table", tools_schema_describe_table, BUILTIN_QUERY},
    {"search_objects", tools_schema_search_objects, BUILTIN_QUERY},
    {"execute_query", tools_execute_query, BUILTIN_QUERY | BUILTIN_AGENT_SQL | BUILTIN_TASK},
    {NULL, NULL, 0},
};

/* Every group of builtins; a module adds its table here. */
static const builtin_entry *const builtin_groups[] = {
    general_builtins, tools_thesaurus_builtins, tools_memory_builtins, tools_search_builtins, NULL,
};

static const builtin_entry *find_entry(const char *name)
{
    for (int g = 0; name && builtin_groups[g]; g++)
        for (const builtin_entry *e = builtin_groups[g]; e->name; e++)
            if (strcmp(e->name, name) == 0)
                return e;
    return NULL;
}

int tools_builtin_is_quick(const char *name)
{
    const builtin_entry *e = find_entry(name);
    return e && (e->flags & BUILTIN_QUICK);
}

int tools_builtin_needs_query(const char *name)
{
    const builtin_entry *e = find_entry(name);
    return e && (e->flags & BUILTIN_QUERY);
}

int tools_builtin_only_query(const char *name)
{
    const builtin_entry *e = find_entry(name);
    return e && (e->flags & (BUILTIN_QUERY | BUILTIN_INTERNAL)) == BUILTIN_QUERY;
}

int tools_builtin_runs_agent_sql(const char *name)
{
    const builtin_entry *e = find_entry(name);
    return e && (e->flags & BUILTIN_AGENT_SQL);
}

int tools_builtin_needs_internal(const char *name)
{
    const builtin_entry *e = find_entry(name);
    return e && (e->flags & BUILTIN_INTERNAL);
}

tool_handler_fn tools_builtin_find(const char *name)
{
    if (!name)
        return NULL;
    const builtin_entry *e = find_entry(name);
    return e ? e->fn : tools_conformance_find(name);
}

tools_task_kind tools_task_support(const reg_tool *t)
{
    if (strcmp(t->handler_kind, "sql") == 0)
        return TOOLS_TASK_OPTIONAL;
    const builtin_entry *e = find_entry(t->handler);
    if (e)
        return e->flags & BUILTIN_TASK ? TOOLS_TASK_OPTIONAL : TOOLS_TASK_FORBIDDEN;
    return tools_conformance_task_support(t->handler);
}

const char *tools_task_kind_name(tools_task_kind k)
{
    return k == TOOLS_TASK_REQUIRED   ? "required"
           : k == TOOLS_TASK_OPTIONAL ? "optional"
                                      : "forbidden";
}

int tools_builtin_exists(const char *name)
{
    return tools_builtin_find(name) != NULL;
}
