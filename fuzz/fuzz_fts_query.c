/*
 * fuzz_fts_query.c — libFuzzer target for the safe FTS5 query builder
 * (search/fts_query) and the "dbmcp" tokenizer behind it.
 *
 * Each input is a query as a person or a model might type it (any
 * bytes). fts_match_build must either fail with a negative code, a
 * message and no output, or return an expression that an in-memory FTS5
 * table using tokenize='dbmcp' runs without error: whatever the input, no
 * FTS5 syntax reaches the engine. Its phrase list must be FTS5's: every
 * phrase index dbmcp_phrase_hits reports for a matching row is in the
 * list, and that phrase alone matches the row (dbmcp's BM25 counts rows
 * per phrase with it). The first byte picks the flags.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/fts_query.h"
#include "store/store.h"

static store *db;
static store_stmt *query;  /* the rows matching :q, with their phrase hits */
static store_stmt *phrase; /* does row :r hold phrase :p alone */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_fts_query: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void close_db(void)
{
    store_finalize(query);
    store_finalize(phrase);
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
        store_prepare(db, "SELECT rowid, dbmcp_phrase_hits(docs) FROM docs WHERE docs MATCH :q",
                      &query, &err) != 0 ||
        store_prepare(db,
                      "SELECT count(*) FROM docs WHERE rowid = :r"
                      " AND docs MATCH ('\"' || replace(:p, '\"', '\"\"') || '\"')",
                      &phrase, &err) != 0)
        die("setup", err.message);
    atexit(close_db);
    return 0;
}

/* Each phrase the row holds per the expression, alone, matches the row. */
static void check_hits(const fts_match *m, int64_t row, const unsigned char *blob, size_t bytes)
{
    dbmcp_error err;
    for (size_t off = 0; off + 2 * sizeof(int32_t) <= bytes; off += 2 * sizeof(int32_t)) {
        int32_t pair[2];
        memcpy(pair, blob + off, sizeof pair);
        if (pair[0] < 0 || (size_t)pair[0] >= m->count || pair[1] < 1)
            die("a phrase index outside the builder's list", m->expression);
        store_reset(phrase);
        store_bind_int(phrase, ":r", row);
        store_bind_text(phrase, ":p", m->phrases[pair[0]]);
        if (store_step(phrase, &err) != STORE_ROW || store_column_int(phrase, 0) != 1) {
            fprintf(stderr, "expression: %s\nphrase %d: %s\n", m->expression, pair[0],
                    m->phrases[pair[0]]);
            die("the builder's phrase does not match the row FTS5 says holds it", err.message);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int flags = data[0] & FTS_QUERY_ALL_TERMS;
    fts_match m;
    dbmcp_error err;
    int rc = fts_match_build((const char *)data + 1, size - 1, flags, &m, &err);
    if (rc) {
        if (rc >= 0 || m.expression || m.count || !err.message[0] || !err.public_message[0])
            die("a failure must be negative, without output, with a message", err.message);
        return 0;
    }
    if (!m.expression || !m.count)
        die("success without an expression", NULL);
    store_reset(query);
    if (store_bind_text(query, ":q", m.expression) != 0)
        die("bind", m.expression);
    int step;
    while ((step = store_step(query, &err)) == STORE_ROW)
        check_hits(&m, store_column_int(query, 0), store_column_blob(query, 1),
                   store_column_bytes(query, 1));
    if (step != STORE_DONE) {
        fprintf(stderr, "expression: %s\n", m.expression);
        die("FTS5 refused the expression", err.message);
    }
    fts_match_free(&m);
    return 0;
}
