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
 * C tests pin the exact expressions, the limits and their messages, the
 * tokenizer's arguments and its presence on read-only handles.
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

/* dbmcp_coverage(docs, n) of row `row` for expression q, or -1. */
static double coverage_of(store *db, const char *q, int n, int64_t row)
{
    store_stmt *st;
    dbmcp_error err;
    double got = -1;
    if (store_prepare(db, "SELECT rowid, dbmcp_coverage(docs, :n) FROM docs WHERE docs MATCH :q",
                      &st, &err) != 0)
        fail_msg("prepare: %s", err.message);
    store_bind_int(st, ":n", n);
    store_bind_text(st, ":q", q);
    while (store_step(st, &err) == STORE_ROW)
        if (store_column_int(st, 0) == row)
            got = store_column_double(st, 1);
    store_finalize(st);
    return got;
}

static void test_coverage(void **state)
{
    (void)state;
    store *db = open_db(STORE_READWRITE | STORE_CREATE);
    exec_ok(db, "DROP TABLE IF EXISTS docs");
    exec_ok(db, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'dbmcp none')");
    exec_ok(db, "INSERT INTO docs(rowid, body) VALUES (1, 'apple banana'), (2, 'apple cherry'),"
                " (3, 'date'), (4, 'egg')");
    /* idf as bm25: apple in 2 of 4 rows ln(2.5/2.5) = 0 -> 1e-6; banana
     * ln(3.5/1.5). Row 1 holds both, row 2 only the word half the rows have. */
    assert_float_equal(coverage_of(db, "\"apple\" OR \"banana\"", 0, 1), 1.0, 1e-9);
    assert_float_equal(coverage_of(db, "\"apple\" OR \"banana\"", 0, 2),
                       1e-6 / (1e-6 + log(3.5 / 1.5)), 1e-9);
    /* Only the first n phrases count: the excluded group after them never
     * occurs in a matching row and must not lower anyone's coverage. */
    assert_float_equal(coverage_of(db, "(\"apple\") NOT (\"cherry\")", 1, 1), 1.0, 1e-9);
    assert_float_equal(coverage_of(db, "\"apple\" OR \"date\"", 0, 3),
                       log(3.5 / 1.5) / (1e-6 + log(3.5 / 1.5)), 1e-9);
    /* A word no row holds keeps its idf: no row answers that part. */
    assert_float_equal(coverage_of(db, "\"banana\" OR \"zzz\"", 0, 1),
                       log(3.5 / 1.5) / (log(3.5 / 1.5) + log(4.5 / 0.5)), 1e-9);
    /* The builder says how many phrases come before the excluded group. */
    char *match;
    int positive = -1;
    dbmcp_error err;
    assert_int_equal(fts_query_build("apple banana -cherry", 20, 0, &match, &positive, &err), 0);
    assert_string_equal(match, "(\"apple\" OR \"banana\") NOT (\"cherry\")");
    assert_int_equal(positive, 2);
    free(match);
    assert_int_equal(fts_query_build("+a b 東京都", 14, 0, &match, &positive, &err), 0);
    assert_int_equal(positive, 4); /* a AND (b OR 東京 OR 京都 OR a): not the repeat */
    free(match);
    assert_int_equal(fts_query_build("how is the weather", 18, 0, &match, &positive, &err), 0);
    assert_string_equal(match, "\"weather\"");
    assert_int_equal(positive, 1);
    free(match);
    assert_int_equal(fts_query_build("what is it", 10, 0, &match, &positive, &err), 0);
    assert_int_equal(positive, 3); /* only function words: every one counts */
    free(match);
    store_close(db);
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
        cmocka_unit_test(test_coverage),
    };
    return cmocka_run_group_tests(tests, suite_setup, suite_teardown);
}
