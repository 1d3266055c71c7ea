/*
 * registry_admin.c — admin writes of the registry: whole-catalog
 * listings, single-row reads by key, inserts, updates, enable/disable and
 * removal of interfaces, tools, prompts, resources and resource templates,
 * with their interface memberships; and the check of handler SQL against a
 * read-only connection. See the "admin writes" section of registry.h.
 *
 * Every write runs in one transaction: existence checks, the row and its
 * memberships commit together or not at all, so a refused write leaves the
 * database exactly as it was. Table and column names come from the kinds[]
 * table below, never from callers; values are always bound.
 */
#include "store/registry.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "store/dialect.h"
#include "store/registry_internal.h"

#define PROMPT_COLUMNS "p.name, p.title, p.description, p.kind, p.arguments, p.messages, p.enabled"
#define TEMPLATE_COLUMNS                                                                           \
    "t.uri_template, t.name, t.title, t.description, t.mime_type, t.handler_kind, t.handler,"      \
    " t.completions, t.enabled"

/* Where each kind lives. */
typedef struct kind_desc {
    const char *label;         /* for messages: "tool" */
    const char *table;         /* the row's table */
    const char *key_column;    /* its primary key */
    const char *key_phrase;    /* "named" in "no tool named 'x'" */
    const char *member_table;  /* membership table, or NULL */
    const char *member_column; /* the column naming the row there */
    int member_position;       /* nonzero: the membership has a position */
} kind_desc;

static const kind_desc kinds[] = {
    [REG_INTERFACE] = {"interface", "dbmcp_interfaces", "name", "named", NULL, NULL, 0},
    [REG_TOOL] = {"tool", "dbmcp_tools", "name", "named", "dbmcp_interface_tools", "tool", 1},
    [REG_PROMPT] = {"prompt", "dbmcp_prompts", "name", "named", "dbmcp_interface_prompts", "prompt",
                    1},
    [REG_RESOURCE] = {"resource", "dbmcp_resources", "uri", "with URI", "dbmcp_interface_resources",
                      "uri", 0},
    [REG_TEMPLATE] = {"resource template", "dbmcp_resource_templates", "uri_template",
                      "with URI template", "dbmcp_interface_resources", "uri", 0},
    [REG_PLAN] = {"plan", "dbmcp_plans", "name", "named", NULL, NULL, 0},
};

const char *reg_kind_label(reg_kind kind)
{
    return kinds[kind].label;
}

void reg_names_free(reg_names *names)
{
    if (!names)
        return;
    for (size_t i = 0; i < names->n; i++)
        free(names->v[i]);
    free(names->v);
    memset(names, 0, sizeof *names);
}

static int not_found(const kind_desc *k, const char *key, dbmcp_error *err)
{
    return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no %s %s '%s'", k->label, k->key_phrase, key);
}

/* Prepare sql, bind :key, step once: STORE_ROW (statement in *out, to
 * finalize), STORE_DONE (likewise) or a negative code (nothing to finalize). */
static int query_key(store *db, const char *sql, const char *key, store_stmt **out,
                     dbmcp_error *err)
{
    int rc = store_prepare(db, sql, out, err);
    if (rc)
        return rc;
    store_bind_text(*out, ":key", key);
    rc = store_step(*out, err);
    if (rc < 0) {
        store_finalize(*out);
        *out = NULL;
    }
    return rc;
}

static int row_exists(store *db, const kind_desc *k, const char *key, int *exists, dbmcp_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s WHERE %s = :key", k->table, k->key_column);
    store_stmt *st;
    int rc = query_key(db, sql, key, &st, err);
    if (rc < 0)
        return rc;
    *exists = rc == STORE_ROW;
    store_finalize(st);
    return 0;
}

int registry_collect_names(store *db, const char *sql, const char *key, reg_names *out,
                           dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (key)
        store_bind_text(st, ":key", key);
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        char **slot = registry_grow((void **)&out->v, &out->n, &cap, sizeof *out->v);
        if (!slot || !(*slot = registry_col_strdup(st, 0))) {
            if (slot)
                out->n--;
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- whole-catalog reads ------------------------------------------------- */

static void fill_interface(store_stmt *st, void *slot)
{
    reg_interface *v = slot;
    v->name = registry_col_strdup(st, 0);
    v->title = registry_col_strdup(st, 1);
    v->description = registry_col_strdup(st, 2);
    v->instructions = registry_col_strdup(st, 3);
    v->enabled = (int)store_column_int(st, 4);
}

int reg_interface_list_all(store *db, reg_interface **out, size_t *n, dbmcp_error *err)
{
    return registry_collect_rows(db,
                                 "SELECT name, title, description, instructions, enabled"
                                 " FROM dbmcp_interfaces ORDER BY name",
                                 NULL, fill_interface, sizeof(reg_interface), (void **)out, n, err);
}

int reg_tool_list_all(store *db, reg_tool **out, size_t *n, dbmcp_error *err)
{
    return registry_collect_rows(db, "SELECT " TOOL_COLUMNS " FROM dbmcp_tools t ORDER BY t.name",
                                 NULL, registry_fill_tool, sizeof(reg_tool), (void **)out, n, err);
}

int reg_prompt_list_all(store *db, reg_prompt **out, size_t *n, dbmcp_error *err)
{
    return registry_collect_rows(
        db, "SELECT " PROMPT_COLUMNS " FROM dbmcp_prompts p ORDER BY p.name", NULL,
        registry_fill_prompt, sizeof(reg_prompt), (void **)out, n, err);
}

int reg_resource_list_all(store *db, reg_resource **out, size_t *n, dbmcp_error *err)
{
    char sql[512];
    *out = NULL;
    *n = 0;
    int rc = registry_resource_sql(
        db, "SELECT " RESOURCE_META_COLUMNS " FROM dbmcp_resources r ORDER BY r.uri", sql,
        sizeof sql, err);
    if (rc)
        return rc;
    return registry_collect_rows(db, sql, NULL, registry_fill_resource_meta, sizeof(reg_resource),
                                 (void **)out, n, err);
}

int reg_template_list_all(store *db, reg_template **out, size_t *n, dbmcp_error *err)
{
    return registry_collect_rows(
        db, "SELECT " TEMPLATE_COLUMNS " FROM dbmcp_resource_templates t ORDER BY t.uri_template",
        NULL, registry_fill_template, sizeof(reg_template), (void **)out, n, err);
}

/* --- single rows ------------------------------------------------------------ */

/* Run sql with :key bound and fill *slot from its one row. */
static int get_one(store *db, reg_kind kind, const char *sql, const char *key,
                   registry_row_fill_fn fill, void *slot, dbmcp_error *err)
{
    store_stmt *st;
    int rc = query_key(db, sql, key, &st, err);
    if (rc < 0)
        return rc;
    if (rc == STORE_ROW)
        fill(st, slot);
    store_finalize(st);
    return rc == STORE_ROW ? 0 : not_found(&kinds[kind], key, err);
}

int reg_tool_get(store *db, const char *name, reg_tool *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    return get_one(db, REG_TOOL, "SELECT " TOOL_COLUMNS " FROM dbmcp_tools t WHERE t.name = :key",
                   name, registry_fill_tool, out, err);
}

int reg_prompt_get(store *db, const char *name, reg_prompt *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    return get_one(db, REG_PROMPT,
                   "SELECT " PROMPT_COLUMNS " FROM dbmcp_prompts p WHERE p.name = :key", name,
                   registry_fill_prompt, out, err);
}

/* Metadata plus content_text (column 8) and content_blob (column 9). */
static void fill_resource_full(store_stmt *st, void *slot)
{
    reg_resource *r = slot;
    registry_fill_resource_meta(st, r);
    r->text = registry_col_strdup(st, 8);
    if (store_column_type(st, 9) == STORE_BLOB) {
        r->blob_size = store_column_bytes(st, 9);
        r->blob = malloc(r->blob_size ? r->blob_size : 1);
        if (r->blob && r->blob_size)
            memcpy(r->blob, store_column_blob(st, 9), r->blob_size);
    }
}

int reg_resource_get(store *db, const char *uri, reg_resource *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    char sql[512];
    int rc = registry_resource_sql(db,
                                   "SELECT " RESOURCE_META_COLUMNS ", r.content_text,"
                                   " r.content_blob FROM dbmcp_resources r WHERE r.uri = :key",
                                   sql, sizeof sql, err);
    if (!rc)
        rc = get_one(db, REG_RESOURCE, sql, uri, fill_resource_full, out, err);
    if (!rc && !out->text && !out->blob) {
        reg_resource_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    return rc;
}

int reg_template_get(store *db, const char *uri_template, reg_template *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    return get_one(db, REG_TEMPLATE,
                   "SELECT " TEMPLATE_COLUMNS
                   " FROM dbmcp_resource_templates t WHERE t.uri_template = :key",
                   uri_template, registry_fill_template, out, err);
}

int reg_row_stamps(store *db, reg_kind kind, const char *key, char **created_at, char **updated_at,
                   dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    *created_at = *updated_at = NULL;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT created_at, updated_at FROM %s WHERE %s = :key", k->table,
             k->key_column);
    store_stmt *st;
    int rc = query_key(db, sql, key, &st, err);
    if (rc < 0)
        return rc;
    if (rc == STORE_ROW) {
        *created_at = registry_col_strdup(st, 0);
        *updated_at = registry_col_strdup(st, 1);
    }
    store_finalize(st);
    return rc == STORE_ROW ? 0 : not_found(k, key, err);
}

int reg_memberships_get(store *db, reg_kind kind, const char *key, reg_names *direct,
                        reg_names *by_pattern, dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    memset(direct, 0, sizeof *direct);
    if (by_pattern)
        memset(by_pattern, 0, sizeof *by_pattern);
    if (!k->member_table)
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT interface FROM %s WHERE %s = :key ORDER BY interface",
             k->member_table, k->member_column);
    int rc = registry_collect_names(db, sql, key, direct, err);
    if (rc || !by_pattern || (kind != REG_RESOURCE && kind != REG_TEMPLATE))
        return rc;
    rc = registry_collect_names(
        db,
        "SELECT DISTINCT interface FROM dbmcp_interface_resources"
        " WHERE substr(uri, length(uri), 1) = '*'"
        " AND substr(CAST(:key AS TEXT), 1, length(uri) - 1) ="
        " substr(uri, 1, length(uri) - 1)"
        " AND interface NOT IN (SELECT interface FROM dbmcp_interface_resources"
        " WHERE uri = :key) ORDER BY interface",
        key, by_pattern, err);
    if (rc)
        reg_names_free(direct);
    return rc;
}

/* --- memberships -------------------------------------------------------------- */

/* Make the interfaces in `names` exactly the ones naming key in k's
 * membership table. Runs inside the caller's transaction. */
static int memberships_replace(store *db, const kind_desc *k, const char *key,
                               const reg_names *names, dbmcp_error *err)
{
    json_t *list = json_array();
    for (size_t i = 0; i < names->n; i++) {
        int exists = 0;
        int rc = row_exists(db, &kinds[REG_INTERFACE], names->v[i], &exists, err);
        if (!rc && !exists)
            rc = not_found(&kinds[REG_INTERFACE], names->v[i], err);
        if (rc) {
            json_decref(list);
            return rc;
        }
        json_array_append_new(list, json_string(names->v[i]));
    }
    char *list_text = json_dump_compact(list);
    json_decref(list);
    if (!list_text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    char listed[128], sql[512];
    int rc = dialect_format(db, DIALECT_JSON_ARRAY_TEXTS, listed, sizeof listed, err, ":list");
    if (!rc) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s = :key AND interface NOT IN (%s)",
                 k->member_table, k->member_column, listed);
        const char *del_names[] = {":key", ":list"};
        const char *del_values[] = {key, list_text};
        rc = registry_exec_bound(db, sql, del_names, del_values, 2, err);
    }
    free(list_text);
    if (k->member_position)
        snprintf(sql, sizeof sql,
                 "INSERT INTO %s (interface, %s, position) SELECT :iface, :key,"
                 " coalesce(max(position), 0) + 1 FROM %s WHERE interface = :iface"
                 " ON CONFLICT DO NOTHING",
                 k->member_table, k->member_column, k->member_table);
    else
        snprintf(sql, sizeof sql,
                 "INSERT INTO %s (interface, %s) VALUES (:iface, :key) ON CONFLICT DO NOTHING",
                 k->member_table, k->member_column);
    for (size_t i = 0; !rc && i < names->n; i++) {
        const char *ins_names[] = {":iface", ":key"};
        const char *ins_values[] = {names->v[i], key};
        rc = registry_exec_bound(db, sql, ins_names, ins_values, 2, err);
    }
    return rc;
}

/* Whether key names a row a membership of kind k may list: the row
 * itself; for resources also a resource template or a 'prefix*' pattern
 * (they share dbmcp_interface_resources). */
static int member_exists(store *db, reg_kind kind, const char *key, int *exists, dbmcp_error *err)
{
    int rc = row_exists(db, &kinds[kind], key, exists, err);
    if (rc || *exists || (kind != REG_RESOURCE && kind != REG_TEMPLATE))
        return rc;
    size_t len = strlen(key);
    if (len > 1 && key[len - 1] == '*') {
        *exists = 1;
        return 0;
    }
    return row_exists(db, &kinds[kind == REG_RESOURCE ? REG_TEMPLATE : REG_RESOURCE], key, exists,
                      err);
}

int reg_membership_set(store *db, reg_kind kind, const char *iface, const char *key, int member,
                       int *changed, dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    assert(k->member_table);
    *changed = 0;
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    int exists = 0;
    rc = row_exists(db, &kinds[REG_INTERFACE], iface, &exists, err);
    if (!rc && !exists)
        rc = not_found(&kinds[REG_INTERFACE], iface, err);
    if (!rc && member)
        rc = member_exists(db, kind, key, &exists, err);
    if (!rc && member && !exists)
        rc = not_found(k, key, err);
    char sql[512];
    if (member && k->member_position)
        snprintf(sql, sizeof sql,
                 "INSERT INTO %s (interface, %s, position) SELECT :iface, :key,"
                 " coalesce(max(position), 0) + 1 FROM %s WHERE interface = :iface"
                 " ON CONFLICT DO NOTHING",
                 k->member_table, k->member_column, k->member_table);
    else if (member)
        snprintf(sql, sizeof sql,
                 "INSERT INTO %s (interface, %s) VALUES (:iface, :key) ON CONFLICT DO NOTHING",
                 k->member_table, k->member_column);
    else
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE interface = :iface AND %s = :key",
                 k->member_table, k->member_column);
    if (!rc) {
        const char *names[] = {":iface", ":key"};
        const char *values[] = {iface, key};
        rc = registry_exec_bound(db, sql, names, values, 2, err);
    }
    if (!rc)
        *changed = store_changes(db) > 0;
    if (!rc && *changed) {
        /* The interface's updated_at says when its catalog last changed. */
        char now[32];
        ids_now_iso(now);
        const char *names[] = {":iface", ":now"};
        const char *values[] = {iface, now};
        rc = registry_exec_bound(db,
                                 "UPDATE dbmcp_interfaces SET updated_at = :now"
                                 " WHERE name = :iface",
                                 names, values, 2, err);
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc) {
        store_rollback(db);
        *changed = 0;
    }
    return rc;
}

/* --- row writes ------------------------------------------------------------------ */

typedef void (*bind_row_fn)(store_stmt *st, const void *row);

static void bind_json(store_stmt *st, const char *name, const json_t *v)
{
    char *text = v ? json_dump_compact(v) : NULL;
    store_bind_text(st, name, text);
    free(text);
}

/* Insert (update = 0) or update the row keyed `key` of `kind` with sql,
 * bound by bind(); then replace memberships when interfaces is not NULL.
 * One transaction. */
static int write_row(store *db, reg_kind kind, const char *key, int update, const char *sql,
                     bind_row_fn bind, const void *row, const reg_names *interfaces,
                     dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    if (interfaces && interfaces->n && !k->member_table)
        return dbmcp_error_set(err, DBMCP_EINVAL, "a %s has no interface membership", k->label);
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    int exists = 0;
    rc = row_exists(db, k, key, &exists, err);
    if (!rc && update && !exists)
        rc = not_found(k, key, err);
    if (!rc && !update && exists)
        rc = dbmcp_error_set(err, DBMCP_EEXISTS, "%s '%s' already exists", k->label, key);
    store_stmt *st = NULL;
    if (!rc)
        rc = store_prepare(db, sql, &st, err);
    if (!rc) {
        char now[32];
        ids_now_iso(now);
        bind(st, row);
        store_bind_text(st, ":key", key);
        store_bind_text(st, ":now", now);
        rc = store_step(st, err);
        rc = rc < 0 ? rc : 0;
        store_finalize(st);
    }
    if (!rc && interfaces && k->member_table)
        rc = memberships_replace(db, k, key, interfaces, err);
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

/* Updates address a row by key and never rename it. */
static int check_same_key(reg_kind kind, const char *key, const char *row_key, dbmcp_error *err)
{
    if (row_key && strcmp(key, row_key) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s '%s' cannot be renamed to '%s'; add the new one and remove the "
                               "old one",
                               kinds[kind].label, key, row_key);
    return 0;
}

static void bind_interface(store_stmt *st, const void *row)
{
    const reg_interface *v = row;
    store_bind_text(st, ":name", v->name);
    store_bind_text(st, ":title", v->title);
    store_bind_text(st, ":description", v->description);
    store_bind_text(st, ":instructions", v->instructions);
    store_bind_int(st, ":enabled", v->enabled ? 1 : 0);
}

int reg_interface_insert(store *db, const reg_interface *row, dbmcp_error *err)
{
    return write_row(db, REG_INTERFACE, row->name, 0,
                     "INSERT INTO dbmcp_interfaces (name, title, description, instructions,"
                     " enabled, created_at, updated_at) VALUES (:name, :title,"
                     " coalesce(:description, ''), :instructions, :enabled, :now, :now)",
                     bind_interface, row, NULL, err);
}

int reg_interface_update(store *db, const char *name, const reg_interface *row, dbmcp_error *err)
{
    int rc = check_same_key(REG_INTERFACE, name, row->name, err);
    if (rc)
        return rc;
    return write_row(db, REG_INTERFACE, name, 1,
                     "UPDATE dbmcp_interfaces SET title = :title,"
                     " description = coalesce(:description, ''), instructions = :instructions,"
                     " enabled = :enabled, updated_at = :now WHERE name = :key",
                     bind_interface, row, NULL, err);
}

static void bind_tool(store_stmt *st, const void *row)
{
    const reg_tool *t = row;
    store_bind_text(st, ":name", t->name);
    store_bind_text(st, ":title", t->title);
    store_bind_text(st, ":description", t->description);
    bind_json(st, ":input_schema", t->input_schema);
    bind_json(st, ":output_schema", t->output_schema);
    bind_json(st, ":annotations", t->annotations);
    store_bind_text(st, ":handler_kind", t->handler_kind);
    store_bind_text(st, ":handler", t->handler);
    store_bind_int(st, ":enabled", t->enabled ? 1 : 0);
}

int reg_tool_insert(store *db, const reg_tool *row, const reg_names *interfaces, dbmcp_error *err)
{
    return write_row(db, REG_TOOL, row->name, 0,
                     "INSERT INTO dbmcp_tools (name, title, description, input_schema,"
                     " output_schema, annotations, handler_kind, handler, enabled, created_at,"
                     " updated_at) VALUES (:name, :title, :description, :input_schema,"
                     " :output_schema, :annotations, :handler_kind, :handler, :enabled, :now,"
                     " :now)",
                     bind_tool, row, interfaces, err);
}

int reg_tool_update(store *db, const char *name, const reg_tool *row, const reg_names *interfaces,
                    dbmcp_error *err)
{
    int rc = check_same_key(REG_TOOL, name, row->name, err);
    if (rc)
        return rc;
    return write_row(db, REG_TOOL, name, 1,
                     "UPDATE dbmcp_tools SET title = :title, description = :description,"
                     " input_schema = :input_schema, output_schema = :output_schema,"
                     " annotations = :annotations, handler_kind = :handler_kind,"
                     " handler = :handler, enabled = :enabled, updated_at = :now"
                     " WHERE name = :key",
                     bind_tool, row, interfaces, err);
}

static void bind_prompt(store_stmt *st, const void *row)
{
    const reg_prompt *p = row;
    store_bind_text(st, ":name", p->name);
    store_bind_text(st, ":title", p->title);
    store_bind_text(st, ":description", p->description);
    store_bind_text(st, ":kind", p->kind);
    bind_json(st, ":arguments", p->arguments);
    bind_json(st, ":messages", p->messages);
    store_bind_int(st, ":enabled", p->enabled ? 1 : 0);
}

int reg_prompt_insert(store *db, const reg_prompt *row, const reg_names *interfaces,
                      dbmcp_error *err)
{
    return write_row(db, REG_PROMPT, row->name, 0,
                     "INSERT INTO dbmcp_prompts (name, title, description, kind, arguments,"
                     " messages, enabled, created_at, updated_at) VALUES (:name, :title,"
                     " coalesce(:description, ''), :kind, coalesce(:arguments, '[]'), :messages,"
                     " :enabled, :now, :now)",
                     bind_prompt, row, interfaces, err);
}

int reg_prompt_update(store *db, const char *name, const reg_prompt *row,
                      const reg_names *interfaces, dbmcp_error *err)
{
    int rc = check_same_key(REG_PROMPT, name, row->name, err);
    if (rc)
        return rc;
    return write_row(db, REG_PROMPT, name, 1,
                     "UPDATE dbmcp_prompts SET title = :title,"
                     " description = coalesce(:description, ''), kind = :kind,"
                     " arguments = coalesce(:arguments, '[]'), messages = :messages,"
                     " enabled = :enabled, updated_at = :now WHERE name = :key",
                     bind_prompt, row, interfaces, err);
}

static void bind_resource(store_stmt *st, const void *row)
{
    const reg_resource *r = row;
    store_bind_text(st, ":uri", r->uri);
    store_bind_text(st, ":name", r->name);
    store_bind_text(st, ":title", r->title);
    store_bind_text(st, ":description", r->description);
    store_bind_text(st, ":mime_type", r->mime_type);
    store_bind_text(st, ":text", r->text);
    if (r->blob)
        store_bind_blob(st, ":blob", r->blob, r->blob_size);
    else
        store_bind_null(st, ":blob");
    bind_json(st, ":annotations", r->annotations);
    store_bind_int(st, ":enabled", r->enabled ? 1 : 0);
}

int reg_resource_insert(store *db, const reg_resource *row, const reg_names *interfaces,
                        dbmcp_error *err)
{
    return write_row(db, REG_RESOURCE, row->uri, 0,
                     "INSERT INTO dbmcp_resources (uri, name, title, description, mime_type,"
                     " content_text, content_blob, annotations, enabled, created_at, updated_at)"
                     " VALUES (:uri, :name, :title, :description,"
                     " coalesce(:mime_type, 'text/plain'), :text, :blob, :annotations, :enabled,"
                     " :now, :now)",
                     bind_resource, row, interfaces, err);
}

int reg_resource_update(store *db, const char *uri, const reg_resource *row,
                        const reg_names *interfaces, dbmcp_error *err)
{
    int rc = check_same_key(REG_RESOURCE, uri, row->uri, err);
    if (rc)
        return rc;
    return write_row(db, REG_RESOURCE, uri, 1,
                     "UPDATE dbmcp_resources SET name = :name, title = :title,"
                     " description = :description, mime_type = coalesce(:mime_type, 'text/plain'),"
                     " content_text = :text, content_blob = :blob, annotations = :annotations,"
                     " enabled = :enabled, updated_at = :now WHERE uri = :key",
                     bind_resource, row, interfaces, err);
}

static void bind_template(store_stmt *st, const void *row)
{
    const reg_template *t = row;
    store_bind_text(st, ":uri_template", t->uri_template);
    store_bind_text(st, ":name", t->name);
    store_bind_text(st, ":title", t->title);
    store_bind_text(st, ":description", t->description);
    store_bind_text(st, ":mime_type", t->mime_type);
    store_bind_text(st, ":handler_kind", t->handler_kind);
    store_bind_text(st, ":handler", t->handler);
    bind_json(st, ":completions", t->completions);
    store_bind_int(st, ":enabled", t->enabled ? 1 : 0);
}

int reg_template_insert(store *db, const reg_template *row, const reg_names *interfaces,
                        dbmcp_error *err)
{
    return write_row(db, REG_TEMPLATE, row->uri_template, 0,
                     "INSERT INTO dbmcp_resource_templates (uri_template, name, title,"
                     " description, mime_type, handler_kind, handler, completions, enabled,"
                     " created_at, updated_at) VALUES (:uri_template, :name, :title,"
                     " :description, coalesce(:mime_type, 'text/plain'), :handler_kind, :handler,"
                     " :completions, :enabled, :now, :now)",
                     bind_template, row, interfaces, err);
}

int reg_template_update(store *db, const char *uri_template, const reg_template *row,
                        const reg_names *interfaces, dbmcp_error *err)
{
    int rc = check_same_key(REG_TEMPLATE, uri_template, row->uri_template, err);
    if (rc)
        return rc;
    return write_row(db, REG_TEMPLATE, uri_template, 1,
                     "UPDATE dbmcp_resource_templates SET name = :name, title = :title,"
                     " description = :description, mime_type = coalesce(:mime_type, 'text/plain'),"
                     " handler_kind = :handler_kind, handler = :handler,"
                     " completions = :completions, enabled = :enabled, updated_at = :now"
                     " WHERE uri_template = :key",
                     bind_template, row, interfaces, err);
}

/* --- enable, disable, remove ---------------------------------------------------- */

int reg_set_enabled(store *db, reg_kind kind, const char *key, int enabled, dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE %s SET enabled = :enabled, updated_at = :now WHERE %s = :key",
             k->table, k->key_column);
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    store_bind_int(st, ":enabled", enabled ? 1 : 0);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":key", key);
    rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0)
        return rc;
    return store_changes(db) == 0 ? not_found(k, key, err) : 0;
}

/* Rows that reference `key` without ON DELETE CASCADE: the first one's
 * description (malloc'd) or NULL when none. */
static int first_user(store *db, reg_kind kind, const char *key, char **user, dbmcp_error *err)
{
    *user = NULL;
    const char *sql = NULL;
    if (kind == REG_PROMPT)
        sql = "SELECT 'plan ''' || name || '''' FROM dbmcp_plans"
              " WHERE system_prompt = :key OR extended_prompt = :key"
              " UNION ALL SELECT 'plan ''' || plan || '''' FROM dbmcp_plan_steps"
              " WHERE prompt = :key LIMIT 1";
    else if (kind == REG_INTERFACE)
        sql = "SELECT 'plan ''' || name || '''' FROM dbmcp_plans WHERE interface = :key"
              " UNION ALL SELECT 'API key ' || id FROM dbmcp_api_keys WHERE interface = :key"
              " LIMIT 1";
    if (!sql)
        return 0;
    store_stmt *st;
    int rc = query_key(db, sql, key, &st, err);
    if (rc < 0)
        return rc;
    if (rc == STORE_ROW)
        *user = registry_col_strdup(st, 0);
    store_finalize(st);
    return 0;
}

int reg_remove(store *db, reg_kind kind, const char *key, dbmcp_error *err)
{
    const kind_desc *k = &kinds[kind];
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    int exists = 0;
    char *user = NULL;
    rc = row_exists(db, k, key, &exists, err);
    if (!rc && !exists)
        rc = not_found(k, key, err);
    if (!rc)
        rc = first_user(db, kind, key, &user, err);
    if (!rc && user)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "%s '%s' is still used by %s; change or remove that first", k->label,
                             key, user);
    free(user);
    char sql[256];
    const char *names[] = {":key"};
    const char *values[] = {key};
    if (!rc) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s = :key", k->table, k->key_column);
        rc = registry_exec_bound(db, sql, names, values, 1, err);
    }
    /* dbmcp_interface_resources.uri is not a foreign key (it may be a
     * pattern), so its exact rows go explicitly; the others cascade. */
    if (!rc && (kind == REG_RESOURCE || kind == REG_TEMPLATE))
        rc = registry_exec_bound(db, "DELETE FROM dbmcp_interface_resources WHERE uri = :key",
                                 names, values, 1, err);
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

/* --- SQL handlers ----------------------------------------------------------------- */

int reg_sql_check_query(store *ro, const char *sql, reg_sql_param_fn fn, void *ctx,
                        dbmcp_error *err)
{
    if (!store_is_readonly(ro))
        return dbmcp_error_set(err, DBMCP_EINTERNAL,
                               "handler SQL must be checked on a read-only connection");
    store_stmt *st;
    int rc = store_prepare(ro, sql, &st, err);
    if (rc == DBMCP_EDENIED) {
        /* The guard's reason (SQLite's authorizer), else the engine's own
         * words: on PostgreSQL the query role's privileges refused it. */
        char reason[400];
        if (!store_guard_explain(ro, sql, reason, sizeof reason))
            snprintf(reason, sizeof reason, "%.390s", err->message);
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "refused by the read-only query connection: %s; handler SQL may "
                               "only read user tables",
                               reason);
    }
    if (rc)
        return rc;
    int reads_only = 0;
    rc = store_stmt_is_readonly(st, &reads_only, err);
    if (!rc && !reads_only)
        rc = dbmcp_error_set(err, DBMCP_EDENIED,
                             "the statement writes to the database; handler SQL may only read");
    else if (!rc && store_column_count(st) == 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "the statement returns no rows; handler SQL must be a query"
                             " (SELECT or WITH … SELECT)");
    int n = store_param_count(st);
    for (int i = 0; !rc && i < n; i++)
        rc = fn(store_param_name(st, i), ctx, err);
    store_finalize(st);
    return rc;
}
