/*
 * internal.h — what console.c (routing, access, answers, the audit of
 * admin actions) shares with api.c (the API's handlers). Private to web/.
 */
#ifndef DBMCP_WEB_INTERNAL_H
#define DBMCP_WEB_INTERNAL_H

#include <jansson.h>

#include "store/store.h"
#include "web/console.h"

/* Who is calling the API, once access was granted. */
typedef struct web_caller {
    char principal[129];
    char key_id[33];
    char interface[65];
    char csrf_token[65];   /* "" for a bearer key */
    char expires_at[32];   /* "" for a bearer key */
    char session_hash[65]; /* "" for a bearer key */
} web_caller;

/* One API request being served: the request, its answer, the server and a
 * catalog connection (held for the whole request). */
typedef struct web_call {
    mcp_server *srv;
    const web_request *req;
    web_response *res;
    store *db;
    web_caller who;
    json_t *body; /* the parsed JSON body of a POST (object), or NULL */
    /* An API key the request presents (bearer header, or the login body),
     * checked before db is taken: the check needs a pooled connection of
     * its own, and holding one while waiting for another could exhaust the
     * pool. */
    int has_key;         /* a key was presented */
    int key_rc;          /* 0 when it is valid (mcp_server_authenticate) */
    mcp_identity key_id; /* its identity when valid */
} web_call;

/* Answer with a JSON value (stolen). */
void web_reply_json(web_response *res, unsigned status, json_t *v);
/* Answer {"error":{"code":code,"message":msg}}. */
void web_reply_error(web_response *res, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Answer for a store error: 404 not found, 409 exists or in use, 400
 * invalid, 500 otherwise; the message is the store's. */
void web_reply_store_error(web_response *res, const dbmcp_error *err);
/* Record one admin action in dbmcp_audit before answering: method
 * "admin/<action>", transport "console", status ok|error|denied, change
 * (borrowed, may be NULL) as change_json. Logs when the row cannot be
 * written. */
void web_audit(web_call *c, const char *action, const char *target, const char *status,
               const json_t *change);

/* --- handlers (api.c); each answers through c->res ------------------------ */
void web_api_catalog_list(web_call *c, const char *kind);
void web_api_catalog_enable(web_call *c, const char *kind);
void web_api_catalog_membership(web_call *c, const char *kind);
void web_api_keys_list(web_call *c);
void web_api_keys_create(web_call *c);
void web_api_keys_revoke(web_call *c);
void web_api_audit(web_call *c);

#endif
