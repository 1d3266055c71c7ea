/*
 * test_bm25.c — unit tests for dbmcp's own BM25 (search/bm25.h) and the
 * keyword side of the search engine that uses it with statistics of the
 * caller's scope (store/search_index.h):
 *
 *   - the formulas on numbers worked out by hand;
 *   - with the whole table as the scope, scores and order are those of
 *     SQLite FTS5's bm25(), to the bit, for plain, required, excluded,
 *     phrase and CJK queries, on the memory corpus (one column) and on the
 *     document chunks (text, heading and title);
 *   - nothing another scope holds moves a score, a coverage or a rank;
 *   - the bound on rows read: flagged, newest rows kept, statistics exact;
 *   - a document scope's statistics reused until an ingest or a change of
 *     exposure renews them;
 *   - the lengths written with each row equal the migration's count.
 *
 * Database tests use a fresh SQLite file under $TMPDIR with the schema and
 * the base seed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "docs/ingest.h"
#include "search/bm25.h"
#include "search/engine.h"
#include "search/fts_query.h"
#include "store/documents.h"
#include "store/memory_store.h"
#include "store/migrate.h"
#include "store/store.h"

/* --- the formulas ------------------------------------------------------------------ */

static void test_formulas(void **state)
{
    (void)state;
    /* idf: 1 of 4 rows ln(3.5 / 1.5); half the rows or more: the floor. */
    assert_true(bm25_idf(4, 1) == log(3.5 / 1.5));
    assert_true(bm25_idf(4, 2) == BM25_IDF_MIN);
    assert_true(bm25_idf(4, 3) == BM25_IDF_MIN);
    assert_true(bm25_idf(4, 0) == log(4.5 / 0.5));
    assert_true(bm25_avgdl(0, 0) == 0);
    assert_true(bm25_avgdl(4, 10) == 2.5);
    double idf[2] = {bm25_idf(4, 1), bm25_idf(4, 0)};
    bm25_stats st = {4, 2.5, idf, 2};
    /* tf 2 in a row of length 5: idf · 2·2.2 / (2 + 1.2·(0.25 + 0.75·5/2.5)) */
    search_index_hit h[2] = {{0, 2}, {1, 1}};
    double want = -(idf[0] * (2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 5 / 2.5))));
    assert_float_equal(bm25_score(&st, h, 1, 5), want, 1e-12);
    /* More of the query scores better (more negative). */
    assert_true(bm25_score(&st, h, 2, 5) < bm25_score(&st, h, 1, 5));
    /* Coverage: the share of the idf of the first `positive` phrases held. */
    assert_float_equal(bm25_coverage(&st, 2, h, 1), idf[0] / (idf[0] + idf[1]), 1e-12);
    assert_float_equal(bm25_coverage(&st, 1, h, 1), 1.0, 1e-12);
    assert_float_equal(bm25_coverage(&st, 0, h, 2), 1.0, 1e-12); /* 0: every phrase */
    /* A hit naming a phrase the statistics do not have is ignored. */
    search_index_hit stray = {7, 3};
    assert_true(bm25_score(&st, &stray, 1, 5) == 0);
}

/* --- a database ------------------------------------------------------------------------ */

typedef struct temp_db {
    char dir[512];
    char path[600];
    store *db;
    embedder *emb;
} temp_db;

static int db_setup(void **state)
{
    temp_db *t = calloc(1, sizeof *t);
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/dbmcp-bm25-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(t->dir))
        return -1;
    snprintf(t->path, sizeof t->path, "%s/test.db", t->dir);
    dbmcp_error err;
    if (store_open(t->path, STORE_READWRITE | STORE_CREATE, &t->db, &err) ||
        store_migrate(t->db, NULL, &err) || store_seed(t->db, "base", &err) ||
        embedder_open(&(embedder_config){0}, &t->emb, &err)) {
        print_error("setup: %s\n", err.message);
        return -1;
    }
    *state = t;
    return 0;
}

static int db_teardown(void **state)
{
    temp_db *t = *state;
    embedder_free(t->emb);
    store_close(t->db);
    static const char *suffixes[] = {"", "-wal", "-shm", NULL};
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", t->path, suffixes[i]);
        unlink(file);
    }
    rmdir(t->dir);
    free(t);
    search_cache_clear();
    return 0;
}

static int64_t query_int(store *db, const char *sql)
{
    int64_t n = -1;
    dbmcp_error err;
    assert_int_equal(store_query_int(db, sql, -1, &n, &err), 0);
    return n;
}

/* Save text as a message item of user u (agent "a"). */
static void save(store *db, const char *u, const char *text)
{
    int64_t id;
    int existed;
    dbmcp_error err;
    if (mstore_item_put(db, u, "a", "message", text, text, "2026-12-01T00:00:00.000Z", &id,
                        &existed, &err) != 0)
        fail_msg("save: %s", err.message);
}

/* The engine's keyword list for query over the memory of user u. */
static void search_memory(store *db, const char *u, const char *query, int rows_max,
                          search_result *res)
{
    search_index_scope scope;
    mstore_search_scope(u, "a", &scope);
    search_request req = {0};
    req.query = query;
    req.mode = SEARCH_KEYWORD;
    req.k = SEARCH_MAX_K;
    req.candidates = SEARCH_MAX_K;
    req.scope = &scope;
    req.keyword_rows_max = rows_max;
    dbmcp_error err;
    if (search_run(db, &(search_corpus){"dbmcp_mem_fts", NULL, "memory"}, &req, res, &err) != 0)
        fail_msg("search '%s': %s", query, err.message);
}

/* FTS5's own ranking of query over fts_table: rowids and bm25() into ids
 * and scores, best first (bm25, then rowid, as the engine breaks ties). */
static size_t fts5_ranking(store *db, const char *fts_table, const char *query, int64_t *ids,
                           double *scores, size_t max)
{
    char *match;
    dbmcp_error err;
    assert_int_equal(fts_query_build(query, strlen(query), 0, &match, NULL, &err), 0);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT rowid, bm25(%s) FROM %s WHERE %s MATCH :q ORDER BY 2, 1",
             fts_table, fts_table, fts_table);
    store_stmt *st;
    assert_int_equal(store_prepare(db, sql, &st, &err), 0);
    store_bind_text(st, ":q", match);
    size_t n = 0;
    while (n < max && store_step(st, &err) == STORE_ROW) {
        ids[n] = store_column_int(st, 0);
        scores[n++] = store_column_double(st, 1);
    }
    store_finalize(st);
    free(match);
    return n;
}

/* The engine's list equals FTS5's: same rows, same order, the same
 * doubles. */
static void assert_same_as_fts5(store *db, const char *fts_table, const search_result *res,
                                const char *query)
{
    int64_t ids[SEARCH_MAX_K];
    double scores[SEARCH_MAX_K];
    size_t n = fts5_ranking(db, fts_table, query, ids, scores, SEARCH_MAX_K);
    if (n != res->count)
        fail_msg("'%s': FTS5 ranks %zu rows, the engine %zu", query, n, res->count);
    for (size_t i = 0; i < n; i++) {
        if (ids[i] != res->hits[i].id || scores[i] != res->hits[i].bm25)
            fail_msg("'%s' #%zu: FTS5 row %lld bm25 %.17g, engine row %lld bm25 %.17g", query, i,
                     (long long)ids[i], scores[i], (long long)res->hits[i].id, res->hits[i].bm25);
        assert_int_equal(res->hits[i].keyword_rank, (int)i + 1);
    }
}

static const char *const memory_texts[] = {
    "The warehouse in Hamburg opens at seven in the morning.",
    "Noted: Hamburg opens at seven.",
    "Invoices go to the accounting office in Bremen every Friday.",
    "The invoice for the Bremen warehouse was sent twice, invoice number 42.",
    "Payments are due within thirty days; late payments pay interest.",
    "Der Urlaub beträgt 30 Arbeitstage, die Arbeitszeit 38 Stunden.",
    "Die Arbeitszeiten im Lager Hamburg beginnen um sieben Uhr.",
    "東京都の倉庫は午前七時に開きます。",
    "倉庫の請求書は毎週金曜日に送られます。",
    "A very long message about nothing in particular, which repeats the word warehouse: "
    "warehouse, warehouse, and once more warehouse, to make the row long and its term "
    "frequency high, so that length normalisation matters for the score.",
    "seven",
};

static const char *const queries[] = {
    "warehouse",
    "Hamburg warehouse seven",
    "when does the Hamburg warehouse open",
    "invoice Bremen",
    "+invoice Bremen warehouse",
    "+Hamburg +seven",
    "warehouse -Hamburg",
    "\"opens at seven\" warehouse",
    "payment",
    "Arbeitszeit Urlaub",
    "東京都の倉庫",
    "倉庫 請求書",
    "nothing matches this zzzz",
};

/* One user, the whole table: exactly FTS5's bm25(), query by query. */
static void test_memory_equals_fts5(void **state)
{
    temp_db *t = *state;
    for (size_t i = 0; i < sizeof memory_texts / sizeof memory_texts[0]; i++)
        save(t->db, "alice", memory_texts[i]);
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        search_result res;
        search_memory(t->db, "alice", queries[q], 0, &res);
        assert_true(res.count > 0 || strstr(queries[q], "zzzz"));
        assert_same_as_fts5(t->db, "dbmcp_mem_fts", &res, queries[q]);
        assert_int_equal(res.keyword_capped, 0);
        search_result_free(&res);
    }
}

/* Another user's items, however many and whatever they say, change
 * nothing in alice's results: not a row, not a bit of a score. */
static void test_other_scopes_change_nothing(void **state)
{
    temp_db *t = *state;
    for (size_t i = 0; i < sizeof memory_texts / sizeof memory_texts[0]; i++)
        save(t->db, "alice", memory_texts[i]);
    size_t nq = sizeof queries / sizeof queries[0];
    search_result before[sizeof queries / sizeof queries[0]];
    for (size_t q = 0; q < nq; q++)
        search_memory(t->db, "alice", queries[q], 0, &before[q]);
    for (int i = 0; i < 40; i++) {
        char text[128];
        snprintf(text, sizeof text, "bob's warehouse invoice %d in Hamburg, seven payments 倉庫",
                 i);
        save(t->db, "bob", text);
    }
    save(t->db, "bob", "warehouse");
    for (size_t q = 0; q < nq; q++) {
        search_result after;
        search_memory(t->db, "alice", queries[q], 0, &after);
        assert_int_equal(after.count, before[q].count);
        for (size_t i = 0; i < after.count; i++) {
            assert_int_equal(after.hits[i].id, before[q].hits[i].id);
            assert_true(after.hits[i].bm25 == before[q].hits[i].bm25);
            assert_true(after.hits[i].coverage == before[q].hits[i].coverage);
            assert_true(after.hits[i].score == before[q].hits[i].score);
        }
        search_result_free(&after);
        search_result_free(&before[q]);
    }
    /* …while FTS5's own bm25() over the shared table did move. */
    int64_t ids[4];
    double scores[4];
    search_result res;
    search_memory(t->db, "alice", "warehouse", 0, &res);
    assert_int_equal(fts5_ranking(t->db, "dbmcp_mem_fts", "warehouse", ids, scores, 4), 4);
    int moved = 0;
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < res.count; j++)
            if (ids[i] == res.hits[j].id && scores[i] != res.hits[j].bm25)
                moved = 1;
    assert_true(moved);
    search_result_free(&res);
}

/* The bound: the newest rows are read, the flag says more matched, and
 * the statistics stay those of the whole scope. */
static void test_bound(void **state)
{
    temp_db *t = *state;
    for (int i = 0; i < 150; i++) {
        char text[64];
        snprintf(text, sizeof text, "invoice number %d%s", i, i % 3 ? "" : " invoice");
        save(t->db, "carol", text);
    }
    search_result all, capped;
    search_memory(t->db, "carol", "invoice", 0, &all);
    search_memory(t->db, "carol", "invoice", 100, &capped);
    assert_int_equal(all.keyword_capped, 0);
    assert_int_equal(capped.keyword_capped, 1);
    assert_int_equal(all.count, 150);
    assert_int_equal(capped.count, 100);
    int64_t oldest_read = query_int(t->db, "SELECT min(id) FROM (SELECT id FROM dbmcp_mem_items"
                                           " WHERE user_id = 'carol' ORDER BY id DESC LIMIT 100)");
    for (size_t i = 0; i < capped.count; i++) {
        assert_true(capped.hits[i].id >= oldest_read);
        /* Each row read scores as it does with nothing left out. */
        for (size_t j = 0; j < all.count; j++)
            if (all.hits[j].id == capped.hits[i].id)
                assert_true(all.hits[j].bm25 == capped.hits[i].bm25);
    }
    search_result_free(&all);
    search_result_free(&capped);
}

/* Documents: three indexed columns (text, heading, title), one interface. */
static void test_chunks_equal_fts5(void **state)
{
    temp_db *t = *state;
    static const char *const docs[][2] = {
        {"urlaub.md", "# Urlaub und Arbeitszeit\n\n## Urlaub\n\nDer Urlaub beträgt 30 Tage.\n\n"
                      "## Arbeitszeit\n\nDie Arbeitszeit beträgt 38 Stunden. Urlaub wird "
                      "schriftlich beantragt.\n"},
        {"hours.md", "# Working hours\n\nWeekly working hours are 38. Overtime is paid.\n"},
        {"overtime.txt", "Overtime premium of 25 percent for night work and overtime.\n"},
        {"tokyo.md", "# 東京都\n\n東京都の労働時間は週40時間です。\n"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        ingest_options o;
        ingest_options_default(&o);
        o.collection = "c";
        o.interface = "default";
        ingest_report r;
        dbmcp_error err;
        if (ingest_buffer(t->db, t->emb, docs[i][0], docs[i][1], strlen(docs[i][1]), &o, &r,
                          &err) != 0)
            fail_msg("ingest: %s", err.message);
    }
    static const char *const q[] = {
        "Urlaub",          "Arbeitszeit Urlaub", "working hours overtime",
        "+overtime night", "東京都 労働時間",    "\"working hours\""};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        search_index_scope scope;
        docs_search_scope("default", &scope);
        search_request req = {0};
        req.query = q[i];
        req.mode = SEARCH_KEYWORD;
        req.k = SEARCH_MAX_K;
        req.candidates = SEARCH_MAX_K;
        req.scope = &scope;
        search_result res;
        dbmcp_error err;
        if (search_run(t->db, &(search_corpus){DOCS_FTS_TABLE, NULL, DOCS_VERSION_KEY}, &req, &res,
                       &err) != 0)
            fail_msg("search: %s", err.message);
        assert_true(res.count > 0);
        assert_same_as_fts5(t->db, DOCS_FTS_TABLE, &res, q[i]);
        search_result_free(&res);
    }
    /* An interface that exposes nothing reads nothing. */
    search_index_scope none;
    docs_search_scope("no-such-interface", &none);
    int64_t rows = -1, length = -1;
    dbmcp_error err;
    assert_int_equal(search_index_scope_stats(t->db, &none, &rows, &length, &err), 0);
    assert_int_equal(rows, 0);
    assert_int_equal(length, 0);
    /* The lengths written with the rows are what migration 0007 counts. */
    assert_int_equal(query_int(t->db, "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d"
                                      " ON d.id = c.document_id WHERE c.fts_length <>"
                                      " dbmcp_token_count(CAST(substr(CAST(d.content AS BLOB),"
                                      " c.start_byte + 1, c.end_byte - c.start_byte) AS TEXT))"
                                      " + dbmcp_token_count(c.heading)"
                                      " + dbmcp_token_count(d.title)"),
                     0);
    assert_true(query_int(t->db, "SELECT min(fts_length) FROM dbmcp_chunks") > 0);
}

static void ingest(temp_db *t, const char *name, const char *text)
{
    ingest_options o;
    ingest_options_default(&o);
    o.collection = "c";
    o.interface = "default";
    ingest_report r;
    dbmcp_error err;
    if (ingest_buffer(t->db, t->emb, name, text, strlen(text), &o, &r, &err) != 0)
        fail_msg("ingest %s: %s", name, err.message);
}

static void search_documents(store *db, const char *query, search_result *res)
{
    search_index_scope scope;
    docs_search_scope("default", &scope);
    search_request req = {0};
    req.query = query;
    req.mode = SEARCH_KEYWORD;
    req.k = 10;
    req.scope = &scope;
    dbmcp_error err;
    if (search_run(db, &(search_corpus){DOCS_FTS_TABLE, NULL, DOCS_VERSION_KEY}, &req, res, &err))
        fail_msg("search: %s", err.message);
}

/* The same hits and scores, or (differ) not. */
static int same_results(const search_result *a, const search_result *b)
{
    if (a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++)
        if (a->hits[i].id != b->hits[i].id || a->hits[i].bm25 != b->hits[i].bm25)
            return 0;
    return 1;
}

/* A document scope's statistics are reused while its version stays: an
 * ingest or a change of what the interface exposes renews them. Each
 * search must equal one made with an empty cache. */
static void test_stats_cache(void **state)
{
    temp_db *t = *state;
    ingest(t, "a.txt", "overtime premium overtime\n");
    ingest(t, "b.txt", "overtime rules\n");
    ingest(t, "c.txt", "holiday rules\n");
    search_result before, after, fresh;
    search_documents(t->db, "overtime", &before);
    ingest(t, "d.txt", "overtime again and again\n");
    search_documents(t->db, "overtime", &after);
    search_cache_clear();
    search_documents(t->db, "overtime", &fresh);
    assert_true(same_results(&after, &fresh));
    assert_false(same_results(&after, &before)); /* a fourth row: N and the counts moved */
    search_result_free(&before);
    search_result_free(&fresh);
    /* A resource disabled leaves the scope: fewer rows, other scores. */
    dbmcp_error err;
    assert_int_equal(
        store_exec(t->db, "UPDATE dbmcp_resources SET enabled = 0 WHERE uri = 'doc://c/c'", &err),
        0);
    search_documents(t->db, "overtime", &before);
    search_cache_clear();
    search_documents(t->db, "overtime", &fresh);
    assert_true(same_results(&before, &fresh));
    assert_false(same_results(&before, &after));
    search_result_free(&before);
    search_result_free(&after);
    search_result_free(&fresh);
}

static void test_memory_lengths(void **state)
{
    temp_db *t = *state;
    for (size_t i = 0; i < sizeof memory_texts / sizeof memory_texts[0]; i++)
        save(t->db, "dave", memory_texts[i]);
    assert_int_equal(query_int(t->db, "SELECT count(*) FROM dbmcp_mem_items"
                                      " WHERE fts_length <> dbmcp_token_count(text)"),
                     0);
    assert_int_equal(query_int(t->db, "SELECT fts_length FROM dbmcp_mem_items WHERE text ="
                                      " 'Noted: Hamburg opens at seven.'"),
                     5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas),
        cmocka_unit_test_setup_teardown(test_memory_equals_fts5, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_other_scopes_change_nothing, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_bound, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_chunks_equal_fts5, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_stats_cache, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_memory_lengths, db_setup, db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
