/*
 * registry.h — dbmcp's own tables as C structs: interfaces, tools, prompts,
 * resources, resource templates, API keys, settings and the audit log.
 *
 * All registry SQL lives in store/ (this file's .c and registry_admin.c),
 * so the PostgreSQL backend changes SQL here and nowhere else. Above this
 * layer, catalog/ validates rows and serves per-interface snapshots.
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
    char *title;           /* may be NULL */
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
} reg_api_key;

/* One audit row; strings are borrowed by reg_audit_insert (not freed). */
typedef struct reg_audit_row {
    char call_id[40];
    char ts[32];
    char principal[129];
    char interface[65];
    char user_id[129];
    char agent_id[129];
    char client_name[129];
    char client_version[65];
    char model[129];
    char transport[16];
    char protocol[16];
    char method[32];
    char *target;       /* owned by the row's creator; may be NULL */
    const char *status; /* static string: ok | error | denied | cancelled */
    const char *error_class;
    char *error_detail; /* owned by the row's creator; may be NULL */
    double duration_ms;
    int64_t bytes_out;
    int64_t rows_out; /* -1 = not applicable */
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

#endif
