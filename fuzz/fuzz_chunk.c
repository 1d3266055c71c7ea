/*
 * fuzz_chunk.c — libFuzzer target for the text normaliser and the chunker
 * (core/textnorm, search/chunk).
 *
 * Each input is a document of any bytes (not NUL-terminated, maybe not
 * UTF-8). The target checks that text_tokenize emits tokens inside the
 * input, covering whole valid UTF-8 only, with ascending starts, valid
 * UTF-8 token text of at most 64 bytes and no colocated token first; that
 * text_fold returns valid UTF-8; and that chunk_split, with options taken
 * from the first two bytes, returns chunks on character boundaries, never
 * inside a word, ascending (disjoint for CHUNK_STRUCTURE), with 1..max
 * tokens, and leaves no letter, digit or CJK character out. A broken
 * check aborts, which libFuzzer reports as a crash with the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "search/chunk.h"

static void die(const char *what, size_t a, size_t b)
{
    fprintf(stderr, "fuzz_chunk: %s (%zu, %zu)\n", what, a, b);
    abort();
}

typedef struct token_check {
    const char *text;
    size_t n;
    size_t count, last_start;
} token_check;

static int check_token(void *ctx, const char *t, size_t len, size_t start, size_t end,
                       int colocated)
{
    token_check *c = ctx;
    if (start >= end || end > c->n)
        die("token offsets outside the input", start, end);
    if (text_utf8_valid_prefix(c->text + start, end - start) != end - start)
        die("token covers invalid UTF-8", start, end);
    if (c->count && start < c->last_start)
        die("token starts descend", c->last_start, start);
    if (colocated && !c->count)
        die("first token colocated", start, end);
    if (!len || len > 64 || text_utf8_valid_prefix(t, len) != len)
        die("token text empty, too long or not UTF-8", len, 0);
    c->last_start = start;
    c->count++;
    return 0;
}

/* boundary[i] = 1 when a character (or an invalid byte) starts at i. */
static unsigned char *boundaries(const char *s, size_t n)
{
    unsigned char *b = calloc(n + 1, 1);
    if (!b)
        abort();
    int32_t cp;
    for (size_t i = 0; i < n;) {
        b[i] = 1;
        size_t len = text_utf8_decode(s + i, n - i, &cp);
        i += len ? len : 1;
    }
    b[n] = 1;
    return b;
}

static text_char_class class_at(const char *s, size_t n, size_t i)
{
    int32_t cp;
    if (i >= n || !text_utf8_decode(s + i, n - i, &cp))
        return TEXT_CHAR_SEPARATOR;
    return text_char_classify(cp);
}

/* The words of the text: token spans whose first character is of a
 * spaced script (CJK bigrams may be cut anywhere). */
typedef struct words {
    const char *s;
    size_t n;
    size_t *start, *end; /* owned */
    size_t count, cap;
} words;

static int collect_word(void *ctx, const char *t, size_t len, size_t start, size_t end,
                        int colocated)
{
    (void)t, (void)len;
    words *w = ctx;
    if (colocated || class_at(w->s, w->n, start) != TEXT_CHAR_WORD)
        return 0;
    if (w->count == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->start = realloc(w->start, w->cap * sizeof *w->start);
        w->end = realloc(w->end, w->cap * sizeof *w->end);
        if (!w->start || !w->end)
            abort();
    }
    w->start[w->count] = start;
    w->end[w->count++] = end;
    return 0;
}

/* Nonzero when a word spans pos: the last word starting before pos ends after it. */
static int inside_word(const words *w, size_t pos)
{
    size_t lo = 0, hi = w->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->start[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && w->end[lo - 1] > pos;
}

static void check_chunks(const char *s, size_t n, const chunk_options *o, const chunk_list *l)
{
    unsigned char *b = boundaries(s, n);
    words w = {s, n, NULL, NULL, 0, 0};
    text_tokenize(s, n, TEXT_LANG_NONE, collect_word, &w);
    for (size_t i = 0; i < l->count; i++) {
        const chunk *c = &l->items[i];
        if (c->start >= c->end || c->end > n)
            die("chunk offsets outside the text", c->start, c->end);
        if (!b[c->start] || !b[c->end])
            die("chunk cut inside a UTF-8 sequence", c->start, c->end);
        if (inside_word(&w, c->start) || inside_word(&w, c->end))
            die("chunk cut inside a word", c->start, c->end);
        if (c->tokens < 1 || c->tokens > o->max_tokens)
            die("chunk token count out of range", (size_t)c->tokens, (size_t)o->max_tokens);
        if (i && c->start <= l->items[i - 1].start)
            die("chunk starts do not ascend", l->items[i - 1].start, c->start);
        if (i && o->strategy == CHUNK_STRUCTURE && c->start < l->items[i - 1].end)
            die("structure chunks overlap", l->items[i - 1].end, c->start);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!b[i])
            continue;
        text_char_class cls = class_at(s, n, i);
        if (cls != TEXT_CHAR_WORD && cls != TEXT_CHAR_CJK && cls != TEXT_CHAR_HANGUL)
            continue;
        while (k < l->count && l->items[k].end <= i)
            k++;
        if (k == l->count || l->items[k].start > i)
            die("a word character is in no chunk", i, k);
    }
    free(b);
    free(w.start);
    free(w.end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    chunk_options o;
    chunk_options_default(&o);
    o.strategy = (data[0] & 1) ? CHUNK_TOKENS : CHUNK_STRUCTURE;
    o.markdown = (data[0] >> 1) & 1;
    o.max_tokens = 1 + (data[1] & 63);
    o.overlap = (data[0] >> 2) % o.max_tokens;
    const char *s = (const char *)data + 2;
    size_t n = size - 2;

    token_check tc = {s, n, 0, 0};
    if (text_tokenize(s, n, TEXT_LANG_DEFAULT, check_token, &tc) != 0)
        die("text_tokenize failed", n, 0);
    char *folded = text_fold(s, n);
    if (!folded || text_utf8_valid_prefix(folded, strlen(folded)) != strlen(folded))
        die("text_fold is not valid UTF-8", n, 0);
    free(folded);

    chunk_list l;
    dbmcp_error err;
    if (chunk_split(s, n, &o, &l, &err) != 0)
        die(err.message, n, 0);
    check_chunks(s, n, &o, &l);
    chunk_list_free(&l);
    return 0;
}
