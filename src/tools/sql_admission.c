/*
 * sql_admission.c — text admission of agent SQL: a lexer that tokenises
 * like SQLite's own tokenizer (tokenize.c) and one pass over its tokens
 * that applies the rules listed in sql_admission.h.
 *
 * Where this lexer and SQLite's could disagree, they do so only on text
 * SQLite refuses as an illegal token (a malformed blob, a lone ':'), so a
 * query that passes here and runs there was read the same way by both.
 *
 * Function calls are found as a name (bare or quoted) followed by '('. The
 * one other thing with that shape in a query is a common table expression
 * with a column list, `WITH name(a, b) AS (…)`: a name before '(' is
 * therefore judged when its ')' is reached — followed by AS [NOT]
 * [MATERIALIZED] '(' it named a CTE, otherwise it was a call. Open '('
 * are kept on a small fixed stack; deeper than that, a name before '(' is
 * judged as a call at once (stricter, never looser).
 */
#include "tools/sql_admission.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Open parentheses tracked for CTE-versus-call decisions. */
#define ADMISSION_PAREN_STACK 128
/* Longest name quoted back in a refusal, in bytes. */
#define ADMISSION_NAME_SHOWN 64

const char sql_admission_default_functions[] =
    /* core scalar */
    "abs,char,coalesce,concat,concat_ws,glob,hex,ifnull,iif,instr,length,like,likelihood,likely,"
    "lower,ltrim,max,min,nullif,octet_length,quote,random,randomblob,replace,round,rtrim,sign,"
    "soundex,substr,substring,trim,typeof,unhex,unicode,unlikely,upper,zeroblob,"
    /* aggregate */
    "avg,count,group_concat,string_agg,sum,total,"
    /* window */
    "row_number,rank,dense_rank,percent_rank,cume_dist,ntile,lag,lead,first_value,last_value,"
    "nth_value,"
    /* date and time */
    "date,time,datetime,julianday,unixepoch,strftime,timediff,current_date,current_time,"
    "current_timestamp,"
    /* math */
    "acos,acosh,asin,asinh,atan,atan2,atanh,ceil,ceiling,cos,cosh,degrees,exp,floor,ln,log,log10,"
    "log2,mod,pi,pow,power,radians,sin,sinh,sqrt,tan,tanh,trunc,"
    /* JSON (values; json_each and json_tree are read-only table functions) */
    "json,json_array,json_array_length,json_extract,json_insert,json_object,json_quote,"
    "json_remove,json_replace,json_set,json_type,json_valid,json_group_array,json_group_object,"
    "json_each,json_tree,->,->>,"
    /* full-text search on the user's own FTS tables */
    "match,bm25,highlight,snippet,"
    /* vectors (store/sqlite_vecfn.h). Not embed(): one call runs the
     * embedder (tokenising its input, or an HTTP request), far more work
     * per row than any other function here; an operator may add it. */
    "vector_distance";

/* Never callable, whatever query.functions says: they reach files or
 * engine state. */
static const char *const never_functions[] = {
    "load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "fsdir", NULL};

/* Bare words that start a statement which changes something. */
static const char *const write_keywords[] = {
    "insert",   "update",    "delete",  "replace",   "create", "drop",
    "alter",    "vacuum",    "reindex", "analyze",   "begin",  "commit",
    "rollback", "savepoint", "release", "returning", NULL};

/* Keywords that may stand before '(' without being a function call. */
static const char *const paren_keywords[] = {
    "all",       "and",       "as",        "asc",       "between",   "by",           "case",
    "cast",      "collate",   "cross",     "current",   "default",   "desc",         "distinct",
    "do",        "else",      "end",       "escape",    "except",    "exclude",      "exists",
    "filter",    "first",     "following", "from",      "full",      "group",        "groups",
    "having",    "in",        "indexed",   "inner",     "intersect", "into",         "is",
    "isnull",    "join",      "last",      "left",      "limit",     "materialized", "natural",
    "not",       "notnull",   "null",      "nulls",     "offset",    "on",           "or",
    "order",     "outer",     "over",      "partition", "preceding", "raise",        "range",
    "recursive", "right",     "row",       "rows",      "select",    "set",          "table",
    "then",      "unbounded", "union",     "using",     "values",    "when",         "where",
    "window",    "with",      NULL};

/* Bare words that are function calls without parentheses. */
static const char *const operator_functions[] = {
    "like", "glob", "match", "regexp", "current_date", "current_time", "current_timestamp", NULL};

/* ------------------------------------------------------------------------ */
/* characters                                                                */

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* SQLite's IdChar: letters, digits, '_', '$' and every byte of a non-ASCII
 * character. */
static int is_id_char(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c >= 0x80;
}

static int is_id_start(unsigned char c)
{
    return is_alpha(c) || c == '_' || c >= 0x80;
}

/* ------------------------------------------------------------------------ */
/* the lexer                                                                 */

/* Skip whitespace and comments from *pos. Returns 0, or -1 when a block
 * comment is never closed (*pos is then at its start). */
static int skip_blank(const char *s, size_t len, size_t *pos)
{
    size_t i = *pos;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/'))
                j++;
            if (j + 1 >= len) {
                *pos = i;
                return -1;
            }
            i = j + 2;
        } else {
            break;
        }
    }
    *pos = i;
    return 0;
}

/* End of a quoted token opened at s[start] with quote q, where a doubled
 * q stands for itself; 0 when never closed. */
static size_t quoted_end(const char *s, size_t len, size_t start, char q)
{
    for (size_t i = start + 1; i < len; i++) {
        if (s[i] != q)
            continue;
        if (i + 1 < len && s[i + 1] == q) {
            i++;
            continue;
        }
        return i + 1;
    }
    return 0;
}

static size_t number_end(const char *s, size_t len, size_t i)
{
    int hex = s[i] == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X');
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (!hex && (c == 'e' || c == 'E') && i + 1 < len && (s[i + 1] == '+' || s[i + 1] == '-'))
            i += 2;
        else if (is_id_char(c) || c == '.')
            i++;
        else
            break;
    }
    return i;
}

static sql_token_kind set_token(sql_token *tok, sql_token_kind kind, size_t offset, size_t end,
                                size_t *pos)
{
    tok->kind = kind;
    tok->offset = offset;
    tok->length = end - offset;
    *pos = end;
    return kind;
}

sql_token_kind sql_next_token(const char *s, size_t len, size_t *pos, sql_token *tok)
{
    size_t i = *pos;
    if (skip_blank(s, len, &i) != 0)
        return set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    if (i >= len)
        return set_token(tok, SQL_TOKEN_END, len, len, pos);
    unsigned char c = (unsigned char)s[i];
    size_t end;
    switch (c) {
    case '\'':
        end = quoted_end(s, len, i, '\'');
        return end ? set_token(tok, SQL_TOKEN_STRING, i, end, pos)
                   : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    case '"':
    case '`':
        end = quoted_end(s, len, i, (char)c);
        return end ? set_token(tok, SQL_TOKEN_QUOTED_NAME, i, end, pos)
                   : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    case '[': {
        const char *close = memchr(s + i, ']', len - i);
        return close ? set_token(tok, SQL_TOKEN_QUOTED_NAME, i, (size_t)(close - s) + 1, pos)
                     : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    }
    case '(': return set_token(tok, SQL_TOKEN_LPAREN, i, i + 1, pos);
    case ')': return set_token(tok, SQL_TOKEN_RPAREN, i, i + 1, pos);
    case ';': return set_token(tok, SQL_TOKEN_SEMICOLON, i, i + 1, pos);
    case '?':
        for (end = i + 1; end < len && is_digit((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
    case ':':
    case '@':
    case '$':
    case '#':
        for (end = i + 1; end < len && is_id_char((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
    case '-':
        if (i + 1 < len && s[i + 1] == '>')
            return set_token(tok, SQL_TOKEN_OPERATOR, i,
                             i + (i + 2 < len && s[i + 2] == '>' ? 3 : 2), pos);
        return set_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
    default: break;
    }
    if ((c == 'x' || c == 'X') && i + 1 < len && s[i + 1] == '\'') {
        const char *close = memchr(s + i + 2, '\'', len - i - 2);
        return close ? set_token(tok, SQL_TOKEN_BLOB, i, (size_t)(close - s) + 1, pos)
                     : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    }
    if (is_digit(c) || (c == '.' && i + 1 < len && is_digit((unsigned char)s[i + 1])))
        return set_token(tok, SQL_TOKEN_NUMBER, i, number_end(s, len, i), pos);
    if (is_id_start(c)) {
        for (end = i + 1; end < len && is_id_char((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_WORD, i, end, pos);
    }
    return set_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
}

/* ------------------------------------------------------------------------ */
/* names                                                                     */

/* A token's name: a bare word as is, a quoted name without its quotes and
 * with doubled quotes undone. Cut to fit out (size > 0). */
static void token_name(const char *s, const sql_token *t, char *out, size_t size)
{
    size_t n = 0;
    if (t->kind != SQL_TOKEN_QUOTED_NAME) {
        n = t->length < size - 1 ? t->length : size - 1;
        memcpy(out, s + t->offset, n);
        out[n] = '\0';
        return;
    }
    char close = s[t->offset] == '[' ? ']' : s[t->offset];
    size_t end = t->offset + t->length - 1;
    for (size_t i = t->offset + 1; i < end && n + 1 < size; i++) {
        out[n++] = s[i];
        if (s[i] == close && close != ']' && i + 1 < end && s[i + 1] == close)
            i++;
    }
    out[n] = '\0';
}

/* Is the bare word at t (case-insensitively) `word`? */
static int word_is(const char *s, const sql_token *t, const char *word)
{
    return t->kind == SQL_TOKEN_WORD && strlen(word) == t->length &&
           strncasecmp(s + t->offset, word, t->length) == 0;
}

static int word_in(const char *s, const sql_token *t, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (word_is(s, t, list[i]))
            return 1;
    return 0;
}

static int name_in(const char *name, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcasecmp(name, list[i]) == 0)
            return 1;
    return 0;
}

static int has_prefix(const char *name, const char *prefix)
{
    return strncasecmp(name, prefix, strlen(prefix)) == 0;
}

/* Is name an entry of the comma-separated list (spaces around entries
 * ignored, case-insensitive)? */
static int csv_contains(const char *csv, const char *name)
{
    size_t n = strlen(name);
    const char *p = csv;
    while (*p) {
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n')
            p++;
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed > 0 &&
               (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t' || p[trimmed - 1] == '\n'))
            trimmed--;
        if (trimmed == n && n > 0 && strncasecmp(p, name, n) == 0)
            return 1;
        p += len;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* refusals                                                                  */

typedef struct admission {
    const char *sql;         /* the text (not owned) */
    size_t len;              /* its bytes */
    const char *functions;   /* allowlist in effect */
    sql_admission_rule rule; /* out: the rule broken */
    dbmcp_error *err;        /* out: the sentence */
} admission;

/* Characters before byte offset `at` (the text is valid UTF-8). */
static size_t char_offset(const char *s, size_t at)
{
    size_t n = 0;
    for (size_t i = 0; i < at; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* Copy a name for a message: at most ADMISSION_NAME_SHOWN bytes, cut on a
 * character boundary, control characters shown as '?'. */
static void shown_name(const char *name, char out[ADMISSION_NAME_SHOWN + 4])
{
    size_t n = strlen(name);
    int cut = n > ADMISSION_NAME_SHOWN;
    if (cut) {
        n = ADMISSION_NAME_SHOWN;
        while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    memcpy(out + n, cut ? "…" : "", cut ? 4 : 1);
    if (cut)
        out[n + 3] = '\0';
}

static int refuse(admission *a, sql_admission_rule rule, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(admission *a, sql_admission_rule rule, int code, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    a->rule = rule;
    return dbmcp_error_set(a->err, code, "Query refused: %s", text);
}

/* ------------------------------------------------------------------------ */
/* the rules                                                                 */

/* Valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF),
 * no NUL, at most max_chars characters. */
static int check_text(admission *a, size_t max_chars)
{
    const unsigned char *s = (const unsigned char *)a->sql;
    size_t chars = 0;
    for (size_t i = 0; i < a->len; chars++) {
        if (chars >= max_chars)
            return refuse(a, SQL_RULE_TOO_LONG, DBMCP_ETOOBIG,
                          "the query is longer than %zu characters; shorten it or aggregate "
                          "in SQL",
                          max_chars);
        unsigned char c = s[i];
        size_t need;
        unsigned lo = 0x80, hi = 0xBF;
        if (c == 0)
            return refuse(a, SQL_RULE_ENCODING, DBMCP_EINVAL,
                          "the query contains a NUL character at offset %zu", chars);
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            need = 0;
        }
        int ok = need > 0 && i + need < a->len;
        for (size_t k = 1; ok && k <= need; k++) {
            unsigned b = s[i + k];
            ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        }
        if (!ok)
            return refuse(a, SQL_RULE_ENCODING, DBMCP_EINVAL,
                          "the query is not valid UTF-8 (bad byte 0x%02X at offset %zu)", c, chars);
        i += need + 1;
    }
    return 0;
}

static int check_function(admission *a, const char *name, size_t offset)
{
    char shown[ADMISSION_NAME_SHOWN + 4];
    shown_name(name, shown);
    if (name_in(name, never_functions))
        return refuse(
            a, strcasecmp(name, "load_extension") == 0 ? SQL_RULE_EXTENSION : SQL_RULE_FUNCTION,
            DBMCP_EDENIED,
            "%s() is never allowed: it reaches files or the engine's state (offset %zu)", shown,
            char_offset(a->sql, offset));
    if (!csv_contains(a->functions, name))
        return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                      "the function %s (offset %zu) is not on this server's list of allowed "
                      "functions; use the common SQLite scalar, aggregate, window, date, math "
                      "and JSON functions",
                      shown, char_offset(a->sql, offset));
    return 0;
}

/* Rules on one name (bare word or quoted): load_extension, pragma_*,
 * internal tables. */
static int check_name(admission *a, const sql_token *t)
{
    char name[256];
    char shown[ADMISSION_NAME_SHOWN + 4];
    token_name(a->sql, t, name, sizeof name);
    shown_name(name, shown);
    if (strcasecmp(name, "load_extension") == 0)
        return refuse(a, SQL_RULE_EXTENSION, DBMCP_EDENIED,
                      "load_extension is never allowed (offset %zu)",
                      char_offset(a->sql, t->offset));
    if (has_prefix(name, "pragma_"))
        return refuse(a, SQL_RULE_PRAGMA, DBMCP_EDENIED,
                      "PRAGMA functions such as %s are not allowed (offset %zu); use the schema "
                      "discovery tools to learn about tables",
                      shown, char_offset(a->sql, t->offset));
    if (has_prefix(name, "dbmcp_") || has_prefix(name, "sqlite_") ||
        strcasecmp(name, "dbstat") == 0)
        return refuse(a, SQL_RULE_INTERNAL, DBMCP_EDENIED,
                      "%s (offset %zu) is internal: names starting with dbmcp_ or sqlite_ and "
                      "dbstat belong to the server and the engine, not to the data you may query",
                      shown, char_offset(a->sql, t->offset));
    return 0;
}

/* Rules on a bare word: statements that write, ATTACH, PRAGMA, operator
 * functions. next is the token after it. */
static int check_word(admission *a, const sql_token *t, const sql_token *next)
{
    char word[32];
    token_name(a->sql, t, word, sizeof word);
    for (char *p = word; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    if (word_in(a->sql, t, write_keywords) &&
        !(word_is(a->sql, t, "replace") && next->kind == SQL_TOKEN_LPAREN))
        return refuse(a, SQL_RULE_WRITE, DBMCP_EDENIED,
                      "only reading is allowed: %s at offset %zu would change the database (a "
                      "column named like a keyword must be written in double quotes)",
                      word, char_offset(a->sql, t->offset));
    if (word_is(a->sql, t, "attach") || word_is(a->sql, t, "detach"))
        return refuse(a, SQL_RULE_ATTACH, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): only this database may be queried", word,
                      char_offset(a->sql, t->offset));
    if (word_is(a->sql, t, "pragma"))
        return refuse(a, SQL_RULE_PRAGMA, DBMCP_EDENIED,
                      "PRAGMA is not allowed (offset %zu); use the schema discovery tools to "
                      "learn about tables",
                      char_offset(a->sql, t->offset));
    if (word_in(a->sql, t, operator_functions) && next->kind != SQL_TOKEN_LPAREN) {
        char lower[32];
        token_name(a->sql, t, lower, sizeof lower);
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        return check_function(a, lower, t->offset);
    }
    return 0;
}

/* Does the text after a ')' at *pos read AS [NOT] [MATERIALIZED] '(' — the
 * shape that makes the name before the matching '(' a CTE name? */
static int cte_follows(const admission *a, size_t pos)
{
    sql_token t;
    sql_next_token(a->sql, a->len, &pos, &t);
    if (!word_is(a->sql, &t, "as"))
        return 0;
    sql_next_token(a->sql, a->len, &pos, &t);
    if (word_is(a->sql, &t, "not"))
        sql_next_token(a->sql, a->len, &pos, &t);
    if (word_is(a->sql, &t, "materialized"))
        sql_next_token(a->sql, a->len, &pos, &t);
    return t.kind == SQL_TOKEN_LPAREN;
}

/* An open '(' and what stood before it. */
typedef struct paren_entry {
    sql_token name; /* the token before '(' */
    int candidate;  /* that token is a name that may be a call */
} paren_entry;

static int check_call(admission *a, const sql_token *name)
{
    char fn[256];
    token_name(a->sql, name, fn, sizeof fn);
    return check_function(a, fn, name->offset);
}

/* A name that, before '(', calls a function (or names a CTE). */
static int callable(const admission *a, const sql_token *t)
{
    return (t->kind == SQL_TOKEN_WORD && !word_in(a->sql, t, paren_keywords)) ||
           t->kind == SQL_TOKEN_QUOTED_NAME;
}

static int check_first(admission *a)
{
    size_t pos = 0;
    sql_token t;
    int parens = 0;
    while (sql_next_token(a->sql, a->len, &pos, &t) == SQL_TOKEN_LPAREN)
        parens = 1;
    if (t.kind == SQL_TOKEN_END && !parens)
        return refuse(a, SQL_RULE_EMPTY, DBMCP_EINVAL,
                      "the query is empty; send one SELECT, WITH or VALUES statement");
    if (t.kind == SQL_TOKEN_UNTERMINATED)
        return 0; /* reported by the main pass, which names what is open */
    if (word_is(a->sql, &t, "select") || word_is(a->sql, &t, "with") ||
        word_is(a->sql, &t, "values"))
        return 0;
    char first[ADMISSION_NAME_SHOWN + 4], name[256];
    if (t.kind == SQL_TOKEN_END)
        snprintf(name, sizeof name, "(");
    else
        token_name(a->sql, &t, name, sizeof name);
    shown_name(name, first);
    return refuse(a, SQL_RULE_FIRST_KEYWORD, DBMCP_EDENIED,
                  "only SELECT, WITH or VALUES queries are allowed, and this one starts with "
                  "\"%s\" (offset %zu)",
                  first, char_offset(a->sql, t.offset));
}

static int check_token(admission *a, const sql_token *t, const sql_token *next)
{
    switch (t->kind) {
    case SQL_TOKEN_UNTERMINATED: {
        char open = a->sql[t->offset];
        const char *what = open == '\'' || open == 'x' || open == 'X' ? "string literal"
                           : open == '/'                              ? "comment"
                                                                      : "quoted name";
        return refuse(a, SQL_RULE_UNTERMINATED, DBMCP_EINVAL,
                      "a %s starting at offset %zu is never closed", what,
                      char_offset(a->sql, t->offset));
    }
    case SQL_TOKEN_SEMICOLON: {
        size_t after = t->offset + 1;
        sql_token rest;
        int trailing = sql_next_token(a->sql, a->len, &after, &rest) == SQL_TOKEN_END;
        return refuse(a, SQL_RULE_SEMICOLON, DBMCP_EDENIED,
                      trailing ? "only one statement is allowed and ';' may not appear outside "
                                 "string literals: remove the trailing ';' at offset %zu"
                               : "only one statement is allowed (found ';' at offset %zu)",
                      char_offset(a->sql, t->offset));
    }
    case SQL_TOKEN_PARAMETER: {
        char name[ADMISSION_NAME_SHOWN + 4], raw[256];
        token_name(a->sql, t, raw, sizeof raw);
        shown_name(raw, name);
        return refuse(a, SQL_RULE_PARAMETER, DBMCP_EDENIED,
                      "parameters such as %s (offset %zu) are not allowed: nothing is bound to "
                      "this query, so write values as literals",
                      name, char_offset(a->sql, t->offset));
    }
    case SQL_TOKEN_OPERATOR:
        if (t->length >= 2 && a->sql[t->offset] == '-' && a->sql[t->offset + 1] == '>')
            return check_function(a, t->length == 3 ? "->>" : "->", t->offset);
        return 0;
    case SQL_TOKEN_WORD: {
        int rc = check_word(a, t, next);
        return rc ? rc : check_name(a, t);
    }
    case SQL_TOKEN_QUOTED_NAME: return check_name(a, t);
    default: return 0;
    }
}

/* The main pass: every token, with '(' tracked to tell calls from CTE
 * names. */
static int check_tokens(admission *a)
{
    paren_entry stack[ADMISSION_PAREN_STACK];
    size_t depth = 0; /* open '(' (may exceed the stack) */
    size_t pos = 0;
    sql_token prev = {SQL_TOKEN_END, 0, 0}, t, next;
    sql_next_token(a->sql, a->len, &pos, &t);
    while (t.kind != SQL_TOKEN_END) {
        size_t after = pos;
        sql_next_token(a->sql, a->len, &after, &next);
        int rc = check_token(a, &t, &next);
        if (rc)
            return rc;
        if (t.kind == SQL_TOKEN_LPAREN) {
            int maybe_call = callable(a, &prev);
            if (depth < ADMISSION_PAREN_STACK)
                stack[depth] = (paren_entry){prev, maybe_call};
            else if (maybe_call && (rc = check_call(a, &prev)) != 0)
                return rc;
            depth++;
        } else if (t.kind == SQL_TOKEN_RPAREN && depth > 0) {
            depth--;
            if (depth < ADMISSION_PAREN_STACK && stack[depth].candidate && !cte_follows(a, pos) &&
                (rc = check_call(a, &stack[depth].name)) != 0)
                return rc;
        }
        prev = t;
        t = next;
        pos = after;
    }
    /* Never closed: no AS can follow, so each was a call. */
    while (depth > 0) {
        depth--;
        int rc;
        if (depth < ADMISSION_PAREN_STACK && stack[depth].candidate &&
            (rc = check_call(a, &stack[depth].name)) != 0)
            return rc;
    }
    return 0;
}

int sql_admit(const char *sql, size_t len, const sql_admission_policy *p, sql_admission_rule *rule,
              dbmcp_error *err)
{
    admission a = {sql ? sql : "", sql ? len : 0, sql_admission_default_functions, SQL_RULE_NONE,
                   err};
    size_t max_chars = SQL_ADMISSION_MAX_CHARS_DEFAULT;
    if (p && p->max_chars > 0)
        max_chars = p->max_chars;
    if (p && p->functions && *p->functions)
        a.functions = p->functions;
    if (rule)
        *rule = SQL_RULE_NONE;
    int rc = check_text(&a, max_chars);
    if (!rc)
        rc = check_first(&a);
    if (!rc)
        rc = check_tokens(&a);
    if (rule)
        *rule = a.rule;
    return rc;
}

const char *sql_admission_rule_name(sql_admission_rule rule)
{
    switch (rule) {
    case SQL_RULE_NONE: return "ok";
    case SQL_RULE_TOO_LONG: return "too_long";
    case SQL_RULE_ENCODING: return "encoding";
    case SQL_RULE_UNTERMINATED: return "unterminated";
    case SQL_RULE_EMPTY: return "empty";
    case SQL_RULE_SEMICOLON: return "semicolon";
    case SQL_RULE_FIRST_KEYWORD: return "first_keyword";
    case SQL_RULE_WRITE: return "write";
    case SQL_RULE_ATTACH: return "attach";
    case SQL_RULE_PRAGMA: return "pragma";
    case SQL_RULE_EXTENSION: return "extension";
    case SQL_RULE_PARAMETER: return "parameter";
    case SQL_RULE_INTERNAL: return "internal";
    case SQL_RULE_FUNCTION: return "function";
    }
    return "unknown";
}
