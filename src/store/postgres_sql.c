/*
 * postgres_sql.c — :name parameters to $n, one statement only (see
 * postgres_sql.h).
 *
 * One pass over the text. Spans the server reads as data or comment
 * (strings, quoted identifiers, dollar-quoted bodies, comments) are copied
 * unread; words are copied whole (so E'…' is seen as an escape string and
 * a '$' inside a word is not a dollar quote); a ':' starts a parameter only
 * when a letter or '_' follows and it is not half of '::' or ':='. The
 * statement ends at a ';' outside parentheses and outside the body of a
 * CREATE FUNCTION … BEGIN ATOMIC … END (whose inner ';' belong to it, as
 * psql also counts them); after it only whitespace, comments and more ';'
 * may follow.
 */
#include "store/postgres_sql.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Letters, digits, '_', '$' and every byte of a multi-byte UTF-8 character:
 * what PostgreSQL's lexer lets continue an identifier. */
static int is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c >= 0x80;
}

static int is_word_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the quoted span that starts at s (its opening quote q), with
 * doubled quotes inside and, when backslash, backslash escapes; to the end
 * of the text when it is not closed (the server then reports it). */
static size_t quoted_len(const char *s, char q, int backslash)
{
    size_t i = 1;
    while (s[i]) {
        if (backslash && s[i] == '\\' && s[i + 1]) {
            i += 2;
        } else if (s[i] == q) {
            if (s[i + 1] != q)
                return i + 1;
            i += 2;
        } else {
            i++;
        }
    }
    return i;
}

/* Length of the comment at s ("--" to the end of the line, or a nested
 * slash-star comment), or 0 when s starts none. */
static size_t comment_len(const char *s)
{
    if (s[0] == '-' && s[1] == '-')
        return strcspn(s, "\n");
    if (s[0] != '/' || s[1] != '*')
        return 0;
    size_t i = 2;
    int depth = 1;
    while (s[i] && depth > 0) {
        if (s[i] == '/' && s[i + 1] == '*') {
            depth++;
            i += 2;
        } else if (s[i] == '*' && s[i + 1] == '/') {
            depth--;
            i += 2;
        } else {
            i++;
        }
    }
    return i;
}

/* Length of the $tag$…$tag$ span at s (s[0] == '$', not inside a word),
 * or 0 when s does not open one. */
static size_t dollar_len(const char *s)
{
    size_t t = 1;
    if (s[t] != '$') {
        if (!is_word_start((unsigned char)s[t]))
            return 0;
        while (is_word_char((unsigned char)s[t]) && s[t] != '$')
            t++;
        if (s[t] != '$')
            return 0;
    }
    size_t tag = t + 1; /* bytes of "$tag$" */
    const char *p = s + tag;
    for (;;) {
        const char *end = strchr(p, '$');
        if (!end)
            return tag + strlen(s + tag);
        if (strncmp(end, s, tag) == 0)
            return (size_t)(end - s) + tag;
        p = end + 1;
    }
}

/* Length of whitespace and comments at s. */
static size_t trivia_len(const char *s)
{
    size_t i = 0;
    for (;;) {
        size_t c;
        if (is_space((unsigned char)s[i]))
            i++;
        else if ((c = comment_len(s + i)) > 0)
            i += c;
        else
            return i;
    }
}

static int word_is(const char *w, size_t n, const char *keyword)
{
    return strlen(keyword) == n && strncasecmp(w, keyword, n) == 0;
}

/* The scanner's view of the statement so far, for pg_sql_kind and for where
 * a ';' ends it. */
typedef struct sql_words {
    char first[8];  /* the first keyword, lowercased, cut to fit ("" before it) */
    int create;     /* the statement is a CREATE: BEGIN/CASE … END bodies nest */
    int body_depth; /* open BEGIN/CASE bodies of a CREATE (';' inside belong to it) */
    int dml;        /* INSERT, UPDATE, DELETE or MERGE appeared as a word */
} sql_words;

static void note_word(sql_words *w, const char *s, size_t n)
{
    if (!w->first[0]) {
        size_t k = n < sizeof w->first - 1 ? n : sizeof w->first - 1;
        for (size_t i = 0; i < k; i++)
            w->first[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
        w->first[k] = '\0';
        w->create = word_is(s, n, "create");
        return;
    }
    if (word_is(s, n, "insert") || word_is(s, n, "update") || word_is(s, n, "delete") ||
        word_is(s, n, "merge"))
        w->dml = 1;
    if (w->create && (word_is(s, n, "begin") || word_is(s, n, "case")))
        w->body_depth++;
    else if (w->create && w->body_depth > 0 && word_is(s, n, "end"))
        w->body_depth--;
}

static pg_sql_kind kind_of(const sql_words *w)
{
    const char *f = w->first;
    if (strcmp(f, "explain") == 0)
        return PG_SQL_EXPLAIN;
    if (w->dml)
        return PG_SQL_OTHER;
    if (strcmp(f, "select") == 0 || strcmp(f, "values") == 0 || strcmp(f, "table") == 0 ||
        strcmp(f, "show") == 0 || strcmp(f, "with") == 0)
        return PG_SQL_QUERY;
    return PG_SQL_OTHER;
}

void pg_sql_free(pg_sql *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_names; i++)
        free(s->names[i]);
    free(s->names);
    free(s->text);
    memset(s, 0, sizeof *s);
}

/* The $n of parameter ":name" (name n bytes long, colon included), adding
 * it when new. 0 when out of memory or past PG_SQL_MAX_PARAMS (*err_code
 * says which). */
static int param_number(pg_sql *out, int *cap, const char *name, size_t n, int *err_code)
{
    for (int i = 0; i < out->n_names; i++)
        if (strlen(out->names[i]) == n && memcmp(out->names[i], name, n) == 0)
            return i + 1;
    if (out->n_names >= PG_SQL_MAX_PARAMS) {
        *err_code = DBMCP_ETOOBIG;
        return 0;
    }
    if (out->n_names == *cap) {
        int grown_cap = *cap ? *cap * 2 : 8;
        char **grown = realloc(out->names, (size_t)grown_cap * sizeof *grown);
        if (!grown) {
            *err_code = DBMCP_ENOMEM;
            return 0;
        }
        out->names = grown;
        *cap = grown_cap;
    }
    if (!(out->names[out->n_names] = strndup(name, n))) {
        *err_code = DBMCP_ENOMEM;
        return 0;
    }
    return ++out->n_names;
}

static int rewrite_fail(pg_sql *out, strbuf *b, dbmcp_error *err, int code, const char *msg)
{
    strbuf_free(b);
    pg_sql_free(out);
    return dbmcp_error_set(err, code, "%s", msg);
}

int pg_sql_rewrite(const char *sql, int backslash_quotes, pg_sql *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    strbuf b = {0};
    sql_words words = {0};
    int names_cap = 0, depth = 0, tokens = 0;
    const char *s = sql;
    size_t i = 0;
    while (s[i]) {
        unsigned char c = (unsigned char)s[i];
        size_t n;
        if (is_space(c)) {
            strbuf_add(&b, s + i, 1);
            i++;
            continue;
        }
        if ((n = comment_len(s + i)) > 0) {
            strbuf_add(&b, s + i, n);
            i += n;
            continue;
        }
        tokens++;
        if (is_word_start(c)) {
            for (n = 1; is_word_char((unsigned char)s[i + n]);)
                n++;
            note_word(&words, s + i, n);
            strbuf_add(&b, s + i, n);
            /* E'…' takes backslash escapes whatever the server's setting. */
            if (n == 1 && (c == 'E' || c == 'e') && s[i + 1] == '\'') {
                size_t q = quoted_len(s + i + 1, '\'', 1);
                strbuf_add(&b, s + i + 1, q);
                n += q;
            }
            i += n;
        } else if (is_digit(c)) {
            for (n = 1; is_word_char((unsigned char)s[i + n]) || s[i + n] == '.';)
                n++;
            strbuf_add(&b, s + i, n);
            i += n;
        } else if (c == '\'' || c == '"') {
            n = quoted_len(s + i, (char)c, c == '\'' && backslash_quotes);
            strbuf_add(&b, s + i, n);
            i += n;
        } else if (c == '$') {
            if (is_digit((unsigned char)s[i + 1]))
                return rewrite_fail(out, &b, err, DBMCP_EINVAL,
                                    "use :name parameters; $n parameters are not supported");
            n = dollar_len(s + i);
            n = n ? n : 1;
            strbuf_add(&b, s + i, n);
            i += n;
        } else if (c == ':' && (s[i + 1] == ':' || s[i + 1] == '=')) {
            strbuf_add(&b, s + i, 2);
            i += 2;
        } else if (c == ':' && is_word_start((unsigned char)s[i + 1]) &&
                   (unsigned char)s[i + 1] < 0x80) {
            for (n = 2; is_word_char((unsigned char)s[i + n]) && s[i + n] != '$' &&
                        (unsigned char)s[i + n] < 0x80;)
                n++;
            int code = 0;
            int number = param_number(out, &names_cap, s + i, n, &code);
            if (!number)
                return rewrite_fail(out, &b, err, code,
                                    code == DBMCP_ETOOBIG
                                        ? "the statement has more parameters than PostgreSQL takes"
                                        : "out of memory");
            char ref[16];
            int len = snprintf(ref, sizeof ref, "$%d", number);
            strbuf_add(&b, ref, (size_t)len);
            i += n;
        } else if (c == ';' && depth <= 0 && words.body_depth == 0) {
            tokens--;
            size_t j = i;
            while (s[j] == ';')
                j += 1 + trivia_len(s + j + 1);
            if (s[j])
                return rewrite_fail(out, &b, err, DBMCP_EINVAL, "only one statement is allowed");
            break;
        } else {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            strbuf_add(&b, s + i, 1);
            i++;
        }
    }
    if (b.oom)
        return rewrite_fail(out, &b, err, DBMCP_ENOMEM, "out of memory");
    if (tokens == 0)
        return rewrite_fail(out, &b, err, DBMCP_EINVAL, "empty statement");
    out->text = b.data;
    out->kind = kind_of(&words);
    return 0;
}

long pg_sql_explain_target(const char *text, int *analyze)
{
    *analyze = 0;
    size_t i = trivia_len(text);
    if (strncasecmp(text + i, "explain", 7) != 0 || is_word_char((unsigned char)text[i + 7]))
        return -1;
    i += 7;
    i += trivia_len(text + i);
    if (text[i] == '(') {
        /* EXPLAIN (option [value], …): ANALYZE anywhere in the list counts,
         * even "ANALYZE false" (the cautious answer). */
        int depth = 0;
        do {
            if (text[i] == '(')
                depth++;
            else if (text[i] == ')')
                depth--;
            if (is_word_start((unsigned char)text[i])) {
                size_t n = 1;
                while (is_word_char((unsigned char)text[i + n]))
                    n++;
                if (word_is(text + i, n, "analyze") || word_is(text + i, n, "analyse"))
                    *analyze = 1;
                i += n;
                continue;
            }
            i++;
        } while (text[i] && depth > 0);
        return (long)(i + trivia_len(text + i));
    }
    /* EXPLAIN [ANALYZE] [VERBOSE] statement */
    for (;;) {
        size_t n = 0;
        while (is_word_char((unsigned char)text[i + n]))
            n++;
        int is_analyze = word_is(text + i, n, "analyze") || word_is(text + i, n, "analyse");
        if (!is_analyze && !word_is(text + i, n, "verbose"))
            return (long)i;
        *analyze |= is_analyze;
        i += n;
        i += trivia_len(text + i);
    }
}
