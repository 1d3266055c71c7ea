/*
 * registry_internal.h — helpers shared by registry.c (read path) and
 * registry_admin.c (admin writes). Private to store/: nothing above the
 * store layer includes this file.
 *
 * Ownership: column helpers return new memory (free / json_decref); the
 * collect and fill helpers fill structs that own their strings, released
 * with the registry.h *_free functions.
 */
#ifndef DBMCP_STORE_REGISTRY_INTERNAL_H
#define DBMCP_STORE_REGISTRY_INTERNAL_H

#include "store/registry.h"

/* Columns read by registry_fill_tool, for a query aliasing dbmcp_tools as t. */
#define TOOL_COLUMNS                                                                               \
    "t.name, t.title, t.description, t.input_schema, t.output_schema, t.annotations,"              \
    " t.handler_kind, t.handler, t.enabled"

/* Columns read by registry_fill_resource_meta, for dbmcp_resources as r.
 * The %s is the byte length of r.content_text, which differs per dialect:
 * a statement using these columns goes through registry_resource_sql. */
#define RESOURCE_META_COLUMNS                                                                      \
    "r.uri, r.name, r.title, r.description, r.mime_type, r.annotations,"                           \
    " coalesce(%s, length(r.content_blob)), r.enabled"

/* An interface exposes a URI when a dbmcp_interface_resources row names it
 * exactly or is a prefix pattern ending in '*'. */
#define EXPOSED_BY_IFACE(col)                                                                      \
    " EXISTS (SELECT 1 FROM dbmcp_interface_resources ir JOIN dbmcp_interfaces i"                  \
    " ON i.name = ir.interface AND i.enabled = 1 WHERE ir.interface = :iface AND (ir.uri = " col   \
    " OR (substr(ir.uri, length(ir.uri), 1) = '*' AND substr(" col ", 1, length(ir.uri) - 1) ="    \
    " substr(ir.uri, 1, length(ir.uri) - 1))))"

/* A malloc'd copy of column i, or NULL for SQL NULL. */
char *registry_col_strdup(store_stmt *st, int i);
/* Column i parsed as JSON (new reference), or NULL for SQL NULL. */
json_t *registry_col_json(store_stmt *st, int i);
/* Grow *arr (of elem_size) to hold one more element; returns the new slot
 * zeroed, or NULL on allocation failure. */
void *registry_grow(void **arr, size_t *n, size_t *cap, size_t elem_size);

/* A statement fmt using RESOURCE_META_COLUMNS (its only conversion) with
 * the dialect's byte length of r.content_text, into buf. */
int registry_resource_sql(store *db, const char *fmt, char *buf, size_t size, dbmcp_error *err);

/* Fills one array slot from the current row. */
typedef void (*registry_row_fill_fn)(store_stmt *st, void *slot);

/* Step st to the end, filling one new zeroed slot of *out (elem_size
 * bytes, grown with registry_grow) per row; always finalizes st. On error
 * the rows collected so far stay in *out for the caller to free. */
int registry_collect_stmt(store_stmt *st, registry_row_fill_fn fill, size_t elem_size, void **out,
                          size_t *n, dbmcp_error *err);
/* Run sql (with :iface bound when iface is not NULL), calling fill() per row
 * into a new array of elem_size in *out / *n. */
int registry_collect_rows(store *db, const char *sql, const char *iface, registry_row_fill_fn fill,
                          size_t elem_size, void **out, size_t *n, dbmcp_error *err);

/* Row fillers for TOOL_COLUMNS, the prompt columns (name, title,
 * description, kind, arguments, messages, enabled), RESOURCE_META_COLUMNS
 * and the template columns (uri_template, name, title, description,
 * mime_type, handler_kind, handler, completions, enabled). */
void registry_fill_tool(store_stmt *st, void *slot);
void registry_fill_prompt(store_stmt *st, void *slot);
void registry_fill_resource_meta(store_stmt *st, void *slot);
void registry_fill_template(store_stmt *st, void *slot);

/* Append the first column of every row of sql (with :key bound when key
 * is not NULL) to out (reg_names_free releases it; the rows collected so
 * far stay in out on error). */
int registry_collect_names(store *db, const char *sql, const char *key, reg_names *out,
                           dbmcp_error *err);

/* Prepare sql, bind n text values by name, step once. */
int registry_exec_bound(store *db, const char *sql, const char *const *names,
                        const char *const *values, size_t n, dbmcp_error *err);

#endif
