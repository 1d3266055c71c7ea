/*
 * registry.h — dbmcp's own tables as C structs: interfaces, tools, prompts,
 * resources, resource templates, API keys, settings and the audit log.
 *
 * All registry SQL lives in store/ (this file's .c, registry_admin.c and
 * registry_audit.c), so the PostgreSQL backend changes SQL here and nowhere
 * else. Above this layer, catalog/ validates rows and serves per-interface
 * snapshots.
 *
 * Ownership: every struct filled here owns its strings and json_t values;
 * release with the matching *_free (which also accepts zeroed structs).
 * Arrays returned as (T **out, size_t *n) are freed with *_array_free.
 */
#ifndef DBMCP_STORE_REGISTRY_H
#define DBMCP_STORE_REGISTRY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct reg_interface {
    char *name;
    char *title;        /* may be NULL */
    char *description;  /* never NULL after a load */
    char *instructions; /* may be NULL: use the built-in default */
    int enabled;
} reg_interface;

typedef struct reg_tool {
    char *name;
    char *title; /* may be NULL */
    char *description;
    json_t *input_schema;  /* object */
    json_t *output_schema; /* object or NULL */
    json_t *annotations;   /* object or NULL */
    char *handler_kind;    /* "builtin" or "sql" */
    char *handler;         /* builtin name or SQL text */
    int enabled;
    int position; /* order within an interface (0 when loaded outside one) */
} reg_tool;

typedef struct reg_prompt {
    char *name;
    char *title; /* may be NULL */
    char *description;
    char *kind;        /* "system", "extended_system" or "user" */
    json_t *arguments; /* array of {name, description, required} */
    json_t *messages;  /* array of PromptMessage with {{placeholders}} */
    int enabled;
} reg_prompt;

typedef struct reg_resource {
    char *uri;
    char *name;
    char *title;       /* may be NULL */
    char *description; /* may be NULL */
    char *mime_type;
    json_t *annotations; /* object or NULL */
    char *text;          /* content when loaded by reg_resource_read, else NULL */
    unsigned char *blob; /* binary content when loaded by reg_resource_read, else NULL */
    size_t blob_size;
    int64_t size; /* content length in bytes */
    int enabled;
} reg_resource;

typedef struct reg_template {
    char *uri_template;
    char *name;
    char *title;       /* may be NULL */
    char *description; /* may be NULL */
    char *mime_type;
    char *handler_kind; /* "builtin" or "sql" */
    char *handler;
    json_t *completions; /* object or NULL */
    int enabled;
} reg_template;

typedef struct reg_versions {
    int64_t tools;     /* bumped by triggers on tool/interface changes */
    int64_t prompts;   /* … prompt changes */
    int64_t resources; /* … resource and template changes */
} reg_versions;

typedef struct reg_api_key {
    char *id;
    char *principal;
    char *secret_hash; /* hex */
    char *interface;
    char *user_id;  /* may be NULL */
    char *agent_id; /* may be NULL */
    char *description;
    char *created_at;
    char *last_used_at; /* may be NULL */
    char *revoked_at;   /* may be NULL */
    char *role;         /* "client" or "admin" (the console); NULL on insert: "client" */
} reg_api_key;

/* One audit row; strings are borrowed by reg_audit_insert (not freed). */
typedef struct reg_audit_row {
    char call_id[40];
    char ts[32];
    char principal[129];
    char key_id[33];
    char interface[65];
    char user_id[129];
    char agent_id[129];
    char client_name[129];
    char client_version[65];
    char model[129];
    char transport[16];
    char protocol[16];
    char method[32];
    char trace_id[33];  /* W3C trace id (32 hex digits) of the request, or "" */
    char *target;       /* owned by the row's creator; may be NULL */
    const char *status; /* static string: ok | error | denied | cancelled */
    const char *error_class;
    char *error_detail; /* owned by the row's creator; may be NULL */
    char *sql_text;     /* owned by the row's creator; may be NULL */
    char *change_json;  /* an admin action's {"before","after"} (owned by the row's
                           creator); NULL for calls */
    double duration_ms;
    int64_t bytes_out;
    int64_t rows_out; /* -1 = not applicable */
    /* An OIDC caller's token: sub, iss, jti ("" = none, stored as NULL). */
    char auth_subject[129];
    char auth_issuer[257];
    char auth_token_id[129];
} reg_audit_row;

/* --- free ---------------------------------------------------------------- */
void reg_interface_free(reg_interface *v);
void reg_tool_free(reg_tool *v);
void reg_prompt_free(reg_prompt *v);
void reg_resource_free(reg_resource *v);
void reg_template_free(reg_template *v);
void reg_api_key_free(reg_api_key *v);
void reg_tool_array_free(reg_tool *v, size_t n);
void reg_prompt_array_free(reg_prompt *v, size_t n);
void reg_resource_array_free(reg_resource *v, size_t n);
void reg_template_array_free(reg_template *v, size_t n);
void reg_interface_array_free(reg_interface *v, size_t n);
void reg_api_key_array_free(reg_api_key *v, size_t n);

/* --- read path (per interface, enabled rows only) ------------------------- */

/* DBMCP_ENOTFOUND when missing (disabled interfaces are returned with enabled=0). */
int reg_interface_get(store *db, const char *name, reg_interface *out, dbmcp_error *err);
/* Enabled tools of an interface in (position, name) order. */
int reg_tools_for_interface(store *db, const char *iface, reg_tool **out, size_t *n,
                            dbmcp_error *err);
int reg_prompts_for_interface(store *db, const char *iface, reg_prompt **out, size_t *n,
                              dbmcp_error *err);
/* Enabled resources the interface exposes (metadata only, no content), by URI. */
int reg_resources_for_interface(store *db, const char *iface, reg_resource **out, size_t *n,
                                dbmcp_error *err);
int reg_templates_for_interface(store *db, const char *iface, reg_template **out, size_t *n,
                                dbmcp_error *err);
/* One enabled resource with content, if the interface exposes it (iface
 * NULL: no exposure check, for URIs a template already authorised);
 * DBMCP_ENOTFOUND otherwise. */
int reg_resource_read(store *db, const char *iface, const char *uri, reg_resource *out,
                      dbmcp_error *err);
int reg_versions_get(store *db, reg_versions *out, dbmcp_error *err);
/* updated_at of a resource row (malloc'd), or NULL when missing. Used to
 * tell subscribers which resource changed. */
char *reg_resource_stamp(store *db, const char *uri);

/* --- settings ------------------------------------------------------------- */

/* A malloc'd copy of the value, or NULL when unset. */
char *reg_setting_get(store *db, const char *key);
/* Insert or replace one setting's value (updated_at now); a running server
 * reads it at its next poll, or on SIGHUP for settings read at start. */
int reg_setting_put(store *db, const char *key, const char *value, dbmcp_error *err);
/* Delete one setting (back to its default); 0 also when it was unset. */
int reg_setting_delete(store *db, const char *key, dbmcp_error *err);
/* All settings as a new JSON object {key: value-string}. */
int reg_settings_all(store *db, json_t **out, dbmcp_error *err);

/* --- API keys --------------------------------------------------------------- */

/* Insert a key (and its principal if new) in one transaction. */
int reg_api_key_insert(store *db, const reg_api_key *key, dbmcp_error *err);
int reg_api_key_get(store *db, const char *id, reg_api_key *out, dbmcp_error *err);
int reg_api_key_list(store *db, reg_api_key **out, size_t *n, dbmcp_error *err);
/* Set revoked_at; DBMCP_ENOTFOUND when no such key. */
int reg_api_key_revoke(store *db, const char *id, dbmcp_error *err);
/* Best-effort last_used_at update. */
void reg_api_key_touch(store *db, const char *id);

/* --- audit ---------------------------------------------------------------- */

/* Insert rows in one transaction. */
int reg_audit_insert(store *db, const reg_audit_row *rows, size_t n, dbmcp_error *err);

/* Who made an admin change (strings borrowed; NULL is stored as ""). */
typedef struct reg_admin_actor {
    const char *principal;   /* the console's key principal; the CLI's OS user */
    const char *key_id;      /* the console's admin key; NULL for the CLI */
    const char *interface;   /* the key's interface; NULL for the CLI */
    const char *client_name; /* "dbmcp console", "dbmcp cli" */
    const char *transport;   /* "console", "cli" */
} reg_admin_actor;

/* One audit row for an admin action (the console's and the CLI's alike):
 * method "admin/ACTION" (e.g. "admin/plans.update", "admin/tools.enable"),
 * target the row's key, status ok or error, change_json the change as
 * {"before": …, "after": …} (NULL: none), stamped now. */
int reg_audit_admin(store *db, const reg_admin_actor *who, const char *action, const char *target,
                    const char *status, const json_t *change, dbmcp_error *err);

/* Filters for reg_audit_list; NULL fields match everything. */
typedef struct reg_audit_filter {
    const char *since;  /* ISO-8601 lower bound on ts */
    const char *target; /* tool name, URI or prompt name */
    const char *status; /* ok | error | denied | cancelled */
    int limit;          /* newest rows kept; default 100 */
} reg_audit_filter;

/* Called once per row with 13 columns (ts, call_id, principal, interface,
 * client_name, model, transport, method, target, status, error_class,
 * duration_ms, bytes_out); any may be NULL. */
typedef void (*reg_audit_row_fn)(void *ctx, const char *const *cols);

/* Audit rows matching f, oldest first. */
int reg_audit_list(store *db, const reg_audit_filter *f, reg_audit_row_fn fn, void *ctx,
                   dbmcp_error *err);

/* --- audited SQL (registry_audit.c): promotion of ad-hoc queries ---------- */

/* One audited call as promotion needs it; owns its strings (free with
 * reg_audit_call_free). */
typedef struct reg_audit_call {
    char *call_id;
    char *ts;
    char *method;   /* "tools/call", … */
    char *target;   /* tool name; may be NULL */
    char *status;   /* ok | error | denied | cancelled */
    char *sql_text; /* NULL when not recorded */
} reg_audit_call;

void reg_audit_call_free(reg_audit_call *c);
/* The audit row of call_id (the first, if a call wrote several);
 * DBMCP_ENOTFOUND "no audited call with id 'x'". */
int reg_audit_call_get(store *db, const char *call_id, reg_audit_call *out, dbmcp_error *err);

/* Called once per audited query, oldest first. */
typedef void (*reg_audit_sql_fn)(void *ctx, const char *call_id, const char *ts,
                                 const char *sql_text);

/* The recorded SQL texts of successful calls of tool `target` (e.g.
 * "execute_query") at or after since (ISO-8601, NULL = all): the newest
 * max_rows of them, passed to fn oldest first. */
int reg_audit_sql_texts(store *db, const char *target, const char *since, int max_rows,
                        reg_audit_sql_fn fn, void *ctx, dbmcp_error *err);

/* ==========================================================================
 * Admin writes (registry_admin.c): the catalog administration the CLI and
 * the admin UI use. Rows are validated by catalog/ before they get here;
 * these functions check existence, write the row and its interface
 * membership in ONE transaction, and leave the database unchanged on any
 * failure. Missing rows are DBMCP_ENOTFOUND ("no tool named 'x'"), taken
 * keys DBMCP_EEXISTS ("tool 'x' already exists").
 * ========================================================================== */

/* The kinds of catalog rows the admin functions address by key (name, URI
 * or URI template). */
typedef enum reg_kind {
    REG_INTERFACE, /* dbmcp_interfaces, by name */
    REG_TOOL,      /* dbmcp_tools, by name; members of interfaces */
    REG_PROMPT,    /* dbmcp_prompts, by name; members of interfaces */
    REG_RESOURCE,  /* dbmcp_resources, by URI; exposed by interfaces */
    REG_TEMPLATE,  /* dbmcp_resource_templates, by URI template; exposed too */
    REG_PLAN       /* dbmcp_plans, by name (rows and children: plans_store.h) */
} reg_kind;

/* A list of names (interfaces). Filled lists own their strings: release
 * with reg_names_free. Lists passed in are borrowed. */
typedef struct reg_names {
    char **v;
    size_t n;
} reg_names;

void reg_names_free(reg_names *names);
/* "interface", "tool", "prompt", "resource", "resource template" or "plan". */
const char *reg_kind_label(reg_kind kind);

/* --- whole-catalog reads (disabled rows included) ------------------------ */

int reg_interface_list_all(store *db, reg_interface **out, size_t *n, dbmcp_error *err);
int reg_tool_list_all(store *db, reg_tool **out, size_t *n, dbmcp_error *err);
int reg_prompt_list_all(store *db, reg_prompt **out, size_t *n, dbmcp_error *err);
/* Metadata and size only (no content). */
int reg_resource_list_all(store *db, reg_resource **out, size_t *n, dbmcp_error *err);
int reg_template_list_all(store *db, reg_template **out, size_t *n, dbmcp_error *err);

/* One row by key, enabled or not; DBMCP_ENOTFOUND when missing. */
int reg_tool_get(store *db, const char *name, reg_tool *out, dbmcp_error *err);
int reg_prompt_get(store *db, const char *name, reg_prompt *out, dbmcp_error *err);
/* With content (text or blob). */
int reg_resource_get(store *db, const char *uri, reg_resource *out, dbmcp_error *err);
int reg_template_get(store *db, const char *uri_template, reg_template *out, dbmcp_error *err);
/* created_at and updated_at of a row (malloc'd); DBMCP_ENOTFOUND when missing. */
int reg_row_stamps(store *db, reg_kind kind, const char *key, char **created_at, char **updated_at,
                   dbmcp_error *err);
/* Interfaces a row belongs to, by name: *direct gets those naming it (for
 * resources and templates: by their exact URI); *by_pattern (may be NULL;
 * resources and templates only, else left empty) gets those exposing it
 * only through a 'prefix*' pattern. Interfaces have no membership. */
int reg_memberships_get(store *db, reg_kind kind, const char *key, reg_names *direct,
                        reg_names *by_pattern, dbmcp_error *err);

/* --- writes ---------------------------------------------------------------- */

/* Insert a row; interfaces (may be NULL) become its memberships. Every
 * named interface must exist. */
int reg_interface_insert(store *db, const reg_interface *row, dbmcp_error *err);
int reg_tool_insert(store *db, const reg_tool *row, const reg_names *interfaces, dbmcp_error *err);
int reg_prompt_insert(store *db, const reg_prompt *row, const reg_names *interfaces,
                      dbmcp_error *err);
int reg_resource_insert(store *db, const reg_resource *row, const reg_names *interfaces,
                        dbmcp_error *err);
int reg_template_insert(store *db, const reg_template *row, const reg_names *interfaces,
                        dbmcp_error *err);

/* Replace every column of the row keyed `key` (the row's own key must equal
 * it: renames are not supported) and set updated_at. interfaces NULL keeps
 * the membership; otherwise it replaces it (positions of interfaces kept
 * are preserved; new ones go last). */
int reg_interface_update(store *db, const char *name, const reg_interface *row, dbmcp_error *err);
int reg_tool_update(store *db, const char *name, const reg_tool *row, const reg_names *interfaces,
                    dbmcp_error *err);
int reg_prompt_update(store *db, const char *name, const reg_prompt *row,
                      const reg_names *interfaces, dbmcp_error *err);
int reg_resource_update(store *db, const char *uri, const reg_resource *row,
                        const reg_names *interfaces, dbmcp_error *err);
int reg_template_update(store *db, const char *uri_template, const reg_template *row,
                        const reg_names *interfaces, dbmcp_error *err);

/* Add (member nonzero) or remove one membership: interface iface lists
 * the tool or prompt `key` (a tool or prompt goes last), or exposes the
 * resource, resource template or 'prefix*' pattern `key` (REG_RESOURCE
 * and REG_TEMPLATE share one table). DBMCP_ENOTFOUND when the interface,
 * or on add the row, does not exist. *changed is 0 when the membership
 * already was as asked (nothing written). Sets the interface's
 * updated_at; the catalog-version triggers tell running servers. One
 * transaction. */
int reg_membership_set(store *db, reg_kind kind, const char *iface, const char *key, int member,
                       int *changed, dbmcp_error *err);
/* Set the enabled flag (and updated_at). */
int reg_set_enabled(store *db, reg_kind kind, const char *key, int enabled, dbmcp_error *err);
/* Delete a row with its memberships. A prompt or interface still named by
 * a plan or an API key is refused (DBMCP_EINVAL naming the user). */
int reg_remove(store *db, reg_kind kind, const char *key, dbmcp_error *err);

/* --- SQL handlers ------------------------------------------------------------ */

/* Called once per parameter of a checked statement with its name as
 * written (":year"), or NULL for a positional "?". Nonzero stops the check
 * and becomes its result. */
typedef int (*reg_sql_param_fn)(const char *param, void *ctx, dbmcp_error *err);

/* Check handler SQL against the read-only connection ro: it must prepare as
 * one statement, write nothing and return rows. Then each parameter is
 * passed to fn. Nothing is executed. A statement ro refuses (writes, schema
 * changes, PRAGMA, transaction control, dbmcp's own tables) is DBMCP_EDENIED
 * with the reason named. */
int reg_sql_check_query(store *ro, const char *sql, reg_sql_param_fn fn, void *ctx,
                        dbmcp_error *err);

#endif
