/*
 * fuzz_fts_query.c — libFuzzer target for the safe FTS5 query builder
 * (search/fts_query) and the "dbmcp" tokenizer behind it.
 *
 * Each input is a query as a person or a model might type it (any
 * bytes). fts_query_build must either fail with a negative code, a
 * message and no output, or return an expression that an in-memory FTS5
 * table using tokenize='dbmcp' runs without error: whatever the input, no
 * FTS5 syntax reaches the engine. The first byte picks the flags.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "search/fts_query.h"
#include "store/store.h"

static store *db;
static store_stmt *query;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_fts_query: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void close_db(void)
{
    store_finalize(query);
    store_close(db);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    dbmcp_error err;
    if (store_open(":memory:", STORE_READWRITE | STORE_CREATE, &db, &err) != 0 ||
        store_exec(db,
                   "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'dbmcp');"
                   "INSERT INTO docs(body) VALUES ('Die Arbeitszeiten und Vergütungen'),"
                   "('All payments are due NEAR the end'), ('東京都の契約書'), ('col: a * b');",
                   &err) != 0 ||
        store_prepare(db, "SELECT count(*) FROM docs WHERE docs MATCH :q", &query, &err) != 0)
        die("setup", err.message);
    atexit(close_db);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int flags = data[0] & FTS_QUERY_ALL_TERMS;
    char *match = NULL;
    dbmcp_error err;
    int rc = fts_query_build((const char *)data + 1, size - 1, flags, &match, NULL, &err);
    if (rc) {
        if (rc >= 0 || match || !err.message[0] || !err.public_message[0])
            die("a failure must be negative, without output, with a message", err.message);
        return 0;
    }
    if (!match)
        die("success without an expression", NULL);
    store_reset(query);
    if (store_bind_text(query, ":q", match) != 0)
        die("bind", match);
    int step;
    while ((step = store_step(query, &err)) == STORE_ROW)
        ;
    if (step != STORE_DONE) {
        fprintf(stderr, "expression: %s\n", match);
        die("FTS5 refused the expression", err.message);
    }
    free(match);
    return 0;
}
