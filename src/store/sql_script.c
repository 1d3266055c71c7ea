/*
 * sql_script.c — scripts of several statements (store.h, "scripts"):
 * where the first statement of a text ends, preparing a script's
 * statements one after another, and identifiers quoted for SQL text.
 *
 * store_prepare takes exactly one statement, and an engine's own way of
 * finding the next one (SQLite's tail pointer) exists in one driver only,
 * so the end of a statement is found here by a small lexer both dialects
 * share: it knows the quotes of both ('…' with '' inside, E'…' with
 * backslash escapes, "…", `…`, […] and PostgreSQL's $tag$…$tag$), both
 * comment forms, and the two statements whose bodies hold semicolons of
 * their own: CREATE TRIGGER … BEGIN … END (SQLite) and CREATE FUNCTION or
 * PROCEDURE … BEGIN ATOMIC … END (PostgreSQL). Inside such a body, CASE …
 * END pairs are counted so a CASE's END does not end the body.
 *
 * It checks no syntax: text it splits wrongly (an unterminated quote, say)
 * reaches the engine, whose prepare reports the error.
 */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_word_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int is_word_char(unsigned char c)
{
    return is_word_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/* Past the quoted text starting at p (the opening quote `open`, closed by
 * `close`); a doubled closing quote stands for itself, and with backslash a
 * backslash escapes the next byte. The end of the text when unterminated. */
static const char *skip_quoted(const char *p, char close, int backslash)
{
    for (p++; *p; p++) {
        if (backslash && *p == '\\' && p[1]) {
            p++;
        } else if (*p == close) {
            if (p[1] != close || close == ']')
                return p + 1;
            p++;
        }
    }
    return p;
}

/* Length of the opening tag of a dollar quote at p ("$$" or "$name$"), 0
 * when p starts none (a "$1" parameter, a lone '$'). */
static size_t dollar_tag_length(const char *p)
{
    size_t n = 1;
    if (p[n] != '$') {
        if (!is_word_start((unsigned char)p[n]))
            return 0;
        while (is_word_char((unsigned char)p[n]) && p[n] != '$')
            n++;
        if (p[n] != '$')
            return 0;
    }
    return n + 1;
}

/* Past the comment at p (p starts "--" or a block comment). */
static const char *skip_comment(const char *p)
{
    if (p[0] == '-') {
        while (*p && *p != '\n')
            p++;
        return p;
    }
    const char *end = strstr(p + 2, "*/");
    return end ? end + 2 : p + strlen(p);
}

static int word_is(const char *w, size_t n, const char *keyword)
{
    return strlen(keyword) == n && strncasecmp(w, keyword, n) == 0;
}

/* Where a statement is, as far as its words tell whether a ';' ends it. */
typedef struct statement_state {
    int words;       /* words seen so far */
    int create;      /* the first word is CREATE */
    int trigger;     /* … and TRIGGER followed it */
    int after_begin; /* the last word was BEGIN (ATOMIC may follow) */
    int body;        /* inside a BEGIN … END body: ';' does not end the statement */
    int cases;       /* CASE … END pairs open inside the body */
} statement_state;

static void statement_word(statement_state *s, const char *w, size_t n)
{
    int after_begin = s->after_begin;
    s->after_begin = 0;
    if (s->words++ == 0) {
        s->create = word_is(w, n, "CREATE");
        return;
    }
    if (!s->create)
        return;
    if (!s->body) {
        if (word_is(w, n, "TRIGGER"))
            s->trigger = 1;
        else if (word_is(w, n, "BEGIN") && s->trigger)
            s->body = 1;
        else if (word_is(w, n, "BEGIN"))
            s->after_begin = 1;
        else if (word_is(w, n, "ATOMIC") && after_begin)
            s->body = 1;
        return;
    }
    if (word_is(w, n, "CASE"))
        s->cases++;
    else if (word_is(w, n, "END") && s->cases)
        s->cases--;
    else if (word_is(w, n, "END"))
        s->body = 0;
}

size_t store_statement_length(const char *sql)
{
    statement_state s = {0};
    const char *p = sql;
    while (*p) {
        unsigned char c = (unsigned char)*p;
        if (c == ';' && !s.body)
            return (size_t)(p + 1 - sql);
        if (c == '\'' || c == '"' || c == '`') {
            p = skip_quoted(p, (char)c, 0);
        } else if (c == '[') {
            p = skip_quoted(p, ']', 0);
        } else if ((c == '-' && p[1] == '-') || (c == '/' && p[1] == '*')) {
            p = skip_comment(p);
        } else if (c == '$' && dollar_tag_length(p)) {
            size_t n = dollar_tag_length(p);
            const char *close = strstr(p + n, "$");
            while (close && strncmp(close, p, n) != 0)
                close = strstr(close + 1, "$");
            p = close ? close + n : p + strlen(p);
        } else if (is_word_start(c)) {
            const char *w = p;
            while (is_word_char((unsigned char)*p))
                p++;
            /* E'…': PostgreSQL's string with backslash escapes. */
            if (p - w == 1 && (*w == 'E' || *w == 'e') && *p == '\'')
                p = skip_quoted(p, '\'', 1);
            else
                statement_word(&s, w, (size_t)(p - w));
        } else if (c >= '0' && c <= '9') {
            while (is_word_char((unsigned char)*p) || *p == '.')
                p++;
        } else {
            p++;
        }
    }
    return (size_t)(p - sql);
}

/* Nonzero when the n bytes at p hold only whitespace, semicolons and
 * comments: nothing to run. */
static int nothing_to_run(const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == ';') {
            p++;
        } else if ((p[0] == '-' && p + 1 < end && p[1] == '-') ||
                   (p[0] == '/' && p + 1 < end && p[1] == '*')) {
            p = skip_comment(p);
        } else {
            return 0;
        }
    }
    return 1;
}

int store_prepare_next(store *db, const char **sql, store_stmt **out, dbmcp_error *err)
{
    *out = NULL;
    for (;;) {
        const char *p = *sql;
        size_t n = store_statement_length(p);
        if (n == 0)
            return 0;
        if (nothing_to_run(p, n)) {
            *sql = p + n;
            continue;
        }
        char *one = strndup(p, n);
        if (!one)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        int rc = store_prepare(db, one, out, err);
        free(one);
        if (rc)
            return rc;
        *sql = p + n;
        return 0;
    }
}

char *store_ident_quote(const char *name)
{
    size_t len = 3;
    for (const char *p = name; *p; p++)
        len += *p == '"' ? 2 : 1;
    char *q = malloc(len), *o = q;
    if (!q)
        return NULL;
    *o++ = '"';
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            *o++ = '"';
        *o++ = *p;
    }
    *o++ = '"';
    *o = '\0';
    return q;
}
