/*
 * search_tools.h — document search for agents: the builtin tool
 * search_documents (BUILTIN_INTERNAL: it reads dbmcp_documents/chunks
 * through tool_env.internal_db) and the reader behind the resource
 * template doc://{collection}/{slug}/chunks/{n} (handler
 * "document_chunk"), which mcp/methods.c calls with a catalog handle.
 *
 * Scope: both only see documents whose URI the caller's interface exposes
 * (dbmcp_interface_resources, the resources/list rule), so search never
 * shows a passage the caller could not read as a resource.
 */
#ifndef DBMCP_TOOLS_SEARCH_TOOLS_H
#define DBMCP_TOOLS_SEARCH_TOOLS_H

#include <jansson.h>

#include "core/error.h"
#include "store/store.h"

/* The template handler name of chunk resources. */
#define TOOLS_DOCUMENT_CHUNK_HANDLER "document_chunk"

/* Content of doc://{collection}/{slug}/chunks/{n} (vars holds collection,
 * slug, n) for interface iface: a header line naming the document, heading
 * and byte offsets, a blank line, then the passage text. DBMCP_ENOTFOUND
 * when the chunk does not exist or its document is not exposed to iface.
 * Caller frees *text. */
int tools_document_chunk_read(store *db, const char *iface, const json_t *vars, char **text,
                              dbmcp_error *err);

#endif
