/*
 * console.h — the admin console: the single-page application under
 * /admin/ and its JSON API under /admin/api/v1/ (docs/console.md).
 *
 * The transport (transport/http.c) hands every request whose path is
 * /admin or starts with /admin/ here, already past its Host and Origin
 * checks, with the body read (at most WEB_MAX_BODY bytes). This module
 * knows nothing of libmicrohttpd: a request is a web_request, the answer a
 * web_response that the transport sends with the headers of
 * web_security_headers added.
 *
 * Access: the API takes either the session cookie of a console login
 * (POST /admin/api/v1/login with an admin key; every change then needs the
 * session's CSRF token in X-CSRF-Token and, when the browser sends one, an
 * Origin equal to the server's own) or `Authorization: Bearer` with an
 * admin key (for scripts; no cookie, so no CSRF). No credentials: 401.
 * A valid key that is not an admin key: 403, audited as denied.
 *
 * Changes go through the same store/ functions as the CLI (reg_set_enabled,
 * mcp_key_create, reg_api_key_revoke), so MCP clients hear of them as they
 * hear of a CLI change (list_changed; 401 after a revoke). Each is written
 * to dbmcp_audit as one row (transport "console", method "admin/<action>",
 * change_json {"before","after"}) before the answer goes out.
 */
#ifndef DBMCP_WEB_CONSOLE_H
#define DBMCP_WEB_CONSOLE_H

#include <stddef.h>

#include "mcp/server.h"

/* Largest request body the console accepts (413 past it). */
#define WEB_MAX_BODY (64u * 1024)
/* The cookie that carries a console session. */
#define WEB_SESSION_COOKIE "dbmcp_console"
/* Console sessions last this long unless console.session_ttl_s says otherwise. */
#define WEB_SESSION_TTL_DEFAULT_S 28800

/* One request as the transport saw it. Every string is borrowed for the
 * call and may be NULL when the header is absent. */
typedef struct web_request {
    const char *method; /* "GET", "POST", … */
    const char *path;   /* the URL path, starting with "/admin" */
    /* A query-string argument, decoded, or NULL (borrowed for the call). */
    const char *(*arg)(void *arg_ctx, const char *name);
    void *arg_ctx;
    const char *cookie;        /* Cookie header */
    const char *csrf;          /* X-CSRF-Token header */
    const char *origin;        /* Origin header */
    const char *authorization; /* Authorization header */
    const char *content_type;  /* Content-Type header */
    const char *own_origin;    /* "http://HOST:PORT" (or the public URL's origin) */
    const char *peer;          /* client address, for the audit */
    int secure;                /* reached over TLS (public URL is https): cookies get Secure */
    const char *body;          /* the body (not NUL-terminated), or NULL */
    size_t body_len;
} web_request;

/* The answer. body is malloc'd unless body_static; release with
 * web_response_free. */
typedef struct web_response {
    unsigned status;
    const char *content_type; /* static */
    char *body;
    size_t len;
    int body_static;      /* body points into the binary (an asset) */
    char set_cookie[256]; /* a Set-Cookie value, "" for none */
    const char *location; /* a Location header (redirects), or NULL */
    const char *allow;    /* an Allow header (405), or NULL */
    const char *cache;    /* a Cache-Control value (static) */
} web_response;

/* Answer one /admin request. Never fails: errors are responses
 * ({"error":{"code","message"}} with their status). */
void web_console_handle(mcp_server *srv, const web_request *req, web_response *res);
void web_response_free(web_response *res);
/* Header name/value pairs every /admin response carries, NULL-terminated:
 * Content-Security-Policy, X-Frame-Options, Referrer-Policy,
 * X-Content-Type-Options. */
const char *const *web_security_headers(void);

#endif
