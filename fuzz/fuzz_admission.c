/*
 * fuzz_admission.c — libFuzzer target for the text admission of agent SQL
 * (tools/sql_admission) and the guarded engine behind it.
 *
 * Each input is SQL text. The target checks:
 *   - both lexers (SQLite's and PostgreSQL's) tile the text: tokens move
 *     forward, stay inside it, and an unterminated token runs to its end;
 *   - sql_admit is deterministic, reports a rule exactly when it refuses,
 *     and its refusal is one "Query refused: …" sentence, the same for the
 *     agent and the operator (under the default policy, a 64-character
 *     limit and a two-function allowlist, and PostgreSQL's rules);
 *   - text it admits, run on a read-only handle with execute_query's guards
 *     (20 ms time limit), never shows the secret planted in a dbmcp_ table
 *     and never changes the database file. The secret is 64 random hex
 *     digits drawn at start and looked for by a loop built without
 *     comparison tracing, so the fuzzer cannot learn it and type it in.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 *
 * The database is created once in $TMPDIR (a user table, a secret dbmcp_
 * table and a view over it) in rollback-journal mode, so a write would
 * reach the file.
 */
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "store/store.h"
#include "tools/execute_query.h"
#include "tools/sql_admission.h"

static const char fixture_sql[] =
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, data BLOB);"
    "INSERT INTO items VALUES (1, 'one', X'00'), (2, 'two|pipe', NULL), (3, 'drei', zeroblob(4));"
    "CREATE TABLE dbmcp_secret (v TEXT);"
    "CREATE VIEW v_secret AS SELECT v FROM dbmcp_secret;"
    "PRAGMA journal_mode = DELETE;";

static char temp_dir[512];
static char db_path[600];
static store *query;
static unsigned char file_hash_start[32];
static execute_query_settings settings;
static char secret[65]; /* random, in dbmcp_secret */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_admission: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void remove_database(void)
{
    static const char *suffixes[] = {"", "-journal", "-wal", "-shm", NULL};
    store_close(query);
    query = NULL;
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", db_path, suffixes[i]);
        unlink(file);
    }
    rmdir(temp_dir);
}

static void hash_file(unsigned char out[32])
{
    FILE *f = fopen(db_path, "rb");
    if (!f)
        die("cannot read the database file", db_path);
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, 32);
    unsigned char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_generichash_update(&st, buf, n);
    fclose(f);
    crypto_generichash_final(&st, out, 32);
}

static long fuzz_setting_long(tool_env *env, const char *key, long def)
{
    (void)env;
    return strcmp(key, "query.timeout_ms") == 0 ? 20 : def;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    log_init();
    log_set_level(LOG_ERROR);
    if (sodium_init() < 0)
        die("sodium_init", NULL);
    const char *tmp = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/dbmcp-fuzz-admission-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(temp_dir))
        die("mkdtemp", NULL);
    snprintf(db_path, sizeof db_path, "%s/admission.db", temp_dir);
    atexit(remove_database);
    store *db = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    unsigned char raw[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(secret, sizeof secret, raw, sizeof raw);
    char insert[200];
    snprintf(insert, sizeof insert, "INSERT INTO dbmcp_secret VALUES ('%s');", secret);
    if (store_open(db_path, STORE_READWRITE | STORE_CREATE, &db, &err) != 0 ||
        store_exec(db, fixture_sql, &err) != 0 || store_exec(db, insert, &err) != 0)
        die("creating the database", err.message);
    store_close(db);
    if (store_open(db_path, STORE_READONLY, &query, &err) != 0)
        die("opening the query handle", err.message);
    hash_file(file_hash_start);
    tool_env env;
    memset(&env, 0, sizeof env);
    env.setting_long = fuzz_setting_long;
    execute_query_settings_load(&env, &settings);
    return 0;
}

/* Does s hold the secret? Built without coverage instrumentation (and
 * without strstr, which libFuzzer intercepts) so no comparison here
 * teaches the fuzzer the secret's bytes. */
__attribute__((no_sanitize("coverage"))) static int shows_secret(const char *s)
{
    size_t n = strlen(secret);
    for (const char *p = s; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] == secret[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

static void check_lexer(sql_dialect dialect, const char *sql, size_t len)
{
    size_t pos = 0, last_end = 0;
    for (size_t steps = 0;; steps++) {
        sql_token t;
        sql_token_kind kind = sql_dialect_next_token(dialect, sql, len, &pos, &t);
        if (t.offset < last_end || t.offset + t.length > len || pos != t.offset + t.length)
            die("lexer: token outside the text or out of order", NULL);
        if (kind == SQL_TOKEN_END) {
            if (t.offset != len || t.length != 0)
                die("lexer: END before the end of the text", NULL);
            return;
        }
        if (t.length == 0)
            die("lexer: empty token", NULL);
        if (kind == SQL_TOKEN_UNTERMINATED && t.offset + t.length != len)
            die("lexer: unterminated token that ends early", NULL);
        if (steps > len)
            die("lexer: more tokens than bytes", NULL);
        last_end = t.offset + t.length;
    }
}

/* Admission under one policy; returns its verdict after checking it. */
static int check_admission(const char *sql, size_t len, const sql_admission_policy *policy)
{
    dbmcp_error err, again;
    sql_admission_rule rule, rule_again;
    int rc = sql_admit(sql, len, policy, &rule, &err);
    int rc_again = sql_admit(sql, len, policy, &rule_again, &again);
    if (rc != rc_again || rule != rule_again)
        die("admission is not deterministic", NULL);
    if ((rc == 0) != (rule == SQL_RULE_NONE))
        die("verdict and rule disagree", sql_admission_rule_name(rule));
    if (rc != 0 && (strncmp(err.message, "Query refused: ", 15) != 0 ||
                    strcmp(err.message, err.public_message) != 0 || err.code != rc))
        die("malformed refusal", err.message);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *sql = (const char *)data;
    check_lexer(SQL_DIALECT_SQLITE, sql, size);
    check_lexer(SQL_DIALECT_POSTGRES, sql, size);
    sql_admission_policy narrow = {64, "count,upper", SQL_DIALECT_SQLITE};
    check_admission(sql, size, &narrow);
    sql_admission_policy postgres = {0, NULL, SQL_DIALECT_POSTGRES};
    check_admission(sql, size, &postgres);
    sql_admission_policy defaults = {0, NULL, SQL_DIALECT_SQLITE};
    if (check_admission(sql, size, &defaults) != 0)
        return 0;
    /* Admitted: run it, as execute_query would (text admitted has no NUL). */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *table = NULL;
    int64_t rows = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = execute_query_run(query, text, &settings, NULL, 5, NULL, &table, &rows, &err);
    if (rc == 0 && table && shows_secret(table))
        die("the secret was shown", table);
    if (rc != 0 && (shows_secret(err.public_message) || shows_secret(err.message)))
        die("the secret reached an error message", err.message);
    free(table);
    free(text);
    unsigned char now[32];
    hash_file(now);
    if (memcmp(now, file_hash_start, sizeof now) != 0)
        die("the database file changed", NULL);
    return 0;
}
