/*
 * test_json_write.c — tests for the compact JSON writer (core/json_write).
 *
 * The contract is "byte for byte what jansson writes", so every check
 * compares json_write_compact with json_dumps(JSON_COMPACT |
 * JSON_ENCODE_ANY) on the same tree, never with hand-written text:
 *   - the data-driven cases of tests/cases/json_write (README.md there);
 *   - trees JSON text cannot express or that are better generated: every
 *     control byte, each escape and multi-byte sequence at every offset of
 *     an 8-byte block, long strings, integer and real sweeps, big arrays
 *     and objects, seeded random trees;
 *   - UTF-8 validity against jansson's own checker over every lead byte
 *     with every second byte (json_stringn_nocheck);
 *   - the refusals: invalid UTF-8 in a string or a key, nesting beyond
 *     JSON_WRITE_MAX_DEPTH, a cyclic tree, NULL.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_files.h"
#include "core/json_write.h"

#define CASES_MIN 40 /* cases in tests/cases/json_write: a lost file fails the test */

/* Does json_write_compact(v) equal jansson's text? A reason when not
 * (static or in why), NULL when it does. */
static const char *differs_from_jansson(const json_t *v, char *why, size_t size)
{
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = (size_t)-1;
    char *got = json_write_compact(v, &len);
    const char *reason = NULL;
    if (!want && got)
        snprintf(why, size, "jansson refused, the writer wrote %.200s", got), reason = why;
    else if (want && !got)
        snprintf(why, size, "the writer refused; jansson wrote %.200s", want), reason = why;
    else if (want && (len != strlen(want) || strlen(got) != len))
        snprintf(why, size, "length %zu, jansson's %zu", len, strlen(want)), reason = why;
    else if (want && memcmp(want, got, len) != 0)
        snprintf(why, size, "wrote %.300s\njansson: %.300s", got, want), reason = why;
    free(want);
    free(got);
    return reason;
}

/* Both must write v, and the same text; an object or array also as
 * json_dumps(JSON_COMPACT) without JSON_ENCODE_ANY writes it. */
static void assert_same(const json_t *v)
{
    char why[1024];
    const char *reason = differs_from_jansson(v, why, sizeof why);
    if (reason)
        fail_msg("%s", reason);
    if (json_is_object(v) || json_is_array(v)) {
        char *want = json_dumps(v, JSON_COMPACT), *got = json_write_compact(v, NULL);
        assert_non_null(want);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }
    char *text = json_write_compact(v, NULL);
    assert_non_null(text);
    free(text);
}

/* assert_same on a new reference, which it releases. */
static void assert_same_new(json_t *v)
{
    assert_non_null(v);
    assert_same(v);
    json_decref(v);
}

/* The string s[0..n) (valid UTF-8) must be written as jansson writes it,
 * alone, as a key and inside an array. */
static void assert_same_string(const char *s, size_t n)
{
    json_t *str = json_stringn(s, n);
    assert_non_null(str);
    assert_same(str);
    json_t *obj = json_object();
    assert_int_equal(json_object_setn_new(obj, s, n, json_integer(1)), 0);
    assert_same(obj);
    json_t *arr = json_pack("[O,O]", str, obj);
    assert_same_new(arr);
    json_decref(str);
    json_decref(obj);
}

/* ---- data-driven cases -------------------------------------------------- */

static const char *check_case(const json_t *c, char *why, size_t size)
{
    const json_t *value = json_object_get(c, "value");
    if (!value)
        return "a case needs \"value\"";
    return differs_from_jansson(value, why, size);
}

static void test_case_files(void **state)
{
    (void)state;
    case_files_check("json_write", JSON_ALLOW_NUL, check_case, CASES_MIN);
}

/* ---- strings ------------------------------------------------------------ */

static void test_every_ascii_byte(void **state)
{
    (void)state;
    for (int c = 0; c < 0x80; c++) {
        char s[3] = {'a', (char)c, 'z'};
        assert_same_string(s, 3);
        assert_same_string(s + 1, 1);
    }
    char all[0x80];
    for (int c = 0; c < 0x80; c++)
        all[c] = (char)c;
    assert_same_string(all, sizeof all);
}

/* Control bytes come out as jansson spells them: short escapes, the rest
 * as \u00XX with upper-case hex (checked as text once, so a jansson that
 * changed would be noticed here and not only as a mismatch). */
static void test_control_spelling(void **state)
{
    (void)state;
    json_t *s = json_stringn("\x00\x1f\x0b\x7f/\n", 6);
    char *text = json_write_compact(s, NULL);
    assert_string_equal(text, "\"\\u0000\\u001F\\u000B\x7f/\\n\"");
    free(text);
    json_decref(s);
}

/* Each needle at every offset of a 24-byte string of plain ASCII, and two
 * needles at once, so the 8-byte scan meets it in every lane and across
 * word boundaries. */
static void test_escapes_at_every_offset(void **state)
{
    (void)state;
    static const char *const needles[] = {
        "\"",
        "\\",
        "\n",
        "\t",
        "\x01",
        "\x1f",
        "\x7f",
        "/",
        "\xc3\xa9",
        "\xe4\xb8\xad",
        "\xf0\x9f\x98\x80",
        "\xcc\x81",
        " ",
        "~",
    };
    const size_t count = sizeof needles / sizeof *needles;
    char buf[64];
    for (size_t k = 0; k < count; k++) {
        size_t n = strlen(needles[k]);
        for (size_t at = 0; at + n <= 24; at++) {
            memset(buf, 'a', 24);
            memcpy(buf + at, needles[k], n);
            assert_same_string(buf, 24);
            for (size_t j = 0; j < count; j++) {
                size_t m = strlen(needles[j]), second = (at * 7 + 3) % 24;
                if (second < at + n || second + m > 24)
                    continue;
                memcpy(buf + second, needles[j], m);
                assert_same_string(buf, 24);
                memset(buf + second, 'a', m);
            }
        }
        for (size_t len = 0; len < 20; len++) { /* lengths around the word size */
            memset(buf, 'b', len);
            memcpy(buf + len, needles[k], n);
            assert_same_string(buf, len + n);
        }
    }
    char nul[1] = {0};
    assert_same_string(nul, 1);
}

static void test_long_strings(void **state)
{
    (void)state;
    size_t n = 200 * 1024;
    char *s = malloc(n);
    assert_non_null(s);
    memset(s, 'x', n);
    assert_same_string(s, n);                    /* plain: one run */
    for (size_t len = 8180; len < 8200; len++) { /* output around the writer's first buffer */
        assert_same_string(s, len);
        s[len - 3] = '\n';
        assert_same_string(s, len);
        s[len - 3] = 'x';
    }
    for (size_t i = 0; i + 3 <= n; i += 37) {
        s[i] = '\n';
        if (i % 5 == 0)
            memcpy(s + i + 1, "\xe6\x95\xb0", 3);
        if (i % 11 == 0)
            s[i + 4] = '"';
    }
    assert_same_string(s, n); /* escapes and CJK throughout */
    memset(s, '\n', n);
    assert_same_string(s, n); /* every byte escaped: the buffer grows */
    memset(s, 1, n);
    assert_same_string(s, n); /* every byte six times as long */
    free(s);
}

/* ---- UTF-8 validity ----------------------------------------------------- */

/* The writer's verdict on "x" seq "y" must be jansson's: the same text,
 * or both refuse. A key must be written when valid and refused when not
 * (jansson writes invalid JSON for it; see json_write.h). */
static void assert_same_verdict(const unsigned char *seq, size_t n)
{
    char s[8];
    s[0] = 'x';
    memcpy(s + 1, seq, n);
    s[n + 1] = 'y';
    json_t *v = json_stringn_nocheck(s, n + 2);
    assert_non_null(v);
    char *want = json_dumps(v, JSON_ENCODE_ANY), *got = json_write_compact(v, NULL);
    if (!want != !got || (want && strcmp(want, got) != 0))
        fail_msg("sequence %02x %02x %02x %02x (%zu bytes): writer %s, jansson %s", seq[0],
                 n > 1 ? seq[1] : 0, n > 2 ? seq[2] : 0, n > 3 ? seq[3] : 0, n,
                 got ? got : "(refused)", want ? want : "(refused)");
    json_t *obj = json_object();
    assert_int_equal(json_object_setn_nocheck(obj, s, n + 2, json_null()), 0);
    char *key = json_write_compact(obj, NULL);
    assert_true(!key == !want);
    free(key);
    json_decref(obj);
    free(want);
    free(got);
    json_decref(v);
}

static void test_utf8_validity_matches_jansson(void **state)
{
    (void)state;
    /* Continuation bytes worth trying in third and fourth place. */
    static const unsigned char tails[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90,
                                          0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    const size_t nt = sizeof tails;
    unsigned char seq[4];
    for (int lead = 0x80; lead <= 0xff; lead++) {
        for (int second = 0; second <= 0xff; second++) {
            seq[0] = (unsigned char)lead, seq[1] = (unsigned char)second;
            assert_same_verdict(seq, 1);
            assert_same_verdict(seq, 2);
            if (lead < 0xe0)
                continue;
            for (size_t i = 0; i < nt; i++) {
                seq[2] = tails[i];
                assert_same_verdict(seq, 3);
                if (lead < 0xf0)
                    continue;
                for (size_t j = 0; j < nt; j++) {
                    seq[3] = tails[j];
                    assert_same_verdict(seq, 4);
                }
            }
        }
    }
}

/* A string cut inside a sequence, at every cut. */
static void test_truncated_sequences(void **state)
{
    (void)state;
    static const char *const full[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"};
    for (size_t k = 0; k < 3; k++) {
        for (size_t cut = 1; cut < strlen(full[k]); cut++) {
            json_t *v = json_stringn_nocheck(full[k], cut);
            assert_null(json_dumps(v, JSON_ENCODE_ANY));
            assert_null(json_write_compact(v, NULL));
            json_decref(v);
        }
    }
}

/* ---- numbers ------------------------------------------------------------ */

static void test_integers(void **state)
{
    (void)state;
    json_t *arr = json_array();
    json_array_append_new(arr, json_integer(INT64_MAX));
    json_array_append_new(arr, json_integer(INT64_MIN));
    json_array_append_new(arr, json_integer(0));
    for (json_int_t p = 1; p <= INT64_MAX / 10; p *= 10) {
        json_array_append_new(arr, json_integer(p));
        json_array_append_new(arr, json_integer(p - 1));
        json_array_append_new(arr, json_integer(-p));
        json_array_append_new(arr, json_integer(1 - p));
    }
    assert_same_new(arr);
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void test_reals(void **state)
{
    (void)state;
    static const double fixed[] = {0.0,  -0.0, 1e300, 1e-300, 0.1,     1.0, -1.0, 123456789.0, 1e16,
                                   1e17, 1e-4, 1e-5,  5e-324, DBL_MAX, 2.5, 1e22, 1.0 / 3.0};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        assert_same_new(json_real(fixed[i]));
    /* json_real refuses what JSON cannot hold, so no tree has them. */
    assert_null(json_real(NAN));
    assert_null(json_real(INFINITY));
    /* Random bit patterns: every exponent, sign and mantissa shape. */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    json_t *arr = json_array();
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = next_random(&seed);
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isfinite(d))
            json_array_append_new(arr, json_real(d));
        /* and short decimals, integral values and powers of ten */
        json_array_append_new(arr, json_real((double)(int64_t)(bits % 2000001) / 1000.0 - 1000));
        json_array_append_new(arr, json_real((double)(int64_t)(bits >> 11)));
        json_array_append_new(arr, json_real(pow(10, (double)(i % 617) - 308)));
    }
    assert_same_new(arr);
}

/* A locale whose decimal point is a comma changes nothing (jansson maps it
 * back to '.'; so does the writer). Skipped when no such locale exists. */
static void test_reals_in_comma_locale(void **state)
{
    (void)state;
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"};
    const char *set = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names && !set; i++)
        set = setlocale(LC_NUMERIC, names[i]);
    if (!set)
        skip();
    json_t *v = json_pack("[f,f,f,f]", 0.5, 1e-7, 3.0, -1234.5678);
    char *got = json_write_compact(v, NULL), *want = json_dumps(v, JSON_COMPACT);
    setlocale(LC_NUMERIC, "C");
    char *in_c = json_write_compact(v, NULL);
    assert_string_equal(got, want);
    assert_string_equal(got, in_c);
    free(got);
    free(want);
    free(in_c);
    json_decref(v);
}

/* ---- structure ---------------------------------------------------------- */

static void test_big_containers(void **state)
{
    (void)state;
    json_t *arr = json_array(), *obj = json_object();
    char key[32];
    for (int i = 0; i < 20000; i++) {
        json_array_append_new(arr, i % 3 ? json_integer(i) : json_sprintf("item %d\n", i));
        snprintf(key, sizeof key, "k%d", (i * 7919) % 20000); /* not in sorted order */
        json_object_set_new(obj, key, json_integer(i));
    }
    assert_same(arr);
    assert_same(obj);
    json_array_append(arr, obj);
    assert_same_new(arr);
    json_decref(obj);
}

/* A random string from a palette of plain text, escapes and UTF-8. */
static json_t *random_string(uint64_t *seed)
{
    static const char *const pieces[] = {
        "a", "Hello world ", "|",        "\n", "\"", "\\", "\t",
        "/", "\x01",         "\xc3\xa9", "日", "😀",  " ",  "1234567890"};
    char buf[512];
    size_t len = 0, count = next_random(seed) % 40;
    for (size_t i = 0; i < count; i++) {
        const char *p = pieces[next_random(seed) % (sizeof pieces / sizeof *pieces)];
        memcpy(buf + len, p, strlen(p));
        len += strlen(p);
    }
    return json_stringn(buf, len);
}

static json_t *random_tree(uint64_t *seed, int depth)
{
    uint64_t r = next_random(seed);
    switch (depth > 6 ? r % 6 : r % 8) {
    case 0: return random_string(seed);
    case 1: return json_integer((json_int_t)next_random(seed));
    case 2: return json_real((double)(int64_t)next_random(seed) / 1e9);
    case 3: return json_true();
    case 4: return json_false();
    case 5: return json_null();
    case 6: {
        json_t *arr = json_array();
        for (uint64_t n = next_random(seed) % 6; n > 0; n--)
            json_array_append_new(arr, random_tree(seed, depth + 1));
        return arr;
    }
    default: {
        json_t *obj = json_object();
        for (uint64_t n = next_random(seed) % 6; n > 0; n--) {
            json_t *key = random_string(seed);
            json_object_setn_new(obj, json_string_value(key), json_string_length(key),
                                 random_tree(seed, depth + 1));
            json_decref(key);
        }
        return obj;
    }
    }
}

static void test_random_trees(void **state)
{
    (void)state;
    uint64_t seed = 88172645463325252u;
    for (int i = 0; i < 3000; i++)
        assert_same_new(random_tree(&seed, 0));
}

/* ---- refusals ----------------------------------------------------------- */

/* depth nested arrays (or objects under key "k"), the innermost empty:
 * jansson's parser takes up to JSON_PARSER_MAX_DEPTH values in a row. */
static json_t *nested(int depth, int objects)
{
    json_t *v = objects ? json_object() : json_array();
    for (int i = 1; i < depth; i++)
        v = objects ? json_pack("{s:o}", "k", v) : json_pack("[o]", v);
    return v;
}

static void test_depth_limit(void **state)
{
    (void)state;
    assert_int_equal(JSON_WRITE_MAX_DEPTH, JSON_PARSER_MAX_DEPTH);
    for (int objects = 0; objects <= 1; objects++) {
        json_t *deepest = nested(JSON_WRITE_MAX_DEPTH, objects);
        assert_same(deepest); /* as deep as jansson's parser goes */
        char *text = json_write_compact(deepest, NULL);
        json_t *back = json_loads(text, 0, NULL);
        assert_non_null(back);
        assert_true(json_equal(back, deepest));
        json_decref(back);
        free(text);
        json_t *deeper = objects ? json_pack("{s:o}", "k", deepest) : json_pack("[o]", deepest);
        assert_null(json_write_compact(deeper, NULL));
        json_decref(deeper);
    }
}

static void test_cycle_refused(void **state)
{
    (void)state;
    json_t *a = json_array(), *b = json_object();
    json_array_append(a, b);
    json_object_set(b, "back", a); /* a → b → a */
    assert_null(json_dumps(a, JSON_COMPACT));
    size_t len = 99;
    assert_null(json_write_compact(a, &len));
    assert_int_equal(len, 99);
    json_object_clear(b); /* break the cycle so both can be freed */
    json_decref(b);
    json_decref(a);
}

static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    json_t *bad = json_stringn_nocheck("ok\xff", 3);
    json_t *in_tree = json_pack("{s:[i,O]}", "rows", 1, bad);
    assert_null(json_dumps(in_tree, JSON_COMPACT));
    assert_null(json_write_compact(in_tree, NULL));
    assert_null(json_write_compact(bad, NULL));
    json_t *bad_key = json_object();
    json_object_setn_nocheck(bad_key, "k\xc3", 2, json_null());
    assert_null(json_write_compact(bad_key, NULL));
    json_decref(bad_key);
    json_decref(in_tree);
    json_decref(bad);
    assert_null(json_write_compact(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_every_ascii_byte),
        cmocka_unit_test(test_control_spelling),
        cmocka_unit_test(test_escapes_at_every_offset),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test(test_utf8_validity_matches_jansson),
        cmocka_unit_test(test_truncated_sequences),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_reals),
        cmocka_unit_test(test_reals_in_comma_locale),
        cmocka_unit_test(test_big_containers),
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_cycle_refused),
        cmocka_unit_test(test_invalid_utf8_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
