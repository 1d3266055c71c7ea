/*
 * api.c — the handlers of the console's API pages (see console.h for
 * access and internal.h for the shared plumbing): the catalog (list,
 * enable/disable, membership), API keys (list, create, revoke) and the
 * audit. Every write is a store/ function the CLI uses too; every change
 * is audited with its before and after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "core/jsonutil.h"
#include "store/console_store.h"
#include "store/registry.h"
#include "web/internal.h"

#define MAX_MEMBERSHIP 256 /* interfaces named in one membership change */

static reg_kind kind_of(const char *kind)
{
    if (strcmp(kind, "interfaces") == 0)
        return REG_INTERFACE;
    if (strcmp(kind, "tools") == 0)
        return REG_TOOL;
    if (strcmp(kind, "prompts") == 0)
        return REG_PROMPT;
    if (strcmp(kind, "resources") == 0)
        return REG_RESOURCE;
    return REG_TEMPLATE;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *names_json(const reg_names *n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n->n; i++)
        json_array_append_new(a, json_string(n->v[i]));
    return a;
}

/* One catalog row as the console lists it. */
static json_t *item(const char *key, const char *title, const char *description, int enabled)
{
    return json_pack("{s:s,s:o,s:o,s:b}", "key", key, "title", str_or_null(title), "description",
                     str_or_null(description), "enabled", enabled);
}

/* Add "interfaces" (direct members) and "by_pattern" to each item. */
static int add_memberships(web_call *c, reg_kind kind, json_t *items, dbmcp_error *err)
{
    size_t i;
    json_t *it;
    json_array_foreach (items, i, it) {
        reg_names direct = {0}, pattern = {0};
        int rc = reg_memberships_get(c->db, kind, json_string_value(json_object_get(it, "key")),
                                     &direct, &pattern, err);
        if (rc)
            return rc;
        json_object_set_new(it, "interfaces", names_json(&direct));
        json_object_set_new(it, "by_pattern", names_json(&pattern));
        reg_names_free(&direct);
        reg_names_free(&pattern);
    }
    return 0;
}

/* All rows of a kind, enabled or not: [{key,title,description,enabled}]. */
static int list_items(web_call *c, reg_kind kind, json_t *items, dbmcp_error *err)
{
    int rc = 0;
    size_t n = 0;
    if (kind == REG_INTERFACE) {
        reg_interface *v = NULL;
        if (!(rc = reg_interface_list_all(c->db, &v, &n, err)))
            for (size_t i = 0; i < n; i++)
                json_array_append_new(items,
                                      item(v[i].name, v[i].title, v[i].description, v[i].enabled));
        reg_interface_array_free(v, n);
    } else if (kind == REG_TOOL) {
        reg_tool *v = NULL;
        if (!(rc = reg_tool_list_all(c->db, &v, &n, err)))
            for (size_t i = 0; i < n; i++)
                json_array_append_new(items,
                                      item(v[i].name, v[i].title, v[i].description, v[i].enabled));
        reg_tool_array_free(v, n);
    } else if (kind == REG_PROMPT) {
        reg_prompt *v = NULL;
        if (!(rc = reg_prompt_list_all(c->db, &v, &n, err)))
            for (size_t i = 0; i < n; i++)
                json_array_append_new(items,
                                      item(v[i].name, v[i].title, v[i].description, v[i].enabled));
        reg_prompt_array_free(v, n);
    } else if (kind == REG_RESOURCE) {
        reg_resource *v = NULL;
        if (!(rc = reg_resource_list_all(c->db, &v, &n, err)))
            for (size_t i = 0; i < n; i++)
                json_array_append_new(items, item(v[i].uri, v[i].title ? v[i].title : v[i].name,
                                                  v[i].description, v[i].enabled));
        reg_resource_array_free(v, n);
    } else {
        reg_template *v = NULL;
        if (!(rc = reg_template_list_all(c->db, &v, &n, err)))
            for (size_t i = 0; i < n; i++)
                json_array_append_new(items,
                                      item(v[i].uri_template, v[i].title ? v[i].title : v[i].name,
                                           v[i].description, v[i].enabled));
        reg_template_array_free(v, n);
    }
    return rc;
}

void web_api_catalog_list(web_call *c, const char *kind)
{
    reg_kind k = kind_of(kind);
    json_t *items = json_array();
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = list_items(c, k, items, &err);
    if (!rc && k != REG_INTERFACE)
        rc = add_memberships(c, k, items, &err);
    if (rc) {
        json_decref(items);
        web_reply_store_error(c->res, &err);
        return;
    }
    web_reply_json(c->res, 200, json_pack("{s:s,s:o}", "kind", kind, "items", items));
}

/* The body's "key" (a row's name, URI or URI template), or NULL with the
 * answer set. */
static const char *body_key(web_call *c, const char *field)
{
    const char *key = json_get_str(c->body, field);
    if (!key || !*key || strlen(key) > 2048) {
        web_reply_error(c->res, 400, "invalid", "the body needs \"%s\": a non-empty string", field);
        return NULL;
    }
    return key;
}

/* The current enabled flag of a row: 0/1, or -1 with err set. */
static int current_enabled(web_call *c, reg_kind kind, const char *key, dbmcp_error *err)
{
    json_t *items = json_array();
    int found = -1;
    if (!list_items(c, kind, items, err)) {
        size_t i;
        json_t *it;
        json_array_foreach (items, i, it) {
            if (strcmp(json_string_value(json_object_get(it, "key")), key) == 0)
                found = json_is_true(json_object_get(it, "enabled"));
        }
        if (found < 0)
            dbmcp_error_set(err, DBMCP_ENOTFOUND, "no %s named '%s'", reg_kind_label(kind), key);
    }
    json_decref(items);
    return found;
}

void web_api_catalog_enable(web_call *c, const char *kind)
{
    reg_kind k = kind_of(kind);
    const char *key = body_key(c, "key");
    if (!key)
        return;
    json_t *flag = json_object_get(c->body, "enabled");
    if (!json_is_boolean(flag)) {
        web_reply_error(c->res, 400, "invalid", "the body needs \"enabled\": true or false");
        return;
    }
    int enable = json_is_true(flag);
    char action[40];
    snprintf(action, sizeof action, "%s.%s", kind, enable ? "enable" : "disable");
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int before = current_enabled(c, k, key, &err);
    if (before < 0 || reg_set_enabled(c->db, k, key, enable, &err)) {
        web_audit(c, action, key, "error", NULL);
        web_reply_store_error(c->res, &err);
        return;
    }
    json_t *change =
        json_pack("{s:{s:b},s:{s:b}}", "before", "enabled", before, "after", "enabled", enable);
    web_audit(c, action, key, "ok", change);
    json_decref(change);
    web_reply_json(c->res, 200, json_pack("{s:s,s:b}", "key", key, "enabled", enable));
}

/* The interface names of the body's "interfaces" into out (borrowed
 * strings); -1 with the answer set when it is not an array of valid names. */
static int body_names(web_call *c, reg_names *out, const char **buf)
{
    json_t *a = json_object_get(c->body, "interfaces");
    if (!json_is_array(a) || json_array_size(a) > MAX_MEMBERSHIP) {
        web_reply_error(c->res, 400, "invalid",
                        "the body needs \"interfaces\": an array of at most %d interface names",
                        MAX_MEMBERSHIP);
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach (a, i, v) {
        dbmcp_error err;
        if (!json_is_string(v) || catalog_validate_name("interface", json_string_value(v), &err)) {
            web_reply_error(c->res, 400, "invalid", "interfaces[%zu] is not an interface name", i);
            return -1;
        }
        buf[i] = json_string_value(v);
    }
    out->v = (char **)buf;
    out->n = json_array_size(a);
    return 0;
}

/* Rewrite a row unchanged with a new membership (the row's own update
 * function, as `dbmcp tools update` with "interfaces" uses). */
static int set_membership(store *db, reg_kind kind, const char *key, const reg_names *names,
                          dbmcp_error *err)
{
    int rc;
    if (kind == REG_TOOL) {
        reg_tool row;
        if (!(rc = reg_tool_get(db, key, &row, err)))
            rc = reg_tool_update(db, key, &row, names, err);
        reg_tool_free(&row);
    } else if (kind == REG_PROMPT) {
        reg_prompt row;
        if (!(rc = reg_prompt_get(db, key, &row, err)))
            rc = reg_prompt_update(db, key, &row, names, err);
        reg_prompt_free(&row);
    } else if (kind == REG_RESOURCE) {
        reg_resource row;
        if (!(rc = reg_resource_get(db, key, &row, err)))
            rc = reg_resource_update(db, key, &row, names, err);
        reg_resource_free(&row);
    } else {
        reg_template row;
        if (!(rc = reg_template_get(db, key, &row, err)))
            rc = reg_template_update(db, key, &row, names, err);
        reg_template_free(&row);
    }
    return rc;
}

void web_api_catalog_membership(web_call *c, const char *kind)
{
    reg_kind k = kind_of(kind);
    if (k == REG_INTERFACE) {
        web_reply_error(c->res, 400, "invalid", "interfaces have no membership");
        return;
    }
    const char *key = body_key(c, "key");
    const char *buf[MAX_MEMBERSHIP];
    reg_names names = {0};
    if (!key || body_names(c, &names, buf))
        return;
    char action[40];
    snprintf(action, sizeof action, "%s.membership", kind);
    reg_names before = {0};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (reg_memberships_get(c->db, k, key, &before, NULL, &err) ||
        set_membership(c->db, k, key, &names, &err)) {
        reg_names_free(&before);
        web_audit(c, action, key, "error", NULL);
        web_reply_store_error(c->res, &err);
        return;
    }
    json_t *change = json_pack("{s:{s:o},s:{s:o}}", "before", "interfaces", names_json(&before),
                               "after", "interfaces", names_json(&names));
    reg_names_free(&before);
    web_audit(c, action, key, "ok", change);
    json_decref(change);
    web_reply_json(c->res, 200,
                   json_pack("{s:s,s:o}", "key", key, "interfaces", names_json(&names)));
}

/* --- keys ------------------------------------------------------------------------- */

static json_t *key_json(const reg_api_key *k)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o}", "id", k->id, "principal",
                     k->principal, "interface", k->interface, "role", k->role ? k->role : "client",
                     "user_id", str_or_null(k->user_id), "agent_id", str_or_null(k->agent_id),
                     "description", str_or_null(k->description), "created_at",
                     str_or_null(k->created_at), "last_used_at", str_or_null(k->last_used_at),
                     "revoked_at", str_or_null(k->revoked_at));
}

void web_api_keys_list(web_call *c)
{
    reg_api_key *keys = NULL;
    size_t n = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (reg_api_key_list(c->db, &keys, &n, &err)) {
        web_reply_store_error(c->res, &err);
        return;
    }
    json_t *items = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(items, key_json(&keys[i]));
    reg_api_key_array_free(keys, n);
    web_reply_json(c->res, 200, json_pack("{s:o}", "items", items));
}

/* An optional string field of at most max bytes: 0 (value or NULL in *out),
 * or -1 with the answer set. */
static int opt_str(web_call *c, const char *field, size_t max, const char **out)
{
    json_t *v = json_object_get(c->body, field);
    *out = NULL;
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    if (!json_is_string(v) || strlen(json_string_value(v)) > max) {
        web_reply_error(c->res, 400, "invalid", "\"%s\" must be a string of at most %zu bytes",
                        field, max);
        return -1;
    }
    *out = json_string_value(v);
    return 0;
}

void web_api_keys_create(web_call *c)
{
    const char *iface, *principal, *user, *agent, *description;
    if (opt_str(c, "interface", 64, &iface) || opt_str(c, "principal", 128, &principal) ||
        opt_str(c, "user_id", 128, &user) || opt_str(c, "agent_id", 128, &agent) ||
        opt_str(c, "description", 1024, &description))
        return;
    json_t *admin = json_object_get(c->body, "admin");
    if (admin && !json_is_boolean(admin)) {
        web_reply_error(c->res, 400, "invalid", "\"admin\" must be true or false");
        return;
    }
    int is_admin = json_is_true(admin);
    if (!iface && !is_admin) {
        web_reply_error(c->res, 400, "invalid", "\"interface\" is required (or \"admin\": true)");
        return;
    }
    iface = iface ? iface : "default";
    dbmcp_error err;
    dbmcp_error_clear(&err);
    reg_interface row;
    if (catalog_validate_name("interface", iface, &err) ||
        reg_interface_get(c->db, iface, &row, &err)) {
        reg_interface_free(&row);
        web_reply_store_error(c->res, &err);
        return;
    }
    reg_interface_free(&row);
    reg_api_key spec = {0};
    spec.principal = (char *)(principal ? principal : user ? user : is_admin ? "admin" : iface);
    spec.interface = (char *)iface;
    spec.user_id = (char *)user;
    spec.agent_id = (char *)agent;
    spec.description = (char *)description;
    spec.role = is_admin ? "admin" : "client";
    char key[MCP_KEY_SIZE], id[13];
    if (mcp_key_create(c->db, &spec, key, id, &err)) {
        web_audit(c, "keys.create", NULL, "error", NULL);
        web_reply_store_error(c->res, &err);
        return;
    }
    json_t *after = json_pack("{s:s,s:s,s:s,s:s}", "id", id, "principal", spec.principal,
                              "interface", iface, "role", spec.role);
    json_t *change = json_pack("{s:n,s:O}", "before", "after", after);
    web_audit(c, "keys.create", id, "ok", change);
    json_decref(change);
    json_object_set_new(after, "key", json_string(key));
    web_reply_json(c->res, 201, after);
}

void web_api_keys_revoke(web_call *c)
{
    const char *id = body_key(c, "id");
    if (!id)
        return;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (reg_api_key_revoke(c->db, id, &err)) {
        web_audit(c, "keys.revoke", id, "error", NULL);
        web_reply_store_error(c->res, &err);
        return;
    }
    reg_api_key k;
    json_t *after = NULL;
    if (!reg_api_key_get(c->db, id, &k, &err))
        after = json_pack("{s:o}", "revoked_at", str_or_null(k.revoked_at));
    reg_api_key_free(&k);
    json_t *change =
        json_pack("{s:{s:n},s:o}", "before", "revoked_at", "after", after ? after : json_null());
    web_audit(c, "keys.revoke", id, "ok", change);
    json_decref(change);
    web_reply_json(c->res, 200, json_pack("{s:s,s:b}", "id", id, "revoked", 1));
}

/* --- audit --------------------------------------------------------------------------- */

static const char *arg(web_call *c, const char *name)
{
    return c->req->arg ? c->req->arg(c->req->arg_ctx, name) : NULL;
}

void web_api_audit(web_call *c)
{
    console_audit_filter f = {0};
    f.since = arg(c, "since");
    f.until = arg(c, "until");
    f.principal = arg(c, "principal");
    f.target = arg(c, "tool");
    f.status = arg(c, "status");
    f.call_id = arg(c, "call_id");
    const char *limit = arg(c, "limit");
    f.limit = limit ? atoi(limit) : 100;
    static const char *const statuses[] = {"ok", "error", "denied", "cancelled"};
    int status_ok = !f.status || !*f.status;
    for (size_t i = 0; !status_ok && i < 4; i++)
        status_ok = strcmp(f.status, statuses[i]) == 0;
    if (!status_ok || f.limit < 1 || f.limit > 1000) {
        web_reply_error(c->res, 400, "invalid",
                        "status is one of ok, error, denied, cancelled; limit is 1 to 1000");
        return;
    }
    json_t *rows = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (console_audit_query(c->db, &f, &rows, &err)) {
        web_reply_store_error(c->res, &err);
        return;
    }
    web_reply_json(c->res, 200, json_pack("{s:o}", "items", rows));
}
