/*
 * console.c — the admin console's front door (see console.h): the
 * embedded files, the API's routing, access (login, session cookie, CSRF,
 * Origin, bearer admin keys) and the audit of admin actions. The handlers
 * of the API's pages are in api.c.
 */
#include "web/console.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "store/console_store.h"
#include "web/assets.h"
#include "web/internal.h"

#define API_PREFIX "/admin/api/v1/"
#define CT_JSON "application/json"
#define SESSION_TOKEN_LEN 43 /* [a-z0-9]: about 222 bits */
#define CSRF_TOKEN_LEN 32
#define TTL_MIN_S 60
#define TTL_MAX_S (7 * 86400)

const char *const *web_security_headers(void)
{
    /* No inline script or style anywhere: index.html loads console.js and
     * console.css from /admin/; nothing may frame the console. */
    static const char *const headers[] = {
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
        " connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        "X-Frame-Options",
        "DENY",
        "Referrer-Policy",
        "no-referrer",
        "X-Content-Type-Options",
        "nosniff",
        NULL,
    };
    return headers;
}

void web_response_free(web_response *res)
{
    if (!res->body_static)
        free(res->body);
    res->body = NULL;
}

/* --- answers ---------------------------------------------------------------- */

void web_reply_json(web_response *res, unsigned status, json_t *v)
{
    char *text = v ? json_dump_compact(v) : NULL;
    json_decref(v);
    if (!res->body_static)
        free(res->body);
    res->body_static = 0;
    res->content_type = CT_JSON;
    res->cache = "no-store";
    if (!text) {
        res->status = 500;
        res->body = strdup("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
        res->len = res->body ? strlen(res->body) : 0;
        return;
    }
    res->status = status;
    res->body = text;
    res->len = strlen(text);
}

void web_reply_error(web_response *res, unsigned status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    web_reply_json(res, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}

void web_reply_store_error(web_response *res, const dbmcp_error *err)
{
    switch (err->code) {
    case DBMCP_ENOTFOUND: web_reply_error(res, 404, "not_found", "%s", err->public_message); break;
    case DBMCP_EEXISTS:
    case DBMCP_ECONSTRAINT_UNIQUE:
    case DBMCP_ECONSTRAINT_FOREIGN_KEY:
        web_reply_error(res, 409, "conflict", "%s", err->public_message);
        break;
    case DBMCP_EINVAL:
    case DBMCP_EDENIED:
    case DBMCP_ECONSTRAINT_CHECK:
    case DBMCP_ECONSTRAINT_NOT_NULL:
        web_reply_error(res, 400, "invalid", "%s", err->public_message);
        break;
    default:
        log_msg(LOG_ERROR, "console", "database: %s", err->message);
        web_reply_error(res, 500, "internal", "the database failed; see the server log");
    }
}

/* --- the audit of admin actions -------------------------------------------- */

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

void web_audit(web_call *c, const char *action, const char *target, const char *status,
               const json_t *change)
{
    reg_admin_actor who = {c->who.principal, c->who.key_id, c->who.interface, "dbmcp console",
                           "console"};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (reg_audit_admin(c->db, &who, action, target, status, change, &err))
        log_msg(LOG_ERROR, "console", "audit row of admin/%s on %s not written: %s", action,
                target ? target : "-", err.message);
}

/* --- access -------------------------------------------------------------------- */

/* The value of cookie `name` in a Cookie header into out; 0 when absent. */
static int cookie_value(const char *header, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    for (const char *p = header; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            size_t vlen = len - n - 1;
            if (vlen == 0 || vlen >= size)
                return 0;
            memcpy(out, p + n + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        p = end;
    }
    return 0;
}

/* A valid key of someone who is not an admin: refused and audited. */
static void deny_non_admin(web_call *c, const mcp_identity *id, const char *action)
{
    copy_str(c->who.principal, sizeof c->who.principal, id->principal);
    copy_str(c->who.key_id, sizeof c->who.key_id, id->key_id);
    copy_str(c->who.interface, sizeof c->who.interface, id->interface);
    web_audit(c, action, c->req->path, "denied", NULL);
    web_reply_error(c->res, 403, "not_admin",
                    "this API key is not an admin key (create one with `dbmcp keys create "
                    "--admin`)");
}

/* Resolve a presented API key (before the request takes its own
 * connection: see web_call). */
static void key_resolve(web_call *c, const char *key)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    c->has_key = 1;
    c->key_rc = mcp_server_authenticate(c->srv, key, &c->key_id, &err);
}

/* The presented key: 0 with c->who filled for an admin key; otherwise the
 * answer is set (401, or 403 audited). */
static int key_check(web_call *c, const char *action)
{
    if (!c->has_key || c->key_rc) {
        web_reply_error(c->res, 401, "unauthorized", "invalid or revoked API key");
        return -1;
    }
    if (!c->key_id.admin) {
        deny_non_admin(c, &c->key_id, action);
        return -1;
    }
    copy_str(c->who.principal, sizeof c->who.principal, c->key_id.principal);
    copy_str(c->who.key_id, sizeof c->who.key_id, c->key_id.key_id);
    copy_str(c->who.interface, sizeof c->who.interface, c->key_id.interface);
    return 0;
}

/* The token of an `Authorization: Bearer` header, or NULL. */
static const char *bearer(const web_request *req)
{
    const char *auth = req->authorization;
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return NULL;
    auth += 7;
    while (*auth == ' ')
        auth++;
    return auth;
}

/* Same-origin check for requests that change something: a browser names
 * the page's origin; it must be the console's own. (Foreign origins are
 * refused before this by the transport; this also refuses other loopback
 * ports, which /mcp accepts.) */
static int origin_ok(const web_request *req)
{
    return !req->origin || (req->own_origin && strcmp(req->origin, req->own_origin) == 0);
}

static int is_json(const web_request *req)
{
    const char *t = req->content_type;
    return t && strncasecmp(t, CT_JSON, strlen(CT_JSON)) == 0 &&
           (t[strlen(CT_JSON)] == '\0' || t[strlen(CT_JSON)] == ';');
}

/* Grant access to the API: a bearer admin key, or a valid session cookie
 * (plus, for a change, the CSRF token). 0, or the refusal is answered. */
static int authorize(web_call *c, int change)
{
    const web_request *req = c->req;
    if (bearer(req))
        return key_check(c, "api");
    char token[128];
    if (!cookie_value(req->cookie, WEB_SESSION_COOKIE, token, sizeof token)) {
        web_reply_error(c->res, 401, "unauthorized",
                        "log in first (POST " API_PREFIX "login with an admin key)");
        return -1;
    }
    char hash[65], now[32];
    mcp_key_hash_secret(token, hash);
    sodium_memzero(token, sizeof token);
    ids_now_iso(now);
    console_session s;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = console_session_get(c->db, hash, now, &s, &err);
    if (rc == DBMCP_ENOTFOUND) {
        web_reply_error(c->res, 401, "session_expired",
                        "the console session has expired or ended; log in again");
        return -1;
    }
    if (rc) {
        web_reply_store_error(c->res, &err);
        return -1;
    }
    copy_str(c->who.principal, sizeof c->who.principal, s.principal);
    copy_str(c->who.key_id, sizeof c->who.key_id, s.key_id);
    copy_str(c->who.csrf_token, sizeof c->who.csrf_token, s.csrf_token);
    copy_str(c->who.expires_at, sizeof c->who.expires_at, s.expires_at);
    copy_str(c->who.session_hash, sizeof c->who.session_hash, hash);
    if (!change)
        return 0;
    size_t n = strlen(s.csrf_token);
    if (!req->csrf || strlen(req->csrf) != n || n == 0 ||
        sodium_memcmp(req->csrf, s.csrf_token, n) != 0) {
        web_audit(c, "csrf", req->path, "denied", NULL);
        web_reply_error(c->res, 403, "csrf",
                        "missing or wrong X-CSRF-Token header (GET " API_PREFIX
                        "session gives it)");
        return -1;
    }
    return 0;
}

/* --- login, logout, session ----------------------------------------------------- */

static long session_ttl(mcp_server *srv)
{
    long ttl = mcp_server_setting_long(srv, "console.session_ttl_s", WEB_SESSION_TTL_DEFAULT_S);
    return ttl < TTL_MIN_S ? TTL_MIN_S : ttl > TTL_MAX_S ? TTL_MAX_S : ttl;
}

static json_t *session_json(const web_caller *who)
{
    return json_pack("{s:s,s:s,s:s?,s:s?}", "principal", who->principal, "key_id", who->key_id,
                     "csrf_token", *who->csrf_token ? who->csrf_token : NULL, "expires_at",
                     *who->expires_at ? who->expires_at : NULL);
}

static void api_login(web_call *c)
{
    if (key_check(c, "login"))
        return;
    char token[SESSION_TOKEN_LEN + 1], hash[65];
    ids_token(token, SESSION_TOKEN_LEN);
    mcp_key_hash_secret(token, hash);
    console_session s;
    memset(&s, 0, sizeof s);
    long ttl = session_ttl(c->srv);
    copy_str(s.key_id, sizeof s.key_id, c->who.key_id);
    copy_str(s.principal, sizeof s.principal, c->who.principal);
    ids_token(s.csrf_token, CSRF_TOKEN_LEN);
    ids_iso_from_now((double)ttl, s.expires_at);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (console_session_insert(c->db, hash, &s, &err)) {
        sodium_memzero(token, sizeof token);
        web_reply_store_error(c->res, &err);
        return;
    }
    snprintf(c->res->set_cookie, sizeof c->res->set_cookie,
             WEB_SESSION_COOKIE "=%s; Path=/admin; Max-Age=%ld; HttpOnly; SameSite=Strict%s", token,
             ttl, c->req->secure ? "; Secure" : "");
    sodium_memzero(token, sizeof token);
    copy_str(c->who.csrf_token, sizeof c->who.csrf_token, s.csrf_token);
    copy_str(c->who.expires_at, sizeof c->who.expires_at, s.expires_at);
    web_audit(c, "login", c->who.key_id, "ok", NULL);
    json_t *out = session_json(&c->who);
    json_object_set_new(out, "authenticated", json_true());
    web_reply_json(c->res, 200, out);
}

/* GET session: the caller's session, or {"authenticated": false} (200,
 * so that the login page loads without a failed request). */
static void api_session(web_call *c)
{
    if (!authorize(c, 0)) {
        json_t *s = session_json(&c->who);
        json_object_set_new(s, "authenticated", json_true());
        web_reply_json(c->res, 200, s);
        return;
    }
    if (c->res->status != 401)
        return; /* 403 (not an admin key) or a database failure stays */
    web_reply_json(c->res, 200, json_pack("{s:b}", "authenticated", 0));
}

static void api_logout(web_call *c)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (*c->who.session_hash && console_session_delete(c->db, c->who.session_hash, &err)) {
        web_reply_store_error(c->res, &err);
        return;
    }
    snprintf(c->res->set_cookie, sizeof c->res->set_cookie,
             WEB_SESSION_COOKIE "=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict%s",
             c->req->secure ? "; Secure" : "");
    web_audit(c, "logout", c->who.key_id, "ok", NULL);
    web_reply_json(c->res, 200, json_object());
}

/* --- routing --------------------------------------------------------------------- */

/* Parse the JSON body of a change: an object, or the answer is set. */
static int parse_body(web_call *c)
{
    const web_request *req = c->req;
    if (!is_json(req)) {
        web_reply_error(c->res, 415, "content_type", "send Content-Type: application/json");
        return -1;
    }
    json_error_t jerr;
    c->body = req->body_len ? json_loadb(req->body, req->body_len, 0, &jerr) : json_object();
    if (!json_is_object(c->body)) {
        web_reply_error(c->res, 400, "invalid", "the body must be one JSON object%s%s",
                        c->body ? "" : ": ", c->body ? "" : jerr.text);
        return -1;
    }
    return 0;
}

/* The catalog kinds the API names in its paths. */
static int catalog_kind(const char *s, size_t n)
{
    static const char *const kinds[] = {"interfaces", "tools", "prompts", "resources", "templates"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i]) == n && strncmp(s, kinds[i], n) == 0)
            return 1;
    return 0;
}

/* route (after API_PREFIX) of an authorised GET. */
static void route_get(web_call *c, const char *route)
{
    if (strncmp(route, "catalog/", 8) == 0 && catalog_kind(route + 8, strlen(route + 8)))
        web_api_catalog_list(c, route + 8);
    else if (strcmp(route, "keys") == 0)
        web_api_keys_list(c);
    else if (strcmp(route, "audit") == 0)
        web_api_audit(c);
    else
        web_reply_error(c->res, 404, "not_found", "no API endpoint %s", c->req->path);
}

/* route of an authorised POST (body parsed). */
static void route_post(web_call *c, const char *route)
{
    const char *slash = strchr(route, '/');
    if (strcmp(route, "logout") == 0)
        api_logout(c);
    else if (strcmp(route, "keys") == 0)
        web_api_keys_create(c);
    else if (strcmp(route, "keys/revoke") == 0)
        web_api_keys_revoke(c);
    else if (strncmp(route, "catalog/", 8) == 0 && (slash = strchr(route + 8, '/')) &&
             catalog_kind(route + 8, (size_t)(slash - route - 8))) {
        char kind[16];
        snprintf(kind, sizeof kind, "%.*s", (int)(slash - route - 8), route + 8);
        if (strcmp(slash + 1, "enabled") == 0)
            web_api_catalog_enable(c, kind);
        else if (strcmp(slash + 1, "membership") == 0)
            web_api_catalog_membership(c, kind);
        else
            web_reply_error(c->res, 404, "not_found", "no API endpoint %s", c->req->path);
    } else
        web_reply_error(c->res, 404, "not_found", "no API endpoint %s", c->req->path);
}

static void handle_api(web_call *c)
{
    const web_request *req = c->req;
    const char *route = req->path + strlen(API_PREFIX);
    int is_get = strcmp(req->method, "GET") == 0;
    int is_post = strcmp(req->method, "POST") == 0;
    if (!is_get && !is_post) {
        c->res->allow = "GET, POST";
        web_reply_error(c->res, 405, "method", "use GET to read and POST to change");
        return;
    }
    if (is_post && !origin_ok(req)) {
        web_reply_error(c->res, 403, "origin", "Origin %s is not this console's (%s)", req->origin,
                        req->own_origin ? req->own_origin : "?");
        return;
    }
    int login = is_post && strcmp(route, "login") == 0;
    if (is_post && parse_body(c))
        return;
    if (login) {
        const char *key = json_get_str(c->body, "key");
        if (!key || !*key || strlen(key) > 256) {
            web_reply_error(c->res, 400, "invalid", "the body must be {\"key\": \"dbmcp_…\"}");
            return;
        }
        key_resolve(c, key);
    } else if (bearer(req)) {
        key_resolve(c, bearer(req));
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    c->db = mcp_server_catalog_acquire(c->srv, &err);
    if (!c->db) {
        web_reply_error(c->res, 503, "unavailable", "no database connection: %s",
                        err.public_message);
        return;
    }
    if (login)
        api_login(c);
    else if (is_get && strcmp(route, "session") == 0)
        api_session(c);
    else if (!authorize(c, is_post))
        (is_get ? route_get : route_post)(c, route);
    mcp_server_catalog_release(c->srv, c->db);
}

static void serve_asset(const web_request *req, web_response *res)
{
    web_asset a;
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        res->allow = "GET, HEAD";
        web_reply_error(res, 405, "method", "use GET");
        return;
    }
    if (strcmp(req->path, "/admin") == 0) {
        res->status = 308;
        res->location = "/admin/";
        res->content_type = "text/plain; charset=utf-8";
        res->body = (char *)"";
        res->body_static = 1;
        return;
    }
    if (!web_asset_find(req->path, &a)) {
        web_reply_error(res, 404, "not_found", "no such page");
        return;
    }
    res->status = 200;
    res->content_type = a.content_type;
    res->body = (char *)a.data;
    res->len = a.len;
    res->body_static = 1;
    res->cache = "no-cache";
}

void web_console_handle(mcp_server *srv, const web_request *req, web_response *res)
{
    memset(res, 0, sizeof *res);
    if (req->body_len > WEB_MAX_BODY) {
        web_reply_error(res, 413, "too_large", "the body is larger than %u bytes", WEB_MAX_BODY);
        return;
    }
    if (strncmp(req->path, API_PREFIX, strlen(API_PREFIX)) != 0) {
        if (strncmp(req->path, "/admin/api/", 11) == 0)
            web_reply_error(res, 404, "not_found", "unknown API version: use " API_PREFIX);
        else
            serve_asset(req, res);
        return;
    }
    web_call c;
    memset(&c, 0, sizeof c);
    c.srv = srv;
    c.req = req;
    c.res = res;
    handle_api(&c);
    json_decref(c.body);
    sodium_memzero(&c.key_id, sizeof c.key_id);
}
