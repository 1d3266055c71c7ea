/*
 * registry.c — read path of the registry, API keys, settings and audit
 * inserts; see registry.h. Admin writes are in registry_admin.c. The
 * statements are ones SQLite and PostgreSQL both accept; the byte length
 * of a resource's text comes from dialect.h.
 */
#include "store/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "store/dialect.h"
#include "store/registry_internal.h"

/* --- column helpers (shared with registry_admin.c via registry_internal.h) - */

char *registry_col_strdup(store_stmt *st, int i)
{
    const char *s = store_column_text(st, i);
    return s ? strdup(s) : NULL;
}

json_t *registry_col_json(store_stmt *st, int i)
{
    return json_parse_text(store_column_text(st, i));
}

/* Grow *arr (of elem_size) to hold one more element; returns the new slot
 * zeroed, or NULL on allocation failure. */
void *registry_grow(void **arr, size_t *n, size_t *cap, size_t elem_size)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        void *p = realloc(*arr, ncap * elem_size);
        if (!p)
            return NULL;
        *arr = p;
        *cap = ncap;
    }
    void *slot = (char *)*arr + (*n)++ * elem_size;
    memset(slot, 0, elem_size);
    return slot;
}

int registry_collect_stmt(store_stmt *st, registry_row_fill_fn fill, size_t elem_size, void **out,
                          size_t *n, dbmcp_error *err)
{
    size_t cap = 0;
    int rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        void *slot = registry_grow(out, n, &cap, elem_size);
        if (!slot) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        fill(st, slot);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int registry_collect_rows(store *db, const char *sql, const char *iface, registry_row_fill_fn fill,
                          size_t elem_size, void **out, size_t *n, dbmcp_error *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (iface)
        store_bind_text(st, ":iface", iface);
    return registry_collect_stmt(st, fill, elem_size, out, n, err);
}

int registry_resource_sql(store *db, const char *fmt, char *buf, size_t size, dbmcp_error *err)
{
    char bytes[64];
    int rc = dialect_format(db, DIALECT_TEXT_BYTES, bytes, sizeof bytes, err, "r.content_text");
    if (rc)
        return rc;
    int n = snprintf(buf, size, fmt, bytes);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "resource statement too long");
    return 0;
}

/* --- free ---------------------------------------------------------------- */

void reg_interface_free(reg_interface *v)
{
    if (!v)
        return;
    free(v->name);
    free(v->title);
    free(v->description);
    free(v->instructions);
    memset(v, 0, sizeof *v);
}

void reg_tool_free(reg_tool *v)
{
    if (!v)
        return;
    free(v->name);
    free(v->title);
    free(v->description);
    json_decref(v->input_schema);
    json_decref(v->output_schema);
    json_decref(v->annotations);
    free(v->handler_kind);
    free(v->handler);
    memset(v, 0, sizeof *v);
}

void reg_prompt_free(reg_prompt *v)
{
    if (!v)
        return;
    free(v->name);
    free(v->title);
    free(v->description);
    free(v->kind);
    json_decref(v->arguments);
    json_decref(v->messages);
    memset(v, 0, sizeof *v);
}

void reg_resource_free(reg_resource *v)
{
    if (!v)
        return;
    free(v->uri);
    free(v->name);
    free(v->title);
    free(v->description);
    free(v->mime_type);
    json_decref(v->annotations);
    free(v->text);
    free(v->blob);
    memset(v, 0, sizeof *v);
}

void reg_template_free(reg_template *v)
{
    if (!v)
        return;
    free(v->uri_template);
    free(v->name);
    free(v->title);
    free(v->description);
    free(v->mime_type);
    free(v->handler_kind);
    free(v->handler);
    json_decref(v->completions);
    memset(v, 0, sizeof *v);
}

void reg_api_key_free(reg_api_key *v)
{
    if (!v)
        return;
    free(v->id);
    free(v->principal);
    free(v->secret_hash);
    free(v->interface);
    free(v->user_id);
    free(v->agent_id);
    free(v->description);
    free(v->created_at);
    free(v->last_used_at);
    free(v->revoked_at);
    free(v->role);
    memset(v, 0, sizeof *v);
}

#define DEFINE_ARRAY_FREE(fn, type, elem_free)                                                     \
    void fn(type *v, size_t n)                                                                     \
    {                                                                                              \
        for (size_t i = 0; v && i < n; i++)                                                        \
            elem_free(&v[i]);                                                                      \
        free(v);                                                                                   \
    }

DEFINE_ARRAY_FREE(reg_tool_array_free, reg_tool, reg_tool_free)
DEFINE_ARRAY_FREE(reg_prompt_array_free, reg_prompt, reg_prompt_free)
DEFINE_ARRAY_FREE(reg_resource_array_free, reg_resource, reg_resource_free)
DEFINE_ARRAY_FREE(reg_template_array_free, reg_template, reg_template_free)
DEFINE_ARRAY_FREE(reg_interface_array_free, reg_interface, reg_interface_free)
DEFINE_ARRAY_FREE(reg_api_key_array_free, reg_api_key, reg_api_key_free)

/* --- interfaces ------------------------------------------------------------ */

int reg_interface_get(store *db, const char *name, reg_interface *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT name, title, description, instructions, enabled"
                           " FROM dbmcp_interfaces WHERE name = :name",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":name", name);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        out->name = registry_col_strdup(st, 0);
        out->title = registry_col_strdup(st, 1);
        out->description = registry_col_strdup(st, 2);
        out->instructions = registry_col_strdup(st, 3);
        out->enabled = (int)store_column_int(st, 4);
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no interface named '%s'", name);
    }
    store_finalize(st);
    return rc;
}

/* --- tools ------------------------------------------------------------------ */

void registry_fill_tool(store_stmt *st, void *slot)
{
    reg_tool *t = slot;
    t->name = registry_col_strdup(st, 0);
    t->title = registry_col_strdup(st, 1);
    t->description = registry_col_strdup(st, 2);
    t->input_schema = registry_col_json(st, 3);
    t->output_schema = registry_col_json(st, 4);
    t->annotations = registry_col_json(st, 5);
    t->handler_kind = registry_col_strdup(st, 6);
    t->handler = registry_col_strdup(st, 7);
    t->enabled = (int)store_column_int(st, 8);
    if (store_column_count(st) > 9)
        t->position = (int)store_column_int(st, 9);
}

int reg_tools_for_interface(store *db, const char *iface, reg_tool **out, size_t *n,
                            dbmcp_error *err)
{
    return registry_collect_rows(db,
                                 "SELECT " TOOL_COLUMNS ", it.position FROM dbmcp_tools t"
                                 " JOIN dbmcp_interface_tools it ON it.tool = t.name"
                                 " JOIN dbmcp_interfaces i ON i.name = it.interface"
                                 " WHERE it.interface = :iface AND t.enabled = 1 AND i.enabled = 1"
                                 " ORDER BY it.position, t.name",
                                 iface, registry_fill_tool, sizeof(reg_tool), (void **)out, n, err);
}

/* --- prompts ---------------------------------------------------------------- */

void registry_fill_prompt(store_stmt *st, void *slot)
{
    reg_prompt *p = slot;
    p->name = registry_col_strdup(st, 0);
    p->title = registry_col_strdup(st, 1);
    p->description = registry_col_strdup(st, 2);
    p->kind = registry_col_strdup(st, 3);
    p->arguments = registry_col_json(st, 4);
    p->messages = registry_col_json(st, 5);
    p->enabled = (int)store_column_int(st, 6);
}

int reg_prompts_for_interface(store *db, const char *iface, reg_prompt **out, size_t *n,
                              dbmcp_error *err)
{
    return registry_collect_rows(
        db,
        "SELECT p.name, p.title, p.description, p.kind, p.arguments, p.messages,"
        " p.enabled FROM dbmcp_prompts p"
        " JOIN dbmcp_interface_prompts ip ON ip.prompt = p.name"
        " JOIN dbmcp_interfaces i ON i.name = ip.interface"
        " WHERE ip.interface = :iface AND p.enabled = 1 AND i.enabled = 1"
        " ORDER BY ip.position, p.name",
        iface, registry_fill_prompt, sizeof(reg_prompt), (void **)out, n, err);
}

/* --- resources ---------------------------------------------------------------- */

void registry_fill_resource_meta(store_stmt *st, void *slot)
{
    reg_resource *r = slot;
    r->uri = registry_col_strdup(st, 0);
    r->name = registry_col_strdup(st, 1);
    r->title = registry_col_strdup(st, 2);
    r->description = registry_col_strdup(st, 3);
    r->mime_type = registry_col_strdup(st, 4);
    r->annotations = registry_col_json(st, 5);
    r->size = store_column_int(st, 6);
    r->enabled = (int)store_column_int(st, 7);
}

int reg_resources_for_interface(store *db, const char *iface, reg_resource **out, size_t *n,
                                dbmcp_error *err)
{
    char sql[1024];
    *out = NULL;
    *n = 0;
    int rc = registry_resource_sql(
        db,
        "SELECT " RESOURCE_META_COLUMNS " FROM dbmcp_resources r"
        " WHERE r.enabled = 1 AND" EXPOSED_BY_IFACE("r.uri") " ORDER BY r.uri",
        sql, sizeof sql, err);
    if (rc)
        return rc;
    return registry_collect_rows(db, sql, iface, registry_fill_resource_meta, sizeof(reg_resource),
                                 (void **)out, n, err);
}

int reg_resource_read(store *db, const char *iface, const char *uri, reg_resource *out,
                      dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    char sql[1024];
    store_stmt *st;
    int rc = registry_resource_sql(
        db,
        iface ? "SELECT " RESOURCE_META_COLUMNS ", r.content_text, r.content_blob"
                " FROM dbmcp_resources r WHERE r.uri = :uri AND r.enabled = 1"
                " AND" EXPOSED_BY_IFACE("r.uri")
              : "SELECT " RESOURCE_META_COLUMNS ", r.content_text, r.content_blob"
                " FROM dbmcp_resources r WHERE r.uri = :uri AND r.enabled = 1",
        sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_text(st, ":uri", uri);
    if (iface)
        store_bind_text(st, ":iface", iface);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        registry_fill_resource_meta(st, out);
        out->text = registry_col_strdup(st, 8);
        if (store_column_type(st, 9) == STORE_BLOB) {
            out->blob_size = store_column_bytes(st, 9);
            out->blob = malloc(out->blob_size ? out->blob_size : 1);
            if (out->blob)
                memcpy(out->blob, store_column_blob(st, 9), out->blob_size);
        }
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "Resource not found: %s", uri);
    }
    store_finalize(st);
    return rc;
}

void registry_fill_template(store_stmt *st, void *slot)
{
    reg_template *t = slot;
    t->uri_template = registry_col_strdup(st, 0);
    t->name = registry_col_strdup(st, 1);
    t->title = registry_col_strdup(st, 2);
    t->description = registry_col_strdup(st, 3);
    t->mime_type = registry_col_strdup(st, 4);
    t->handler_kind = registry_col_strdup(st, 5);
    t->handler = registry_col_strdup(st, 6);
    t->completions = registry_col_json(st, 7);
    t->enabled = (int)store_column_int(st, 8);
}

int reg_templates_for_interface(store *db, const char *iface, reg_template **out, size_t *n,
                                dbmcp_error *err)
{
    return registry_collect_rows(
        db,
        "SELECT t.uri_template, t.name, t.title, t.description, t.mime_type,"
        " t.handler_kind, t.handler, t.completions, t.enabled"
        " FROM dbmcp_resource_templates t WHERE t.enabled = 1 AND" EXPOSED_BY_IFACE(
            "t.uri_template") " ORDER BY t.uri_template",
        iface, registry_fill_template, sizeof(reg_template), (void **)out, n, err);
}

int reg_versions_get(store *db, reg_versions *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT tools_version, prompts_version, resources_version"
                           " FROM dbmcp_catalog_version WHERE id = 1",
                           &st, err);
    if (rc)
        return rc;
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        out->tools = store_column_int(st, 0);
        out->prompts = store_column_int(st, 1);
        out->resources = store_column_int(st, 2);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- settings --------------------------------------------------------------- */

int reg_settings_all(store *db, json_t **out, dbmcp_error *err)
{
    *out = NULL;
    store_stmt *st;
    int rc = store_prepare(db, "SELECT key, value FROM dbmcp_settings", &st, err);
    if (rc)
        return rc;
    json_t *all = json_object();
    while ((rc = store_step(st, err)) == STORE_ROW)
        json_object_set_new(all, store_column_text(st, 0), json_string(store_column_text(st, 1)));
    store_finalize(st);
    if (rc < 0) {
        json_decref(all);
        return rc;
    }
    *out = all;
    return 0;
}

char *reg_setting_get(store *db, const char *key)
{
    store_stmt *st;
    dbmcp_error err;
    if (store_prepare(db, "SELECT value FROM dbmcp_settings WHERE key = :key", &st, &err))
        return NULL;
    store_bind_text(st, ":key", key);
    char *v = store_step(st, &err) == STORE_ROW ? registry_col_strdup(st, 0) : NULL;
    store_finalize(st);
    return v;
}

int reg_setting_put(store *db, const char *key, const char *value, dbmcp_error *err)
{
    char now[32];
    ids_now_iso(now);
    const char *names[] = {":key", ":value", ":now"};
    const char *values[] = {key, value, now};
    return registry_exec_bound(db,
                               "INSERT INTO dbmcp_settings (key, value, updated_at)"
                               " VALUES (:key, :value, :now) ON CONFLICT (key) DO UPDATE"
                               " SET value = excluded.value, updated_at = excluded.updated_at",
                               names, values, 3, err);
}

int reg_setting_delete(store *db, const char *key, dbmcp_error *err)
{
    const char *names[] = {":key"};
    const char *values[] = {key};
    return registry_exec_bound(db, "DELETE FROM dbmcp_settings WHERE key = :key", names, values, 1,
                               err);
}

/* --- API keys -------------------------------------------------------------- */

int registry_exec_bound(store *db, const char *sql, const char *const *names,
                        const char *const *values, size_t n, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        store_bind_text(st, names[i], values[i]);
    rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int reg_api_key_insert(store *db, const reg_api_key *k, dbmcp_error *err)
{
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    const char *pn[] = {":p", ":now"};
    const char *pv[] = {k->principal, now};
    rc = registry_exec_bound(db,
                             "INSERT INTO dbmcp_principals (name, created_at) VALUES (:p, :now)"
                             " ON CONFLICT DO NOTHING",
                             pn, pv, 2, err);
    if (!rc) {
        const char *names[] = {":id", ":p", ":h", ":i", ":u", ":a", ":d", ":now", ":r"};
        const char *values[] = {k->id,          k->principal, k->secret_hash,
                                k->interface,   k->user_id,   k->agent_id,
                                k->description, now,          k->role ? k->role : "client"};
        rc =
            registry_exec_bound(db,
                                "INSERT INTO dbmcp_api_keys (id, principal, secret_hash, interface,"
                                " user_id, agent_id, description, created_at, role)"
                                " VALUES (:id, :p, :h, :i, :u, :a, :d, :now, :r)",
                                names, values, 9, err);
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

#define KEY_COLUMNS                                                                                \
    "id, principal, secret_hash, interface, user_id, agent_id, description, created_at,"           \
    " last_used_at, revoked_at, role"

static void fill_key(store_stmt *st, void *slot)
{
    reg_api_key *k = slot;
    k->id = registry_col_strdup(st, 0);
    k->principal = registry_col_strdup(st, 1);
    k->secret_hash = registry_col_strdup(st, 2);
    k->interface = registry_col_strdup(st, 3);
    k->user_id = registry_col_strdup(st, 4);
    k->agent_id = registry_col_strdup(st, 5);
    k->description = registry_col_strdup(st, 6);
    k->created_at = registry_col_strdup(st, 7);
    k->last_used_at = registry_col_strdup(st, 8);
    k->revoked_at = registry_col_strdup(st, 9);
    k->role = registry_col_strdup(st, 10);
}

int reg_api_key_get(store *db, const char *id, reg_api_key *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare_cached(db, "SELECT " KEY_COLUMNS " FROM dbmcp_api_keys WHERE id = :id",
                                  &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        fill_key(st, out);
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no API key with id '%s'", id);
    }
    store_finalize(st);
    return rc;
}

int reg_api_key_list(store *db, reg_api_key **out, size_t *n, dbmcp_error *err)
{
    return registry_collect_rows(
        db, "SELECT " KEY_COLUMNS " FROM dbmcp_api_keys ORDER BY created_at, id", NULL, fill_key,
        sizeof(reg_api_key), (void **)out, n, err);
}

int reg_api_key_revoke(store *db, const char *id, dbmcp_error *err)
{
    char now[32];
    ids_now_iso(now);
    const char *names[] = {":id", ":now"};
    const char *values[] = {id, now};
    int rc = registry_exec_bound(db,
                                 "UPDATE dbmcp_api_keys SET revoked_at = :now"
                                 " WHERE id = :id AND revoked_at IS NULL",
                                 names, values, 2, err);
    if (rc)
        return rc;
    if (store_changes(db) == 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no active API key with id '%s'", id);
    return 0;
}

void reg_api_key_touch(store *db, const char *id)
{
    dbmcp_error err;
    char now[32];
    ids_now_iso(now);
    const char *names[] = {":id", ":now"};
    const char *values[] = {id, now};
    registry_exec_bound(db, "UPDATE dbmcp_api_keys SET last_used_at = :now WHERE id = :id", names,
                        values, 2, &err);
}

/* --- audit ---------------------------------------------------------------- */

static const char *nz(const char *s)
{
    return s && *s ? s : NULL;
}

static void bind_audit(store_stmt *st, const reg_audit_row *r)
{
    store_bind_text(st, ":call_id", r->call_id);
    store_bind_text(st, ":ts", r->ts);
    store_bind_text(st, ":principal", nz(r->principal));
    store_bind_text(st, ":key_id", nz(r->key_id));
    store_bind_text(st, ":interface", nz(r->interface));
    store_bind_text(st, ":user_id", nz(r->user_id));
    store_bind_text(st, ":agent_id", nz(r->agent_id));
    store_bind_text(st, ":client_name", nz(r->client_name));
    store_bind_text(st, ":client_version", nz(r->client_version));
    store_bind_text(st, ":model", nz(r->model));
    store_bind_text(st, ":transport", r->transport);
    store_bind_text(st, ":protocol", nz(r->protocol));
    store_bind_text(st, ":method", r->method);
    store_bind_text(st, ":target", r->target);
    store_bind_text(st, ":status", r->status);
    store_bind_text(st, ":error_class", r->error_class);
    store_bind_text(st, ":error_detail", r->error_detail);
    store_bind_text(st, ":sql_text", r->sql_text);
    store_bind_text(st, ":change_json", r->change_json);
    store_bind_text(st, ":trace_id", nz(r->trace_id));
    store_bind_text(st, ":auth_subject", r->auth_subject[0] ? r->auth_subject : NULL);
    store_bind_text(st, ":auth_issuer", r->auth_issuer[0] ? r->auth_issuer : NULL);
    store_bind_text(st, ":auth_token_id", r->auth_token_id[0] ? r->auth_token_id : NULL);
    store_bind_double(st, ":duration_ms", r->duration_ms);
    store_bind_int(st, ":bytes_out", r->bytes_out);
    if (r->rows_out >= 0)
        store_bind_int(st, ":rows_out", r->rows_out);
    else
        store_bind_null(st, ":rows_out");
}

int reg_audit_insert(store *db, const reg_audit_row *rows, size_t n, dbmcp_error *err)
{
    if (n == 0)
        return 0;
    store_stmt *st = NULL;
    /* One row is one statement, committed on its own: no BEGIN and COMMIT
     * (two round trips on PostgreSQL while a call waits for its row). */
    int own_txn = n > 1;
    int rc = own_txn ? store_begin(db, err) : 0;
    if (rc)
        return rc;
    rc = store_prepare_cached(
        db,
        "INSERT INTO dbmcp_audit (call_id, ts, principal, key_id, interface, user_id,"
        " agent_id, client_name, client_version, model, transport, protocol,"
        " method, target, status, error_class, error_detail, duration_ms,"
        " bytes_out, rows_out, sql_text, change_json, trace_id, auth_subject, auth_issuer,"
        " auth_token_id) VALUES (:call_id, :ts, :principal,"
        " :key_id, :interface, :user_id, :agent_id, :client_name, :client_version, :model,"
        " :transport, :protocol, :method, :target, :status, :error_class, :error_detail,"
        " :duration_ms, :bytes_out, :rows_out, :sql_text, :change_json, :trace_id,"
        " :auth_subject, :auth_issuer, :auth_token_id)",
        &st, err);
    for (size_t i = 0; !rc && i < n; i++) {
        store_reset(st);
        bind_audit(st, &rows[i]);
        if (store_step(st, err) < 0)
            rc = err->code;
    }
    store_finalize(st);
    if (!rc && own_txn)
        rc = store_commit(db, err);
    if (rc && own_txn)
        store_rollback(db);
    return rc;
}

char *reg_resource_stamp(store *db, const char *uri)
{
    store_stmt *st;
    dbmcp_error err;
    if (store_prepare(db, "SELECT updated_at FROM dbmcp_resources WHERE uri = :uri", &st, &err))
        return NULL;
    store_bind_text(st, ":uri", uri);
    char *v = store_step(st, &err) == STORE_ROW ? registry_col_strdup(st, 0) : NULL;
    store_finalize(st);
    return v;
}

int reg_audit_list(store *db, const reg_audit_filter *f, reg_audit_row_fn fn, void *ctx,
                   dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT ts, call_id, principal, interface, client_name, model,"
                           " transport, method, target, status, error_class, duration_ms,"
                           " bytes_out FROM (SELECT * FROM dbmcp_audit"
                           " WHERE (CAST(:since AS TEXT) IS NULL OR ts >= :since)"
                           " AND (CAST(:tool AS TEXT) IS NULL OR target = :tool)"
                           " AND (CAST(:status AS TEXT) IS NULL OR status = :status)"
                           " ORDER BY id DESC LIMIT :limit) AS latest ORDER BY ts, call_id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":since", f->since);
    store_bind_text(st, ":tool", f->target);
    store_bind_text(st, ":status", f->status);
    store_bind_int(st, ":limit", f->limit > 0 ? f->limit : 100);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *cols[13];
        for (int i = 0; i < 13; i++)
            cols[i] = store_column_text(st, i);
        fn(ctx, cols);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}
