/*
 * test_render.c — golden tests for tools/render (cells, the table, the
 * metadata line) and the report-tool handler that uses it (sql_tool.c).
 *
 * Most cases are data. Each .json file in tests/cases/render (the cases
 * directory comes from $DBMCP_CASES, default "tests/cases") builds a table
 * in a fresh in-memory SQLite database, runs one SELECT through
 * render_table_from_stmt and compares the whole text render_table_finish
 * returns (elapsed -1, so no timing) with the expected one:
 *
 *   "description":  what the case is about (printed on failure)
 *   "setup":        SQL run first with store_exec: a string or an array of them
 *   "query":        the SELECT to render
 *   "limits":       optional {"max_rows", "cell_max", "byte_cap"}; absent keys
 *                   keep render_limits_default()
 *   "expected":     the whole output: a string, or an array of strings and
 *                   {"text": "...", "repeat": n} parts, concatenated
 *   "pending":      a known bug, with the reason. The case still runs; while
 *                   it fails it is reported and not counted, once it passes
 *                   the runner says to drop the marker.
 *
 * Every output is also checked to be valid UTF-8 with no raw control
 * character but the line breaks of the table. Adding a case never needs C.
 * The C tests below cover render_cell directly, cancellation, timing and
 * the report-tool handler.
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

#include "store/store.h"
#include "tools/render.h"
#include "tools/tool.h"

#include "case_files.h"

/* The directory must hold at least this many cases. */
#define CASES_MIN 40

/* A growable NUL-terminated string. */
typedef struct text_buffer {
    char *data;  /* malloc'd */
    size_t len;  /* bytes used, the NUL excluded */
    size_t size; /* bytes allocated */
} text_buffer;

static void text_append(text_buffer *b, const char *bytes, size_t len)
{
    if (b->len + len + 1 > b->size) {
        size_t size = (b->len + len + 1) * 2 + 64;
        char *grown = realloc(b->data, size);
        assert_non_null(grown);
        b->data = grown;
        b->size = size;
    }
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
    b->data[b->len] = '\0';
}

/* The expected text of a case into b; 0, or -1 when the case file is malformed. */
static int case_expected(const json_t *expected, text_buffer *b)
{
    text_append(b, "", 0);
    if (json_is_string(expected)) {
        text_append(b, json_string_value(expected), json_string_length(expected));
        return 0;
    }
    if (!json_is_array(expected))
        return -1;
    size_t i;
    const json_t *part;
    json_array_foreach (expected, i, part) {
        const json_t *text = json_is_string(part) ? part : json_object_get(part, "text");
        const json_t *repeat = json_object_get(part, "repeat");
        if (!json_is_string(text))
            return -1;
        json_int_t times = json_is_integer(repeat) ? json_integer_value(repeat) : 1;
        for (json_int_t k = 0; k < times; k++)
            text_append(b, json_string_value(text), json_string_length(text));
    }
    return 0;
}

/* Limits from the case's optional "limits" object. */
static render_limits case_limits(const json_t *c)
{
    render_limits limits = render_limits_default();
    const json_t *l = json_object_get(c, "limits");
    const json_t *v;
    if ((v = json_object_get(l, "max_rows")))
        limits.max_rows = (int)json_integer_value(v);
    if ((v = json_object_get(l, "cell_max")))
        limits.cell_max = (size_t)json_integer_value(v);
    if ((v = json_object_get(l, "byte_cap")))
        limits.byte_cap = (size_t)json_integer_value(v);
    return limits;
}

/* Run the case's setup SQL; 0, or nonzero with why filled. */
static int case_setup(store *db, const json_t *setup, char *why, size_t size)
{
    dbmcp_error err;
    if (!setup)
        return 0;
    if (json_is_string(setup)) {
        if (store_exec(db, json_string_value(setup), &err) != 0)
            return snprintf(why, size, "setup failed: %.900s", err.message);
        return 0;
    }
    size_t i;
    const json_t *sql;
    json_array_foreach (setup, i, sql) {
        if (!json_is_string(sql) || store_exec(db, json_string_value(sql), &err) != 0)
            return snprintf(why, size, "setup statement %zu failed: %.900s", i,
                            json_is_string(sql) ? err.message : "not a string");
    }
    return 0;
}

/* Render query on db; the text (caller frees) or NULL with why filled. */
static char *render_query(store *db, const char *query, render_limits limits, char *why,
                          size_t size)
{
    dbmcp_error err;
    store_stmt *st;
    if (store_prepare(db, query, &st, &err) != 0) {
        snprintf(why, size, "prepare failed: %.900s", err.message);
        return NULL;
    }
    render_table t;
    render_table_init(&t, limits);
    int rc = render_table_from_stmt(&t, st, NULL, &err);
    store_finalize(st);
    if (rc != 0) {
        render_table_free(&t);
        snprintf(why, size, "render failed: %.900s", err.message);
        return NULL;
    }
    char *text = render_table_finish(&t, -1);
    if (!text)
        snprintf(why, size, "render_table_finish returned NULL");
    return text;
}

/* Valid UTF-8 and no raw control character but '\n'? */
static int output_is_clean(const char *text)
{
    json_t *s = json_string(text); /* jansson refuses invalid UTF-8 */
    if (!s)
        return 0;
    json_decref(s);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7F)
            return 0;
    return 1;
}

/* The first line where got and want differ, for the report. */
static void describe_difference(const char *got, const char *want, char *why, size_t size)
{
    size_t i = 0, line = 1, line_start = 0;
    while (got[i] && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            line_start = i + 1;
        }
        i++;
    }
    snprintf(why, size, "output differs at line %zu, byte %zu:\n  got:  %.200s\n  want: %.200s",
             line, i, got + line_start, want + line_start);
}

/* Run one case; returns 0 when it behaved as its file says, with why filled otherwise. */
static int case_run(const json_t *c, char *why, size_t size)
{
    const char *query = json_string_value(json_object_get(c, "query"));
    text_buffer want = {NULL, 0, 0};
    if (!query || case_expected(json_object_get(c, "expected"), &want) != 0) {
        free(want.data);
        return snprintf(why, size, "malformed case: needs query and expected");
    }
    store *db;
    dbmcp_error err;
    if (store_open(":memory:", STORE_READWRITE | STORE_CREATE, &db, &err) != 0) {
        free(want.data);
        return snprintf(why, size, "store_open: %s", err.message);
    }
    int failed = case_setup(db, json_object_get(c, "setup"), why, size) != 0;
    char *got = failed ? NULL : render_query(db, query, case_limits(c), why, size);
    if (!got) {
        failed = 1;
    } else if (strcmp(got, want.data) != 0) {
        failed = 1;
        describe_difference(got, want.data, why, size);
    } else if (!output_is_clean(got)) {
        failed = 1;
        snprintf(why, size, "output is not clean UTF-8 text");
    }
    free(got);
    free(want.data);
    store_close(db);
    return failed != 0;
}

static void case_file_run(const char *name, const json_t *c, case_tally *tally)
{
    char why[1024] = "";
    tally->cases++;
    int failed = case_run(c, why, sizeof why);
    case_tally_outcome(tally, name, c, failed, why);
}

static void test_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("render", 0, case_file_run, &tally);
    print_message("render: %d cases, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= CASES_MIN);
}

/* ----- render_cell ----- */

/* render_cell of a text value into a roomy buffer, compared with want. */
static void assert_cell(store_type type, store_kind kind, const char *data, size_t bytes,
                        size_t cell_max, const char *want)
{
    char out[4096];
    size_t n = render_cell(type, kind, data, bytes, cell_max, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void assert_text_cell(const char *text, size_t cell_max, const char *want)
{
    assert_cell(STORE_TEXT, STORE_KIND_PLAIN, text, strlen(text), cell_max, want);
}

static void test_cell_null_and_null_text(void **state)
{
    (void)state;
    assert_cell(STORE_NULL, STORE_KIND_PLAIN, NULL, 0, 500, "NULL");
    assert_cell(STORE_NULL, STORE_KIND_VECTOR, "ignored", 7, 500, "NULL");
    assert_text_cell("NULL", 500, "\"NULL\"");
    assert_text_cell("\"NULL\"", 500, "\"\"NULL\"\"");
    assert_text_cell("\"NULL", 500, "\"NULL");
    assert_text_cell("null", 500, "null");
    assert_text_cell("NULLS", 500, "NULLS");
    assert_text_cell("", 500, "");
    assert_cell(STORE_TEXT, STORE_KIND_PLAIN, NULL, 0, 500, ""); /* no data reads as empty */
}

/* Which declared types make a vector column is the driver's business
 * (store_column_kind); the render cases (vector_*.json) cover it through
 * a real database. */
static void test_cell_blobs_and_vectors(void **state)
{
    (void)state;
    char blob[16] = {0};
    assert_cell(STORE_BLOB, STORE_KIND_PLAIN, blob, 3, 500, "<binary 3 bytes>");
    assert_cell(STORE_BLOB, STORE_KIND_PLAIN, blob, 0, 500, "<binary 0 bytes>");
    assert_cell(STORE_BLOB, STORE_KIND_PLAIN, blob, 16, 500, "<binary 16 bytes>");
    assert_cell(STORE_BLOB, STORE_KIND_VECTOR, blob, 12, 500, "<VECTOR(3)>");
    assert_cell(STORE_BLOB, STORE_KIND_VECTOR, blob, 4, 500, "<VECTOR(1)>");
    assert_cell(STORE_BLOB, STORE_KIND_VECTOR, blob, 10, 500, "<binary 10 bytes>");
    assert_cell(STORE_BLOB, STORE_KIND_VECTOR, blob, 0, 500, "<binary 0 bytes>");
    /* A blob's size, not its data, decides: data is never read. */
    assert_cell(STORE_BLOB, STORE_KIND_VECTOR, NULL, 1536, 500, "<VECTOR(384)>");
    /* Text in a vector column is text. */
    assert_cell(STORE_TEXT, STORE_KIND_VECTOR, "[1,2,3]", 7, 500, "[1,2,3]");
}

static void test_cell_numbers_never_truncated(void **state)
{
    (void)state;
    assert_cell(STORE_INTEGER, STORE_KIND_PLAIN, "-9223372036854775808", 20, 3,
                "-9223372036854775808");
    assert_cell(STORE_FLOAT, STORE_KIND_PLAIN, "-2.2250738585072e-308", 21, 0,
                "-2.2250738585072e-308");
    assert_cell(STORE_INTEGER, STORE_KIND_PLAIN, "42", 2, 500, "42");
}

static void test_cell_escapes(void **state)
{
    (void)state;
    assert_text_cell("a|b", 500, "a\\|b");
    assert_text_cell("a\nb\r\nc\td", 500, "a\\nb\\r\\nc\\td");
    assert_text_cell("C:\\new", 500, "C:\\\\new");
    assert_text_cell("\\n", 500, "\\\\n"); /* backslash-n text differs from a newline */
    assert_text_cell("\x01\x1b\x7f", 500, "\\x01\\x1b\\x7f");
    assert_text_cell("\xC2\x85", 500, "\\x85");    /* U+0085, a C1 control */
    assert_text_cell("\xC2\xA0", 500, "\xC2\xA0"); /* U+00A0 is not a control */
    assert_cell(STORE_TEXT, STORE_KIND_PLAIN, "a\0b", 3, 500, "a\\x00b");
    /* An escape counts as one character and is never cut. */
    assert_text_cell("||||", 2, "\\|\\|\xE2\x80\xA6");
}

static void test_cell_invalid_utf8(void **state)
{
    (void)state;
    assert_text_cell("a\xFF"
                     "b",
                     500,
                     "a\xEF\xBF\xBD"
                     "b");
    assert_text_cell("\xE2\x82"
                     "A",
                     500,
                     "\xEF\xBF\xBD"
                     "A");                                         /* maximal subpart: one U+FFFD */
    assert_text_cell("\xC0\xAF", 500, "\xEF\xBF\xBD\xEF\xBF\xBD"); /* overlong */
    assert_text_cell("\xED\xA0\x80", 500, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); /* surrogate */
    assert_text_cell("\xF4\x90\x80\x80", 500,
                     "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); /* > U+10FFFF */
    assert_text_cell("\xF0\x9F\x98", 500, "\xEF\xBF\xBD"); /* truncated emoji at the end */
    assert_text_cell("\xF0\x9F\x98\x80", 500, "\xF0\x9F\x98\x80");
}

static void test_cell_truncation(void **state)
{
    (void)state;
    assert_text_cell("abcdef", 3, "abc\xE2\x80\xA6");
    assert_text_cell("abc", 3, "abc");
    assert_text_cell("abc", 0, "\xE2\x80\xA6");
    assert_text_cell("", 0, "");
    /* 中 is 3 bytes but one character. */
    assert_text_cell("\xE4\xB8\xAD\xE4\xB8\xAD\xE4\xB8\xAD", 2,
                     "\xE4\xB8\xAD\xE4\xB8\xAD\xE2\x80\xA6");
    /* e + U+0301 at the cut: the cut moves before the e. */
    assert_text_cell("abe\xCC\x81z", 3, "ab\xE2\x80\xA6");
    /* Marks at the start of the text are split rather than show nothing. */
    assert_text_cell("e\xCC\x81\xCC\x81\xCC\x81", 2, "e\xCC\x81\xE2\x80\xA6");
    /* The NULL quotes and the ellipsis are not counted. */
    assert_text_cell("NULL", 2, "\"NU\xE2\x80\xA6\"");
}

/* A small buffer gets whole pieces only: never half a character or escape. */
static void test_cell_small_buffer(void **state)
{
    (void)state;
    char out[8];
    memset(out, 'x', sizeof out);
    assert_int_equal(render_cell(STORE_TEXT, STORE_KIND_PLAIN, "ab|", 3, 500, out, 0), 0);
    assert_int_equal(out[0], 'x');
    assert_int_equal(render_cell(STORE_TEXT, STORE_KIND_PLAIN, "ab|", 3, 500, out, 1), 0);
    assert_string_equal(out, "");
    assert_int_equal(render_cell(STORE_TEXT, STORE_KIND_PLAIN, "ab|", 3, 500, out, 4), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(render_cell(STORE_TEXT, STORE_KIND_PLAIN, "ab|", 3, 500, out, 5), 4);
    assert_string_equal(out, "ab\\|");
    /* "|" then 中: the second does not fit in 4 bytes after the escape. */
    assert_int_equal(render_cell(STORE_TEXT, STORE_KIND_PLAIN, "|\xE4\xB8\xAD", 4, 500, out, 4), 2);
    assert_string_equal(out, "\\|");
    /* The documented size always suffices: cell_max * 8 + 32. */
    enum { CELL_MAX = 4 };
    char roomy[CELL_MAX * 8 + 32];
    const char worst[] = "\xFF\x01|\xF0\x9F\x98\x80\xE4\xB8\xAD";
    size_t n = render_cell(STORE_TEXT, STORE_KIND_PLAIN, worst, sizeof worst - 1, CELL_MAX, roomy,
                           sizeof roomy);
    assert_string_equal(roomy, "\xEF\xBF\xBD\\x01\\|\xF0\x9F\x98\x80\xE2\x80\xA6");
    assert_int_equal(n, strlen(roomy));
}

/* Random bytes always give clean text in which every backslash starts a
 * known escape and no bare pipe is left. */
static void test_cell_random_bytes(void **state)
{
    (void)state;
    unsigned seed = 12345;
    char in[64], out[64 * 8 + 32];
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(round % 64);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            in[i] = (char)(seed >> 16);
        }
        size_t cell_max = (size_t)(round % 70);
        size_t n = render_cell(STORE_TEXT, STORE_KIND_PLAIN, in, len, cell_max, out, sizeof out);
        assert_int_equal(n, strlen(out));
        assert_true(output_is_clean(out));
        for (size_t i = 0; i < n; i++) {
            assert_true(out[i] != '|' && out[i] != '\n');
            if (out[i] != '\\')
                continue;
            assert_non_null(strchr("|\\nrtx", out[i + 1]));
            i += out[i + 1] == 'x' ? 3 : 1;
        }
    }
}

/* ----- the table through a statement ----- */

static store *memory_db(const char *setup)
{
    store *db;
    dbmcp_error err;
    assert_int_equal(store_open(":memory:", STORE_READWRITE | STORE_CREATE, &db, &err), 0);
    if (setup)
        assert_int_equal(store_exec(db, setup, &err), 0);
    return db;
}

static void test_table_timing_and_defaults(void **state)
{
    (void)state;
    render_limits d = render_limits_default();
    assert_int_equal(d.max_rows, 25);
    assert_int_equal(d.cell_max, 500);
    assert_int_equal(d.byte_cap, 262144);
    store *db = memory_db(NULL);
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(store_prepare(db, "SELECT 1 AS a UNION ALL SELECT 2", &st, &err), 0);
    render_table t;
    render_table_init(&t, d);
    assert_int_equal(render_table_from_stmt(&t, st, NULL, &err), 0);
    assert_int_equal(t.rows, 2);
    assert_int_equal(t.columns, 1);
    char *text = render_table_finish(&t, 3.21);
    assert_string_equal(text, "| a |\n| --- |\n| 1 |\n| 2 |\n\n2 rows \xC2\xB7 3.2 ms");
    free(text);
    assert_null(t.buf); /* reset by finish */
    assert_int_equal(t.rows, 0);
    store_finalize(st);
    /* Finish on a table that saw no statement: just the metadata line. */
    render_table_init(&t, d);
    text = render_table_finish(&t, 0.04);
    assert_string_equal(text, "0 rows \xC2\xB7 0.0 ms");
    free(text);
    render_table_free(&t);
    store_close(db);
}

static void test_table_cancelled(void **state)
{
    (void)state;
    store *db = memory_db(NULL);
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(store_prepare(db, "SELECT 1", &st, &err), 0);
    atomic_int cancelled = 1;
    render_table t;
    render_table_init(&t, render_limits_default());
    assert_int_equal(render_table_from_stmt(&t, st, &cancelled, &err), DBMCP_ETIMEOUT);
    assert_non_null(strstr(err.public_message, "cancelled"));
    render_table_free(&t);
    store_finalize(st);
    store_close(db);
}

static void test_table_store_error(void **state)
{
    (void)state;
    store *db = memory_db(NULL);
    store_stmt *st;
    dbmcp_error err;
    /* The second row fails: integer overflow raised at step time. */
    assert_int_equal(store_prepare(db,
                                   "SELECT abs(x) FROM (SELECT 1 AS x UNION ALL "
                                   "SELECT -9223372036854775807 - 1)",
                                   &st, &err),
                     0);
    render_table t;
    render_table_init(&t, render_limits_default());
    int rc = render_table_from_stmt(&t, st, NULL, &err);
    assert_true(rc < 0);
    assert_int_equal(err.code, rc);
    render_table_free(&t);
    render_table_free(&t); /* twice is harmless */
    store_finalize(st);
    store_close(db);
}

/* ----- the report-tool handler ----- */

typedef struct fake_settings {
    long max_rows, cell_max, byte_cap; /* 0: unset */
} fake_settings;

static long fake_setting_long(tool_env *env, const char *key, long def)
{
    const fake_settings *s = env->opaque;
    long v = 0;
    if (strcmp(key, "report.max_rows") == 0)
        v = s->max_rows;
    else if (strcmp(key, "query.cell_max") == 0)
        v = s->cell_max;
    else if (strcmp(key, "query.byte_cap") == 0)
        v = s->byte_cap;
    return v ? v : def;
}

/* Run a report tool whose SQL is sql; the output text (caller frees). */
static char *run_sql_tool(store *db, const char *sql, fake_settings *settings, json_t *args,
                          int64_t *rows, char **audit_sql)
{
    reg_tool tool = {0};
    tool.name = "report";
    tool.handler_kind = "sql";
    tool.handler = (char *)sql;
    tool_env env = {0};
    env.tool = &tool;
    env.call_id = "call-1";
    env.principal = "alice@example";
    env.user_id = "u-alice";
    env.agent_id = "";
    env.query_db = db;
    env.rows = -1;
    env.setting_long = fake_setting_long;
    env.opaque = settings;
    tool_output out = {0};
    dbmcp_error err;
    int rc = tools_sql_handler(&env, args, &out, &err);
    if (rc != 0)
        fail_msg("tools_sql_handler: %s", err.message);
    *rows = env.rows;
    *audit_sql = out.audit_sql ? strdup(out.audit_sql) : NULL;
    const char *text = json_string_value(json_object_get(json_array_get(out.content, 0), "text"));
    char *copy = strdup(text ? text : "");
    tool_output_free(&out);
    return copy;
}

/* Strip " · N ms" from the end of a handler's output (timing varies). */
static void strip_timing(char *text)
{
    char *dot = strstr(text, " \xC2\xB7 ");
    assert_non_null(dot);
    assert_non_null(strstr(dot, " ms"));
    *dot = '\0';
}

static void test_sql_tool_limits_and_audit(void **state)
{
    (void)state;
    store *db = memory_db("CREATE TABLE t(n INTEGER, s TEXT);"
                          "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
                          "WHERE i < 150) INSERT INTO t SELECT i, 'row|' || i FROM c;");
    fake_settings settings = {0, 0, 0};
    int64_t rows;
    char *audit;
    /* Default report.max_rows is 100. */
    char *text = run_sql_tool(db, "SELECT n FROM t ORDER BY n", &settings, NULL, &rows, &audit);
    strip_timing(text);
    assert_non_null(strstr(text, "| 100 |\n\n100 rows shown (more exist)"));
    assert_null(strstr(text, "| 101 |"));
    assert_int_equal(rows, 100);
    assert_string_equal(
        audit,
        "/* dbmcp call_id=call-1 tool=report client=- model=- */ SELECT n FROM t ORDER BY n");
    free(text);
    free(audit);
    /* Settings apply; max_rows above 5000 is clamped, so all 150 show. */
    settings.max_rows = 99999;
    settings.cell_max = 3;
    text = run_sql_tool(db, "SELECT s FROM t WHERE n = 123", &settings, NULL, &rows, &audit);
    strip_timing(text);
    assert_string_equal(text, "| s |\n| --- |\n| row\xE2\x80\xA6 |\n\n1 row");
    free(text);
    free(audit);
    text = run_sql_tool(db, "SELECT n FROM t", &settings, NULL, &rows, &audit);
    assert_int_equal(rows, 150);
    free(text);
    free(audit);
    /* max_rows below 1 is clamped to 1. */
    settings.max_rows = -5;
    text = run_sql_tool(db, "SELECT n FROM t ORDER BY n", &settings, NULL, &rows, &audit);
    strip_timing(text);
    assert_string_equal(text, "| n |\n| --- |\n| 1 |\n\n1 row shown (more exist)");
    free(text);
    free(audit);
    /* query.byte_cap drops whole rows. */
    settings.max_rows = 10;
    settings.byte_cap = 40; /* header 14 bytes, each row "| N |\n" 6 bytes */
    text = run_sql_tool(db, "SELECT n FROM t ORDER BY n", &settings, NULL, &rows, &audit);
    strip_timing(text);
    assert_string_equal(text, "| n |\n| --- |\n| 1 |\n| 2 |\n| 3 |\n| 4 |\n\n"
                              "4 rows shown, 6 dropped to stay under 40 bytes (more exist)");
    assert_int_equal(rows, 4);
    free(text);
    free(audit);
    store_close(db);
}

static void test_sql_tool_binds_identity(void **state)
{
    (void)state;
    store *db = memory_db(NULL);
    fake_settings settings = {0, 0, 0};
    int64_t rows;
    char *audit;
    json_t *args = json_pack("{s:s, s:f, s:b}", "name", "x|y", "year", 2024.0, "flag", 1);
    char *text = run_sql_tool(db,
                              "SELECT :_user_id AS u, :_agent_id AS a, :_principal AS p, "
                              ":_other AS o, :name AS name, typeof(:year) AS ty, :flag AS f",
                              &settings, args, &rows, &audit);
    strip_timing(text);
    assert_string_equal(text, "| u | a | p | o | name | ty | f |\n"
                              "| --- | --- | --- | --- | --- | --- | --- |\n"
                              "| u-alice | NULL | alice@example | NULL | x\\|y | integer | 1 |\n"
                              "\n1 row");
    assert_int_equal(rows, 1);
    free(text);
    free(audit);
    json_decref(args);
    store_close(db);
}

static void test_sql_tool_failure_keeps_audit_sql(void **state)
{
    (void)state;
    store *db = memory_db(NULL);
    reg_tool tool = {0};
    tool.name = "broken";
    tool.handler_kind = "sql";
    tool.handler = "SELECT * FROM no_such_table";
    tool_env env = {0};
    env.tool = &tool;
    env.call_id = "call-2";
    env.query_db = db;
    env.rows = -1;
    tool_output out = {0};
    dbmcp_error err;
    assert_true(tools_sql_handler(&env, NULL, &out, &err) < 0);
    assert_non_null(out.audit_sql);
    assert_non_null(strstr(out.audit_sql, "no_such_table"));
    assert_int_equal(env.rows, -1);
    tool_output_free(&out);
    store_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_cell_null_and_null_text),
        cmocka_unit_test(test_cell_blobs_and_vectors),
        cmocka_unit_test(test_cell_numbers_never_truncated),
        cmocka_unit_test(test_cell_escapes),
        cmocka_unit_test(test_cell_invalid_utf8),
        cmocka_unit_test(test_cell_truncation),
        cmocka_unit_test(test_cell_small_buffer),
        cmocka_unit_test(test_cell_random_bytes),
        cmocka_unit_test(test_table_timing_and_defaults),
        cmocka_unit_test(test_table_cancelled),
        cmocka_unit_test(test_table_store_error),
        cmocka_unit_test(test_sql_tool_limits_and_audit),
        cmocka_unit_test(test_sql_tool_binds_identity),
        cmocka_unit_test(test_sql_tool_failure_keeps_audit_sql),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
