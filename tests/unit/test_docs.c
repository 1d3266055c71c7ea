/*
 * test_docs.c — unit tests for document extraction (docs/extract*.c),
 * ingestion (docs/ingest.c, store/documents.c) and the search engine
 * (search/engine.c): formats, UTF-8 errors with offsets, titles, language
 * guesses, slugs, HTML and PDF extraction, atomic replacement, the
 * in-memory vector index refreshed when the data version changes, and
 * concurrent searches while documents change.
 *
 * Database tests use a fresh SQLite file under $TMPDIR with the schema and
 * the base seed. PDF fixtures come from $DBMCP_CASES/ingest.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "docs/extract.h"
#include "docs/ingest.h"
#include "search/engine.h"
#include "store/documents.h"
#include "store/migrate.h"
#include "store/search_index.h"
#include "store/store.h"

/* --- extraction --------------------------------------------------------------- */

static void test_format_detect(void **state)
{
    (void)state;
    assert_int_equal(doc_format_detect("a/b.MD", "x", 1), DOC_FORMAT_MARKDOWN);
    assert_int_equal(doc_format_detect("x.htm", "x", 1), DOC_FORMAT_HTML);
    assert_int_equal(doc_format_detect("noext", "%PDF-1.4", 8), DOC_FORMAT_PDF);
    assert_int_equal(doc_format_detect("noext", "  <!DOCTYPE html><p>", 20), DOC_FORMAT_HTML);
    assert_int_equal(doc_format_detect("noext", "plain words", 11), DOC_FORMAT_TEXT);
    assert_int_equal(doc_format_detect("x.bin", "\xff\xfe", 2), DOC_FORMAT_UNKNOWN);
    assert_int_equal(doc_format_detect("dir.md/file", "\xff", 1), DOC_FORMAT_UNKNOWN);
    assert_int_equal(doc_format_parse("pdf"), DOC_FORMAT_PDF);
    assert_int_equal(doc_format_parse("doc"), DOC_FORMAT_UNKNOWN);
}

static void test_utf8_errors(void **state)
{
    (void)state;
    dbmcp_error err;
    doc_extracted d;
    assert_int_equal(doc_extract(DOC_FORMAT_TEXT, "abc\xc3(def", 8, NULL, &d, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "not valid UTF-8 (byte 3: 0xc3)"));
    assert_null(d.text);
    assert_int_equal(doc_extract(DOC_FORMAT_TEXT, "ab\0cd", 5, NULL, &d, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "NUL byte (byte 2)"));
    /* A cut sequence at the very end is invalid too. */
    assert_int_equal(doc_extract(DOC_FORMAT_MARKDOWN, "ok \xe2\x82", 5, NULL, &d, &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "byte 3"));
    /* The BOM is dropped, the rest kept byte for byte. */
    assert_int_equal(doc_extract(DOC_FORMAT_TEXT, "\xef\xbb\xbfHallo", 8, NULL, &d, &err), 0);
    assert_string_equal(d.text, "Hallo");
    doc_extracted_free(&d);
    assert_int_equal(doc_extract(DOC_FORMAT_UNKNOWN, "x", 1, NULL, &d, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "unknown format"));
}

static void test_titles_and_languages(void **state)
{
    (void)state;
    char *t = doc_title_from_text("\n\nintro line\n# The Title\nbody", 30, 1);
    assert_string_equal(t, "The Title");
    free(t);
    t = doc_title_from_text("  first line  \nsecond", 21, 0);
    assert_string_equal(t, "first line");
    free(t);
    assert_null(doc_title_from_text(" \n\t\n", 4, 0));
    const char *de =
        "Der Urlaub beträgt 30 Tage und die Arbeitszeit ist nicht länger als 35 Stunden.";
    const char *en = "The leave is 30 days and the working time is not longer than 35 hours.";
    const char *ja = "週労働時間は39時間です。年次有給休暇は26日です。";
    const char *zh = "每周工作时间为37.5小时。年假为30天。";
    assert_string_equal(doc_language_detect(de, strlen(de)), "de");
    assert_string_equal(doc_language_detect(en, strlen(en)), "en");
    assert_string_equal(doc_language_detect(ja, strlen(ja)), "ja");
    assert_string_equal(doc_language_detect(zh, strlen(zh)), "zh");
    assert_string_equal(doc_language_detect("1234 5678", 9), "und");
}

static void test_slugs(void **state)
{
    (void)state;
    char s[136];
    dbmcp_error err;
    assert_int_equal(ingest_slug_from_path("/x/Tarif Vertrag (2024).PDF", s, sizeof s, &err), 0);
    assert_string_equal(s, "tarif-vertrag-2024");
    assert_int_equal(ingest_slug_from_path("notes.v2.md", s, sizeof s, &err), 0);
    assert_string_equal(s, "notes.v2");
    assert_int_equal(ingest_slug_from_path("/x/äöü.txt", s, sizeof s, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "slug"));
}

static void test_html(void **state)
{
    (void)state;
    const char *html = "<html><head><title> The  Page </title><style>p{}</style>"
                       "<script>var SECRET=1;</script></head><body><h1>Head</h1>"
                       "<p>One   two\nthree</p><h2>Sub</h2><ul><li>a</li><li>b</li></ul>"
                       "<noscript>NOSCRIPT</noscript><pre>x\n  y</pre></body></html>";
    doc_extracted d;
    dbmcp_error err;
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, html, strlen(html), NULL, &d, &err), 0);
    assert_string_equal(d.title, "The Page");
    assert_true(d.markdown);
    assert_string_equal(d.mime_type, "text/html");
    assert_null(strstr(d.text, "SECRET"));
    assert_null(strstr(d.text, "NOSCRIPT"));
    assert_null(strstr(d.text, "p{}"));
    assert_non_null(strstr(d.text, "# Head\n\nOne two three\n\n## Sub\n\na\nb"));
    assert_non_null(strstr(d.text, "x\n  y"));
    doc_extracted_free(&d);
    /* Title from the first h1 when there is no <title>. */
    const char *h1 = "<body><h1>Only <b>heading</b></h1><p>text</p></body>";
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, h1, strlen(h1), NULL, &d, &err), 0);
    assert_string_equal(d.title, "Only heading");
    doc_extracted_free(&d);
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, "<p>\xe4</p>", 8, NULL, &d, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "byte 3"));
    const char *latin1 = "<meta charset=\"iso-8859-1\"><p>Gr\xfc\xdf"
                         "e</p>";
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, latin1, strlen(latin1), NULL, &d, &err), 0);
    assert_non_null(strstr(d.text, "Grüße"));
    doc_extracted_free(&d);
    /* A charset libxml2 does not know does not excuse invalid UTF-8. */
    const char *bogus = "<meta charset=\"nonesuch\"><title>T\xe1</title><p>x</p>";
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, bogus, strlen(bogus), NULL, &d, &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "not valid UTF-8"));
    assert_int_equal(doc_extract(DOC_FORMAT_HTML, "<script>x</script>", 18, NULL, &d, &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "no text"));
}

/* Extract html with at most max attributes per tag: the return code, err filled. */
static int html_with_limit(const char *html, int max, dbmcp_error *err)
{
    doc_limits lim = {.html_max_attributes = max};
    doc_extracted d;
    int rc = doc_extract(DOC_FORMAT_HTML, html, strlen(html), &lim, &d, err);
    doc_extracted_free(&d);
    return rc;
}

static void test_html_attribute_limit(void **state)
{
    (void)state;
    dbmcp_error err;
    assert_int_equal(html_with_limit("<p a b=1 c='x'>t</p>", 3, &err), 0);
    assert_int_equal(html_with_limit("<p a b=1 c='x' d>t</p>", 3, &err), DBMCP_ETOOBIG);
    assert_non_null(strstr(err.message,
                           "<p> tag (byte 0) with more than 3 attributes; the limit is "
                           "3 attributes per tag (setting ingest.html_max_attributes)"));
    /* A quoted '>' does not end the tag; names are cut every 100 bytes, as libxml2 does. */
    assert_int_equal(html_with_limit("<p a=\">\" b='>' c=\">\"d>t</p>", 3, &err), DBMCP_ETOOBIG);
    char longname[400];
    snprintf(longname, sizeof longname, "<p %0350d>t</p>", 0);
    assert_int_equal(html_with_limit(longname, 3, &err), 0); /* digits: not a name start */
    memset(longname + 3, 'x', 350);
    assert_int_equal(html_with_limit(longname, 3, &err), DBMCP_ETOOBIG);
    /* What libxml2 reads as a comment, a processing instruction, a DOCTYPE literal or
     * script text holds no tag; what it reads as markup does. */
    assert_int_equal(html_with_limit("<!-- <p a b c d> --><?x <p a b c d>?><p>t</p>", 3, &err), 0);
    assert_int_equal(html_with_limit("<!DOCTYPE x SYSTEM \"<p a b c d>\"><p>t</p>", 3, &err), 0);
    assert_int_equal(html_with_limit("<script>'<p a b c d>'</script><p>t</p>", 3, &err), 0);
    assert_int_equal(html_with_limit("<!--><p a b c d>-->t", 3, &err), 0);
    assert_int_equal(html_with_limit("<!---->x<p a b c d>t", 3, &err), DBMCP_ETOOBIG);
    assert_int_equal(html_with_limit("<p>x<!DOCTYPE a><!DOCTYPE b \"<i a b c d>\">", 3, &err),
                     DBMCP_ETOOBIG);
    assert_int_equal(html_with_limit("<style><body a b c d>t", 3, &err), DBMCP_ETOOBIG);
    assert_int_equal(html_with_limit("<script>x<noscript a b c d></script><p>t</p>", 3, &err), 0);
    /* Constructs whose reading depends on what the scan does not model are refused. */
    assert_int_equal(html_with_limit("<script></div>x</script><p>t</p>", 3, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "ambiguous at byte 8: an end tag </div> inside <script>"));
    assert_int_equal(html_with_limit("<?\xc3\xa4 x><p>t</p>", 3, &err), DBMCP_EINVAL);
    /* A declared charset is converted before the scan: the UTF-7 '<' is counted. */
    const char *utf7 = "<meta charset=utf-7><p>\xff</p>+ADw-p a b c d+AD4-t";
    assert_int_equal(html_with_limit(utf7, 3, &err), DBMCP_ETOOBIG);
    assert_int_equal(html_with_limit(utf7, 4, &err), 0);
}

static char *read_fixture(const char *name, size_t *n)
{
    const char *cases = getenv("DBMCP_CASES");
    char path[1024];
    snprintf(path, sizeof path, "%s/ingest/%s", cases && *cases ? cases : "tests/cases", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void test_pdf(void **state)
{
    (void)state;
    size_t n;
    char *pdf = read_fixture("agreement.pdf", &n);
    doc_extracted d;
    dbmcp_error err;
    assert_int_equal(doc_extract(DOC_FORMAT_PDF, pdf, n, NULL, &d, &err), 0);
    assert_string_equal(d.title, "Zusammenfassung Druckindustrie");
    assert_string_equal(d.mime_type, "application/pdf");
    char *page2 = strstr(d.text, "Seite zwei");
    assert_non_null(page2);
    assert_true(page2 > d.text + 2 && page2[-1] == '\n' && page2[-2] == '\n');
    doc_extracted_free(&d);
    /* Truncated: every prefix without the end marker is refused. */
    for (size_t cut = 5; cut < n - 8; cut += 97) {
        assert_int_equal(doc_extract(DOC_FORMAT_PDF, pdf, cut, NULL, &d, &err), DBMCP_EINVAL);
        assert_non_null(strstr(err.message, "truncated or corrupt"));
    }
    assert_int_equal(doc_extract(DOC_FORMAT_PDF, "%PDF-1.4 junk %%EOF", 19, NULL, &d, &err),
                     DBMCP_EINVAL);
    assert_int_equal(doc_extract(DOC_FORMAT_PDF, "hello", 5, NULL, &d, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "%PDF- header"));
    /* The limits, checked in the extracting child: pages before reading, text per page. */
    doc_limits lim = {.pdf_max_pages = 1};
    assert_int_equal(doc_extract(DOC_FORMAT_PDF, pdf, n, &lim, &d, &err), DBMCP_ETOOBIG);
    assert_string_equal(err.message,
                        "PDF has 2 pages; the limit is 1 page (setting ingest.pdf_max_pages)");
    assert_null(d.text);
    lim = (doc_limits){.max_text_bytes = 10};
    assert_int_equal(doc_extract(DOC_FORMAT_PDF, pdf, n, &lim, &d, &err), DBMCP_ETOOBIG);
    assert_non_null(strstr(err.message, "stopped at page 1 of 2"));
    assert_non_null(strstr(err.message, "the limit is 10 bytes (setting ingest.max_text_bytes)"));
    free(pdf);
}

/* --- a database with documents ---------------------------------------------------- */

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
    snprintf(t->dir, sizeof t->dir, "%s/dbmcp-docs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
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

static int ingest_text(temp_db *t, const char *name, const char *text, ingest_outcome *outcome)
{
    ingest_options o;
    ingest_options_default(&o);
    o.collection = "c";
    o.interface = "default";
    ingest_report r;
    dbmcp_error err;
    int rc = ingest_buffer(t->db, t->emb, name, text, strlen(text), &o, &r, &err);
    if (rc)
        print_message("ingest %s: %s\n", name, err.message);
    if (outcome)
        *outcome = r.outcome;
    return rc;
}

static int64_t count(store *db, const char *sql)
{
    int64_t n = -1;
    dbmcp_error err;
    assert_int_equal(store_query_int(db, sql, -1, &n, &err), 0);
    return n;
}

/* The document slug of the best hit of query in mode ("" when none). */
static void best(temp_db *t, store *db, const char *query, search_mode mode, char *out, size_t size)
{
    search_request req = {0};
    search_index_scope readable; /* what ingest_text exposes */
    docs_search_scope("default", &readable);
    req.scope = &readable;
    req.query = query;
    req.mode = mode;
    req.k = 3;
    req.emb = t->emb;
    search_result res;
    dbmcp_error err;
    search_corpus c = {DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY};
    int rc = search_run(db, &c, &req, &res, &err);
    if (rc)
        print_message("search: %s\n", err.message);
    assert_int_equal(rc, 0);
    out[0] = '\0';
    if (res.count) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT d.id FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id"
                 " WHERE c.id = %lld",
                 (long long)res.hits[0].id);
        snprintf(out, size, "%lld", (long long)count(db, sql));
    }
    search_result_free(&res);
}

static void test_ingest_and_search(void **state)
{
    temp_db *t = *state;
    ingest_outcome o;
    assert_int_equal(ingest_text(t, "a.md", "# Urlaub\n\nDer Urlaub beträgt 30 Tage.\n", &o), 0);
    assert_int_equal(o, INGEST_ADDED);
    assert_int_equal(ingest_text(t, "b.txt", "Weekly working hours are 38.\n", &o), 0);
    char id[32];
    best(t, t->db, "Urlaubs", SEARCH_KEYWORD, id, sizeof id);
    assert_string_equal(id, "1");
    best(t, t->db, "working hours", SEARCH_VECTOR, id, sizeof id);
    assert_string_equal(id, "2");
    best(t, t->db, "hours", SEARCH_HYBRID, id, sizeof id);
    assert_string_equal(id, "2");
    /* A new document: the vector index is rebuilt at the next search. */
    assert_int_equal(ingest_text(t, "c.txt", "Overtime premium of 25 percent.\n", &o), 0);
    best(t, t->db, "overtime premium percent", SEARCH_VECTOR, id, sizeof id);
    assert_string_equal(id, "3");
    /* Unchanged and changed re-ingestion. */
    assert_int_equal(ingest_text(t, "c.txt", "Overtime premium of 25 percent.\n", &o), 0);
    assert_int_equal(o, INGEST_UNCHANGED);
    int64_t version = 0;
    dbmcp_error err;
    assert_int_equal(search_index_version(t->db, DOCS_VERSION_KEY, &version, &err), 0);
    assert_int_equal(ingest_text(t, "c.txt", "Night shift allowance.\n", &o), 0);
    assert_int_equal(o, INGEST_REPLACED);
    int64_t after = 0;
    assert_int_equal(search_index_version(t->db, DOCS_VERSION_KEY, &after, &err), 0);
    assert_true(after > version);
    best(t, t->db, "overtime", SEARCH_KEYWORD, id, sizeof id);
    assert_string_equal(id, "");
    best(t, t->db, "night shift allowance", SEARCH_VECTOR, id, sizeof id);
    assert_string_equal(id, "3");
    assert_int_equal(count(t->db, "SELECT count(*) FROM dbmcp_chunk_vectors"),
                     count(t->db, "SELECT count(*) FROM dbmcp_chunks"));
    /* Query syntax errors come back as values. */
    search_request req = {0};
    search_index_scope readable; /* what ingest_text exposes */
    docs_search_scope("default", &readable);
    req.scope = &readable;
    req.query = "!!! ???";
    req.mode = SEARCH_KEYWORD;
    req.k = 3;
    search_result res;
    assert_int_equal(search_run(t->db,
                                &(search_corpus){DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY},
                                &req, &res, &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "no searchable words"));
}

static int keep_only_two(void *ctx, int64_t id)
{
    (void)ctx;
    return id == 2;
}

static void test_filter(void **state)
{
    temp_db *t = *state;
    assert_int_equal(ingest_text(t, "a.txt", "alpha beta\n", NULL), 0);
    assert_int_equal(ingest_text(t, "b.txt", "alpha gamma\n", NULL), 0);
    for (int mode = SEARCH_HYBRID; mode <= SEARCH_KEYWORD; mode++) {
        search_request req = {0};
        search_index_scope readable; /* what ingest_text exposes */
        docs_search_scope("default", &readable);
        req.scope = &readable;
        req.query = "alpha";
        req.mode = (search_mode)mode;
        req.k = 5;
        req.emb = t->emb;
        req.filter = keep_only_two;
        search_result res;
        dbmcp_error err;
        assert_int_equal(
            search_run(t->db, &(search_corpus){DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY},
                       &req, &res, &err),
            0);
        assert_int_equal(res.count, 1);
        assert_int_equal(res.hits[0].id, 2);
        search_result_free(&res);
    }
}

/* The relevance floor: hits that hold too little of the question are left
 * out and counted, the others keep their order; 0 keeps every match. */
static void test_relevance_floor(void **state)
{
    temp_db *t = *state;
    assert_int_equal(
        ingest_text(t, "a.txt", "Overtime premium in Bavaria is paid monthly.\n", NULL), 0);
    assert_int_equal(ingest_text(t, "b.txt", "The contract is signed.\n", NULL), 0);
    assert_int_equal(ingest_text(t, "c.txt", "Holidays are agreed per contract.\n", NULL), 0);
    assert_int_equal(ingest_text(t, "d.txt", "Weekly hours are 38.\n", NULL), 0);
    search_corpus c = {DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY};
    double floors[] = {0, 0.5};
    size_t counts[2];
    for (int f = 0; f < 2; f++) {
        search_request req = {0};
        search_index_scope readable; /* what ingest_text exposes */
        docs_search_scope("default", &readable);
        req.scope = &readable;
        req.query = "overtime premium contract";
        req.mode = SEARCH_KEYWORD;
        req.k = 5;
        req.min_relevance = floors[f];
        search_result res;
        dbmcp_error err;
        assert_int_equal(search_run(t->db, &c, &req, &res, &err), 0);
        assert_true(res.count >= 1);
        assert_int_equal(res.hits[0].id, 1); /* the chunk of a.txt */
        /* idf: overtime, premium ln(3.5/1.5) each, contract (2 of 4 rows)
         * 1e-6: a.txt holds nearly all of the query, b and c almost none. */
        assert_float_equal(res.hits[0].coverage, 1.0, 1e-5);
        assert_true(res.hits[0].relevance == res.hits[0].coverage);
        for (size_t i = 1; i < res.count; i++)
            assert_true(res.hits[i].coverage < res.hits[0].coverage);
        counts[f] = res.count;
        if (f == 1) {
            assert_int_equal(res.count, 1);
            assert_int_equal(res.below_floor, counts[0] - 1);
        } else {
            assert_int_equal(res.below_floor, 0);
        }
        search_result_free(&res);
    }
    assert_int_equal(counts[0], 3); /* "contract" matches b and c: padding without a floor */
    /* Vector mode: relevance is the cosine similarity. */
    search_request req = {0};
    search_index_scope readable; /* what ingest_text exposes */
    docs_search_scope("default", &readable);
    req.scope = &readable;
    req.query = "overtime premium Bavaria";
    req.mode = SEARCH_VECTOR;
    req.k = 4;
    req.emb = t->emb;
    req.min_relevance = 0.3;
    search_result res;
    dbmcp_error err;
    assert_int_equal(search_run(t->db, &c, &req, &res, &err), 0);
    assert_int_equal(res.count, 1);
    assert_float_equal(res.hits[0].relevance, 1.0 - res.hits[0].distance, 1e-12);
    assert_int_equal(res.below_floor, 3);
    search_result_free(&res);
}

static void test_failed_write_rolls_back(void **state)
{
    temp_db *t = *state;
    assert_int_equal(ingest_text(t, "a.md", "# A\n\none\n\n# B\n\ntwo\n", NULL), 0);
    int64_t chunks = count(t->db, "SELECT count(*) FROM dbmcp_chunks");
    int64_t version = count(t->db, "SELECT version FROM dbmcp_data_versions WHERE name = 'chunks'");
    dbmcp_error err;
    assert_int_equal(store_exec(t->db,
                                "CREATE TRIGGER t_fail BEFORE INSERT ON dbmcp_chunk_vectors"
                                " BEGIN SELECT RAISE(ABORT, 'injected'); END",
                                &err),
                     0);
    assert_int_not_equal(ingest_text(t, "a.md", "# A\n\nchanged\n", NULL), 0);
    assert_int_equal(count(t->db, "SELECT count(*) FROM dbmcp_chunks"), chunks);
    assert_int_equal(count(t->db, "SELECT count(*) FROM dbmcp_chunks c JOIN dbmcp_documents d"
                                  " ON d.id = c.document_id WHERE CAST(substr(CAST(d.content AS"
                                  " BLOB), c.start_byte + 1, c.end_byte - c.start_byte) AS TEXT)"
                                  " LIKE '%one%'"),
                     1);
    assert_int_equal(count(t->db, "SELECT version FROM dbmcp_data_versions WHERE name = 'chunks'"),
                     version);
}

/* Readers search with their own handles while the main thread replaces
 * documents: every search succeeds and finds something. */
typedef struct reader_arg {
    temp_db *t;
    int failures;
} reader_arg;

static void *reader(void *p)
{
    reader_arg *a = p;
    store *db = NULL;
    dbmcp_error err;
    if (store_open(a->t->path, STORE_READWRITE, &db, &err)) {
        a->failures++;
        return NULL;
    }
    for (int i = 0; i < 40; i++) {
        search_request req = {0};
        search_index_scope readable; /* what ingest_text exposes */
        docs_search_scope("default", &readable);
        req.scope = &readable;
        req.query = "stable words";
        req.mode = SEARCH_HYBRID;
        req.k = 2;
        req.emb = a->t->emb;
        search_result res;
        if (search_run(db, &(search_corpus){DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY}, &req,
                       &res, &err) != 0 ||
            res.count == 0)
            a->failures++;
        search_result_free(&res);
    }
    store_close(db);
    return NULL;
}

static void test_concurrent_refresh(void **state)
{
    temp_db *t = *state;
    assert_int_equal(ingest_text(t, "stable.txt", "stable words here\n", NULL), 0);
    pthread_t th[4];
    reader_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (reader_arg){t, 0};
        assert_int_equal(pthread_create(&th[i], NULL, reader, &args[i]), 0);
    }
    for (int i = 0; i < 20; i++) {
        char text[64];
        snprintf(text, sizeof text, "changing text number %d\n", i);
        assert_int_equal(ingest_text(t, "moving.txt", text, NULL), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_detect),
        cmocka_unit_test(test_utf8_errors),
        cmocka_unit_test(test_titles_and_languages),
        cmocka_unit_test(test_slugs),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_html_attribute_limit),
        cmocka_unit_test(test_pdf),
        cmocka_unit_test_setup_teardown(test_ingest_and_search, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_filter, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_relevance_floor, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_rolls_back, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_refresh, db_setup, db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
