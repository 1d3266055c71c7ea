/*
 * cmd_core.c — the everyday commands: init, serve, call.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/memory_summary.h"
#include "catalog/catalog.h"
#include "cli/cli.h"
#include "docs/demo.h"
#include "core/log.h"
#include "core/otlp.h"
#include "core/replica.h"
#include "core/version.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "memory/compact.h"
#include "memory/worker.h"
#include "store/migrate.h"
#include "store/registry.h"
#include "transport/http.h"
#include "transport/stdio.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"                    \
    }

/* Every command that serves (serve, call, chat) takes it. */
#define QUERY_DB_FLAG                                                                              \
    {                                                                                              \
        "query-db", "URI",                                                                         \
            "the query connection's database (also $DBMCP_QUERY_DB); PostgreSQL default: --db "    \
            "as the query role"                                                                    \
    }

/* --- init --------------------------------------------------------------------- */

/* A user's own SQLite file (tables of its own, no dbmcp catalog) is not
 * written into without --in-place: opening it read-write alone would
 * switch it to WAL. CLI_OK to go on. */
static int refuse_user_file(cli_args *a, const char *url)
{
    dbmcp_error err;
    int is_catalog = 0;
    size_t n_user = 0;
    char names[256];
    if (store_survey_file(url, &is_catalog, &n_user, names, sizeof names, &err) != 0) {
        char context[1200];
        snprintf(context, sizeof context, "cannot read %s", cli_safe(url));
        dbmcp_error_prefix(&err, context);
        return cli_fail(&err);
    }
    if (is_catalog || n_user == 0)
        return CLI_OK;
    char hint[3 * 4096];
    cli_attach_hint(url, hint, sizeof hint);
    return cli_usage_error(a->cmd,
                           "%s holds %zu table%s or view%s of its own (%s%s) and no dbmcp catalog; "
                           "dbmcp keeps its catalog, audit and memory in a database of its own and "
                           "reads yours read-only. Attach it instead:\n  %s\nor pass --in-place "
                           "to write dbmcp's tables into this file",
                           cli_safe(url), n_user, n_user == 1 ? "" : "s", n_user == 1 ? "" : "s",
                           names, n_user > 3 ? ", …" : "", hint);
}

/* The MCP conformance suite's fixtures (the disabled interface
 * `conformance`, its 35 tools, 5 prompts and 3 resources), once: a
 * database that has them keeps them as they are. */
static int seed_conformance(store *db, const char *where, dbmcp_error *err)
{
    reg_interface row;
    int rc = reg_interface_get(db, "conformance", &row, err);
    reg_interface_free(&row);
    if (rc == 0) {
        fprintf(stderr, "dbmcp: the conformance fixtures are already in %s\n", where);
        return 0;
    }
    if (rc != DBMCP_ENOTFOUND)
        return rc;
    return store_seed(db, "conformance", err);
}

static int run_init(cli_args *a)
{
    const char *url = cli_db_url(a);
    dbmcp_error err;
    store *db = NULL;
    /* PostgreSQL: STORE_CREATE would make the schema dbmcp at once, and
     * init must not write before it knows the query role can be made (the
     * migrations make the schema). */
    int pg = store_url_is_postgres(url);
    if (!pg && !cli_flag(a, "in-place")) {
        int status = refuse_user_file(a, url);
        if (status != CLI_OK)
            return status;
    }
    if (store_open(url, STORE_READWRITE | (pg ? 0 : STORE_CREATE), &db, &err) != 0)
        return cli_fail(&err);
    /* A PostgreSQL URI may hold a password: name the database by its identity. */
    char where[1024];
    snprintf(where, sizeof where, "%s", pg ? store_identity(db) : url);
    cli_pg_init query_role;
    if (pg) {
        int status = cli_pg_init_prepare(a, db, &query_role);
        if (status != CLI_OK) {
            store_close(db);
            return status;
        }
    } else if (cli_flag(a, "query-role") || cli_flag(a, "query-schemas")) {
        store_close(db);
        return cli_usage_error(a->cmd, "--query-role and --query-schemas are for PostgreSQL; "
                                       "SQLite's query connection is the same file");
    }
    int before = 0, applied = 0;
    int rc = store_schema_version(db, &before, &err);
    if (!rc)
        rc = store_migrate(db, &applied, &err);
    if (!rc && before == 0)
        rc = store_seed(db, "base", &err);
    if (!rc && cli_flag(a, "conformance"))
        rc = seed_conformance(db, where, &err);
    if (!rc && cli_flag(a, "demo")) {
        char *marker = reg_setting_get(db, "demo.loaded");
        int loaded = marker != NULL;
        free(marker);
        if (loaded)
            fprintf(stderr, "dbmcp: the demo data set is already loaded in %s\n", where);
        else
            rc = store_seed(db, "demo", &err);
        if (!loaded && !rc)
            rc = cli_thesaurus_demo_import(db, &err);
        size_t documents = 0;
        if (!loaded && !rc)
            rc = docs_demo_ingest(db, &documents, &err);
    }
    if (rc) {
        store_close(db);
        return cli_fail(&err);
    }
    fprintf(stderr, "dbmcp: %s is at schema version %d (%d migration%s applied)%s\n", where,
            store_schema_latest(), applied, applied == 1 ? "" : "s",
            cli_flag(a, "demo") ? ", demo data loaded" : "");
    int status =
        pg ? cli_pg_init_finish(a, db, url, &query_role, cli_flag(a, "demo") != NULL) : CLI_OK;
    store_close(db);
    return status;
}

static const cli_flag_spec init_flags[] = {
    DB_FLAG,
    {"demo", NULL, "also load the demo data set (Tarifverträge, thesaurus, sales, plans)"},
    {"in-place", NULL,
     "SQLite: write dbmcp's tables into a file that holds tables of its own (else refused)"},
    {"conformance", NULL,
     "also load the MCP conformance suite's fixtures (interface `conformance`, disabled)"},
    {"query-role", "NAME",
     "PostgreSQL: the query role agent SQL logs in as; default $DBMCP_QUERY_ROLE or dbmcp_query"},
    {"query-schemas", "A,B",
     "PostgreSQL: schemas whose tables the query role reads (now and tables made later)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_init = {
    "init",
    "Create or migrate the database and load the built-in catalog",
    "[--db PATH|URI] [--demo] [--conformance] [--in-place] [--query-role NAME] [--query-schemas "
    "A,B]",
    "Applies pending schema migrations (each in its own transaction). A new database gets the\n"
    "`default` interface with the builtin tools echo, server_info, list_tables,\n"
    "describe_table, search_objects and execute_query; the memory, document search and\n"
    "thesaurus tools are defined too, in no interface until one lists them (--demo adds them\n"
    "to its interfaces). --demo adds the demo data set;\n"
    "--conformance adds the fixtures of the MCP conformance suite (the interface\n"
    "`conformance`, disabled, with 27 test tools, 5 prompts and 3 resources), which a\n"
    "catalog otherwise does not show. Both may be given again later on the same database.\n"
    "A database written by a newer dbmcp is refused.\n"
    "SQLite: --db is dbmcp's own database. A file that already holds tables of its own and no\n"
    "dbmcp catalog is refused (nothing is written, not even the journal mode) with the\n"
    "commands that attach it read-only instead (`dbmcp databases attach`); --in-place writes\n"
    "dbmcp's tables into it anyway.\n"
    "PostgreSQL: also creates (or brings in line) the query role agent SQL logs in as, and\n"
    "grants it exactly the reads asked for: --query-schemas, and with --demo the demo's tables.\n"
    "Its password: $DBMCP_QUERY_PASSWORD, or for a new role a generated one, printed once on\n"
    "stderr. A user without CREATEROLE gets the statements that create the role on stdout and\n"
    "exit 1, the database untouched. See docs/postgres.md.",
    0,
    0,
    init_flags,
    run_init,
};

/* --- shared server setup ---------------------------------------------------------- */

int cli_make_server(cli_args *a, mcp_server **srv)
{
    mcp_server_config cfg = {0};
    cfg.db_url = cli_db_url(a);
    cfg.allowed_tools = cli_flag(a, "allowed-tools");
    if (!cfg.allowed_tools)
        cfg.allowed_tools = getenv("DBMCP_ALLOWED_TOOLS");
    dbmcp_error err;
    char *query_db_url = NULL;
    if (cli_query_db_url(a, &query_db_url, &err) != 0)
        return cli_fail(&err);
    cfg.query_db_url = query_db_url;
    int rc = mcp_server_create(&cfg, srv, &err);
    free(query_db_url);
    if (rc != 0)
        return cli_fail(&err);
    cli_set_default_embedder(cfg.db_url); /* what embed() in SQL uses */
    return CLI_OK;
}

int cli_local_identity(cli_args *a, mcp_server *srv, mcp_identity *id)
{
    const char *principal = cli_flag(a, "principal");
    if (!principal)
        principal = getenv("DBMCP_PRINCIPAL");
    const char *iface = cli_flag(a, "interface");
    if (!iface)
        iface = getenv("DBMCP_INTERFACE");
    dbmcp_error err;
    if (mcp_server_local_identity(srv, principal, iface, id, &err) != 0)
        return cli_fail(&err);
    return CLI_OK;
}

/* --- serve ------------------------------------------------------------------------ */

/* A whole-number trace setting: the variable when set, else the setting,
 * else def; a value outside [min, max] is refused, naming where it came
 * from. */
static int trace_number(mcp_server *srv, const char *env, const char *key, int def, int min,
                        int max, int *out, dbmcp_error *err)
{
    char setting[64];
    const char *from = env, *v = getenv(env);
    if (!v || !*v) {
        from = key;
        v = mcp_server_setting(srv, key, setting, sizeof setting) && *setting ? setting : NULL;
    }
    *out = def;
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < min || n > max)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s: \"%.40s\" is not a whole number between %d and %d", from, v,
                               min, max);
    *out = (int)n;
    return 0;
}

/* Span export (core/otlp.h) when $DBMCP_OTLP_ENDPOINT or the setting
 * trace.otlp_endpoint names a collector; 0 also when none is named. */
static int start_span_export(mcp_server *srv, dbmcp_error *err)
{
    char endpoint[OTLP_ENDPOINT_MAX + 1] = "";
    const char *env = getenv("DBMCP_OTLP_ENDPOINT");
    if (env && *env)
        snprintf(endpoint, sizeof endpoint, "%s", env);
    else
        mcp_server_setting(srv, "trace.otlp_endpoint", endpoint, sizeof endpoint);
    if (!endpoint[0])
        return 0;
    otlp_config oc = {0};
    oc.endpoint = endpoint;
    oc.service_version = DBMCP_VERSION;
    oc.instance_id = replica_id();
    int rc = trace_number(srv, "DBMCP_TRACE_QUEUE_MAX", "trace.queue_max", OTLP_QUEUE_MAX_DEFAULT,
                          1, 1000000, &oc.queue_max, err);
    if (!rc)
        rc = trace_number(srv, "DBMCP_TRACE_BATCH_MAX", "trace.batch_max", OTLP_BATCH_MAX_DEFAULT,
                          1, 100000, &oc.batch_max, err);
    if (!rc)
        rc = trace_number(srv, "DBMCP_TRACE_FLUSH_MS", "trace.flush_ms", OTLP_FLUSH_MS_DEFAULT, 10,
                          600000, &oc.flush_ms, err);
    if (!rc)
        rc = trace_number(srv, "DBMCP_TRACE_EXPORT_TIMEOUT_MS", "trace.export_timeout_ms",
                          OTLP_TIMEOUT_MS_DEFAULT, 10, 600000, &oc.timeout_ms, err);
    return rc ? rc : otlp_start(&oc, err);
}

static int run_serve(cli_args *a)
{
    const char *bind = cli_flag(a, "http");
    if (cli_flag(a, "no-auth") && !bind)
        return cli_usage_error(a->cmd, "--no-auth only applies to --http");
    mcp_server *srv = NULL;
    int rc = cli_make_server(a, &srv);
    if (rc)
        return rc;
    dbmcp_error err;
    mcp_server_apply_log_level(srv, &err); /* a bad value is logged; the level stays */
    mcp_identity id;
    if ((rc = cli_local_identity(a, srv, &id)) != CLI_OK) {
        mcp_server_free(srv);
        return rc;
    }
    dbmcp_error_clear(&err);
    if ((rc = start_span_export(srv, &err)) != 0) {
        mcp_server_free(srv);
        return rc == DBMCP_EINVAL ? cli_usage_error(a->cmd, "%s", err.message) : cli_fail(&err);
    }
    mem_worker *memory_worker = NULL; /* embedding jobs + compaction schedule */
    /* compaction's LLM summaries, when a provider is configured (libcurl opens at the first) */
    mem_compact_set_summarizer(agent_memory_summary);
    if (mem_worker_start(cli_db_url(a), &memory_worker, &err) != 0)
        log_msg(LOG_WARN, "memory", "memory worker not started: %s", err.message);
    dbmcp_error_clear(&err);
    if (bind) {
        http_config hc = {0};
        hc.bind = bind;
        hc.no_auth = cli_flag(a, "no-auth") != NULL;
        long max_body = mcp_server_setting_long(srv, "http.max_body", 4L * 1024 * 1024);
        hc.max_body = max_body > 0 ? (size_t)max_body : 0;
        if (http_limits_load(srv, &hc.limits, &err) != 0 ||
            http_metrics_load(srv, &hc.metrics, &err) != 0) {
            mem_worker_stop(memory_worker);
            mcp_server_free(srv);
            otlp_stop();
            return cli_usage_error(a->cmd, "%s", err.message);
        }
        hc.anonymous = &id;
        char public_url[512] = "";
        const char *flag_url = cli_flag(a, "public-url");
        if (flag_url)
            snprintf(public_url, sizeof public_url, "%s", flag_url);
        else
            mcp_server_setting(srv, "http.public_url", public_url, sizeof public_url);
        hc.public_url = public_url[0] ? public_url : NULL;
        const char *origin = cli_flag(a, "allow-origin");
        const char *origins[2] = {origin, NULL};
        hc.allowed_origins = origin ? origins : NULL;
        rc = http_serve(srv, &hc, &err);
    } else {
        rc = stdio_serve(srv, &id, stdin, stdout, &err);
    }
    mem_worker_stop(memory_worker);
    mcp_server_free(srv);
    otlp_stop(); /* after every thread that ends spans */
    if (rc == HTTP_SERVE_CANCELLED)
        return CLI_CANCELLED;
    if (rc == DBMCP_EINVAL)
        return cli_usage_error(a->cmd, "%s", err.message);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec serve_flags[] = {
    DB_FLAG,
    {"http", "HOST:PORT", "serve Streamable HTTP at /mcp instead of stdio (e.g. 127.0.0.1:8080)"},
    {"no-auth", NULL, "HTTP without API keys (only with a loopback bind)"},
    {"interface", "NAME",
     "stdio (and --no-auth HTTP): interface to serve; default $DBMCP_INTERFACE or `default`"},
    {"principal", "NAME", "stdio: who is calling, for scope and audit; default $DBMCP_PRINCIPAL"},
    {"allowed-tools", "A,B", "narrow every interface to these tools (also $DBMCP_ALLOWED_TOOLS)"},
    QUERY_DB_FLAG,
    {"allow-origin", "ORIGIN", "HTTP: accept this Origin besides loopback ones"},
    {"public-url", "URL",
     "HTTP behind a proxy: the base URL clients use (setting http.public_url)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_serve = {
    "serve",
    "Serve MCP over stdio (default) or Streamable HTTP",
    "[--db PATH] [--http HOST:PORT [--no-auth]] [--interface NAME] [--principal NAME]",
    "stdio: one JSON-RPC message per line; logs go to stderr; exits at end of input.\n"
    "HTTP: POST/GET/DELETE /mcp, both protocol eras (2025-11-25 sessions and stateless\n"
    "2026-07-28). Requests need `Authorization: Bearer KEY` (see `dbmcp keys create`) unless\n"
    "--no-auth. SIGTERM/SIGINT: new connections are refused, running requests get\n"
    "http.shutdown_grace_ms (10000) to finish, then are cancelled; the audit is flushed.\n"
    "Exit 0, or 3 when requests were cancelled; a second signal exits at once (143/130).\n"
    "SIGHUP re-reads the settings and the log level (setting log.level) and logs changes.\n"
    "PostgreSQL: agent SQL runs on a connection of its own as the query role (--query-db, or\n"
    "--db with the user dbmcp_query and the password $DBMCP_QUERY_PASSWORD), which is checked\n"
    "first: serve refuses to start, naming each refusal and the statement that fixes it, when\n"
    "the role could do more than read the user's data (docs/postgres.md).\n"
    "Once HTTP accepts connections, stderr gets one line with the bound address:\n"
    "  listening on http://HOST:PORT/mcp\n"
    "With port 0 (`--http 127.0.0.1:0`) the system picks a free port; read it from that line.\n"
    "GET /metrics (Prometheus text) and GET /status (JSON, `dbmcp status`) answer loopback\n"
    "clients; the setting http.metrics (loopback, key, off) changes that.\n"
    "The admin console is at http://HOST:PORT/admin/ (its API under /admin/api/v1/): log in\n"
    "with an admin key (`dbmcp keys create --admin`); docs/console.md.",
    0,
    0,
    serve_flags,
    run_serve,
};

/* --- call ---------------------------------------------------------------------------- */

/* The text of each content block on f (other blocks as compact JSON), each
 * line after prefix. */
static void print_text_content(FILE *f, const char *prefix, const json_t *result)
{
    size_t i;
    json_t *block;
    json_array_foreach (json_object_get(result, "content"), i, block) {
        const char *text = json_string_value(json_object_get(block, "text"));
        char *dump = text ? NULL : json_dumps(block, JSON_COMPACT);
        fprintf(f, "%s%s\n", prefix, text ? text : dump ? dump : "");
        free(dump);
    }
}

/* A refused call's message; an unknown tool also names the interface the
 * call went through and where the tool is listed instead, as a command
 * that works when pasted. */
static void print_call_error(cli_args *a, const mcp_identity *id, const char *tool,
                             const char *args_text, const char *message)
{
    if (!message || strncmp(message, "Unknown tool", 12) != 0) {
        fprintf(stderr, "dbmcp call: %s\n", message ? message : "error");
        return;
    }
    fprintf(stderr, "dbmcp call: %s (interface '%s'", message, cli_safe(id->interface));
    reg_names direct = {0};
    dbmcp_error err;
    store *db = cli_open_catalog(a);
    int rc = db ? reg_memberships_get(db, REG_TOOL, tool, &direct, NULL, &err) : -1;
    store_close(db);
    char tool_word[300], args_word[1024], iface_word[200];
    const char *allowed = cli_flag(a, "allowed-tools");
    if (!allowed)
        allowed = getenv("DBMCP_ALLOWED_TOOLS");
    if (!rc && direct.n > 0 && allowed && !catalog_name_allowed(allowed, tool))
        /* pasting the usual hint would meet the same allowlist */
        fprintf(stderr,
                "); the allowlist (--allowed-tools or DBMCP_ALLOWED_TOOLS: %s) leaves it out\n",
                cli_safe(allowed));
    else if (!rc && direct.n > 0)
        fprintf(stderr, "); interface %s lists it: `dbmcp call %s %s --interface %s%s`\n",
                cli_safe(direct.v[0]), cli_shell_word(tool, tool_word, sizeof tool_word),
                cli_shell_word(args_text, args_word, sizeof args_word),
                cli_shell_word(direct.v[0], iface_word, sizeof iface_word), cli_hint_db());
    else
        fprintf(stderr, "); no interface lists a tool of that name: `dbmcp tools list%s`\n",
                cli_hint_db());
    reg_names_free(&direct);
}

static int run_call(cli_args *a)
{
    const char *tool = a->argv[0];
    const char *args_text = a->argc > 1 ? a->argv[1] : "{}";
    json_error_t jerr;
    json_t *args = json_loads(args_text, 0, &jerr);
    if (!args || !json_is_object(args)) {
        json_decref(args);
        return cli_usage_error(a->cmd, "arguments must be a JSON object (%s)",
                               args ? "not an object" : jerr.text);
    }
    mcp_server *srv = NULL;
    int rc = cli_make_server(a, &srv);
    if (rc) {
        json_decref(args);
        return rc;
    }
    mcp_identity id;
    if ((rc = cli_local_identity(a, srv, &id)) != CLI_OK) {
        json_decref(args);
        mcp_server_free(srv);
        return rc;
    }
    mcp_session *s = mcp_session_create(srv, &id, "cli");
    json_t *req = json_pack("{s:s, s:i, s:s, s:{s:s, s:o}}", "jsonrpc", "2.0", "id", 1, "method",
                            "tools/call", "params", "name", tool, "arguments", args);
    char *text = json_dumps(req, JSON_COMPACT);
    json_t *err_resp = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(text, strlen(text), &err_resp);
    mcp_call_ctx ctx = {0};
    ctx.transport = "cli";
    json_t *resp = msg ? mcp_handle(srv, s, msg, &ctx) : err_resp;
    json_t *result = json_object_get(resp, "result");
    json_t *error = json_object_get(resp, "error");
    /* The same split for every tool: stdout gets the tool's result (an
     * isError one too: it is the tool's answer, told apart by the exit
     * status) and nothing else; a refused call's message, hints and log
     * lines go to stderr. */
    int failed = error || json_is_true(json_object_get(result, "isError"));
    if (cli_flag(a, "json")) {
        char *dump = json_dumps(result ? result : resp, JSON_INDENT(2));
        printf("%s\n", dump ? dump : "");
        free(dump);
    } else if (result) {
        print_text_content(stdout, "", result);
    }
    if (error)
        print_call_error(a, &id, tool, args_text,
                         json_string_value(json_object_get(error, "message")));
    rc = failed ? CLI_FAIL : CLI_OK;
    json_decref(resp);
    jsonrpc_msg_free(msg);
    free(text);
    json_decref(req);
    mcp_session_unref(s);
    mcp_server_free(srv);
    return rc;
}

static const cli_flag_spec call_flags[] = {
    DB_FLAG,
    {"json", NULL, "print the whole result as JSON instead of its text content"},
    {"interface", "NAME", "interface to call through; default `default`"},
    {"principal", "NAME", "who is calling (audit, scope); default $DBMCP_PRINCIPAL or `local`"},
    {"allowed-tools", "A,B", "narrow the interface to these tools"},
    QUERY_DB_FLAG,
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_call = {
    "call",
    "Run one tool call through the same dispatch as MCP clients and print its result",
    "TOOL ['JSON-ARGS'] [--json] [--interface NAME] [--db PATH]",
    "Validation, policy and audit apply exactly as for an MCP client (transport `cli`).\n"
    "Every tool prints the same way: stdout gets the result's text content (with --json\n"
    "the whole result, or the JSON-RPC error, as JSON) and nothing else, also when the tool\n"
    "answers with an error (isError: invalid arguments, a refused query); stderr gets log\n"
    "lines (JSON, one a line), warnings, hints and the message of a call refused before\n"
    "any tool ran (unknown tool), after `dbmcp call: `. Exit status 0 for a result, 1 for\n"
    "an error result or a refused call, 2 for a usage error (arguments not a JSON object).",
    1,
    2,
    call_flags,
    run_call,
};
