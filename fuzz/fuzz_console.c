/*
 * fuzz_console.c — libFuzzer target for the admin console's request
 * handling (web/console.h): routing, the cookie and header checks, JSON
 * bodies, query arguments and every API handler, on a real database.
 *
 * One input is one request, written like HTTP:
 *   METHOD PATH                       first line, e.g. "POST /admin/api/v1/login"
 *   Name: value                       Cookie, X-CSRF-Token, Origin, Authorization,
 *                                     Content-Type; "Query-NAME: value" is a query argument
 *   (an empty line)
 *   body                              the rest of the input
 *
 * The server is created once on a temporary SQLite database set up like
 * `dbmcp init`, with a fixed admin key (dbmcp_fuzzadmin001_ + 40 'a') and a
 * fixed console session (cookie dbmcp_console=fuzzsession…, CSRF token
 * fuzzcsrf…), so the seeds reach the authorised handlers. What a change
 * does stays for later inputs (a revoked key, a disabled tool), as it
 * would on a server. (No seed logs out: that would end the session the
 * other seeds use.)
 *
 * Besides the sanitizers, the target checks the contract of
 * web_console_handle: a status from 200 to 599; an API answer is one JSON
 * object of content type application/json, and an error answer has a
 * string code and message; a Set-Cookie only comes with a 200 answer to
 * login or logout.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/log.h"
#include "mcp/server.h"
#include "store/migrate.h"
#include "store/store.h"
#include "web/console.h"

#define FUZZ_SECRET "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define FUZZ_SESSION "fuzzsession0000000000000000000000000000000"
#define FUZZ_CSRF "fuzzcsrf000000000000000000000000"
#define MAX_ARGS 8

static mcp_server *server;
static char temp_dir[512];
static char db_path[600];

static void die(const char *what, const dbmcp_error *err)
{
    fprintf(stderr, "fuzz_console: %s: %s\n", what, err ? err->message : "");
    abort();
}

static void remove_database(void)
{
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", db_path, suffixes[i]);
        unlink(file);
    }
    rmdir(temp_dir);
}

static void create_database(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/dbmcp-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(temp_dir))
        die("mkdtemp", NULL);
    snprintf(db_path, sizeof db_path, "%s/fuzz.db", temp_dir);
    atexit(remove_database);
    store *db = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    char key_hash[65], session_hash[65], sql[1024];
    mcp_key_hash_secret(FUZZ_SECRET, key_hash);
    mcp_key_hash_secret(FUZZ_SESSION, session_hash);
    snprintf(sql, sizeof sql,
             "INSERT INTO dbmcp_principals (name, created_at) VALUES ('fuzz', '2026-01-01');"
             "INSERT INTO dbmcp_api_keys (id, principal, secret_hash, interface, role, created_at)"
             " VALUES ('fuzzadmin001', 'fuzz', '%s', 'default', 'admin', '2026-01-01');"
             "INSERT INTO dbmcp_console_sessions (id_hash, key_id, principal, csrf_token,"
             " created_at, expires_at) VALUES ('%s', 'fuzzadmin001', 'fuzz', '" FUZZ_CSRF "',"
             " '2026-01-01', '9999-01-01');",
             key_hash, session_hash);
    int rc = store_open(db_path, STORE_READWRITE | STORE_CREATE, &db, &err);
    if (!rc)
        rc = store_migrate(db, NULL, &err);
    if (!rc)
        rc = store_seed(db, "base", &err);
    if (!rc)
        rc = store_exec(db, sql, &err);
    if (rc)
        die("creating the database", &err);
    store_close(db);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    log_init();
    if (!getenv("DBMCP_LOG"))
        log_set_level(LOG_ERROR);
    create_database();
    mcp_server_config cfg = {0};
    cfg.db_url = db_path;
    cfg.pool_size = 2;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (mcp_server_create(&cfg, &server, &err) != 0)
        die("mcp_server_create", &err);
    return 0;
}

/* One parsed input. Strings point into `text` (NUL-terminated copies). */
typedef struct fuzz_request {
    web_request req;
    char *arg_names[MAX_ARGS];
    char *arg_values[MAX_ARGS];
    int nargs;
} fuzz_request;

static const char *query_arg(void *ctx, const char *name)
{
    fuzz_request *f = ctx;
    for (int i = 0; i < f->nargs; i++)
        if (strcmp(f->arg_names[i], name) == 0)
            return f->arg_values[i];
    return NULL;
}

static void header(fuzz_request *f, char *name, char *value)
{
    web_request *r = &f->req;
    if (strcasecmp(name, "Cookie") == 0)
        r->cookie = value;
    else if (strcasecmp(name, "X-CSRF-Token") == 0)
        r->csrf = value;
    else if (strcasecmp(name, "Origin") == 0)
        r->origin = value;
    else if (strcasecmp(name, "Authorization") == 0)
        r->authorization = value;
    else if (strcasecmp(name, "Content-Type") == 0)
        r->content_type = value;
    else if (strncasecmp(name, "Query-", 6) == 0 && f->nargs < MAX_ARGS) {
        f->arg_names[f->nargs] = name + 6;
        f->arg_values[f->nargs++] = value;
    }
}

/* Split text (modified in place) into the request. */
static void parse(char *text, size_t len, fuzz_request *f)
{
    memset(f, 0, sizeof *f);
    web_request *r = &f->req;
    r->method = "GET";
    r->path = "/admin/";
    r->own_origin = "http://127.0.0.1:8080";
    r->arg = query_arg;
    r->arg_ctx = f;
    char *end = text + len;
    char *line = text;
    for (int first = 1; line < end; first = 0) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl)
            nl = end;
        *nl = '\0';
        if (nl > line && nl[-1] == '\r')
            nl[-1] = '\0';
        char *next = nl < end ? nl + 1 : end;
        if (first) {
            char *sp = strchr(line, ' ');
            if (sp) {
                *sp = '\0';
                r->method = line;
                r->path = sp + 1;
            }
        } else if (*line == '\0') {
            r->body = next;
            r->body_len = (size_t)(end - next);
            return;
        } else {
            char *colon = strchr(line, ':');
            if (colon) {
                *colon = '\0';
                char *value = colon + 1;
                while (*value == ' ')
                    value++;
                header(f, line, value);
            }
        }
        line = next;
    }
}

static void broken(const char *why, const web_request *req, const web_response *res)
{
    fprintf(stderr, "fuzz_console: contract broken: %s\n  %s %s -> %u %.*s\n", why, req->method,
            req->path, res->status, (int)(res->len > 400 ? 400 : res->len),
            res->body ? res->body : "");
    abort();
}

static void check(const web_request *req, const web_response *res)
{
    if (res->status < 200 || res->status > 599)
        broken("status out of range", req, res);
    if (res->len && !res->body)
        broken("a length without a body", req, res);
    int api = strncmp(req->path, "/admin/api/", 11) == 0;
    if (api) {
        if (!res->content_type || strcmp(res->content_type, "application/json") != 0)
            broken("an API answer that is not application/json", req, res);
        json_error_t jerr;
        json_t *v = json_loadb(res->body, res->len, 0, &jerr);
        if (!json_is_object(v))
            broken("an API answer that is not one JSON object", req, res);
        json_t *e = json_object_get(v, "error");
        if (res->status >= 400 && (!json_is_string(json_object_get(e, "code")) ||
                                   !json_is_string(json_object_get(e, "message"))))
            broken("an error without a string code and message", req, res);
        json_decref(v);
    }
    if (res->set_cookie[0]) {
        size_t n = strlen(req->path);
        int login_or_out = (n >= 5 && strcmp(req->path + n - 5, "login") == 0) ||
                           (n >= 6 && strcmp(req->path + n - 6, "logout") == 0);
        if (res->status != 200 || !login_or_out)
            broken("Set-Cookie outside a successful login or logout", req, res);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    fuzz_request f;
    parse(text, size, &f);
    web_response res;
    web_console_handle(server, &f.req, &res);
    check(&f.req, &res);
    web_response_free(&res);
    free(text);
    return 0;
}
