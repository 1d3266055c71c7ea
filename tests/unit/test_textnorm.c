/*
 * test_textnorm.c — tests for the text normaliser and tokenizer
 * (core/textnorm).
 *
 * Most cases are data. Each .json file in tests/cases/textnorm holds one
 * case object or an array of them; a case has one or more of:
 *
 *   "description":  what the case is about (printed on failure)
 *   "input":        the text (or "input_hex": its bytes in hex, for
 *                   invalid UTF-8)
 *   "langs":        stemming languages for text_lang_parse ("de,en" when
 *                   absent; "none" folds only)
 *   "tokens":       the exact token stream of input, each "text@start-end"
 *                   with a leading "+" for a colocated token
 *   "fold":         the expected text_fold of input
 *   "same":         two words that must share a token (they match in search)
 *   "different":    two words that must share none
 *   "pending":      a known bug, with the reason
 *
 * Every tokenised input is also checked for the contract's invariants:
 * offsets inside the input, covering valid UTF-8 only, ascending, and no
 * colocated token first. The C tests cover the helpers and the callback.
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

#include "case_files.h"
#include "core/error.h"
#include "core/textnorm.h"

#include <utf8proc.h>

#define CASES_MIN 50

/* The token stream of one input as text, plus the invariant check. */
typedef struct stream {
    const char *input;
    size_t n;
    char text[8192]; /* "tok@s-e" joined by " " */
    size_t len;
    size_t count;
    size_t last_start;
    const char *broken; /* the first broken invariant, or NULL */
} stream;

static int record(void *ctx, const char *token, size_t len, size_t start, size_t end, int colocated)
{
    stream *s = ctx;
    if (end > s->n || start >= end)
        s->broken = "offsets outside the input or empty";
    else if (text_utf8_valid_prefix(s->input + start, end - start) != end - start)
        s->broken = "a token covers bytes that are not valid UTF-8";
    else if (s->count > 0 && start < s->last_start)
        s->broken = "token starts descend";
    else if (colocated && s->count == 0)
        s->broken = "the first token is colocated";
    else if (len == 0 || len > 64 || text_utf8_valid_prefix(token, len) != len)
        s->broken = "token text empty, longer than 64 bytes or not UTF-8";
    s->last_start = start;
    int w = snprintf(s->text + s->len, sizeof s->text - s->len, "%s%s%.*s@%zu-%zu",
                     s->count ? " " : "", colocated ? "+" : "", (int)len, token, start, end);
    if (w > 0 && s->len + (size_t)w < sizeof s->text)
        s->len += (size_t)w;
    s->count++;
    return 0;
}

static void tokenize(stream *s, const char *input, size_t n, int langs)
{
    memset(s, 0, sizeof *s);
    s->input = input;
    s->n = n;
    assert_int_equal(text_tokenize(input, n, langs, record, s), 0);
}

/* Decode "input" or "input_hex" into buf; returns the length or -1. */
static long case_input(const json_t *c, char *buf, size_t size)
{
    const json_t *in = json_object_get(c, "input");
    if (json_is_string(in)) {
        size_t n = json_string_length(in);
        if (n > size)
            return -1;
        memcpy(buf, json_string_value(in), n);
        return (long)n;
    }
    const char *hex = json_string_value(json_object_get(c, "input_hex"));
    if (!hex || strlen(hex) % 2 || strlen(hex) / 2 > size)
        return -1;
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        buf[i] = (char)v;
    }
    return (long)n;
}

static int case_langs(const json_t *c)
{
    const char *l = json_string_value(json_object_get(c, "langs"));
    if (l && strcmp(l, "none") == 0)
        return TEXT_LANG_NONE;
    return l ? text_lang_parse(l) : TEXT_LANG_DEFAULT;
}

/* Nonzero when the streams of words a and b share a token text. */
static int share_token(const char *a, const char *b, int langs)
{
    stream sa, sb;
    tokenize(&sa, a, strlen(a), langs);
    tokenize(&sb, b, strlen(b), langs);
    char *save_a, *save_b;
    for (char *ta = strtok_r(sa.text, " ", &save_a); ta; ta = strtok_r(NULL, " ", &save_a)) {
        ta += *ta == '+';
        *strchr(ta, '@') = '\0';
        char copy[sizeof sb.text];
        memcpy(copy, sb.text, sizeof copy);
        for (char *tb = strtok_r(copy, " ", &save_b); tb; tb = strtok_r(NULL, " ", &save_b)) {
            tb += *tb == '+';
            *strchr(tb, '@') = '\0';
            if (strcmp(ta, tb) == 0)
                return 1;
        }
    }
    return 0;
}

/* Why case c fails, or NULL; why_buf holds the details. */
static const char *check_case(const json_t *c, char *why, size_t size)
{
    int langs = case_langs(c);
    const json_t *pair = json_object_get(c, "same");
    int want_same = pair != NULL;
    if (!pair)
        pair = json_object_get(c, "different");
    if (pair) {
        const char *a = json_string_value(json_array_get(pair, 0));
        const char *b = json_string_value(json_array_get(pair, 1));
        if (!a || !b)
            return "\"same\"/\"different\" needs two strings";
        if (share_token(a, b, langs) != want_same) {
            snprintf(why, size, "\"%s\" and \"%s\" %s", a, b,
                     want_same ? "share no token" : "share a token");
            return why;
        }
    }
    static char input[65536];
    long n = case_input(c, input, sizeof input);
    const json_t *tokens = json_object_get(c, "tokens");
    const char *fold = json_string_value(json_object_get(c, "fold"));
    if ((tokens || fold) && n < 0)
        return "a case with \"tokens\" or \"fold\" needs \"input\" or \"input_hex\"";
    if (tokens) {
        char want[8192] = "";
        size_t i, len = 0;
        const json_t *t;
        json_array_foreach (tokens, i, t)
            len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", i ? " " : "",
                                    json_string_value(t));
        stream s;
        tokenize(&s, input, (size_t)n, langs);
        if (s.broken)
            return s.broken;
        if (strcmp(s.text, want) != 0) {
            snprintf(why, size, "tokens\n  want: %s\n  got:  %s", want, s.text);
            return why;
        }
    }
    if (fold) {
        char *got = text_fold(input, (size_t)n);
        assert_non_null(got);
        int differ = strcmp(got, fold) != 0;
        snprintf(why, size, "fold: want \"%s\", got \"%s\"", fold, got);
        free(got);
        if (differ)
            return why;
    }
    if (!pair && !tokens && !fold)
        return "a case needs \"tokens\", \"fold\", \"same\" or \"different\"";
    return NULL;
}

static void test_case_files(void **state)
{
    (void)state;
    case_files_check("textnorm", 0, check_case, CASES_MIN);
}

/* ----- helpers ----- */

static void test_lang_parse(void **state)
{
    (void)state;
    assert_int_equal(text_lang_parse(NULL), TEXT_LANG_DEFAULT);
    assert_int_equal(text_lang_parse(""), TEXT_LANG_DEFAULT);
    assert_int_equal(text_lang_parse("de"), TEXT_LANG_DE);
    assert_int_equal(text_lang_parse("en"), TEXT_LANG_EN);
    assert_int_equal(text_lang_parse("de,en"), TEXT_LANG_DE | TEXT_LANG_EN);
    assert_int_equal(text_lang_parse("english german"), TEXT_LANG_DE | TEXT_LANG_EN);
    assert_int_equal(text_lang_parse("none"), TEXT_LANG_NONE);
    assert_int_equal(text_lang_parse("fr,en"), TEXT_LANG_EN);
}

static void test_utf8(void **state)
{
    (void)state;
    int32_t cp;
    assert_int_equal(text_utf8_decode("A", 1, &cp), 1);
    assert_int_equal(cp, 'A');
    assert_int_equal(text_utf8_decode("\xc3\xa4", 2, &cp), 2);
    assert_int_equal(cp, 0xE4);
    assert_int_equal(text_utf8_decode("\xe6\x9d\xb1", 3, &cp), 3);
    assert_int_equal(cp, 0x6771);
    assert_int_equal(text_utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4);
    assert_int_equal(cp, 0x1F600);
    assert_int_equal(text_utf8_decode("\xe6\x9d\xb1", 2, &cp), 0);     /* truncated */
    assert_int_equal(text_utf8_decode("\xc0\xaf", 2, &cp), 0);         /* overlong */
    assert_int_equal(text_utf8_decode("\xed\xa0\x80", 3, &cp), 0);     /* surrogate */
    assert_int_equal(text_utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0); /* > U+10FFFF */
    assert_int_equal(text_utf8_decode("\x80", 1, &cp), 0);

    assert_int_equal(text_utf8_valid_prefix("abc", 3), 3);
    assert_int_equal(text_utf8_valid_prefix("ab\xe6\x9d", 4), 2);
    assert_int_equal(text_utf8_valid_prefix("\xe6\x9d\xb1x", 4), 4);
    assert_int_equal(text_utf8_valid_prefix("", 0), 0);
}

static void test_classify(void **state)
{
    (void)state;
    assert_int_equal(text_char_classify('a'), TEXT_CHAR_WORD);
    assert_int_equal(text_char_classify('7'), TEXT_CHAR_WORD);
    assert_int_equal(text_char_classify(0xDF), TEXT_CHAR_WORD); /* ß */
    assert_int_equal(text_char_classify(' '), TEXT_CHAR_SEPARATOR);
    assert_int_equal(text_char_classify('-'), TEXT_CHAR_SEPARATOR);
    assert_int_equal(text_char_classify(0x3002), TEXT_CHAR_SEPARATOR); /* 。 */
    assert_int_equal(text_char_classify(0x6771), TEXT_CHAR_CJK);       /* 東 */
    assert_int_equal(text_char_classify(0x3042), TEXT_CHAR_CJK);       /* あ */
    assert_int_equal(text_char_classify(0x30AB), TEXT_CHAR_CJK);       /* カ */
    assert_int_equal(text_char_classify(0xD55C), TEXT_CHAR_HANGUL);    /* 한 */
    assert_int_equal(text_char_classify(0xAD), TEXT_CHAR_IGNORED);     /* soft hyphen */
}

/* ----- the fast paths give utf8proc's answers ----- */

/* NFKC_Casefold of one UTF-8 character with utf8proc, as the slow path of
 * core/textnorm folds a word; caller frees. */
static char *utf8proc_fold(const char *s)
{
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map(
        (const utf8proc_uint8_t *)s, (utf8proc_ssize_t)strlen(s), &out,
        UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE | UTF8PROC_COMPOSE);
    assert_true(n >= 0);
    return (char *)out;
}

/* ASCII is classified and folded without utf8proc, the Han and kana
 * letters of CJK runs are taken as they are: every one of those code
 * points must give what utf8proc gives. */
static void test_fast_paths(void **state)
{
    (void)state;
    for (int32_t cp = 0; cp < 0x80; cp++) {
        const utf8proc_property_t *p = utf8proc_get_property(cp);
        int word = p->category >= UTF8PROC_CATEGORY_LU && p->category <= UTF8PROC_CATEGORY_NO;
        assert_false(p->ignorable || p->category == UTF8PROC_CATEGORY_CF);
        assert_int_equal(text_char_classify(cp), word ? TEXT_CHAR_WORD : TEXT_CHAR_SEPARATOR);
        if (!word || cp == 0)
            continue;
        char in[2] = {(char)cp, 0};
        char *slow = utf8proc_fold(in);
        char *fast = text_fold(in, 1);
        assert_string_equal(fast, slow);
        free(slow);
        free(fast);
    }
    static const int32_t ranges[][2] = {
        {0x4E00, 0x9FFF}, {0x3400, 0x4DBF}, {0x3041, 0x3096}, {0x30A1, 0x30FA}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        for (int32_t cp = ranges[r][0]; cp <= ranges[r][1]; cp++) {
            utf8proc_uint8_t in[8] = {0};
            utf8proc_ssize_t n = utf8proc_encode_char(cp, in);
            assert_int_equal(n, 3);
            assert_int_equal(text_char_classify(cp), TEXT_CHAR_CJK);
            char *slow = utf8proc_fold((const char *)in);
            assert_string_equal(slow, (const char *)in);
            free(slow);
        }
    }
    /* Through the tokenizer: a run of them is bigrammed as it stands. */
    stream s;
    tokenize(&s, "ＡＢＣ abc ABC 東京ガス", strlen("ＡＢＣ abc ABC 東京ガス"), TEXT_LANG_NONE);
    assert_string_equal(s.text, "abc@0-9 abc@10-13 abc@14-17 東京@18-24 京ガ@21-27 ガス@24-30");
}

/* The stems a text_stemmers remembers (a slot per hash, overwritten) give
 * the stream fresh stemmers give, also after more words than slots. */
static void test_stem_memory(void **state)
{
    (void)state;
    static char text[200000];
    size_t n = 0;
    static const char *const parts[] = {"Zahlung", "payment", "Vergütung", "running", "Häuser"};
    for (int i = 0; i < 6000 && n + 64 < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%d %s ", parts[i % 5], i % 3000,
                              parts[(i * 7) % 5]);
    text_stemmers *st = text_stemmers_new(TEXT_LANG_DEFAULT);
    assert_non_null(st);
    for (int round = 0; round < 2; round++) {
        stream *fresh = calloc(1, sizeof *fresh), *kept = calloc(1, sizeof *kept);
        assert_non_null(fresh);
        assert_non_null(kept);
        /* 8 KiB of stream text per comparison: cut the input in slices. */
        for (size_t at = 0; at < n; at += 1500) {
            size_t len = n - at < 1500 ? n - at : 1500;
            while (at + len < n && text[at + len - 1] != ' ')
                len--;
            memset(fresh, 0, sizeof *fresh);
            memset(kept, 0, sizeof *kept);
            fresh->input = kept->input = text + at;
            fresh->n = kept->n = len;
            assert_int_equal(text_tokenize(text + at, len, TEXT_LANG_DEFAULT, record, fresh), 0);
            assert_int_equal(text_tokenize_with(st, text + at, len, record, kept), 0);
            assert_string_equal(kept->text, fresh->text);
        }
        free(fresh);
        free(kept);
    }
    text_stemmers_free(st);
}

/* ----- the callback and stemmers ----- */

static int stop_at_second(void *ctx, const char *t, size_t len, size_t s, size_t e, int co)
{
    (void)t, (void)len, (void)s, (void)e, (void)co;
    return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_callback_stops(void **state)
{
    (void)state;
    int calls = 0;
    assert_int_equal(text_tokenize("one two three", 13, TEXT_LANG_NONE, stop_at_second, &calls),
                     42);
    assert_int_equal(calls, 2);
    calls = 0;
    assert_int_equal(text_tokenize("東京都大阪", 15, TEXT_LANG_NONE, stop_at_second, &calls), 42);
    assert_int_equal(calls, 2);
}

static void test_stemmers_reused(void **state)
{
    (void)state;
    text_stemmers *st = text_stemmers_new(TEXT_LANG_DEFAULT);
    assert_non_null(st);
    for (int i = 0; i < 3; i++) {
        stream s;
        memset(&s, 0, sizeof s);
        s.input = "Zahlungen payments";
        s.n = strlen(s.input);
        assert_int_equal(text_tokenize_with(st, s.input, s.n, record, &s), 0);
        assert_string_equal(s.text, "zahlung@0-9 +zahlungen@0-9 payment@10-18");
    }
    text_stemmers_free(st);
    text_stemmers_free(NULL);
    /* NULL stemmers: fold only. */
    stream s;
    memset(&s, 0, sizeof s);
    s.input = "Zahlungen";
    s.n = 9;
    assert_int_equal(text_tokenize_with(NULL, s.input, s.n, record, &s), 0);
    assert_string_equal(s.text, "zahlungen@0-9");
}

/* Input that is not NUL-terminated: nothing past n is read. */
static void test_not_terminated(void **state)
{
    (void)state;
    char *buf = malloc(5);
    assert_non_null(buf);
    memcpy(buf, "Haus\xc3", 5); /* a cut sequence at the very end */
    stream s;
    tokenize(&s, buf, 5, TEXT_LANG_NONE);
    assert_string_equal(s.text, "haus@0-4");
    char *f = text_fold(buf, 5);
    assert_string_equal(f, "haus");
    free(f);
    free(buf);
}

/* Every prefix of a mixed text keeps the invariants. */
static void test_every_prefix(void **state)
{
    (void)state;
    const char *doc = "Die Vergütung (¥3,000) wird 東京都 ｶﾞｷﾞ gezahlt; ＡＢＣ déjà-vu 한국어!";
    size_t len = strlen(doc);
    for (size_t n = 0; n <= len; n++) {
        stream s;
        tokenize(&s, doc, n, TEXT_LANG_DEFAULT);
        if (s.broken)
            fail_msg("prefix %zu: %s", n, s.broken);
        char *f = text_fold(doc, n);
        assert_non_null(f);
        assert_int_equal(text_utf8_valid_prefix(f, strlen(f)), strlen(f));
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),     cmocka_unit_test(test_lang_parse),
        cmocka_unit_test(test_utf8),           cmocka_unit_test(test_classify),
        cmocka_unit_test(test_callback_stops), cmocka_unit_test(test_stemmers_reused),
        cmocka_unit_test(test_not_terminated), cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_fast_paths),     cmocka_unit_test(test_stem_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
