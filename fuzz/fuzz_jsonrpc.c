/*
 * fuzz_jsonrpc.c — libFuzzer target for the whole request path: bytes →
 * jsonrpc_parse → mcp_handle (sessions, protocol eras, method dispatch,
 * schema validation, tool handlers, prompts, resources, completion).
 *
 * One input is one conversation on a fresh session, framed the way the
 * stdio transport frames it: newline-separated messages, at most
 * FUZZ_MAX_MESSAGES of them, so "initialize, notifications/initialized,
 * tools/call" sequences are reachable. A one-line input is a single message.
 *
 * The server is created once (LLVMFuzzerInitialize) on a temporary SQLite
 * database set up like `dbmcp init` (migrations, seeds base and
 * conformance) with the conformance interface enabled and widened: echo and
 * server_info, an SQL tool and an SQL resource template on a small table,
 * and a page size of 3 so that list cursors are used. The session's sink
 * takes notifications and refuses server→client requests, so a legacy
 * sampling or elicitation call fails at once instead of waiting for a
 * client that does not exist.
 *
 * Besides the sanitizers, the target checks the server's contract: every
 * request gets a response (never NULL) that is a JSON-RPC 2.0 response with
 * the request's id and exactly one of result and error; notifications and
 * responses get none. A broken contract aborts, which libFuzzer reports as
 * a crash with the input that caused it.
 *
 * Environment: DBMCP_LOG (default: errors only), TMPDIR for the database.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "store/migrate.h"
#include "store/store.h"

#define FUZZ_MAX_MESSAGES 8

/* What the fuzz database adds to the seeds. */
static const char fuzz_catalog_sql[] =
    "UPDATE dbmcp_interfaces SET enabled = 1 WHERE name = 'conformance';"
    "INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES"
    " ('conformance', 'echo', 100), ('conformance', 'server_info', 101);"
    "CREATE TABLE fuzz_items (id INTEGER PRIMARY KEY, label TEXT);"
    "INSERT INTO fuzz_items VALUES (1, 'one'), (2, 'two|pipe'), (3, 'three\nlines');"
    "INSERT INTO dbmcp_tools (name, description, input_schema, handler_kind, handler) VALUES"
    " ('fuzz_items', 'Items by id and label prefix',"
    "  '{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
    "\"prefix\":{\"type\":\"string\",\"default\":\"\"}}}',"
    "  'sql', 'SELECT id, label FROM fuzz_items WHERE (:id IS NULL OR id = :id)"
    " AND label LIKE :prefix || ''%''');"
    "INSERT INTO dbmcp_interface_tools (interface, tool, position) VALUES"
    " ('conformance', 'fuzz_items', 102);"
    "INSERT INTO dbmcp_resource_templates (uri_template, name, mime_type, handler_kind, handler)"
    " VALUES ('fuzz://items/{id}', 'item', 'text/plain', 'sql',"
    " 'SELECT label FROM fuzz_items WHERE id = :id');"
    "INSERT INTO dbmcp_interface_resources (interface, uri) VALUES"
    " ('conformance', 'fuzz://items/{id}');"
    "UPDATE dbmcp_settings SET value = '3' WHERE key = 'server.page_size';";

static mcp_server *server;
static mcp_identity identity;
static char temp_dir[512];
static char db_path[600];

static void die(const char *what, const dbmcp_error *err)
{
    fprintf(stderr, "fuzz_jsonrpc: %s: %s\n", what, err ? err->message : "");
    abort();
}

/* Remove the temporary database (the server's handles stay open: the
 * process is exiting). */
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
    int rc = store_open(db_path, STORE_READWRITE | STORE_CREATE, &db, &err);
    if (!rc)
        rc = store_migrate(db, NULL, &err);
    if (!rc)
        rc = store_seed(db, "base", &err);
    if (!rc)
        rc = store_seed(db, "conformance", &err);
    if (!rc)
        rc = store_exec(db, fuzz_catalog_sql, &err);
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
    /* A fixed key keeps requestState seals the same from run to run. */
    setenv("DBMCP_STATE_KEY", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
           0);
    create_database();
    mcp_server_config cfg = {0};
    cfg.db_url = db_path;
    cfg.pool_size = 2;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (mcp_server_create(&cfg, &server, &err) != 0)
        die("mcp_server_create", &err);
    if (mcp_server_local_identity(server, "fuzz", "conformance", &identity, &err) != 0)
        die("mcp_server_local_identity", &err);
    return 0;
}

/* The session sink: notifications are serialised and dropped; requests to
 * the client are refused (there is no client to answer them). */
static int sink_send(void *ctx, json_t *msg)
{
    (void)ctx;
    if (json_object_get(msg, "id") && json_object_get(msg, "method"))
        return -1;
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        abort();
    free(text);
    return 0;
}

static void contract_broken(const char *why, const jsonrpc_msg *msg, const json_t *response)
{
    char *text = response ? json_dumps(response, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    fprintf(stderr, "fuzz_jsonrpc: contract broken: %s\n  method: %s\n  response: %s\n", why,
            msg->method ? msg->method : "(none)", text ? text : "(null)");
    free(text);
    abort();
}

/* What mcp_handle promises about its return value. */
static void check_response(const jsonrpc_msg *msg, const json_t *response)
{
    if (msg->kind != JSONRPC_REQUEST) {
        if (response)
            contract_broken("a notification or response was answered", msg, response);
        return;
    }
    if (!response)
        contract_broken("a request got no response", msg, response);
    const json_t *result = json_object_get(response, "result");
    const json_t *error = json_object_get(response, "error");
    if (!json_is_string(json_object_get(response, "jsonrpc")) ||
        strcmp(json_string_value(json_object_get(response, "jsonrpc")), "2.0") != 0)
        contract_broken("jsonrpc is not \"2.0\"", msg, response);
    if (!json_equal(json_object_get(response, "id"), msg->id))
        contract_broken("the response id differs from the request id", msg, response);
    if (!result == !error)
        contract_broken("not exactly one of result and error", msg, response);
    if (result && !json_is_object(result))
        contract_broken("result is not an object", msg, response);
    if (error && (!json_is_integer(json_object_get(error, "code")) ||
                  !json_is_string(json_object_get(error, "message"))))
        contract_broken("error lacks an integer code or a string message", msg, response);
    char *text = json_dumps(response, JSON_COMPACT);
    if (!text)
        contract_broken("the response cannot be serialised", msg, response);
    free(text);
}

/* A refused message must come with a well-formed error, or nothing. */
static void check_refusal(const json_t *error_response)
{
    if (!error_response)
        return;
    const json_t *error = json_object_get(error_response, "error");
    if (!json_is_integer(json_object_get(error, "code")) ||
        !json_object_get(error_response, "id")) {
        fprintf(stderr, "fuzz_jsonrpc: malformed parse error response\n");
        abort();
    }
}

static void handle_message(mcp_session *session, const char *bytes, size_t len)
{
    json_t *error_response = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(bytes, len, &error_response);
    if (!msg) {
        check_refusal(error_response);
        json_decref(error_response);
        return;
    }
    mcp_call_ctx ctx = {0};
    ctx.transport = "fuzz";
    ctx.sink.send = sink_send;
    json_t *response = mcp_handle(server, session, msg, &ctx);
    check_response(msg, response);
    json_decref(response);
    if (ctx.listener)
        mcp_listener_close(server, ctx.listener);
    jsonrpc_msg_free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcp_session *session = mcp_session_create(server, &identity, "fuzz");
    if (!session)
        abort();
    mcp_sink sink = {sink_send, NULL};
    mcp_session_set_sink(session, sink);
    const char *p = (const char *)data;
    const char *end = p + size;
    for (int n = 0; n < FUZZ_MAX_MESSAGES && p <= end; n++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        handle_message(session, p, (size_t)(line_end - p));
        if (!nl)
            break;
        p = nl + 1;
    }
    mcp_session_unref(session);
    /* Write the audit rows now, so what this input allocated is freed
     * before it ends: libFuzzer then sees balanced mallocs and frees and
     * runs its (costly) leak check only when something really leaked. */
    mcp_server_flush_audit(server);
    return 0;
}
