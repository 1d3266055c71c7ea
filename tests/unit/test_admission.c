/*
 * test_admission.c — the hostile-input suite of execute_query: text
 * admission (tools/sql_admission) and the guarded engine behind it
 * (tools/execute_query, store/sqlite's authorizer and limits), on a real
 * SQLite database.
 *
 * The cases are data: every .json file in $DBMCP_CASES/admission (one per
 * category) holds
 *
 *   {"category": "…", "description": "…", "cases": [case, …]}
 *
 * and a case is
 *
 *   "name"            what it tries
 *   "query"           the SQL text; "{{repeat}}" in it is replaced by
 *   "repeat"          {"text": "…", "count": N}, the text N times
 *   "query_hex"       instead of "query": the bytes in hex (invalid UTF-8)
 *   "expect"          "refused" or "ok" — the verdict of admission
 *   "rule"            refused: the rule's name (sql_admission_rule_name)
 *   "error_contains"  refused: text of the refusal
 *   "result"          ok: what the handler must answer: "rows", "failed"
 *                     (the generic database failure) or "timeout"
 *   "engine"          refused: send the text straight to the guarded engine
 *                     (admission skipped, execute_query_run) and expect
 *                     this: "rows", "failed" or "timeout" — the proof that a
 *                     text fooling admission still could not do harm
 *   "output_contains" / "output_excludes"  text the answer must (not) hold
 *   "max_rows"        the tool argument
 *   "settings"        {"query.timeout_ms": 200, …} over the suite's settings
 *   "absent_file"     a path the query tries to create; it must not exist
 *
 * Every case goes through sql_admit and through the registered handler (the
 * builtin table's execute_query) on a read-only store handle. After every
 * case the runner proves harmlessness: the database file hashes as before
 * (it is in rollback-journal mode, so any write would reach the file), no
 * journal was left, no output ever shows the secret marker planted in
 * dbmcp_* tables, no database is attached, no transaction is open, and the
 * handle's engine limits and function allowlist are back to normal.
 *
 * The PostgreSQL cases in $DBMCP_CASES/hostile_pg (at least 150) use the
 * same fields; their "expect", "rule" and "error_contains" are sql_admit's
 * verdict under the PostgreSQL dialect and the PostgreSQL default
 * allowlist ("settings" may replace query.functions), checked here without
 * a server. Their "engine" is the server's verdict when the text is sent
 * anyway, which tests/cli/hostile_pg.sh checks on PostgreSQL 15.
 *
 * The C tests after the data cover what data cannot: the comment tag, the
 * row caps, the settings' clamping, the seeded allowlist matching the
 * compiled one, the read-only startup check, the lexer, and one end-to-end
 * call through the MCP dispatcher (call id and audit row).
 */
/* opendir, mkdtemp and strdup are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/log.h"
#include "mcp/jsonrpc.h"
#include "mcp/server.h"
#include "store/migrate.h"
#include "store/sqlite_driver.h"
#include "store/store.h"
#include "tools/execute_query.h"
#include "tools/sql_admission.h"
#include "tools/tool.h"

#include "case_files.h"

/* The data files must hold at least this many cases in all. */
#define CASES_MIN 150
/* Planted in dbmcp_* tables; no answer may ever contain it. */
#define SECRET_MARKER "TOPSECRET"
/* The suite's time limit (cases that test it set their own). */
#define SUITE_TIMEOUT_MS "2000"

/* User data, the secret dbmcp_ table and views that try to reach it. */
static const char fixture_sql[] =
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, note TEXT, data BLOB);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)"
    " INSERT INTO items SELECT i, 'item ' || i, i * 1.5, CASE i WHEN 3 THEN 'a|b' WHEN 4 THEN"
    " 'line1' || char(10) || 'line2' END, CASE WHEN i % 10 = 0 THEN randomblob(16) END FROM n;"
    "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city TEXT, \"select\" TEXT);"
    "INSERT INTO people VALUES (1, 'Ada', 'Zürich', 'x'), (2, 'Kenji', '東京', 'y'),"
    " (3, 'Zoë', 'Köln', 'z');"
    "CREATE TABLE dbmcp_secret (k TEXT, v TEXT);"
    "INSERT INTO dbmcp_secret VALUES ('token', 'TOPSECRET-7f3a');"
    "INSERT INTO dbmcp_principals (name) VALUES ('alice');"
    "INSERT INTO dbmcp_api_keys (id, principal, secret_hash, interface)"
    " VALUES ('k1', 'alice', 'TOPSECRET-hash', 'default');"
    "CREATE VIEW v_secret AS SELECT * FROM dbmcp_secret;"
    "CREATE VIEW v_keys AS SELECT id, secret_hash FROM dbmcp_api_keys;"
    "CREATE VIEW v_schema AS SELECT name, sql FROM sqlite_master;"
    "CREATE VIEW v_items AS SELECT id, name FROM items;"
    "CREATE VIEW v_version AS SELECT sqlite_version() AS v;"
    "CREATE VIEW v_nested AS SELECT * FROM v_secret;"
    "CREATE VIRTUAL TABLE docs USING fts5(body);"
    "INSERT INTO docs (body) VALUES ('contract for sales in the north'),"
    " ('tariff agreement of the south');"
    "PRAGMA journal_mode = DELETE;";

typedef struct suite {
    char dir[512];
    char path[600];         /* the database */
    store *query;           /* read-only handle the cases run on */
    unsigned char hash[32]; /* BLAKE2b of the file after setup */
    int base_limits[7];     /* engine limits of a fresh query handle (engine_limits) */
    json_t *settings;       /* the suite's settings */
    json_t *case_settings;  /* the running case's overrides, or NULL */
} suite;

static suite *the_suite;

/* ----- files ----- */

static int file_hash(const char *path, unsigned char out[32])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, 32);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_generichash_update(&st, buf, n);
    fclose(f);
    return crypto_generichash_final(&st, out, 32);
}

static int file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void remove_database(const char *path)
{
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    for (int i = 0; suffixes[i]; i++) {
        char file[700];
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        unlink(file);
    }
}

/* A database like `dbmcp init` makes, plus the fixture. */
static int create_database(const char *path, const char *extra_sql)
{
    store *db = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_open(path, STORE_READWRITE | STORE_CREATE, &db, &err);
    if (!rc)
        rc = store_migrate(db, NULL, &err);
    if (!rc)
        rc = store_seed(db, "base", &err);
    if (!rc)
        rc = store_exec(db, fixture_sql, &err);
    if (!rc && extra_sql)
        rc = store_exec(db, extra_sql, &err);
    if (rc)
        print_error("creating %s: %s\n", path, err.message);
    store_close(db);
    return rc;
}

/* ----- the handler's environment ----- */

static const json_t *setting_value(const char *key)
{
    const json_t *v =
        the_suite->case_settings ? json_object_get(the_suite->case_settings, key) : NULL;
    return v ? v : json_object_get(the_suite->settings, key);
}

static long env_setting_long(tool_env *env, const char *key, long def)
{
    (void)env;
    const json_t *v = setting_value(key);
    if (json_is_integer(v))
        return (long)json_integer_value(v);
    if (json_is_string(v)) {
        char *end = NULL;
        long n = strtol(json_string_value(v), &end, 10);
        return end && *end == '\0' && end != json_string_value(v) ? n : def;
    }
    return def;
}

static int env_setting_str(tool_env *env, const char *key, char *out, size_t size)
{
    (void)env;
    const json_t *v = setting_value(key);
    if (json_is_string(v)) {
        snprintf(out, size, "%s", json_string_value(v));
        return 1;
    }
    if (json_is_integer(v)) {
        snprintf(out, size, "%lld", (long long)json_integer_value(v));
        return 1;
    }
    return 0;
}

static reg_tool execute_query_row = {
    .name = "execute_query", .handler_kind = "builtin", .handler = "execute_query"};

static void env_init(tool_env *env, store *db)
{
    memset(env, 0, sizeof *env);
    env->tool = &execute_query_row;
    env->call_id = "00000000-0000-4000-8000-000000000001";
    env->principal = "test";
    env->interface = "default";
    env->user_id = "test";
    env->agent_id = "";
    env->client_name = "test-client";
    env->model = "test-model";
    env->query_db = db;
    env->rows = -1;
    env->setting_long = env_setting_long;
    env->setting_str = env_setting_str;
}

/* Call the registered handler with {"query": sql[0..len), "max_rows"?}. */
static int call_handler(store *db, const char *sql, size_t len, const json_t *max_rows,
                        tool_output *out, dbmcp_error *err, int64_t *rows)
{
    tool_handler_fn fn = tools_builtin_find("execute_query");
    assert_non_null(fn);
    tool_env env;
    env_init(&env, db);
    json_t *args = json_object();
    json_object_set_new(args, "query", json_stringn_nocheck(sql, len));
    if (max_rows)
        json_object_set(args, "max_rows", (json_t *)max_rows);
    memset(out, 0, sizeof *out);
    dbmcp_error_clear(err);
    int rc = fn(&env, args, out, err);
    json_decref(args);
    if (rows)
        *rows = env.rows;
    return rc;
}

static const char *output_text(const tool_output *out)
{
    return json_string_value(json_object_get(json_array_get(out->content, 0), "text"));
}

/* ----- one case ----- */

/* The case's SQL bytes into a new buffer (*len set); NULL when malformed. */
static char *case_query(const json_t *c, size_t *len)
{
    const char *hex = json_string_value(json_object_get(c, "query_hex"));
    if (hex) {
        size_t n = strlen(hex) / 2;
        char *out = malloc(n + 1);
        size_t got = 0;
        if (!out || sodium_hex2bin((unsigned char *)out, n, hex, strlen(hex), " ", &got, NULL)) {
            free(out);
            return NULL;
        }
        out[got] = '\0';
        *len = got;
        return out;
    }
    const char *q = json_string_value(json_object_get(c, "query"));
    if (!q)
        return NULL;
    const json_t *rep = json_object_get(c, "repeat");
    const char *text = json_string_value(json_object_get(rep, "text"));
    size_t count = (size_t)json_integer_value(json_object_get(rep, "count"));
    const char *at = strstr(q, "{{repeat}}");
    size_t extra = text && at ? strlen(text) * count : 0;
    char *out = malloc(strlen(q) + extra + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    if (text && at) {
        memcpy(out, q, (size_t)(at - q));
        n = (size_t)(at - q);
        for (size_t i = 0; i < count; i++, n += strlen(text))
            memcpy(out + n, text, strlen(text));
        strcpy(out + n, at + strlen("{{repeat}}"));
        n += strlen(at + strlen("{{repeat}}"));
    } else {
        strcpy(out, q);
        n = strlen(q);
    }
    *len = n;
    return out;
}

typedef struct case_ctx {
    const char *file;
    const char *name;
    int failed;
} case_ctx;

static void case_fail(case_ctx *cc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void case_fail(case_ctx *cc, const char *fmt, ...)
{
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    print_error("%s: %s: %s\n", cc->file, cc->name, text);
    cc->failed = 1;
}

/* The sentences a failed query may show the agent (tools/sql_failure.h):
 * each a fixed start, never the engine's own message. */
static const char *const failure_starts[] = {"The query failed.",
                                             "The server ran out of memory",
                                             "Unknown table ",
                                             "Unknown column ",
                                             "Unknown function ",
                                             "Syntax error",
                                             "Type mismatch",
                                             "Function ",
                                             "Column ",
                                             "Division by zero",
                                             "A value the query builds",
                                             "The query needed more memory"};

/* Objects of the fixture the query connection may not see: a failure's
 * sentence names one only when the query itself does. */
static const char *const hidden_names[] = {"dbmcp_secret", "v_secret",     "v_keys",
                                           "v_schema",     "v_nested",     "dbmcp_api_keys",
                                           "secret_hash",  "sqlite_master"};

/* The agent's sentence for a failed query: a known class, naming no
 * hidden object the query does not name. */
static void check_failure_sentence(case_ctx *cc, const char *what, const char *sql,
                                   const char *shown)
{
    int known = 0;
    for (size_t i = 0; i < sizeof failure_starts / sizeof failure_starts[0]; i++)
        known |= strncmp(shown, failure_starts[i], strlen(failure_starts[i])) == 0;
    if (!known)
        case_fail(cc, "%s: the agent saw a sentence of no known class: %s", what, shown);
    for (size_t i = 0; i < sizeof hidden_names / sizeof hidden_names[0]; i++)
        if (strcasestr(shown, hidden_names[i]) && !(sql && strcasestr(sql, hidden_names[i])))
            case_fail(cc, "%s: the sentence names the hidden %s: %s", what, hidden_names[i], shown);
}

/* Does an outcome (rc, text or err) match "rows" / "failed" / "timeout"? */
static void check_result(case_ctx *cc, const char *what, const char *expected, int rc,
                         const char *text, const dbmcp_error *err, const json_t *c, const char *sql)
{
    const char *got = rc == 0 ? "rows" : rc == DBMCP_ETIMEOUT ? "timeout" : "failed";
    if (strcmp(got, expected) != 0) {
        case_fail(cc, "%s: expected %s, got %s (%s)", what, expected, got,
                  rc ? err->message : "no error");
        return;
    }
    if (rc && strcmp(got, "failed") == 0)
        check_failure_sentence(cc, what, sql, err->public_message);
    const char *show = rc ? err->public_message : text;
    if (show && strstr(show, SECRET_MARKER))
        case_fail(cc, "%s: the answer shows the secret: %s", what, show);
    const char *contains = json_string_value(json_object_get(c, "output_contains"));
    const char *excludes = json_string_value(json_object_get(c, "output_excludes"));
    if (rc == 0 && contains && (!text || !strstr(text, contains)))
        case_fail(cc, "%s: output lacks \"%s\": %s", what, contains, text ? text : "(none)");
    if (rc == 0 && excludes && text && strstr(text, excludes))
        case_fail(cc, "%s: output holds \"%s\": %s", what, excludes, text);
}

static void check_admission(case_ctx *cc, const json_t *c, const char *sql, size_t len)
{
    tool_env env;
    env_init(&env, NULL);
    execute_query_settings *s = malloc(sizeof *s);
    assert_non_null(s);
    execute_query_settings_load(&env, s);
    sql_admission_policy policy = {s->max_chars, s->functions, SQL_DIALECT_SQLITE};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    sql_admission_rule rule;
    int rc = sql_admit(sql, len, &policy, &rule, &err);
    free(s);
    const char *expect = json_string_value(json_object_get(c, "expect"));
    const char *want_rule = json_string_value(json_object_get(c, "rule"));
    const char *contains = json_string_value(json_object_get(c, "error_contains"));
    if (!expect || (strcmp(expect, "ok") && strcmp(expect, "refused"))) {
        case_fail(cc, "\"expect\" must be \"ok\" or \"refused\"");
        return;
    }
    if (strcmp(expect, "ok") == 0) {
        if (rc)
            case_fail(cc, "admission refused an acceptable query: %s", err.message);
        return;
    }
    if (!rc) {
        case_fail(cc, "admission accepted it");
        return;
    }
    if ((rule == SQL_RULE_NONE) || strcmp(err.message, err.public_message) != 0 ||
        strncmp(err.message, "Query refused: ", 15) != 0)
        case_fail(cc, "malformed refusal: rule %s, \"%s\"", sql_admission_rule_name(rule),
                  err.message);
    if (want_rule && strcmp(want_rule, sql_admission_rule_name(rule)) != 0)
        case_fail(cc, "refused under rule %s, expected %s: %s", sql_admission_rule_name(rule),
                  want_rule, err.message);
    if (contains && !strstr(err.message, contains))
        case_fail(cc, "refusal lacks \"%s\": %s", contains, err.message);
}

static void check_handler(case_ctx *cc, const json_t *c, const char *sql, size_t len)
{
    tool_output out;
    dbmcp_error err;
    int64_t rows = -1;
    int rc =
        call_handler(the_suite->query, sql, len, json_object_get(c, "max_rows"), &out, &err, &rows);
    const char *expect = json_string_value(json_object_get(c, "expect"));
    if (!out.audit_sql || strlen(out.audit_sql) != strnlen(sql, len))
        case_fail(cc, "handler: audit_sql is not the query text");
    if (expect && strcmp(expect, "refused") == 0) {
        if (rc == 0 || strncmp(err.public_message, "Query refused: ", 15) != 0 || out.content)
            case_fail(cc, "handler: expected the admission refusal, got rc %d \"%s\"", rc,
                      err.public_message);
    } else {
        const char *result = json_string_value(json_object_get(c, "result"));
        check_result(cc, "handler", result ? result : "rows", rc, output_text(&out), &err, c, sql);
        if (rc == 0 && rows < 0)
            case_fail(cc, "handler: env->rows not set");
    }
    tool_output_free(&out);
}

static void check_engine(case_ctx *cc, const json_t *c, const char *sql)
{
    const char *expected = json_string_value(json_object_get(c, "engine"));
    if (!expected)
        return;
    tool_env env;
    env_init(&env, the_suite->query);
    execute_query_settings *s = malloc(sizeof *s);
    assert_non_null(s);
    execute_query_settings_load(&env, s);
    char *text = NULL;
    int64_t rows = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = execute_query_run(the_suite->query, sql, s, NULL, 25, NULL, &text, &rows, &err);
    free(s);
    check_result(cc, "engine", expected, rc, text, &err, c, sql);
    free(text);
}

/* The sqlite3_limit values a query budget may touch, and parameters. */
static void engine_limits(sqlite3 *h, int out[7])
{
    static const int categories[7] = {
        SQLITE_LIMIT_VARIABLE_NUMBER,     SQLITE_LIMIT_ATTACHED,   SQLITE_LIMIT_LENGTH,
        SQLITE_LIMIT_LIKE_PATTERN_LENGTH, SQLITE_LIMIT_SQL_LENGTH, SQLITE_LIMIT_EXPR_DEPTH,
        SQLITE_LIMIT_COMPOUND_SELECT};
    for (int i = 0; i < 7; i++)
        out[i] = sqlite3_limit(h, categories[i], -1);
}

/* The proofs that nothing changed, after every case. */
static void check_harmless(case_ctx *cc)
{
    unsigned char now[32];
    char journal[700];
    snprintf(journal, sizeof journal, "%s-journal", the_suite->path);
    if (file_hash(the_suite->path, now) != 0 || memcmp(now, the_suite->hash, 32) != 0)
        case_fail(cc, "the database file changed");
    if (file_exists(journal))
        case_fail(cc, "a rollback journal exists: something wrote");
    sqlite3 *h = sqlite_store_handle(the_suite->query);
    if (sqlite3_db_name(h, 2) != NULL)
        case_fail(cc, "a database is still attached: %s", sqlite3_db_name(h, 2));
    if (!sqlite3_get_autocommit(h))
        case_fail(cc, "a transaction is open");
    int limits[7];
    engine_limits(h, limits);
    if (memcmp(limits, the_suite->base_limits, sizeof limits) != 0)
        case_fail(cc, "the handle's engine limits were not restored");
    /* No allowlist or time limit left behind: an unlisted function runs. */
    int64_t n = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_query_int(the_suite->query,
                        "SELECT count(*) + length(sqlite_version()) * 0 FROM items", 0, &n,
                        &err) != 0 ||
        n != 30)
        case_fail(cc, "the handle does not work as before: %s", err.message);
}

/* A file the case tries to create must not exist afterwards. */
static void check_absent(case_ctx *cc, const json_t *c)
{
    const char *absent = json_string_value(json_object_get(c, "absent_file"));
    if (absent && file_exists(absent)) {
        case_fail(cc, "%s was created", absent);
        unlink(absent);
    }
}

static void run_case(const char *file, size_t index, const json_t *c, int *cases, int *failures)
{
    char fallback[32];
    snprintf(fallback, sizeof fallback, "case %zu", index);
    const char *name = json_string_value(json_object_get(c, "name"));
    case_ctx cc = {file, name ? name : fallback, 0};
    size_t len = 0;
    char *sql = case_query(c, &len);
    (*cases)++;
    if (!sql) {
        case_fail(&cc, "no usable \"query\" or \"query_hex\"");
        (*failures)++;
        return;
    }
    the_suite->case_settings = json_object_get(c, "settings");
    check_admission(&cc, c, sql, len);
    check_handler(&cc, c, sql, len);
    check_engine(&cc, c, sql);
    check_harmless(&cc);
    check_absent(&cc, c);
    the_suite->case_settings = NULL;
    free(sql);
    if (cc.failed)
        (*failures)++;
}

static int name_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_case_files(void **state)
{
    (void)state;
    const char *base = getenv("DBMCP_CASES");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/admission", base && *base ? base : "tests/cases");
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s (run from the repository root or set DBMCP_CASES)", dir);
    char *names[256];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && count < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, name_compare);
    int cases = 0, failures = 0;
    for (size_t i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_error_t error;
        json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
        if (!doc || !json_is_array(json_object_get(doc, "cases"))) {
            print_error("%s:%d: %s\n", path, error.line, doc ? "no \"cases\" array" : error.text);
            failures++;
        }
        const json_t *list = json_object_get(doc, "cases");
        for (size_t k = 0; k < json_array_size(list); k++)
            run_case(names[i], k, json_array_get(list, k), &cases, &failures);
        json_decref(doc);
        free(names[i]);
    }
    print_message("admission: %d cases in %zu files, %d failed\n", cases, count, failures);
    assert_int_equal(failures, 0);
    assert_true(cases >= CASES_MIN);
}

/* ----- PostgreSQL: admission's verdicts ----- */

/* The PostgreSQL cases must hold at least this many. */
#define PG_CASES_MIN 150

static const char *pg_case_check(const json_t *c, char *why, size_t size)
{
    size_t len = 0;
    char *sql = case_query(c, &len);
    if (!sql)
        return "no usable \"query\" or \"query_hex\"";
    const char *functions =
        json_string_value(json_object_get(json_object_get(c, "settings"), "query.functions"));
    sql_admission_policy policy = {0, functions, SQL_DIALECT_POSTGRES};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    sql_admission_rule rule;
    int rc = sql_admit(sql, len, &policy, &rule, &err);
    free(sql);
    const char *expect = json_string_value(json_object_get(c, "expect"));
    const char *want_rule = json_string_value(json_object_get(c, "rule"));
    const char *contains = json_string_value(json_object_get(c, "error_contains"));
    const char *engine = json_string_value(json_object_get(c, "engine"));
    if (!engine ||
        (strcmp(engine, "rows") && strcmp(engine, "failed") && strcmp(engine, "timeout")))
        return "\"engine\" must be \"rows\", \"failed\" or \"timeout\"";
    if (!expect || (strcmp(expect, "ok") && strcmp(expect, "refused")))
        return "\"expect\" must be \"ok\" or \"refused\"";
    if (strcmp(expect, "ok") == 0) {
        if (rc)
            snprintf(why, size, "admission refused an acceptable query: %s", err.message);
        return rc ? why : NULL;
    }
    if (!rc)
        return "admission accepted it";
    if (rule == SQL_RULE_NONE || strcmp(err.message, err.public_message) != 0 ||
        strncmp(err.message, "Query refused: ", 15) != 0) {
        snprintf(why, size, "malformed refusal: rule %s, \"%s\"", sql_admission_rule_name(rule),
                 err.message);
        return why;
    }
    if (want_rule && strcmp(want_rule, sql_admission_rule_name(rule)) != 0) {
        snprintf(why, size, "refused under rule %s, expected %s: %s", sql_admission_rule_name(rule),
                 want_rule, err.message);
        return why;
    }
    if (contains && !strstr(err.message, contains)) {
        snprintf(why, size, "refusal lacks \"%s\": %s", contains, err.message);
        return why;
    }
    return NULL;
}

/* A file of PostgreSQL cases: {"category", "description", "cases": […]}. */
static void pg_case_file(const char *name, const json_t *doc, case_tally *tally)
{
    const json_t *list = json_object_get(doc, "cases");
    if (!json_is_array(list)) {
        print_error("%s: no \"cases\" array\n", name);
        tally->failures++;
        return;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        char label[512], why[1200];
        const char *case_name = json_string_value(json_object_get(c, "name"));
        snprintf(label, sizeof label, "%s: %s", name, case_name ? case_name : "?");
        tally->cases++;
        const char *failed = pg_case_check(c, why, sizeof why);
        case_tally_outcome(tally, label, c, failed != NULL, failed ? failed : "");
    }
}

static void test_pg_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    size_t files = case_files_run("hostile_pg", 0, pg_case_file, &tally);
    print_message("hostile_pg: %d cases in %zu files, %d failed\n", tally.cases, files,
                  tally.failures);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= PG_CASES_MIN);
}

/* ----- the suite's database ----- */

static int suite_setup(void **state)
{
    (void)state;
    if (sodium_init() < 0)
        return -1;
    suite *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/dbmcp-admission-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir)) {
        free(s);
        return -1;
    }
    snprintf(s->path, sizeof s->path, "%s/hostile.db", s->dir);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (create_database(s->path, NULL) != 0 || file_hash(s->path, s->hash) != 0 ||
        store_open(s->path, STORE_READONLY, &s->query, &err) != 0) {
        print_error("suite setup: %s\n", err.message);
        free(s);
        return -1;
    }
    sqlite3 *h = sqlite_store_handle(s->query);
    engine_limits(h, s->base_limits);
    s->settings = json_pack("{s:s}", "query.timeout_ms", SUITE_TIMEOUT_MS);
    the_suite = s;
    return 0;
}

static int suite_teardown(void **state)
{
    (void)state;
    suite *s = the_suite;
    store_close(s->query);
    remove_database(s->path);
    rmdir(s->dir);
    json_decref(s->settings);
    free(s);
    the_suite = NULL;
    return 0;
}

/* ----- what data cannot say ----- */

static char *captured_sql;

static int capture_statement(unsigned type, void *ctx, void *p, void *x)
{
    (void)ctx, (void)x;
    if (type == SQLITE_TRACE_STMT && !captured_sql)
        captured_sql = strdup(sqlite3_sql((sqlite3_stmt *)p));
    return 0;
}

/* The statement carries the tag; values cannot close the comment. */
static void test_comment_tag(void **state)
{
    (void)state;
    sqlite3 *h = sqlite_store_handle(the_suite->query);
    sqlite3_trace_v2(h, SQLITE_TRACE_STMT, capture_statement, NULL);
    tool_handler_fn fn = tools_builtin_find("execute_query");
    tool_env env;
    env_init(&env, the_suite->query);
    env.client_name = "evil */ DROP TABLE items; /*";
    env.model = "claude\n*/--";
    json_t *args = json_pack("{s:s}", "query", "SELECT 1 AS one");
    tool_output out = {0};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(fn(&env, args, &out, &err), 0);
    sqlite3_trace_v2(h, 0, NULL, NULL);
    assert_non_null(captured_sql);
    assert_true(strncmp(captured_sql,
                        "/* dbmcp call_id=00000000-0000-4000-8000-000000000001 tool=execute_query "
                        "client=evil__/_DROP_TABLE_items__/_ model=claude__/-- */ SELECT 1 AS one",
                        200) == 0);
    assert_string_equal(out.audit_sql, "SELECT 1 AS one");
    free(captured_sql);
    captured_sql = NULL;
    tool_output_free(&out);
    json_decref(args);
}

static void test_row_caps(void **state)
{
    (void)state;
    tool_output out;
    dbmcp_error err;
    int64_t rows;
    const char *q = "SELECT id FROM items ORDER BY id";
    assert_int_equal(call_handler(the_suite->query, q, strlen(q), NULL, &out, &err, &rows), 0);
    assert_int_equal(rows, 25);
    assert_non_null(strstr(output_text(&out), "25 rows shown (more exist)"));
    tool_output_free(&out);

    json_t *five = json_integer(5);
    assert_int_equal(call_handler(the_suite->query, q, strlen(q), five, &out, &err, &rows), 0);
    assert_int_equal(rows, 5);
    tool_output_free(&out);
    json_decref(five);

    json_t *all = json_integer(30);
    assert_int_equal(call_handler(the_suite->query, q, strlen(q), all, &out, &err, &rows), 0);
    assert_int_equal(rows, 30);
    assert_null(strstr(output_text(&out), "more exist"));
    tool_output_free(&out);
    json_decref(all);

    /* Above the configured limit: lowered, and the agent is told. */
    the_suite->case_settings = json_pack("{s:i}", "query.max_rows_limit", 10);
    json_t *many = json_integer(5000);
    assert_int_equal(call_handler(the_suite->query, q, strlen(q), many, &out, &err, &rows), 0);
    assert_int_equal(rows, 10);
    assert_non_null(strstr(output_text(&out), "max_rows 5000 is above this server's limit"));
    tool_output_free(&out);
    json_decref(many);
    json_decref(the_suite->case_settings);
    the_suite->case_settings = NULL;
}

static void test_settings_clamped(void **state)
{
    (void)state;
    tool_env env;
    env_init(&env, NULL);
    execute_query_settings *s = malloc(sizeof *s);
    assert_non_null(s);
    execute_query_settings_load(&env, s);
    assert_int_equal(s->max_chars, 32000);
    assert_int_equal(s->max_rows_default, 25);
    assert_int_equal(s->max_rows_limit, 500);
    assert_int_equal(s->cell_max, 500);
    assert_int_equal(s->byte_cap, 262144);
    assert_string_equal(s->functions, sql_admission_default_functions);

    the_suite->case_settings =
        json_pack("{s:i, s:i, s:i, s:s}", "query.max_rows_limit", 100000, "query.max_rows_default",
                  9000, "query.timeout_ms", -5, "query.functions", "");
    execute_query_settings_load(&env, s);
    assert_int_equal(s->max_rows_limit, EXECUTE_QUERY_ROWS_CEILING);
    assert_int_equal(s->max_rows_default, EXECUTE_QUERY_ROWS_CEILING);
    assert_int_equal(s->timeout_ms, 1);
    assert_string_equal(s->functions, sql_admission_default_functions);
    json_decref(the_suite->case_settings);
    the_suite->case_settings = NULL;
    free(s);
}

/* An operator's own list replaces the default on both layers. */
static void test_custom_allowlist(void **state)
{
    (void)state;
    the_suite->case_settings = json_pack("{s:s}", "query.functions", "count, upper");
    tool_output out;
    dbmcp_error err;
    const char *ok = "SELECT upper(name), count(*) FROM items";
    assert_int_equal(call_handler(the_suite->query, ok, strlen(ok), NULL, &out, &err, NULL), 0);
    tool_output_free(&out);
    const char *refused = "SELECT lower(name) FROM items";
    assert_int_equal(
        call_handler(the_suite->query, refused, strlen(refused), NULL, &out, &err, NULL),
        DBMCP_EDENIED);
    assert_non_null(strstr(err.public_message, "the function lower"));
    tool_output_free(&out);
    /* The engine holds the same line when the text check is skipped. */
    tool_env env;
    env_init(&env, the_suite->query);
    execute_query_settings *s = malloc(sizeof *s);
    execute_query_settings_load(&env, s);
    char *text = NULL;
    int64_t rows;
    assert_int_not_equal(
        execute_query_run(the_suite->query, refused, s, NULL, 5, NULL, &text, &rows, &err), 0);
    assert_null(text);
    free(s);
    json_decref(the_suite->case_settings);
    the_suite->case_settings = NULL;
}

/* The seeded setting lists exactly the compiled default. */
static void test_seeded_allowlist(void **state)
{
    (void)state;
    /* dbmcp_settings is hidden from the query handle: read it directly. */
    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open_v2(the_suite->path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(raw,
                                        "SELECT value FROM dbmcp_settings WHERE key = "
                                        "'query.functions'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), sql_admission_default_functions);
    sqlite3_finalize(st);
    sqlite3_close(raw);
}

/* Startup's least-privilege check: a read-only handle passes, a
 * read-write one does not. */
static void test_verify_readonly(void **state)
{
    (void)state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_verify_readonly(the_suite->query, &err), 0);
    /* A read-write handle on another file: opening one turns on WAL. */
    char path[700];
    snprintf(path, sizeof path, "%s/readwrite.db", the_suite->dir);
    store *rw = NULL;
    assert_int_equal(store_open(path, STORE_READWRITE | STORE_CREATE, &rw, &err), 0);
    assert_int_equal(store_verify_readonly(rw, &err), DBMCP_EDENIED);
    store_close(rw);
    remove_database(path);
}

/* Tokens tile the text: every byte is in a token, a comment or blank. */
static void test_lexer(void **state)
{
    (void)state;
    static const struct {
        const char *sql;
        sql_token_kind kinds[12];
    } cases[] = {
        {"SELECT 'a''b' \"c\"\"d\" [e] `f` x'0A' 1.5e-3 ?2 :p -> ->> ;",
         {SQL_TOKEN_WORD, SQL_TOKEN_STRING, SQL_TOKEN_QUOTED_NAME, SQL_TOKEN_QUOTED_NAME,
          SQL_TOKEN_QUOTED_NAME, SQL_TOKEN_BLOB, SQL_TOKEN_NUMBER, SQL_TOKEN_PARAMETER,
          SQL_TOKEN_PARAMETER, SQL_TOKEN_OPERATOR, SQL_TOKEN_OPERATOR, SQL_TOKEN_SEMICOLON}},
        {"a/* x */b-- y\nc", {SQL_TOKEN_WORD, SQL_TOKEN_WORD, SQL_TOKEN_WORD}},
        {"f(a$b)", {SQL_TOKEN_WORD, SQL_TOKEN_LPAREN, SQL_TOKEN_WORD, SQL_TOKEN_RPAREN}},
        {"'open", {SQL_TOKEN_UNTERMINATED}},
        {"/* open", {SQL_TOKEN_UNTERMINATED}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t pos = 0, len = strlen(cases[i].sql);
        sql_token t;
        for (size_t k = 0; k < 12 && cases[i].kinds[k] != SQL_TOKEN_END; k++) {
            sql_next_token(cases[i].sql, len, &pos, &t);
            if (t.kind != cases[i].kinds[k])
                fail_msg("lexing \"%s\": token %zu is kind %d, expected %d", cases[i].sql, k,
                         t.kind, cases[i].kinds[k]);
        }
        assert_int_equal(sql_next_token(cases[i].sql, len, &pos, &t), SQL_TOKEN_END);
    }
}

/* PostgreSQL's tokens: each case lists the kinds in order; a string,
 * comment or name that hides code hides all of it. */
static void test_pg_lexer(void **state)
{
    (void)state;
    static const struct {
        const char *sql;
        sql_token_kind kinds[12];
    } cases[] = {
        {"SELECT E'\\'' 'a''b' $$x;y$$ $t$ $$ ; $t$ U&'\\0061' B'01' X'1F' N'n'",
         {SQL_TOKEN_WORD, SQL_TOKEN_STRING, SQL_TOKEN_STRING, SQL_TOKEN_STRING, SQL_TOKEN_STRING,
          SQL_TOKEN_STRING, SQL_TOKEN_BLOB, SQL_TOKEN_BLOB, SQL_TOKEN_STRING}},
        {"a /* x /* y */ ; z */ b", {SQL_TOKEN_WORD, SQL_TOKEN_WORD}},
        {"a -- x\r; b", {SQL_TOKEN_WORD, SQL_TOKEN_SEMICOLON, SQL_TOKEN_WORD}},
        {"x::int $1 :p ? @> a := =>",
         {SQL_TOKEN_WORD, SQL_TOKEN_OPERATOR, SQL_TOKEN_WORD, SQL_TOKEN_PARAMETER,
          SQL_TOKEN_PARAMETER, SQL_TOKEN_OPERATOR, SQL_TOKEN_OPERATOR, SQL_TOKEN_WORD,
          SQL_TOKEN_OPERATOR, SQL_TOKEN_OPERATOR}},
        {"a[1 : 2]",
         {SQL_TOKEN_WORD, SQL_TOKEN_OPERATOR, SQL_TOKEN_NUMBER, SQL_TOKEN_OPERATOR,
          SQL_TOKEN_NUMBER, SQL_TOKEN_OPERATOR}},
        {"a$$b$$ abcE'x' U&\"d\" \"q\"\"r\"",
         {SQL_TOKEN_WORD, SQL_TOKEN_WORD, SQL_TOKEN_STRING, SQL_TOKEN_QUOTED_NAME,
          SQL_TOKEN_QUOTED_NAME}},
        {"1+--c\n2 +/*c*/3 1e5 0x1F",
         {SQL_TOKEN_NUMBER, SQL_TOKEN_OPERATOR, SQL_TOKEN_NUMBER, SQL_TOKEN_OPERATOR,
          SQL_TOKEN_NUMBER, SQL_TOKEN_NUMBER, SQL_TOKEN_NUMBER, SQL_TOKEN_WORD}},
        {"/* /* */", {SQL_TOKEN_UNTERMINATED}},
        {"$a$ x $b$", {SQL_TOKEN_UNTERMINATED}},
        {"E'\\'", {SQL_TOKEN_UNTERMINATED}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t pos = 0, len = strlen(cases[i].sql);
        sql_token t;
        for (size_t k = 0; k < 12 && cases[i].kinds[k] != SQL_TOKEN_END; k++) {
            sql_pg_next_token(cases[i].sql, len, &pos, &t);
            if (t.kind != cases[i].kinds[k])
                fail_msg("lexing \"%s\": token %zu is kind %d, expected %d", cases[i].sql, k,
                         t.kind, cases[i].kinds[k]);
        }
        assert_int_equal(sql_pg_next_token(cases[i].sql, len, &pos, &t), SQL_TOKEN_END);
    }
    /* Unicode escapes in names, with and without UESCAPE. */
    static const struct {
        const char *sql;
        const char *name;
    } names[] = {
        {"U&\"\\0064bmcp_x\"", "dbmcp_x"},
        {"U&\"!0070g_authid\" UESCAPE '!'", "pg_authid"},
        {"U&\"a\\+01F600b\"", "a\xF0\x9F\x98\x80"
                              "b"},
        {"U&\"\\\\x\"\"y\"", "\\x\"y"},
        {"\"Mixed\"\"Case\"", "Mixed\"Case"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t pos = 0, len = strlen(names[i].sql);
        sql_token t;
        assert_int_equal(sql_pg_next_token(names[i].sql, len, &pos, &t), SQL_TOKEN_QUOTED_NAME);
        char out[64];
        sql_pg_token_name(names[i].sql, len, &t, out, sizeof out);
        assert_string_equal(out, names[i].name);
    }
}

/* One call through the MCP dispatcher: the default interface lists the
 * tool, the schema is strict, a failure shows the call id once, and the
 * audit row keeps the SQL and the detail. */
static json_t *tools_call(mcp_server *srv, mcp_session *session, json_t *arguments)
{
    json_t *req =
        json_pack("{s:s, s:i, s:s, s:{s:s, s:o}}", "jsonrpc", "2.0", "id", 1, "method",
                  "tools/call", "params", "name", "execute_query", "arguments", arguments);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    json_t *error_response = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(text, strlen(text), &error_response);
    free(text);
    assert_non_null(msg);
    mcp_call_ctx ctx = {0};
    ctx.transport = "test";
    ctx.model = "test-model";
    json_t *response = mcp_handle(srv, session, msg, &ctx);
    jsonrpc_msg_free(msg);
    return response;
}

static const char *result_text(const json_t *response)
{
    const json_t *result = json_object_get(response, "result");
    return json_string_value(
        json_object_get(json_array_get(json_object_get(result, "content"), 0), "text"));
}

static void test_dispatch(void **state)
{
    (void)state;
    char path[700];
    snprintf(path, sizeof path, "%s/dispatch.db", the_suite->dir);
    assert_int_equal(create_database(path, "UPDATE dbmcp_settings SET value = '500'"
                                           " WHERE key = 'query.timeout_ms'"),
                     0);
    mcp_server_config cfg = {0};
    cfg.db_url = path;
    cfg.pool_size = 2;
    mcp_server *srv = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(mcp_server_create(&cfg, &srv, &err), 0);
    mcp_identity id;
    assert_int_equal(mcp_server_local_identity(srv, "test", "default", &id, &err), 0);
    mcp_session *session = mcp_session_create(srv, &id, "test");

    json_t *r = tools_call(srv, session, json_pack("{s:s}", "query", "SELECT name FROM people"));
    assert_non_null(result_text(r));
    assert_non_null(strstr(result_text(r), "| Zoë |"));
    assert_null(json_object_get(json_object_get(r, "result"), "isError"));
    json_decref(r);

    r = tools_call(srv, session, json_pack("{s:s, s:s}", "query", "SELECT 1", "max_rows", "25"));
    assert_true(json_is_true(json_object_get(json_object_get(r, "result"), "isError")));
    assert_non_null(strstr(result_text(r), "expected integer"));
    json_decref(r);

    r = tools_call(srv, session, json_pack("{s:s}", "query", "SELECT nope FROM people"));
    const char *text = result_text(r);
    assert_non_null(text);
    const char *call_id = json_string_value(
        json_object_get(json_object_get(json_object_get(r, "result"), "_meta"), "dbmcp/callId"));
    assert_non_null(call_id);
    char expected[200];
    snprintf(expected, sizeof expected,
             "Unknown column \"nope\". The columns you can query there: id, name, city, select. "
             "describe_table shows a table's columns (call id %s)",
             call_id);
    assert_string_equal(text, expected);
    char saved_id[40];
    snprintf(saved_id, sizeof saved_id, "%s", call_id);
    json_decref(r);

    r = tools_call(srv, session,
                   json_pack("{s:s}", "query",
                             "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                             " SELECT count(*) FROM c"));
    assert_non_null(strstr(result_text(r), "time limit of 500 ms"));
    json_decref(r);

    mcp_session_unref(session);
    mcp_server_flush_audit(srv);
    mcp_server_free(srv);

    sqlite3 *raw = NULL;
    assert_int_equal(sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(raw,
                                        "SELECT sql_text, error_detail, status FROM dbmcp_audit"
                                        " WHERE call_id = ?1",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, saved_id, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "SELECT nope FROM people");
    assert_non_null(strstr((const char *)sqlite3_column_text(st, 1), "no such column: nope"));
    assert_string_equal((const char *)sqlite3_column_text(st, 2), "error");
    sqlite3_finalize(st);
    sqlite3_close(raw);
    remove_database(path);
}

int main(void)
{
    log_init();
    if (!getenv("DBMCP_LOG"))
        log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),       cmocka_unit_test(test_comment_tag),
        cmocka_unit_test(test_row_caps),         cmocka_unit_test(test_settings_clamped),
        cmocka_unit_test(test_custom_allowlist), cmocka_unit_test(test_seeded_allowlist),
        cmocka_unit_test(test_verify_readonly),  cmocka_unit_test(test_lexer),
        cmocka_unit_test(test_pg_lexer),         cmocka_unit_test(test_pg_case_files),
        cmocka_unit_test(test_dispatch),
    };
    return cmocka_run_group_tests_name("admission", tests, suite_setup, suite_teardown);
}
