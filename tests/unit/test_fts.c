/*
 * test_fts.c — full-text search end to end: the "dbmcp" FTS5 tokenizer
 * (store/sqlite_fts) on a real SQLite database opened with store_open,
 * queried through the safe query builder (search/fts_query).
 *
 * Relevance cases are data. Each .json file in tests/cases/fts is one
 * collection:
 *
 *   "description":  what the file is about
 *   "tokenize":     the tokenize= value ("dbmcp" when absent)
 *   "documents":    texts; row i (from 1) holds documents[i-1]
 *   "queries":      cases, each with "query" (passed through
 *                   fts_query_build; "flags": "all" for
 *                   FTS_QUERY_ALL_TERMS) or "raw" (an FTS5 expression used
 *                   as it is), and the expected outcome:
 *       "match":          the exact set of matching rows
 *       "first":          the row bm25 ranks first
 *       "highlight":      highlight(docs, 0, '[', ']') of the first row
 *       "error_contains": the builder must refuse the query with this text
 *       "pending":        a known bug, with the reason
 *
 * Every built expression must also run without an FTS5 syntax error. The
 * C tests pin the exact expressions, their phrases, the limits and their
 * messages, the tokenizer's arguments and its presence on read-only
 * handles, and the per-phrase counts of dbmcp_phrase_hits().
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_files.h"
#include "core/error.h"
#include "core/textnorm.h"
#include "search/fts_query.h"
#include "store/store.h"

#define CASES_MIN 60
#define MAX_ROWS 64

static char db_dir[512];
static char db_path[600];

static store *open_db(int flags)
{
    store *db = NULL;
    dbmcp_error err;
    if (store_open(db_path, flags, &db, &err) != 0)
        fail_msg("store_open %s: %s", db_path, err.message);
    return db;
}

static void exec_ok(store *db, const char *sql)
{
    dbmcp_error err;
    if (store_exec(db, sql, &err) != 0)
        fail_msg("%s: %s", sql, err.message);
}

/* Create table docs with the given tokenize value and fill it. */
static void load_documents(store *db, const char *tokenize, const json_t *docs)
{
    char sql[512];
    exec_ok(db, "DROP TABLE IF EXISTS docs");
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '%s')",
             tokenize);
    exec_ok(db, sql);
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(
        store_prepare(db, "INSERT INTO docs(rowid, body) VALUES (:id, :body)", &st, &err), 0);
    size_t i;
    const json_t *d;
    json_array_foreach (docs, i, d) {
        store_reset(st);
        assert_int_equal(store_bind_int(st, ":id", (int64_t)i + 1), 0);
        assert_int_equal(store_bind_text(st, ":body", json_string_value(d)), 0);
        assert_int_equal(store_step(st, &err), STORE_DONE);
    }
    store_finalize(st);
}

/* Rows matching expression, best first; returns the count or -1 with the
 * error in err. highlight gets the first row's highlight (may be NULL). */
static int run_match(store *db, const char *expression, int64_t *rows, char *highlight,
                     size_t hsize, dbmcp_error *err)
{
    store_stmt *st;
    if (store_prepare(db,
                      "SELECT rowid, highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH :q "
                      "ORDER BY bm25(docs), rowid",
                      &st, err) != 0)
        return -1;
    store_bind_text(st, ":q", expression);
    int n = 0, rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (n == 0 && highlight)
            snprintf(highlight, hsize, "%s", store_column_text(st, 1));
        if (n < MAX_ROWS)
            rows[n] = store_column_int(st, 0);
        n++;
    }
    store_finalize(st);
    return rc < 0 ? -1 : n;
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Why the match outcome differs from case c, or NULL. */
static const char *check_rows(const json_t *c, int64_t *rows, int n, const char *highlight,
                              char *why, size_t size)
{
    const json_t *first = json_object_get(c, "first");
    if (first && (n == 0 || rows[0] != json_integer_value(first))) {
        snprintf(why, size, "first row: want %lld, got %lld", (long long)json_integer_value(first),
                 n ? (long long)rows[0] : -1LL);
        return why;
    }
    const char *want_hl = json_string_value(json_object_get(c, "highlight"));
    if (want_hl && (n == 0 || strcmp(want_hl, highlight) != 0)) {
        snprintf(why, size, "highlight: want \"%s\", got \"%s\"", want_hl, n ? highlight : "");
        return why;
    }
    const json_t *match = json_object_get(c, "match");
    if (!match)
        return NULL;
    qsort(rows, (size_t)n, sizeof *rows, cmp_int64);
    int differ = (size_t)n != json_array_size(match);
    for (int i = 0; !differ && i < n; i++)
        differ = rows[i] != json_integer_value(json_array_get(match, (size_t)i));
    if (!differ)
        return NULL;
    char got[256] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof got - 24; i++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%lld", i ? "," : "",
                                (long long)rows[i]);
    char *want = json_dumps(match, JSON_COMPACT);
    snprintf(why, size, "matching rows: want %s, got [%s]", want, got);
    free(want);
    return why;
}

static const char *check_query(store *db, const json_t *c, char *why, size_t size)
{
    const char *query = json_string_value(json_object_get(c, "query"));
    const char *raw = json_string_value(json_object_get(c, "raw"));
    const char *error = json_string_value(json_object_get(c, "error_contains"));
    const char *flags = json_string_value(json_object_get(c, "flags"));
    char *expression = NULL;
    dbmcp_error err;
    if (!query && !raw)
        return "a query case needs \"query\" or \"raw\"";
    if (query) {
        int rc = fts_query_build(query, strlen(query), flags && !strcmp(flags, "all"), &expression,
                                 NULL, &err);
        if (error) {
            free(expression);
            if (rc == 0 || !strstr(err.public_message, error)) {
                snprintf(why, size, "want an error with \"%s\", got %s", error,
                         rc ? err.public_message : "success");
                return why;
            }
            return NULL;
        }
        if (rc) {
            snprintf(why, size, "builder refused: %s", err.message);
            return why;
        }
    }
    int64_t rows[MAX_ROWS];
    char highlight[1024] = "";
    int n = run_match(db, query ? expression : raw, rows, highlight, sizeof highlight, &err);
    if (n < 0) {
        snprintf(why, size, "MATCH %s failed: %s", query ? expression : raw, err.message);
        free(expression);
        return why;
    }
    const char *failed = check_rows(c, rows, n < MAX_ROWS ? n : MAX_ROWS, highlight, why, size);
    if (failed && expression) {
        size_t len = strlen(why);
        snprintf(why + len, size - len, " (expression %s)", expression);
    }
    free(expression);
    return failed;
}

static void case_file_run(const char *name, const json_t *doc, case_tally *tally)
{
    const char *tokenize = json_string_value(json_object_get(doc, "tokenize"));
    const json_t *docs = json_object_get(doc, "documents");
    const json_t *queries = json_object_get(doc, "queries");
    if (!json_is_array(docs) || !json_is_array(queries)) {
        tally->failures++;
        print_error("%s: needs \"documents\" and \"queries\" arrays\n", name);
        return;
    }
    store *db = open_db(STORE_READWRITE | STORE_CREATE);
    load_documents(db, tokenize ? tokenize : "dbmcp", docs);
    size_t i;
    const json_t *c;
    json_array_foreach (queries, i, c) {
        char label[512], why[4096];
        snprintf(label, sizeof label, "%s[%zu]", name, i);
        tally->cases++;
        const char *failed = check_query(db, c, why, sizeof why);
        case_tally_outcome(tally, label, c, failed != NULL, failed ? failed : "");
    }
    store_close(db);
}

static void test_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("fts", 0, case_file_run, &tally);
    print_message("fts: %d cases, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= CASES_MIN);
}

/* ----- the query builder ----- */

static void expect_expression(const char *query, int flags, const char *want)
{
    char *got;
    dbmcp_error err;
    if (fts_query_build(query, strlen(query), flags, &got, NULL, &err) != 0)
        fail_msg("%s: %s", query, err.message);
    assert_string_equal(got, want);
    free(got);
}

static void expect_error(const char *query, size_t n, int code, const char *message)
{
    char *got = (char *)"untouched";
    dbmcp_error err;
    assert_int_equal(fts_query_build(query, n, 0, &got, NULL, &err), code);
    assert_null(got);
    assert_string_equal(err.public_message, message);
    assert_string_equal(err.message, message);
}

static void test_expressions(void **state)
{
    (void)state;
    expect_expression("Arbeitszeit Vergütung", 0, "\"Arbeitszeit\" OR \"Vergütung\"");
    expect_expression("one", 0, "\"one\"");
    expect_expression("\"fristlose Kündigung\" Frist", 0, "\"fristlose Kündigung\" OR \"Frist\"");
    expect_expression("+a b c", 0, "\"a\" AND (\"b\" OR \"c\" OR \"a\")");
    expect_expression("+a +b", 0, "\"a\" AND \"b\"");
    expect_expression("a -b -\"c d\"", 0, "(\"a\") NOT (\"b\" OR \"c d\")");
    expect_expression("+a b -c", 0, "(\"a\" AND (\"b\" OR \"a\")) NOT (\"c\")");
    expect_expression("a b", FTS_QUERY_ALL_TERMS, "\"a\" AND \"b\"");
    expect_expression("temp -5 e-mail", 0, "\"temp\" OR \"-5\" OR \"e\" OR \"mail\"");
    expect_expression("x - y", 0, "\"x\" OR \"y\"");
    /* Function words are left out when there is anything else to search. */
    expect_expression("a - b", 0, "\"b\"");
    expect_expression("what is it", 0, "\"what\" OR \"is\" OR \"it\"");
    expect_expression("+Vertrag wie der", 0, "\"Vertrag\" AND (\"Vertrag\")");
    expect_expression("NEAR( col: *", 0, "\"NEAR(\" OR \"col:\"");
    expect_expression("x\"y", 0, "\"x\" OR \"y\"");
    /* A plain word the tokenizer splits is one optional string per token,
     * each token once; quoted or with + or - it stays one phrase. */
    expect_expression("東京都 合同", 0, "\"東京\" OR \"京都\" OR \"合同\"");
    expect_expression("\"東京都\" 合同", 0, "\"東京都\" OR \"合同\"");
    expect_expression("+東京都 -大阪府", 0, "(\"東京都\") NOT (\"大阪府\")");
    expect_expression("黑豹队的防守", 0,
                      "\"黑豹\" OR \"豹队\" OR \"队的\" OR \"的防\" OR \"防守\"");
    expect_expression("What is Caroline's job?", 0, "\"Caroline\" OR \"job?\"");
    expect_expression("the cat THE", 0, "\"cat\"");
    expect_expression("the cat \"The\"", 0, "\"the\" OR \"cat\""); /* quoted: searched */
    expect_expression("ｶﾀｶﾅ カタカナ", 0, "\"ｶﾀ\" OR \"ﾀｶ\" OR \"ｶﾅ\"");
    /* A NUL is white space, never the end of the string. */
    char *got;
    dbmcp_error err;
    assert_int_equal(fts_query_build("x\0y", 3, 0, &got, NULL, &err), 0);
    assert_string_equal(got, "\"x\" OR \"y\"");
    free(got);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", 0, DBMCP_EINVAL, "query has no searchable words");
    expect_error(NULL, 0, DBMCP_EINVAL, "query has no searchable words");
    expect_error("*** ()", 6, DBMCP_EINVAL, "query has no searchable words");
    expect_error("-a -b", 5, DBMCP_EINVAL,
                 "query has only excluded words; add a word to search for");
    expect_error("ab\xff", 3, DBMCP_EINVAL, "query is not valid UTF-8 (byte 2)");

    char big[FTS_QUERY_MAX_BYTES + 2];
    memset(big, 'a', sizeof big);
    expect_error(big, FTS_QUERY_MAX_BYTES + 1, DBMCP_ETOOBIG,
                 "query is 4097 bytes; the limit is 4096");
    char *got;
    dbmcp_error err;
    assert_int_equal(fts_query_build(big, FTS_QUERY_MAX_BYTES, 0, &got, NULL, &err), 0);
    free(got);

    char terms[1024] = "";
    for (int i = 0; i < 65; i++)
        snprintf(terms + strlen(terms), sizeof terms - strlen(terms), "w%d ", i);
    expect_error(terms, strlen(terms), DBMCP_ETOOBIG, "query has 65 terms; the limit is 64");
    terms[strlen(terms) - 5] = '\0'; /* drop "w64 " */
    assert_int_equal(fts_query_build(terms, strlen(terms), 0, &got, NULL, &err), 0);
    free(got);
}

static void test_parse(void **state)
{
    (void)state;
    fts_query q;
    dbmcp_error err;
    const char *text = "+Vertrag \"fristlose Kündigung\" -Probezeit ***";
    assert_int_equal(fts_query_parse(text, strlen(text), 0, &q, &err), 0);
    assert_int_equal(q.count, 3);
    assert_int_equal(q.terms[0].kind, FTS_TERM_REQUIRED);
    assert_int_equal(q.terms[0].phrase, 0);
    assert_string_equal(q.terms[0].text, "Vertrag");
    assert_int_equal(q.terms[1].kind, FTS_TERM_ANY);
    assert_int_equal(q.terms[1].phrase, 1);
    assert_string_equal(q.terms[1].text, "fristlose Kündigung");
    assert_int_equal(q.terms[2].kind, FTS_TERM_EXCLUDED);
    assert_string_equal(q.terms[2].text, "Probezeit");
    fts_query_free(&q);
    fts_query_free(&q); /* idempotent */
}

/* ----- the tokenizer on real handles ----- */

static void test_tokenizer_arguments(void **state)
{
    (void)state;
    store *db = open_db(STORE_READWRITE | STORE_CREATE);
    dbmcp_error err;
    exec_ok(db, "DROP TABLE IF EXISTS t_bad");
    assert_int_not_equal(
        store_exec(db, "CREATE VIRTUAL TABLE t_bad USING fts5(b, tokenize = 'dbmcp fr')", &err), 0);
    exec_ok(db, "DROP TABLE IF EXISTS docs");
    exec_ok(db, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'dbmcp none')");
    exec_ok(db, "INSERT INTO docs(rowid, body) VALUES (1, 'Die Arbeitszeiten, die STRASSE')");
    int64_t rows[MAX_ROWS];
    /* Without stemming only the folded form matches… */
    assert_int_equal(run_match(db, "\"Arbeitszeit\"", rows, NULL, 0, &err), 0);
    assert_int_equal(run_match(db, "\"arbeitszeiten\"", rows, NULL, 0, &err), 1);
    assert_int_equal(run_match(db, "\"straße\"", rows, NULL, 0, &err), 1);
    exec_ok(db, "DROP TABLE docs");
    /* …with German alone the inflection matches. */
    exec_ok(db, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'dbmcp de')");
    exec_ok(db, "INSERT INTO docs(rowid, body) VALUES (1, 'Die Arbeitszeiten')");
    assert_int_equal(run_match(db, "\"Arbeitszeit\"", rows, NULL, 0, &err), 1);
    store_close(db);
}

static void test_readonly_handle(void **state)
{
    (void)state;
    store *rw = open_db(STORE_READWRITE | STORE_CREATE);
    exec_ok(rw, "DROP TABLE IF EXISTS docs");
    exec_ok(rw, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'dbmcp')");
    exec_ok(rw, "INSERT INTO docs(rowid, body) VALUES (1, 'Vergütungen werden gezahlt')");
    store_close(rw);
    store *ro = open_db(STORE_READONLY);
    int64_t rows[MAX_ROWS];
    dbmcp_error err;
    assert_int_equal(run_match(ro, "\"Vergütung\"", rows, NULL, 0, &err), 1);
    store_close(ro);
}

/* dbmcp_phrase_hits(docs) of row `row` for expression q as "phrase:count "
 * pairs into out ("-" when the row does not match). */
static void phrase_hits_of(store *db, const char *q, int64_t row, char *out, size_t size)
{
    store_stmt *st;
    dbmcp_error err;
    snprintf(out, size, "-");
    if (store_prepare(db, "SELECT rowid, dbmcp_phrase_hits(docs) FROM docs WHERE docs MATCH :q",
                      &st, &err) != 0)
        fail_msg("prepare: %s", err.message);
    store_bind_text(st, ":q", q);
    while (store_step(st, &err) == STORE_ROW) {
        if (store_column_int(st, 0) != row)
            continue;
        const unsigned char *blob = store_column_blob(st, 1);
        size_t bytes = store_column_bytes(st, 1), len = 0;
        out[0] = '\0';
        for (size_t off = 0; off + 8 <= bytes; off += 8) {
            int32_t pair[2];
            memcpy(pair, blob + off, sizeof pair);
            len += (size_t)snprintf(out + len, size - len, "%d:%d ", pair[0], pair[1]);
        }
    }
    store_finalize(st);
}

static void test_phrase_hits(void **state)
{
    (void)state;
    store *db = open_db(STORE_READWRITE | STORE_CREATE);
    exec_ok(db, "DROP TABLE IF EXISTS docs");
    exec_ok(db, "CREATE VIRTUAL TABLE docs USING fts5(body, title, tokenize = 'dbmcp none')");
    exec_ok(db, "INSERT INTO docs(rowid, body, title) VALUES (1, 'apple banana apple', 'apple'),"
                " (2, 'cherry pie', NULL), (3, 'banana split', 'cherry')");
    char got[128];
    /* Counts over every column, ascending by phrase, phrases absent left out. */
    phrase_hits_of(db, "\"banana\" OR \"apple\"", 1, got, sizeof got);
    assert_string_equal(got, "0:1 1:3 ");
    phrase_hits_of(db, "\"banana\" OR \"apple\"", 3, got, sizeof got);
    assert_string_equal(got, "0:1 ");
    phrase_hits_of(db, "\"banana\" OR \"apple\"", 2, got, sizeof got);
    assert_string_equal(got, "-");
    /* A phrase is one occurrence however many tokens it has. */
    phrase_hits_of(db, "\"cherry pie\" OR \"split\"", 2, got, sizeof got);
    assert_string_equal(got, "0:1 ");
    /* The token positions of text, as the index counts them. */
    assert_int_equal(text_token_count("apple banana apple", 18), 3);
    assert_int_equal(text_token_count("Die Arbeitszeiten!", 18), 2);
    assert_int_equal(text_token_count("東京都", strlen("東京都")), 2); /* 東京 京都 */
    assert_int_equal(text_token_count("", 0), 0);
    assert_int_equal(text_token_count(NULL, 3), 0);
    store_close(db);
}

/* The builder's phrases: in the order FTS5 numbers them, with their kinds,
 * and how many come before the excluded group. */
static void test_match_phrases(void **state)
{
    (void)state;
    fts_match m;
    dbmcp_error err;
    assert_int_equal(fts_match_build("apple banana -cherry", 20, 0, &m, &err), 0);
    assert_string_equal(m.expression, "(\"apple\" OR \"banana\") NOT (\"cherry\")");
    assert_int_equal(m.positive, 2);
    assert_int_equal(m.count, 3);
    assert_string_equal(m.phrases[2], "cherry");
    assert_int_equal(m.kinds[0], FTS_TERM_ANY);
    assert_int_equal(m.kinds[2], FTS_TERM_EXCLUDED);
    fts_match_free(&m);
    /* a AND (b OR 東京 OR 京都 OR a): the repeat is a phrase of its own,
     * optional, and not counted in positive. */
    assert_int_equal(fts_match_build("+a b 東京都", 14, 0, &m, &err), 0);
    assert_int_equal(m.positive, 4);
    assert_int_equal(m.count, 5);
    assert_int_equal(m.kinds[0], FTS_TERM_REQUIRED);
    assert_string_equal(m.phrases[2], "東京");
    assert_string_equal(m.phrases[4], "a");
    assert_int_equal(m.kinds[4], FTS_TERM_ANY);
    fts_match_free(&m);
    assert_int_equal(fts_match_build("\"fristlose Kündigung\"", 22, 0, &m, &err), 0);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.phrases[0], "fristlose Kündigung");
    fts_match_free(&m);
    fts_match_free(&m); /* idempotent */
    char *match;
    int positive = -1;
    assert_int_equal(fts_query_build("how is the weather", 18, 0, &match, &positive, &err), 0);
    assert_string_equal(match, "\"weather\"");
    assert_int_equal(positive, 1);
    free(match);
    assert_int_equal(fts_query_build("what is it", 10, 0, &match, &positive, &err), 0);
    assert_int_equal(positive, 3); /* only function words: every one counts */
    free(match);
}

static int suite_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(db_dir, sizeof db_dir, "%s/dbmcp-fts-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(db_dir))
        return -1;
    snprintf(db_path, sizeof db_path, "%s/fts.db", db_dir);
    return 0;
}

static int suite_teardown(void **state)
{
    (void)state;
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char file[700];
        snprintf(file, sizeof file, "%s%s", db_path, suffixes[i]);
        unlink(file);
    }
    rmdir(db_dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_tokenizer_arguments),
        cmocka_unit_test(test_readonly_handle),
        cmocka_unit_test(test_phrase_hits),
        cmocka_unit_test(test_match_phrases),
    };
    return cmocka_run_group_tests(tests, suite_setup, suite_teardown);
}
