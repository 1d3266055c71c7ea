/*
 * catalog.h — the registry model: what one interface exposes, loaded from
 * the database into an immutable snapshot, and the validation every row
 * passes before it is written.
 *
 * A snapshot holds an interface's enabled tools, prompts, resource metadata
 * and templates, narrowed by the server-wide tool allowlist. The server
 * keeps one per interface and replaces it when the catalog version changes;
 * requests hold a reference, so a replacement never pulls data from under a
 * running call.
 *
 * Ownership: catalog_snapshot_load returns a snapshot with one reference;
 * release with catalog_snapshot_unref. Lookup functions borrow.
 */
#ifndef DBMCP_CATALOG_H
#define DBMCP_CATALOG_H

#include <jansson.h>

#include "core/error.h"
#include "store/registry.h"

typedef struct catalog_snapshot {
    int refs;            /* atomic reference count */
    reg_interface iface; /* the interface row */
    reg_tool *tools;     /* listed tools, in tools/list order */
    size_t n_tools;
    reg_prompt *prompts; /* in prompts/list order */
    size_t n_prompts;
    reg_resource *resources; /* metadata only, by URI */
    size_t n_resources;
    reg_template *templates; /* by URI template */
    size_t n_templates;
    reg_versions versions; /* catalog versions this snapshot reflects */
} catalog_snapshot;

/* --- snapshots ---------------------------------------------------------- */

/* Load interface `iface`. allowed_tools: comma-separated names narrowing
 * the tool list, or NULL. A missing interface is DBMCP_ENOTFOUND; a
 * disabled one loads with no tools, prompts or resources. */
int catalog_snapshot_load(store *db, const char *iface, const char *allowed_tools,
                          catalog_snapshot **out, dbmcp_error *err);
/* Rows edited with plain SQL skip the CLI's validation: drop tools and
 * prompts that would not pass it (logging each once per load), so a broken
 * row is never listed or called. Call right after loading. */
void catalog_snapshot_drop_invalid(catalog_snapshot *s, int (*builtin_exists)(const char *name));
catalog_snapshot *catalog_snapshot_ref(catalog_snapshot *s);
void catalog_snapshot_unref(catalog_snapshot *s);

const reg_tool *catalog_find_tool(const catalog_snapshot *s, const char *name);
const reg_prompt *catalog_find_prompt(const catalog_snapshot *s, const char *name);
const reg_resource *catalog_find_resource(const catalog_snapshot *s, const char *uri);
const reg_template *catalog_find_template_by_uri_template(const catalog_snapshot *s,
                                                          const char *uri_template);
/* The first template whose RFC 6570 level-1 pattern matches uri; *vars gets
 * a new object {name: value} (values percent-decoded). NULL when none. */
const reg_template *catalog_match_template(const catalog_snapshot *s, const char *uri,
                                           json_t **vars);
/* Nonzero when name appears in the comma-separated list (NULL list = all). */
int catalog_name_allowed(const char *list, const char *name);

/* --- validation (run before every write) --------------------------------- */

/* Names: 1–128 chars of [A-Za-z0-9_.-]. */
int catalog_validate_name(const char *kind, const char *name, dbmcp_error *err);
/* A tool row: name, description, input_schema (JSON Schema, root type
 * object), optional output_schema (object root), annotations (object of
 * known hints), handler kind and handler. builtin_exists decides whether a
 * builtin handler name is known (NULL = accept any). */
int catalog_validate_tool(const reg_tool *t, int (*builtin_exists)(const char *name),
                          dbmcp_error *err);
/* A prompt row: kind, arguments array shape, messages shape, and every
 * {{placeholder}} declared as an argument. */
int catalog_validate_prompt(const reg_prompt *p, dbmcp_error *err);
/* A resource: URI shape, mime type, exactly one of text or blob. */
int catalog_validate_resource(const reg_resource *r, dbmcp_error *err);
/* A template: RFC 6570 level-1 braces balanced, handler kind. */
int catalog_validate_template(const reg_template *t, dbmcp_error *err);
/* An execution plan in the `dbmcp plans add` shape (plans_store.h,
 * plans_admin_get): name, interface, prompt names, at least one step of a
 * known kind (a tool step names its tool; arguments an object), rules of a
 * known kind whose regexes compile, required entities listed once,
 * examples of 1-2000 characters; each element refuses unknown keys
 * (validate_plan.c). Existence of what it names is the store's check. */
int catalog_validate_plan(const json_t *plan, dbmcp_error *err);

/* --- prompts -------------------------------------------------------------- */

/* Substitute arguments into a prompt's messages. args is an object of
 * strings (may be NULL). A missing required argument, an undeclared
 * argument or a non-string value is DBMCP_EINVAL naming it. Returns a new
 * messages array in *out. */
int catalog_prompt_render(const reg_prompt *p, const json_t *args, json_t **out, dbmcp_error *err);

#endif
