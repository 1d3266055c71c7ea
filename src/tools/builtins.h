/*
 * builtins.h — private to tools/: lookup into the groups of builtin
 * handlers kept in their own files.
 */
#ifndef DBMCP_TOOLS_BUILTINS_H
#define DBMCP_TOOLS_BUILTINS_H

#include "tools/tool.h"

/* Fixture tools of the official MCP conformance suite (conformance.c). */
tool_handler_fn tools_conformance_find(const char *name);

#endif
