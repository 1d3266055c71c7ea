/*
 * fts_query.c — free-text query → safe FTS5 MATCH expression (contract
 * and syntax in fts_query.h).
 *
 * Safety comes from one rule: every term leaves as an FTS5 string, "…"
 * with '"' doubled, and only this file writes operators (AND, OR, NOT and
 * parentheses) between them. A term whose text has no token for the
 * tokenizer is dropped here, so no empty string reaches FTS5; white space
 * includes every control character, so no NUL hides inside a term.
 */
#include "search/fts_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/textnorm.h"
#include "search/content_words.h"

/* A growable output string, and the phrases written into it. */
typedef struct sbuf {
    strbuf text;          /* the expression; an append that failed sets text.oom */
    size_t strings;       /* FTS5 strings (phrases) written */
    char **phrases;       /* owned: the text of each, in order */
    fts_term_kind *kinds; /* owned: the kind of each */
    size_t phrases_cap;   /* entries allocated in both */
} sbuf;

/* Length of the white space character at s[0..n), or 0 when there is none. */
static size_t space_at(const char *s, size_t n)
{
    int32_t cp;
    size_t len = text_utf8_decode(s, n, &cp);
    return len && text_is_space(cp) ? len : 0;
}

static int count_token(void *ctx, const char *t, size_t len, size_t start, size_t end,
                       int colocated)
{
    (void)t, (void)len, (void)start, (void)end, (void)colocated;
    ++*(int *)ctx;
    return 1; /* one is enough */
}

static int has_words(const char *s, size_t n)
{
    int count = 0;
    text_tokenize(s, n, TEXT_LANG_NONE, count_token, &count);
    return count > 0;
}

void fts_query_free(fts_query *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->count; i++)
        free(q->terms[i].text);
    free(q->terms);
    q->terms = NULL;
    q->count = 0;
}

static int add_term(fts_query *q, size_t *cap, fts_term_kind kind, int phrase, const char *s,
                    size_t n)
{
    if (q->count == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        fts_term *g = realloc(q->terms, c * sizeof *g);
        if (!g)
            return DBMCP_ENOMEM;
        q->terms = g;
        *cap = c;
    }
    char *text = strndup(s, n);
    if (!text)
        return DBMCP_ENOMEM;
    q->terms[q->count++] = (fts_term){kind, phrase, text};
    return 0;
}

/* The operator before a term at s[0..n): '+' or a '-' not followed by a
 * digit, white space or the end. Returns its kind and sets *skip. */
static fts_term_kind term_operator(const char *s, size_t n, fts_term_kind plain, size_t *skip)
{
    *skip = 0;
    if (s[0] == '+') {
        *skip = 1;
        return FTS_TERM_REQUIRED;
    }
    if (s[0] == '-' && n > 1 && !(s[1] >= '0' && s[1] <= '9') && !space_at(s + 1, n - 1)) {
        *skip = 1;
        return FTS_TERM_EXCLUDED;
    }
    return plain;
}

/* Scan the terms of query[0..n) into out (n checked by the caller);
 * *total gets the number of terms with words, kept or not. */
static int scan_terms(const char *query, size_t n, int flags, fts_query *out, size_t *total)
{
    fts_term_kind plain = (flags & FTS_QUERY_ALL_TERMS) ? FTS_TERM_REQUIRED : FTS_TERM_ANY;
    size_t cap = 0, i = 0;
    *total = 0;
    while (i < n) {
        size_t sp = space_at(query + i, n - i);
        if (sp) {
            i += sp;
            continue;
        }
        size_t skip;
        fts_term_kind kind = term_operator(query + i, n - i, plain, &skip);
        i += skip;
        int phrase = i < n && query[i] == '"';
        size_t start = i + (size_t)phrase, end = start;
        if (phrase) {
            while (end < n && query[end] != '"')
                end++;
            i = end < n ? end + 1 : end;
        } else {
            while (end < n && query[end] != '"' && !space_at(query + end, n - end))
                end++;
            i = end;
        }
        if (end == start || !has_words(query + start, end - start))
            continue;
        if (++*total > FTS_QUERY_MAX_TERMS)
            continue;
        if (add_term(out, &cap, kind, phrase, query + start, end - start))
            return DBMCP_ENOMEM;
    }
    return 0;
}

int fts_query_parse(const char *query, size_t n, int flags, fts_query *out, dbmcp_error *err)
{
    out->terms = NULL;
    out->count = 0;
    if (!query)
        n = 0;
    if (n > FTS_QUERY_MAX_BYTES)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "query is %zu bytes; the limit is %d", n,
                               FTS_QUERY_MAX_BYTES);
    size_t valid = n ? text_utf8_valid_prefix(query, n) : 0;
    if (valid < n)
        return dbmcp_error_set(err, DBMCP_EINVAL, "query is not valid UTF-8 (byte %zu)", valid);
    size_t total;
    if (scan_terms(query, n, flags, out, &total)) {
        fts_query_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    if (total > FTS_QUERY_MAX_TERMS) {
        fts_query_free(out);
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "query has %zu terms; the limit is %d", total,
                               FTS_QUERY_MAX_TERMS);
    }
    int positive = 0;
    for (size_t i = 0; i < out->count; i++)
        positive |= out->terms[i].kind != FTS_TERM_EXCLUDED;
    if (!positive) {
        int excluded = out->count > 0;
        fts_query_free(out);
        if (excluded)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "query has only excluded words; add a word to search for");
        return dbmcp_error_set(err, DBMCP_EINVAL, "query has no searchable words");
    }
    return 0;
}

/* Remember the text and kind of the phrase being written. */
static void note_phrase(sbuf *b, const char *text, fts_term_kind kind)
{
    if (b->text.oom)
        return;
    if (b->strings == b->phrases_cap) {
        size_t cap = b->phrases_cap ? b->phrases_cap * 2 : 16;
        char **p = realloc(b->phrases, cap * sizeof *p);
        if (p)
            b->phrases = p;
        fts_term_kind *k = p ? realloc(b->kinds, cap * sizeof *k) : NULL;
        if (k)
            b->kinds = k;
        if (!p || !k) {
            b->text.oom = 1;
            return;
        }
        b->phrases_cap = cap;
    }
    if (!(b->phrases[b->strings] = strdup(text))) {
        b->text.oom = 1;
        return;
    }
    b->kinds[b->strings] = kind;
}

/* Append term t as an FTS5 string, a phrase of the given kind. */
static void add_string(sbuf *b, const fts_term *t, fts_term_kind kind)
{
    note_phrase(b, t->text, kind);
    if (b->text.oom)
        return;
    b->strings++;
    strbuf_add(&b->text, "\"", 1);
    for (const char *p = t->text; *p; p++)
        strbuf_add(&b->text, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    strbuf_add(&b->text, "\"", 1);
}

/* Append the terms of one kind joined by op; returns how many. */
static size_t add_group(sbuf *b, const fts_query *q, fts_term_kind kind, const char *op)
{
    size_t k = 0;
    for (size_t i = 0; i < q->count; i++) {
        if (q->terms[i].kind != kind)
            continue;
        if (k++)
            strbuf_str(&b->text, op);
        add_string(b, &q->terms[i], kind);
    }
    return k;
}

/* The optional group: the optional terms joined by OR, a plain term that
 * the tokenizer splits into several tokens (a CJK run into bigrams,
 * "Caroline's", "e-mail") as one string per token, each token once. Plain
 * function words ("what", "is", "wie"; search/content_words.h) are left
 * out when the query has other words to search for. */
typedef struct any_string {
    char *key;    /* owned: the folded token (phrase: folded words) */
    char *text;   /* owned: the input bytes that give it */
    int function; /* a function word */
} any_string;

typedef struct any_group {
    const char *text; /* the term being split */
    any_string *s;    /* owned: distinct strings in query order */
    size_t n, cap;
    int oom;
} any_group;

static void any_add(any_group *g, const char *key, size_t len, const char *s, size_t n,
                    int maybe_function)
{
    if (g->n >= FTS_QUERY_MAX_TOKENS)
        return;
    int function = maybe_function && content_is_function_word(key, len);
    for (size_t i = 0; i < g->n; i++)
        if (strlen(g->s[i].key) == len && memcmp(g->s[i].key, key, len) == 0) {
            g->s[i].function &= function; /* "the" then "\"the\"": searched */
            return;
        }
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        any_string *grown = realloc(g->s, cap * sizeof *grown);
        if (!grown) {
            g->oom = 1;
            return;
        }
        g->s = grown;
        g->cap = cap;
    }
    any_string a = {strndup(key, len), strndup(s, n), function};
    if (!a.key || !a.text) {
        free(a.key);
        free(a.text);
        g->oom = 1;
        return;
    }
    g->s[g->n++] = a;
}

/* Token callback: the input bytes of each token (not its colocated stems)
 * become one string; re-tokenised they give that token again. */
static int any_token(void *ctx, const char *t, size_t len, size_t start, size_t end, int colocated)
{
    any_group *g = ctx;
    if (!colocated)
        any_add(g, t, len, g->text + start, end - start, 1);
    return g->oom;
}

static int count_position(void *ctx, const char *t, size_t len, size_t start, size_t end,
                          int colocated)
{
    (void)t, (void)len, (void)start, (void)end;
    *(int *)ctx += !colocated;
    return *(int *)ctx > 1; /* two are enough to know */
}

static void any_collect(any_group *g, const fts_term *t)
{
    size_t len = strlen(t->text);
    int tokens = 0;
    if (!t->phrase)
        text_tokenize(t->text, len, TEXT_LANG_NONE, count_position, &tokens);
    if (tokens > 1) {
        g->text = t->text;
        if (text_tokenize(t->text, len, TEXT_LANG_NONE, any_token, g) == DBMCP_ENOMEM)
            g->oom = 1;
        return;
    }
    char *folded = text_fold(t->text, len);
    if (!folded) {
        g->oom = 1;
        return;
    }
    /* A phrase is keyed by its folded words, so "a b" and "A  b" are one. */
    any_add(g, folded, strlen(folded), t->text, len, !t->phrase);
    free(folded);
}

/* Append the optional group; `others` tells whether the query has
 * required words. Returns the number of strings written. */
static size_t add_any_group(sbuf *b, const fts_query *q, int others, int *oom)
{
    any_group g = {0};
    for (size_t i = 0; i < q->count && !g.oom; i++)
        if (q->terms[i].kind == FTS_TERM_ANY)
            any_collect(&g, &q->terms[i]);
    for (size_t i = 0; i < g.n && !others; i++)
        others = !g.s[i].function;
    size_t emitted = 0;
    for (size_t i = 0; i < g.n; i++) {
        if (others && g.s[i].function)
            continue;
        if (emitted++)
            strbuf_str(&b->text, " OR ");
        add_string(b, &(fts_term){FTS_TERM_ANY, 0, g.s[i].text}, FTS_TERM_ANY);
    }
    for (size_t i = 0; i < g.n; i++) {
        free(g.s[i].key);
        free(g.s[i].text);
    }
    free(g.s);
    *oom |= g.oom;
    return emitted;
}

static const fts_term *first_of(const fts_query *q, fts_term_kind kind)
{
    for (size_t i = 0; i < q->count; i++)
        if (q->terms[i].kind == kind)
            return &q->terms[i];
    return NULL;
}

/* Writes the expression into b; *positive gets the number of phrases
 * before the excluded group, the repeat of the first required term
 * (which only keeps the optional group true) not counted. */
static void build_expression(sbuf *b, const fts_query *q, int *positive)
{
    const fts_term *required = first_of(q, FTS_TERM_REQUIRED);
    int excluded = first_of(q, FTS_TERM_EXCLUDED) != NULL;
    int oom = 0;
    if (excluded)
        strbuf_str(&b->text, "(");
    if (!required) {
        add_any_group(b, q, 0, &oom);
        *positive = (int)b->strings;
    } else {
        add_group(b, q, FTS_TERM_REQUIRED, " AND ");
        *positive = (int)b->strings;
        if (first_of(q, FTS_TERM_ANY)) {
            strbuf_str(&b->text, " AND (");
            size_t optional = add_any_group(b, q, 1, &oom);
            *positive = (int)b->strings;
            if (optional)
                strbuf_str(&b->text, " OR ");
            add_string(b, required, FTS_TERM_ANY); /* keeps the group true */
            strbuf_str(&b->text, ")");
        }
    }
    b->text.oom |= oom;
    if (excluded) {
        strbuf_str(&b->text, ") NOT (");
        add_group(b, q, FTS_TERM_EXCLUDED, " OR ");
        strbuf_str(&b->text, ")");
    }
}

static void sbuf_free_phrases(sbuf *b)
{
    for (size_t i = 0; b->phrases && i < b->strings; i++)
        free(b->phrases[i]);
    free(b->phrases);
    free(b->kinds);
    b->phrases = NULL;
    b->kinds = NULL;
}

int fts_match_build(const char *query, size_t n, int flags, fts_match *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    fts_query q;
    int rc = fts_query_parse(query, n, flags, &q, err);
    if (rc)
        return rc;
    sbuf b = {0};
    int positive = 0;
    build_expression(&b, &q, &positive);
    fts_query_free(&q);
    if (b.text.oom) {
        strbuf_free(&b.text);
        sbuf_free_phrases(&b);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    *out = (fts_match){b.text.data, positive, b.phrases, b.kinds, b.strings};
    return 0;
}

void fts_match_free(fts_match *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++)
        free(m->phrases[i]);
    free(m->phrases);
    free(m->kinds);
    free(m->expression);
    memset(m, 0, sizeof *m);
}

int fts_query_build(const char *query, size_t n, int flags, char **match, int *positive,
                    dbmcp_error *err)
{
    *match = NULL;
    if (positive)
        *positive = 0;
    fts_match m;
    int rc = fts_match_build(query, n, flags, &m, err);
    if (rc)
        return rc;
    *match = m.expression;
    m.expression = NULL;
    if (positive)
        *positive = m.positive;
    fts_match_free(&m);
    return 0;
}
