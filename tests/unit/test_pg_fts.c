/*
 * test_pg_fts.c — the pure half of PostgreSQL full text (store/pg_fts.h),
 * no server needed: the tsvector literal (tokens, positions, the gap
 * between columns), the tsquery rebuilt from a phrase list, and — the
 * point of it — phrase hits counted from a row's tsvector equal to what
 * FTS5's dbmcp_phrase_hits() counts for the same row and query on SQLite.
 * Matching on a real server is checked by scripts/fts-parity.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search/fts_query.h"
#include "store/pg_fts.h"
#include "store/store.h"

static char db_dir[256], db_path[300];

static char *vector_of(const char *a, const char *b, const char *c)
{
    const char *cols[3] = {a, b, c};
    char *v = NULL;
    assert_int_equal(pg_fts_vector(cols, 3, &v), 0);
    return v;
}

static void test_vector(void **state)
{
    (void)state;
    char *v = vector_of("a b a", NULL, "c");
    /* Each column after the first starts after a gap (an empty one too):
     * no phrase spans two columns. */
    assert_string_equal(v, "'a':1,3 'b':2 'c':6");
    free(v);
    v = vector_of("東京都", "", NULL);
    assert_string_equal(v, "'京都':2 '東京':1");
    free(v);
    v = vector_of(NULL, NULL, NULL);
    assert_string_equal(v, "");
    free(v);
    /* Stems of both languages share the word's position. */
    v = vector_of("Arbeitstage", NULL, NULL);
    assert_non_null(strstr(v, "'arbeitstag':1"));
    free(v);
}

static void test_query(void **state)
{
    (void)state;
    const char *phrases[] = {"x y", "z", "x y", "w"};
    search_index_phrase_kind kinds[] = {SEARCH_PHRASE_REQUIRED, SEARCH_PHRASE_OPTIONAL,
                                        SEARCH_PHRASE_OPTIONAL, SEARCH_PHRASE_EXCLUDED};
    search_index_query q = {NULL, phrases, kinds, 4};
    pg_fts_query *pq;
    assert_int_equal(pg_fts_query_build(&q, &pq), 0);
    assert_string_equal(pg_fts_query_text(pq),
                        "(('x' <-> 'y') & (('z') | ('x' <-> 'y'))) & !(('w'))");
    pg_fts_query_free(pq);
    char *p;
    assert_int_equal(pg_fts_phrase_tsquery("O'Brien", &p), 0);
    assert_string_equal(p, "('o' <-> 'brien')");
    free(p);
    assert_int_equal(pg_fts_phrase_tsquery("!!", &p), 0);
    assert_string_equal(p, "' '"); /* no token: matches nothing */
    free(p);
}

/* dbmcp_phrase_hits of row on SQLite, as "phrase:count " pairs. */
static void sqlite_hits(store *db, const char *match, int64_t row, char *out, size_t size)
{
    store_stmt *st;
    dbmcp_error err;
    out[0] = '\0';
    if (store_prepare(db, "SELECT rowid, dbmcp_phrase_hits(docs) FROM docs WHERE docs MATCH :q",
                      &st, &err) != 0)
        fail_msg("prepare: %s", err.message);
    store_bind_text(st, ":q", match);
    size_t len = 0;
    while (store_step(st, &err) == STORE_ROW) {
        if (store_column_int(st, 0) != row)
            continue;
        const unsigned char *blob = store_column_blob(st, 1);
        size_t bytes = store_column_bytes(st, 1);
        for (size_t off = 0; off + 8 <= bytes; off += 8) {
            int32_t pair[2];
            memcpy(pair, blob + off, sizeof pair);
            len += (size_t)snprintf(out + len, size - len, "%d:%d ", pair[0], pair[1]);
        }
    }
    store_finalize(st);
}

static const char *rows[][2] = {
    {"Der Urlaub beträgt 30 Arbeitstage im Kalenderjahr; 30 Arbeitstage sind viel.", "Urlaub"},
    {"Arbeitszeiten und Arbeitszeit: die Arbeitszeit beträgt 38 Stunden.", "§ 2 Arbeitszeit"},
    {"Nurses get 30 days of annual leave, annual leave days.", "Annual leave"},
    {"東京都の年次有給休暇は年次有給休暇として20日。", "年次有給休暇"},
    {"汉堡零售业的员工每年有30天年假。年假", NULL},
};
static const char *queries[] = {
    "Urlaub Arbeitstage", "\"30 Arbeitstage\" +Kalenderjahr", "Arbeitszeiten",
    "annual leave days",  "\"annual leave\" -nurses",         "年次有給休暇",
    "年假 零售业",        "arbeitszeit \"annual leave\"",
};

static void test_hits_equal_fts5(void **state)
{
    (void)state;
    store *db = NULL;
    dbmcp_error err;
    if (store_open(db_path, STORE_READWRITE | STORE_CREATE, &db, &err) != 0)
        fail_msg("store_open: %s", err.message);
    assert_int_equal(store_exec(db,
                                "CREATE VIRTUAL TABLE docs USING fts5(body, title,"
                                " tokenize = 'dbmcp')",
                                &err),
                     0);
    store_stmt *st;
    assert_int_equal(
        store_prepare(db, "INSERT INTO docs (rowid, body, title) VALUES (:r, :b, :t)", &st, &err),
        0);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        store_bind_int(st, ":r", (int64_t)r + 1);
        store_bind_text(st, ":b", rows[r][0]);
        store_bind_text(st, ":t", rows[r][1]);
        assert_true(store_step(st, &err) >= 0);
        store_reset(st);
    }
    store_finalize(st);
    int compared = 0;
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        fts_match m;
        assert_int_equal(fts_match_build(queries[i], strlen(queries[i]), 0, &m, &err), 0);
        search_index_phrase_kind *kinds = calloc(m.count, sizeof *kinds);
        for (size_t p = 0; p < m.count; p++)
            kinds[p] = m.kinds[p] == FTS_TERM_REQUIRED   ? SEARCH_PHRASE_REQUIRED
                       : m.kinds[p] == FTS_TERM_EXCLUDED ? SEARCH_PHRASE_EXCLUDED
                                                         : SEARCH_PHRASE_OPTIONAL;
        search_index_query q = {m.expression, (const char *const *)m.phrases, kinds, m.count};
        pg_fts_query *pq;
        assert_int_equal(pg_fts_query_build(&q, &pq), 0);
        search_index_hit *hits = calloc(m.count + 1, sizeof *hits);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            char want[256], got[256] = "";
            sqlite_hits(db, m.expression, (int64_t)r + 1, want, sizeof want);
            if (!want[0])
                continue; /* the row does not match: PostgreSQL decides that */
            char *v = vector_of(rows[r][0], rows[r][1], NULL);
            size_t n = pg_fts_hits(pq, v, hits), len = 0;
            for (size_t h = 0; h < n; h++)
                len += (size_t)snprintf(got + len, sizeof got - len, "%d:%d ", hits[h].phrase,
                                        hits[h].count);
            if (strcmp(want, got) != 0)
                fail_msg("query %s row %zu: FTS5 %s, tsvector %s", queries[i], r + 1, want, got);
            compared++;
            free(v);
        }
        free(hits);
        pg_fts_query_free(pq);
        free(kinds);
        fts_match_free(&m);
    }
    assert_true(compared >= 8);
    store_close(db);
}

/* The output form of tsvector escapes a quote by doubling it and carries
 * weights; the hit counter reads both. */
static void test_hits_output_form(void **state)
{
    (void)state;
    const char *phrases[] = {"a b", "it"};
    search_index_phrase_kind kinds[] = {SEARCH_PHRASE_OPTIONAL, SEARCH_PHRASE_OPTIONAL};
    search_index_query q = {NULL, phrases, kinds, 2};
    pg_fts_query *pq;
    assert_int_equal(pg_fts_query_build(&q, &pq), 0);
    search_index_hit hits[2];
    size_t n = pg_fts_hits(pq, "'a':1,4B,9 'b':2,5 'it''s':7 'it':8", hits);
    assert_int_equal(n, 2);
    assert_int_equal(hits[0].phrase, 0);
    assert_int_equal(hits[0].count, 2);
    assert_int_equal(hits[1].phrase, 1);
    assert_int_equal(hits[1].count, 1);
    assert_int_equal(pg_fts_hits(pq, "", hits), 0);
    pg_fts_query_free(pq);
}

static int suite_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(db_dir, sizeof db_dir, "%s/dbmcp-pgfts-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(db_dir))
        return -1;
    snprintf(db_path, sizeof db_path, "%s/fts.db", db_dir);
    return 0;
}

static int suite_teardown(void **state)
{
    (void)state;
    unlink(db_path);
    rmdir(db_dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_hits_equal_fts5),
        cmocka_unit_test(test_hits_output_form),
    };
    return cmocka_run_group_tests(tests, suite_setup, suite_teardown);
}
