/*
 * test_chunk.c — tests for the document chunker (search/chunk).
 *
 * Most cases are data. Each .json file in tests/cases/chunk holds one case
 * object or an array of them:
 *
 *   "description":    what the case is about (printed on failure)
 *   "input":          the text, a string or an array of lines joined by "\n"
 *   "options":        {"strategy": "structure"|"tokens", "max_tokens",
 *                      "overlap", "markdown"}; absent keys keep the
 *                      defaults of chunk_options_default
 *   "chunks":         the expected chunks in order, each {"text"} (the
 *                     source bytes [start, end)) with optional "tokens"
 *                     and "heading" (null for none)
 *   "error_contains": chunk_split must fail with this text
 *   "pending":        a known bug, with the reason
 *
 * Every successful split is also checked for the contract's invariants:
 * offsets inside the text and on UTF-8 boundaries, never inside a word,
 * ascending starts (and no overlap for CHUNK_STRUCTURE), 1..max_tokens
 * tokens, and every letter, digit or CJK character of the text inside
 * some chunk (nothing is lost).
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
#include "search/chunk.h"

#define CASES_MIN 20

/* The spans of the words of one text (tokens of a spaced script; CJK
 * bigrams may be cut anywhere). */
typedef struct words {
    const char *text;
    size_t n;
    size_t start[4096], end[4096];
    size_t count;
} words;

static int collect_word(void *ctx, const char *t, size_t len, size_t start, size_t end,
                        int colocated)
{
    (void)t, (void)len;
    words *w = ctx;
    int32_t cp;
    if (colocated || !text_utf8_decode(w->text + start, w->n - start, &cp) ||
        text_char_classify(cp) != TEXT_CHAR_WORD)
        return 0;
    assert_true(w->count < 4096);
    w->start[w->count] = start;
    w->end[w->count++] = end;
    return 0;
}

/* A cut at pos splits a word when a word starts before pos and ends after it. */
static int inside_word(const words *w, size_t pos)
{
    for (size_t i = 0; i < w->count; i++)
        if (w->start[i] < pos && pos < w->end[i])
            return 1;
    return 0;
}

/* Why list l breaks an invariant for text[0..n) and options o, or NULL. */
static const char *check_invariants(const char *text, size_t n, const chunk_options *o,
                                    const chunk_list *l, char *why, size_t size)
{
    static words w;
    w.text = text;
    w.n = n;
    w.count = 0;
    text_tokenize(text, n, TEXT_LANG_NONE, collect_word, &w);
    for (size_t i = 0; i < l->count; i++) {
        const chunk *c = &l->items[i];
        if (c->start >= c->end || c->end > n)
            snprintf(why, size, "chunk %zu: bad offsets [%zu, %zu) of %zu", i, c->start, c->end, n);
        else if (text_utf8_valid_prefix(text + c->start, c->end - c->start) != c->end - c->start)
            snprintf(why, size, "chunk %zu: [%zu, %zu) is not whole UTF-8", i, c->start, c->end);
        else if (inside_word(&w, c->start) || inside_word(&w, c->end))
            snprintf(why, size, "chunk %zu: [%zu, %zu) cuts a word", i, c->start, c->end);
        else if (c->tokens < 1 || c->tokens > o->max_tokens)
            snprintf(why, size, "chunk %zu: %d tokens (max %d)", i, c->tokens, o->max_tokens);
        else if (i > 0 && c->start <= l->items[i - 1].start)
            snprintf(why, size, "chunk %zu: starts do not ascend", i);
        else if (i > 0 && o->strategy == CHUNK_STRUCTURE && c->start < l->items[i - 1].end)
            snprintf(why, size, "chunk %zu: overlaps its neighbour", i);
        else
            continue;
        return why;
    }
    /* Nothing is lost: every word character is inside some chunk. */
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        int32_t cp;
        size_t len = text_utf8_decode(text + i, n - i, &cp);
        if (!len) {
            i++;
            continue;
        }
        text_char_class cls = text_char_classify(cp);
        if (cls == TEXT_CHAR_WORD || cls == TEXT_CHAR_CJK || cls == TEXT_CHAR_HANGUL) {
            while (k < l->count && l->items[k].end <= i)
                k++;
            if (k == l->count || l->items[k].start > i) {
                snprintf(why, size, "byte %zu (U+%04X) is in no chunk", i, (unsigned)cp);
                return why;
            }
        }
        i += len;
    }
    return NULL;
}

/* Options of case c over the defaults; returns 0 or -1 for a bad case. */
static void case_options(const json_t *c, chunk_options *o)
{
    chunk_options_default(o);
    const json_t *opt = json_object_get(c, "options");
    const char *strategy = json_string_value(json_object_get(opt, "strategy"));
    if (strategy)
        o->strategy = !strcmp(strategy, "tokens")      ? CHUNK_TOKENS
                      : !strcmp(strategy, "structure") ? CHUNK_STRUCTURE
                                                       : (chunk_strategy)99;
    if (json_object_get(opt, "max_tokens"))
        o->max_tokens = (int)json_integer_value(json_object_get(opt, "max_tokens"));
    if (json_object_get(opt, "overlap"))
        o->overlap = (int)json_integer_value(json_object_get(opt, "overlap"));
    if (json_object_get(opt, "markdown"))
        o->markdown = json_is_true(json_object_get(opt, "markdown"));
}

/* The input of case c as a new string (lines joined by "\n"). */
static char *case_input(const json_t *c)
{
    const json_t *in = json_object_get(c, "input");
    if (json_is_string(in))
        return strdup(json_string_value(in));
    if (!json_is_array(in))
        return NULL;
    size_t len = 0, i;
    const json_t *line;
    json_array_foreach (in, i, line)
        len += json_string_length(line) + 1;
    char *text = calloc(1, len + 1);
    assert_non_null(text);
    json_array_foreach (in, i, line) {
        if (i)
            strcat(text, "\n");
        strcat(text, json_string_value(line));
    }
    return text;
}

static const char *check_chunks(const json_t *want, const char *text, const chunk_list *l,
                                char *why, size_t size)
{
    if (json_array_size(want) != l->count) {
        int len = snprintf(why, size, "want %zu chunks, got %zu:", json_array_size(want), l->count);
        for (size_t i = 0; i < l->count && len > 0 && (size_t)len < size; i++)
            len += snprintf(why + len, size - (size_t)len, "\n  [%zu,%zu) %d \"%.*s\"",
                            l->items[i].start, l->items[i].end, l->items[i].tokens,
                            (int)(l->items[i].end - l->items[i].start), text + l->items[i].start);
        return why;
    }
    for (size_t i = 0; i < l->count; i++) {
        const chunk *c = &l->items[i];
        const json_t *w = json_array_get(want, i);
        const char *wtext = json_string_value(json_object_get(w, "text"));
        const json_t *wtokens = json_object_get(w, "tokens");
        const json_t *wheading = json_object_get(w, "heading");
        size_t len = c->end - c->start;
        if (wtext && (strlen(wtext) != len || memcmp(wtext, text + c->start, len) != 0))
            snprintf(why, size, "chunk %zu: want \"%s\", got \"%.*s\"", i, wtext, (int)len,
                     text + c->start);
        else if (wtokens && json_integer_value(wtokens) != c->tokens)
            snprintf(why, size, "chunk %zu: want %lld tokens, got %d", i,
                     (long long)json_integer_value(wtokens), c->tokens);
        else if (json_is_null(wheading) && c->heading)
            snprintf(why, size, "chunk %zu: want no heading, got \"%s\"", i, c->heading);
        else if (json_is_string(wheading) &&
                 (!c->heading || strcmp(c->heading, json_string_value(wheading)) != 0))
            snprintf(why, size, "chunk %zu: want heading \"%s\", got \"%s\"", i,
                     json_string_value(wheading), c->heading ? c->heading : "(none)");
        else
            continue;
        return why;
    }
    return NULL;
}

static const char *check_case(const json_t *c, char *why, size_t size)
{
    char *text = case_input(c);
    if (!text)
        return "a case needs \"input\"";
    chunk_options o;
    case_options(c, &o);
    const char *error = json_string_value(json_object_get(c, "error_contains"));
    chunk_list l;
    dbmcp_error err;
    int rc = chunk_split(text, strlen(text), &o, &l, &err);
    const char *failed = NULL;
    if (error) {
        if (rc == 0 || !strstr(err.message, error)) {
            snprintf(why, size, "want an error with \"%s\", got %s", error,
                     rc ? err.message : "success");
            failed = why;
        }
    } else if (rc) {
        snprintf(why, size, "chunk_split failed: %s", err.message);
        failed = why;
    } else {
        failed = check_invariants(text, strlen(text), &o, &l, why, size);
        if (!failed && json_object_get(c, "chunks"))
            failed = check_chunks(json_object_get(c, "chunks"), text, &l, why, size);
    }
    if (rc == 0)
        chunk_list_free(&l);
    free(text);
    return failed;
}

static void test_case_files(void **state)
{
    (void)state;
    case_files_check("chunk", 0, check_case, CASES_MIN);
}

static void test_defaults(void **state)
{
    (void)state;
    chunk_options o;
    chunk_options_default(&o);
    assert_int_equal(o.strategy, CHUNK_STRUCTURE);
    assert_int_equal(o.max_tokens, 200);
    assert_int_equal(o.overlap, 40);
    /* NULL options mean the defaults. */
    chunk_list l;
    dbmcp_error err;
    assert_int_equal(chunk_split("Ein kurzer Text.", 16, NULL, &l, &err), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.items[0].tokens, 3);
    chunk_list_free(&l);
    chunk_list_free(&l);
}

/* A long mixed document under every strategy and several sizes, every
 * prefix of it too: the invariants always hold. */
static void test_invariants_sweep(void **state)
{
    (void)state;
    const char *doc = "# Vertrag\n\nDie Vergütung (¥3,000) wird am 30. gezahlt; e.g. monthly. "
                      "東京都に住む従業員。給与は毎月！\n\n## 한국어\n\n한국어 텍스트입니다. "
                      "Arbeits\u00adzeit ＡＢＣ déjà-vu?\n```\n# code\n```\nEnde.";
    size_t len = strlen(doc);
    char why[1024];
    for (int strategy = 0; strategy < 2; strategy++) {
        for (int max = 1; max <= 9; max += 2) {
            chunk_options o = {strategy, max, max / 2, 1};
            for (size_t n = 0; n <= len; n++) {
                if (text_utf8_valid_prefix(doc, n) != n)
                    continue;
                chunk_list l;
                dbmcp_error err;
                assert_int_equal(chunk_split(doc, n, &o, &l, &err), 0);
                const char *failed = check_invariants(doc, n, &o, &l, why, sizeof why);
                if (failed)
                    fail_msg("strategy %d, max %d, prefix %zu: %s", strategy, max, n, failed);
                chunk_list_free(&l);
            }
        }
    }
}

/* Offsets reproduce the text: a chunk's bytes are the source's. */
static void test_not_terminated(void **state)
{
    (void)state;
    char *buf = malloc(9);
    assert_non_null(buf);
    memcpy(buf, "Satz eins", 9);
    chunk_options o;
    chunk_options_default(&o);
    chunk_list l;
    dbmcp_error err;
    assert_int_equal(chunk_split(buf, 9, &o, &l, &err), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.items[0].start, 0);
    assert_int_equal(l.items[0].end, 9);
    chunk_list_free(&l);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_invariants_sweep),
        cmocka_unit_test(test_not_terminated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
