/*
 * test_sqlite_guard.c — the linear-time instr, replace and trim family of
 * store/sqlite_guard give the built-ins' answers.
 *
 * Two in-memory connections evaluate the same expressions: one with
 * SQLite's built-ins, one with the replacements registered. Their results
 * (type and bytes) must be equal for hand-picked edge cases (NULL, blobs,
 * numbers, empty arguments, malformed UTF-8) and for thousands of random
 * arguments over an alphabet that mixes ASCII, multi-byte characters, lone
 * continuation bytes and lead bytes without continuation. Then the inputs
 * that take the built-ins minutes (megabyte needles, huge trim sets) run
 * through the replacements, and a trim set the fast path cannot take and
 * the work budget does not allow is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/sqlite_guard.h"

typedef struct pair {
    sqlite3 *plain;   /* SQLite's built-ins */
    sqlite3 *guarded; /* the replacements */
} pair;

static int pair_setup(void **state)
{
    pair *p = calloc(1, sizeof *p);
    if (!p || sqlite3_open(":memory:", &p->plain) != SQLITE_OK ||
        sqlite3_open(":memory:", &p->guarded) != SQLITE_OK ||
        sqlite_guard_register(p->guarded) != SQLITE_OK)
        return -1;
    *state = p;
    return 0;
}

static int pair_teardown(void **state)
{
    pair *p = *state;
    sqlite3_close(p->plain);
    sqlite3_close(p->guarded);
    free(p);
    return 0;
}

/* "type:hex" of expr on db, or "error:message"; caller frees. */
static char *evaluate(sqlite3 *db, const char *expr)
{
    char *sql = sqlite3_mprintf("SELECT typeof(x), hex(x) FROM (SELECT %s AS x)", expr);
    sqlite3_stmt *st = NULL;
    char *out = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        out = sqlite3_mprintf("error:%s", sqlite3_errmsg(db));
    } else if (sqlite3_step(st) == SQLITE_ROW) {
        out = sqlite3_mprintf("%s:%s", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
    } else {
        out = sqlite3_mprintf("error:%s", sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return out;
}

/* Returns 1 when both connections agree (and reports when not). */
static int same(pair *p, const char *expr)
{
    char *a = evaluate(p->plain, expr);
    char *b = evaluate(p->guarded, expr);
    int ok = a && b && strcmp(a, b) == 0;
    if (!ok)
        print_error("%s\n  built-in: %.200s\n  guarded:  %.200s\n", expr, a ? a : "(null)",
                    b ? b : "(null)");
    sqlite3_free(a);
    sqlite3_free(b);
    return ok;
}

static void test_edge_cases(void **state)
{
    static const char *const exprs[] = {
        "instr('hello', 'l')",
        "instr('hello', '')",
        "instr('', '')",
        "instr('', 'a')",
        "instr(NULL, 'a')",
        "instr('a', NULL)",
        "instr('Grüße', 'ß')",
        "instr('東京都', '都')",
        "instr(12345, 34)",
        "instr(1.5, '.')",
        "instr(X'0102030405', X'0304')",
        "instr(X'0102030405', X'')",
        "instr(X'61626364', 'cd')",
        "instr('abcd', X'6364')",
        "instr(CAST(X'C3A9A9' AS TEXT), CAST(X'A9' AS TEXT))",
        "instr(CAST(X'A9C3A9' AS TEXT), CAST(X'A9' AS TEXT))",
        "instr(CAST(X'61A9A962' AS TEXT), 'b')",
        "instr('aaa', 'aaaa')",
        "instr('abcabc', 'cab')",
        "replace('hello', 'l', 'L')",
        "replace('hello', '', 'x')",
        "replace(12345, '', 'x')",
        "replace(12345, 3, 'x')",
        "replace(X'616263', 'b', 'x')",
        "replace('aaaa', 'aa', 'b')",
        "replace('aaa', 'aa', '')",
        "replace(NULL, 'a', 'b')",
        "replace('a', NULL, 'b')",
        "replace('a', 'a', NULL)",
        "replace('abc', 'abcd', 'x')",
        "replace('Grüße Grüße', 'ü', 'ue')",
        "replace(CAST(X'C3A9A9' AS TEXT), CAST(X'A9' AS TEXT), '-')",
        "replace('x', 'x', zeroblob(3))",
        "trim('  a  ')",
        "trim('xxaxx', 'x')",
        "ltrim('xxaxx', 'x')",
        "rtrim('xxaxx', 'x')",
        "trim('abcba', 'ab')",
        "trim('abc', '')",
        "trim(NULL, 'a')",
        "trim('a', NULL)",
        "trim(12300, '0')",
        "trim(X'414141', 'A')",
        "trim('ééaéé', 'é')",
        "trim('東京東', '東')",
        "trim(CAST(X'A9C3A9A9' AS TEXT), CAST(X'A9' AS TEXT))",
        "trim(CAST(X'A9C3A9A9' AS TEXT), CAST(X'C3A9A9' AS TEXT))",
        "trim(CAST(X'C3A9' AS TEXT), CAST(X'A9C3A9' AS TEXT))",
        "trim(CAST(X'C3A9' AS TEXT), CAST(X'C3C3A9' AS TEXT))",
        "rtrim(CAST(X'61C3A9' AS TEXT), CAST(X'A9C3A9' AS TEXT))",
        "ltrim(CAST(X'C3A961' AS TEXT), CAST(X'C3C3A9' AS TEXT))",
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
        failures += !same(*state, exprs[i]);
    assert_int_equal(failures, 0);
}

/* A random SQL text literal over a mixed alphabet, as CAST(X'…' AS TEXT). */
static void random_text(unsigned *seed, char *out, size_t size, int max_pieces)
{
    static const char *const pieces[] = {"61",     "62", "20", "C3A9",
                                         "E69DB1", "A9", "C3", "F09F9880"};
    int n = rand_r(seed) % (max_pieces + 1);
    size_t len = (size_t)snprintf(out, size, "CAST(X'");
    for (int i = 0; i < n && len + 16 < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s", pieces[rand_r(seed) % 8]);
    snprintf(out + len, size - len, "' AS TEXT)");
}

static void test_random_agreement(void **state)
{
    unsigned seed = 20261202;
    int failures = 0;
    for (int i = 0; i < 4000 && failures < 10; i++) {
        char a[256], b[256], c[256], expr[900];
        random_text(&seed, a, sizeof a, 12);
        random_text(&seed, b, sizeof b, 3);
        random_text(&seed, c, sizeof c, 3);
        switch (i % 5) {
        case 0: snprintf(expr, sizeof expr, "instr(%s, %s)", a, b); break;
        case 1: snprintf(expr, sizeof expr, "replace(%s, %s, %s)", a, b, c); break;
        case 2: snprintf(expr, sizeof expr, "trim(%s, %s)", a, b); break;
        case 3: snprintf(expr, sizeof expr, "ltrim(%s, %s)", a, b); break;
        default: snprintf(expr, sizeof expr, "rtrim(%s, %s)", a, b); break;
        }
        failures += !same(*state, expr);
    }
    assert_int_equal(failures, 0);
}

static char *guarded_value(pair *p, const char *expr)
{
    return evaluate(p->guarded, expr);
}

/* What takes the built-ins minutes completes here (the suite's timeout
 * would stop a quadratic run). */
static void test_large_arguments(void **state)
{
    pair *p = *state;
    const char *hay = "replace(hex(zeroblob(1000000)), '0', 'a')";
    const char *needle = "replace(hex(zeroblob(500000)), '0', 'a') || 'b'";
    char expr[400];
    snprintf(expr, sizeof expr, "instr(%s, %s)", hay, needle);
    char *v = guarded_value(p, expr);
    assert_string_equal(v, "integer:30");
    sqlite3_free(v);
    snprintf(expr, sizeof expr, "length(replace(%s, %s, ''))", hay, needle);
    v = guarded_value(p, expr);
    assert_string_equal(v, "integer:32303030303030");
    sqlite3_free(v);
    snprintf(expr, sizeof expr, "length(trim(%s, replace(hex(zeroblob(500000)), '0', 'b') || 'a'))",
             hay);
    v = guarded_value(p, expr);
    assert_string_equal(v, "integer:30");
    sqlite3_free(v);
}

/* A set that is not prefix-free (malformed UTF-8) and too large for the
 * budget is refused rather than scanned. */
static void test_trim_budget(void **state)
{
    pair *p = *state;
    char *v = guarded_value(
        p, "trim(replace(hex(zeroblob(3000000)), '0', 'a'),"
           " CAST(X'C3' AS TEXT) || 'z' || CAST(X'C3A9' AS TEXT) || replace(hex(zeroblob(20)), '0',"
           " 'b'))");
    assert_non_null(strstr(v, "error:trim: the character set is too large"));
    sqlite3_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_random_agreement),
        cmocka_unit_test(test_large_arguments),
        cmocka_unit_test(test_trim_budget),
    };
    return cmocka_run_group_tests_name("sqlite_guard", tests, pair_setup, pair_teardown);
}
