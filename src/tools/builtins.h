/*
 * builtins.h — private to tools/: lookup into the groups of builtin
 * handlers kept in their own files.
 */
#ifndef DBMCP_TOOLS_BUILTINS_H
#define DBMCP_TOOLS_BUILTINS_H

#include "tools/tool.h"

/* What the dispatcher must prepare for a builtin. */
#define BUILTIN_QUICK 0x1     /* pure computation: may run on the reading thread */
#define BUILTIN_QUERY 0x2     /* reads user data: gets tool_env.query_db */
#define BUILTIN_INTERNAL 0x4  /* reads/writes dbmcp's own tables: gets tool_env.internal_db */
#define BUILTIN_AGENT_SQL 0x8 /* runs SQL the agent wrote: counted against query.max_concurrent */
#define BUILTIN_TASK 0x10     /* may run long: its calls may become tasks */

/* One row of a module's table of builtins, ended by {NULL, NULL, 0}.
 * builtin.c lists every module's table. */
typedef struct builtin_entry {
    const char *name;
    tool_handler_fn fn;
    int flags;
} builtin_entry;

/* Fixture tools of the official MCP conformance suite (conformance.c). */
tool_handler_fn tools_conformance_find(const char *name);
/* Task support of a conformance fixture (FORBIDDEN for other names). */
tools_task_kind tools_conformance_task_support(const char *name);

/* Schema discovery over the query connection (schema_tools.c). */
int tools_schema_list_tables(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err);
int tools_schema_describe_table(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err);
int tools_schema_search_objects(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err);

/* Agent-written SQL through admission and the guarded connection
 * (execute_query.c). */
int tools_execute_query(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err);

/* Thesaurus lookup, graph walks and shortest paths (thesaurus_tools.c). */
extern const builtin_entry tools_thesaurus_builtins[];

/* Agent memory: sessions, episodes, knowledge, recall, links (memory_tools.c). */
extern const builtin_entry tools_memory_builtins[];
/* Document search: search_documents (search_tools.c). */
extern const builtin_entry tools_search_builtins[];

#endif
