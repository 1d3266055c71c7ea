/*
 * cmd_status.c — `dbmcp status --url URL`: fetch GET /status from a
 * running `serve --http` and print it, for an operator at a terminal or a
 * script (--json). The server decides who may read it (setting
 * http.metrics, see transport/http.h); with the key mode the secret comes
 * from --key or DBMCP_METRICS_KEY.
 *
 * libcurl is opened on first use (core/curl_lib.h), as for LLM calls.
 * Every failure — unreachable, refused, not a dbmcp status — is one line
 * on stderr and exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "core/curl_lib.h"
#include "core/json_write.h"
#include "store/registry.h"
#include "store/replicas_store.h"

#define STATUS_MAX_BYTES (1024 * 1024)
#define STATUS_CONNECT_TIMEOUT_MS 5000L
#define STATUS_TIMEOUT_MS 15000L

typedef struct status_body {
    char *data; /* NUL-terminated; owned */
    size_t len;
    int too_large;
} status_body;

static size_t on_body(char *data, size_t size, size_t count, void *userp)
{
    status_body *b = userp;
    size_t n = size * count;
    if (b->len + n > STATUS_MAX_BYTES) {
        b->too_large = 1;
        return 0;
    }
    char *grown = realloc(b->data, b->len + n + 1);
    if (!grown)
        return 0;
    memcpy(grown + b->len, data, n);
    b->data = grown;
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

/* URL/status from the base URL the operator gave: trailing '/' and the
 * "/mcp" that `serve` prints are dropped. 0, or -1 when it is not an
 * http(s) URL or too long. */
static int status_url(const char *base, char *out, size_t size)
{
    if (strncasecmp(base, "http://", 7) != 0 && strncasecmp(base, "https://", 8) != 0)
        return -1;
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    if (n >= 4 && strncmp(base + n - 4, "/mcp", 4) == 0)
        n -= 4;
    int w = snprintf(out, size, "%.*s/status", (int)n, base);
    return w < 0 || (size_t)w >= size || strpbrk(out, " \t\r\n") ? -1 : 0;
}

/* GET url with an optional bearer key into body; the HTTP status into
 * *status. 0, or -1 with the reason in why. */
static int fetch(const char *url, const char *key, status_body *body, long *status, char *why,
                 size_t why_size)
{
    dbmcp_error err;
    if (curl_lib_open(&err) != 0) {
        snprintf(why, why_size, "%s", err.message);
        return -1;
    }
    CURL *c = curl_api.curl_easy_init();
    if (!c) {
        snprintf(why, why_size, "curl_easy_init failed");
        return -1;
    }
    char auth[320] = "", curl_msg[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = curl_api.curl_slist_append(NULL, "Accept: application/json");
    if (key && *key) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
        struct curl_slist *more = headers ? curl_api.curl_slist_append(headers, auth) : NULL;
        headers = more ? more : headers;
    }
    curl_api.curl_easy_setopt(c, CURLOPT_URL, url);
    curl_api.curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_api.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, STATUS_CONNECT_TIMEOUT_MS);
    curl_api.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, STATUS_TIMEOUT_MS);
    curl_api.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_api.curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_api.curl_easy_setopt(c, CURLOPT_USERAGENT, "dbmcp-status");
    curl_api.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_msg);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_api.curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_api.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    CURLcode rc = curl_api.curl_easy_perform(c);
    curl_api.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_api.curl_easy_cleanup(c);
    curl_api.curl_slist_free_all(headers);
    memset(auth, 0, sizeof auth);
    if (rc == CURLE_OK)
        return 0;
    if (body->too_large)
        snprintf(why, why_size, "the answer is larger than %d bytes", STATUS_MAX_BYTES);
    else
        snprintf(why, why_size, "%s", curl_msg[0] ? curl_msg : curl_api.curl_easy_strerror(rc));
    return -1;
}

/* Why the server refused, in the operator's terms. */
static const char *refusal(long status)
{
    switch (status) {
    case 401: return "it wants the metrics key (--key or DBMCP_METRICS_KEY)";
    case 403: return "it serves /status to loopback clients only (setting http.metrics)";
    case 404: return "no /status there (http.metrics is off, or it is not dbmcp)";
    case 503: return "it is busy or shutting down";
    default: return "unexpected answer";
    }
}

/* --- printing ---------------------------------------------------------------- */

static long long num(const json_t *obj, const char *path)
{
    char key[64];
    const json_t *v = obj;
    for (const char *p = path; v && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, p);
        v = json_object_get(v, key);
        p += n + (p[n] == '.');
    }
    return json_is_number(v) ? (long long)json_number_value(v) : -1;
}

static double real(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

static const char *text(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? cli_safe(s) : "-";
}

/* "3d 04h 05m 06s", "05m 06s", "6s". */
static void duration(double seconds, char *out, size_t size)
{
    long long s = (long long)seconds;
    long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;
    if (d)
        snprintf(out, size, "%lldd %02lldh %02lldm %02llds", d, h, m, s % 60);
    else if (h)
        snprintf(out, size, "%lldh %02lldm %02llds", h, m, s % 60);
    else if (m)
        snprintf(out, size, "%lldm %02llds", m, s % 60);
    else
        snprintf(out, size, "%llds", s % 60);
}

static void print_status(const char *url, const json_t *st)
{
    const json_t *q = json_object_get(st, "queues");
    const json_t *audit = json_object_get(q, "audit");
    const json_t *catalog = json_object_get(st, "catalog");
    char up[48];
    duration(real(st, "uptime_s"), up, sizeof up);
    printf("%-15s %s\n", "server", cli_safe(url));
    printf("%-15s %s\n", "version", text(st, "version"));
    printf("%-15s %s (since %s)\n", "uptime", up, text(st, "started_at"));
    printf("%-15s %lld\n", "schema", num(st, "schema_version"));
    printf("%-15s %lld\n", "sessions", num(st, "sessions"));
    printf("%-15s %lld tool calls, %lld HTTP requests\n", "in flight",
           num(st, "in_flight.tool_calls"), num(st, "in_flight.http_requests"));
    printf("%-15s %lld rows (%lld bytes), oldest %.1f s; %lld written, %lld failed writes\n",
           "audit queue", num(audit, "rows"), num(audit, "bytes"), real(audit, "oldest_s"),
           num(audit, "written"), num(audit, "failed_attempts"));
    printf("%-15s %lld pending, %lld due, %lld failing\n", "embedding jobs",
           num(q, "embedding_jobs.pending"), num(q, "embedding_jobs.due"),
           num(q, "embedding_jobs.failing"));
    printf("%-15s catalog %lld/%lld in use, %lld waiting; query %lld/%lld in use, %lld waiting\n",
           "db pools", num(q, "db_pools.catalog.in_use"), num(q, "db_pools.catalog.size"),
           num(q, "db_pools.catalog.waiting"), num(q, "db_pools.query.in_use"),
           num(q, "db_pools.query.size"), num(q, "db_pools.query.waiting"));
    printf("%-15s %lld open, %lld waiting\n", "connections", num(q, "http_connections.open"),
           num(q, "http_connections.waiting"));
    const char *changed = json_string_value(json_object_get(catalog, "changed_at"));
    printf("%-15s tools v%lld, prompts v%lld, resources v%lld; last change seen %s\n", "catalog",
           num(catalog, "tools_version"), num(catalog, "prompts_version"),
           num(catalog, "resources_version"), changed ? cli_safe(changed) : "none since start");
}

/* --- the fleet: every replica's heartbeat row (--db) ------------------------------ */

static void print_replica(const json_t *r)
{
    const json_t *st = json_object_get(r, "status");
    const json_t *q = json_object_get(st, "queues");
    char up[48] = "-";
    if (st)
        duration(real(st, "uptime_s"), up, sizeof up);
    const char *changed =
        json_string_value(json_object_get(json_object_get(st, "catalog"), "changed_at"));
    printf("%-36s %-6s %-8s %-14s %6lld %8lld %5lld %6lld %5lld  %-24s %s  %s\n",
           text(r, "replica_id"), json_is_true(json_object_get(r, "stale")) ? "stale" : "up",
           text(st, "version"), up, num(st, "schema_version"), num(st, "sessions"),
           num(st, "in_flight.tool_calls"), num(q, "audit.rows"), num(q, "embedding_jobs.pending"),
           changed ? cli_safe(changed) : "-", text(r, "beat_at"), text(r, "url"));
}

static int run_fleet(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    char *v = reg_setting_get(db, "fleet.heartbeat_s");
    long beat = v ? strtol(v, NULL, 10) : 0;
    free(v);
    if (beat < 1 || beat > 3600)
        beat = 5;
    json_t *rows = NULL;
    dbmcp_error err;
    int rc = store_replica_list_json(db, 3 * (int)beat, &rows, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    if (cli_flag(a, "json")) {
        char *out = json_write_compact(rows, NULL);
        printf("%s\n", out ? out : "[]");
        free(out);
    } else if (json_array_size(rows) == 0) {
        printf("no replica has a heartbeat in this database (serve --http writes one every "
               "fleet.heartbeat_s)\n");
    } else {
        printf("%-36s %-6s %-8s %-14s %6s %8s %5s %6s %5s  %-24s %-24s  %s\n", "REPLICA", "STATE",
               "VERSION", "UPTIME", "SCHEMA", "SESSIONS", "CALLS", "AUDIT", "JOBS",
               "LAST CATALOG CHANGE", "HEARTBEAT", "URL");
        size_t i;
        json_t *r;
        json_array_foreach (rows, i, r)
            print_replica(r);
    }
    json_decref(rows);
    return CLI_OK;
}

static int run_status(cli_args *a)
{
    const char *base = cli_flag(a, "url");
    if (base && cli_flag(a, "db"))
        return cli_usage_error(a->cmd, "give either --url (one server) or --db (every replica)");
    if (!base && cli_flag(a, "db"))
        return run_fleet(a);
    if (!base)
        return cli_usage_error(a->cmd,
                               "--url or --db is required (e.g. --url http://127.0.0.1:8080)");
    char url[1100];
    if (status_url(base, url, sizeof url) != 0)
        return cli_usage_error(a->cmd, "--url must be an http:// or https:// URL, got '%s'",
                               cli_safe(base));
    const char *key = cli_flag(a, "key");
    if (!key)
        key = getenv("DBMCP_METRICS_KEY");
    if (key && (strlen(key) > 256 || strpbrk(key, "\r\n")))
        return cli_usage_error(a->cmd, "the metrics key must be one line of at most 256 bytes");
    status_body body = {0};
    long status = 0;
    char why[sizeof((dbmcp_error *)0)->message + 64];
    if (fetch(url, key, &body, &status, why, sizeof why) != 0) {
        fprintf(stderr, "dbmcp status: cannot reach %s: %s\n", cli_safe(url), cli_safe(why));
        free(body.data);
        return CLI_FAIL;
    }
    if (status != 200) {
        fprintf(stderr, "dbmcp status: %s answered HTTP %ld: %s\n", cli_safe(url), status,
                refusal(status));
        free(body.data);
        return CLI_FAIL;
    }
    json_error_t jerr;
    json_t *st = body.data ? json_loads(body.data, 0, &jerr) : NULL;
    free(body.data);
    if (!json_is_object(st) || !json_is_string(json_object_get(st, "version"))) {
        fprintf(stderr, "dbmcp status: %s did not answer with a dbmcp status\n", cli_safe(url));
        json_decref(st);
        return CLI_FAIL;
    }
    if (cli_flag(a, "json")) {
        char *out = json_write_compact(st, NULL);
        printf("%s\n", out ? out : "{}");
        free(out);
    } else {
        print_status(url, st);
    }
    json_decref(st);
    return CLI_OK;
}

static const cli_flag_spec status_flags[] = {
    {"url", "URL", "the server's base URL, e.g. http://127.0.0.1:8080 (a final /mcp is ignored)"},
    {"db", "URI", "list every replica serving this database (its dbmcp_replicas rows) instead"},
    {"key", "KEY",
     "the metrics key when the server runs with http.metrics=key; default "
     "$DBMCP_METRICS_KEY"},
    {"json", NULL, "print the server's JSON (one line) instead of the summary"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_status = {
    "status",
    "Show a running HTTP server's status (GET /status), or every replica's (--db)",
    "--url URL [--key KEY] [--json] | --db URI [--json]",
    "Asks `dbmcp serve --http` at URL for GET /status and prints its version, uptime,\n"
    "schema version, sessions, calls in flight, queue depths (audit writer, embedding\n"
    "jobs, database pools, waiting connections) and the last catalog change it saw.\n"
    "\n"
    "The server answers loopback clients by default; with the setting http.metrics=key it\n"
    "answers anyone sending its metrics key, taken from --key or $DBMCP_METRICS_KEY (the\n"
    "variable keeps it out of the process list). Exit status 1, with the reason on stderr,\n"
    "when the server cannot be reached, refuses (401, 403, 404) or answers something else.\n"
    "\n"
    "--db URI lists every `serve --http` sharing that database instead, from the heartbeat\n"
    "row each writes every fleet.heartbeat_s (5) seconds: its state (stale after three missed\n"
    "heartbeats), version, uptime, schema version, sessions, tool calls in flight, audit rows\n"
    "waiting, embedding jobs pending, the last catalog change it saw, and its URL.",
    0,
    0,
    status_flags,
    run_status,
};
