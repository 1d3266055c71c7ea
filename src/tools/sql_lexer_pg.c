/*
 * sql_lexer_pg.c — PostgreSQL's tokens for the admission of agent SQL: a
 * lexer that reads text the way PostgreSQL 15's scanner does
 * (src/backend/parser/scan.l), so a keyword inside a comment, a string or
 * a quoted name is seen as the text it is, and one outside is never
 * missed.
 *
 * What differs from SQLite, each a place where reading the text with the
 * other engine's rules would hide code or invent it:
 *   - block comments nest: in /x* /x* *x/ ; DELETE … *x/ the ';' is comment;
 *   - a -- comment ends at a carriage return as well as a line feed;
 *   - E'…' strings take backslash escapes (E'\'' is one quote), U&'…' and
 *     U&"…" take Unicode escapes (and an optional UESCAPE 'c' after them),
 *     B'…' and X'…' are bit strings that end at the first quote, N'…' is a
 *     plain string; the prefix counts only where a token starts (abcE'x'
 *     is the name abcE and the string 'x');
 *   - $$…$$ and $tag$…$tag$ are strings ($ continues a name, so a$$ is a
 *     name), $1 is a positional parameter;
 *   - :: is a cast and := a named argument; ? is an operator (jsonb), not
 *     a parameter, and so are @ and #;
 *   - operators are runs of + - * / < > = ~ ! @ # % ^ & | ` ? that stop
 *     before a comment starts (+-- is '+' and a comment);
 *   - numbers take no letters: 1e5 is a number, 0x1F is 0 and the name x1F
 *     (PostgreSQL 15 refuses the junk; PostgreSQL 16 reads hex, still one
 *     number token here and a name we judge separately, never less).
 *
 * One more reading on purpose: a colon directly before a name (:name) is
 * reported as a parameter, as psql and dbmcp's own statements write named
 * parameters that way; nothing is bound to agent SQL, and the server's
 * only use of it, an array slice a[1:n], is written a[1 : n] instead.
 *
 * The escape decoding in sql_pg_token_name exists for the same reason as
 * the lexer: U&"\0064bmcp_api_keys" names dbmcp_api_keys.
 */
#include <string.h>
#include <strings.h>

#include "tools/sql_admission.h"

static int pg_is_space(unsigned char c)
{
    /* \v is white space from PostgreSQL 16 on; 15 refuses it outright. */
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int pg_is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* ident_start and dolq_start: letters, '_' and every byte >= 0x80. */
static int pg_is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

/* ident_cont: ident_start, digits and '$'. */
static int pg_is_ident_char(unsigned char c)
{
    return pg_is_ident_start(c) || pg_is_digit(c) || c == '$';
}

/* op_chars of scan.l. */
static int pg_is_op_char(unsigned char c)
{
    return c != '\0' && strchr("~!@#^&|`?+-*/%<>=", c) != NULL;
}

static int starts_comment(const char *s, size_t len, size_t i)
{
    return i + 1 < len && ((s[i] == '-' && s[i + 1] == '-') || (s[i] == '/' && s[i + 1] == '*'));
}

/* Skip white space and comments from *pos. Returns 0, or -1 when a block
 * comment is never closed (*pos is then at its start). */
static int pg_skip_blank(const char *s, size_t len, size_t *pos)
{
    size_t i = *pos;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (pg_is_space(c)) {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            while (i < len && s[i] != '\n' && s[i] != '\r')
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2, depth = 1;
            while (j + 1 < len && depth > 0) {
                if (s[j] == '/' && s[j + 1] == '*') {
                    depth++;
                    j += 2;
                } else if (s[j] == '*' && s[j + 1] == '/') {
                    depth--;
                    j += 2;
                } else {
                    j++;
                }
            }
            if (depth > 0) {
                *pos = i;
                return -1;
            }
            i = j;
        } else {
            break;
        }
    }
    *pos = i;
    return 0;
}

/* End (one past the closing quote) of a quoted token whose body starts at
 * `from`, closed by q where a doubled q stands for itself; with
 * `backslash`, a backslash escapes the byte after it. 0 when never
 * closed. */
static size_t pg_quoted_end(const char *s, size_t len, size_t from, char q, int backslash)
{
    for (size_t i = from; i < len; i++) {
        if (backslash && s[i] == '\\') {
            i++;
            continue;
        }
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

/* End of a $tag$ delimiter starting at s[i] == '$', or 0 when the text
 * there is no delimiter. */
static size_t dollar_delimiter_end(const char *s, size_t len, size_t i)
{
    size_t j = i + 1;
    if (j < len && pg_is_ident_start((unsigned char)s[j]))
        for (j++; j < len && s[j] != '$' && pg_is_ident_char((unsigned char)s[j]); j++)
            ;
    return j < len && s[j] == '$' ? j + 1 : 0;
}

static size_t pg_number_end(const char *s, size_t len, size_t i)
{
    while (i < len && pg_is_digit((unsigned char)s[i]))
        i++;
    if (i < len && s[i] == '.' && !(i + 1 < len && s[i + 1] == '.'))
        for (i++; i < len && pg_is_digit((unsigned char)s[i]); i++)
            ;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < len && pg_is_digit((unsigned char)s[j]))
            for (i = j; i < len && pg_is_digit((unsigned char)s[i]); i++)
                ;
    }
    return i;
}

/* An operator run from s[i], cut before a comment starts inside it. */
static size_t pg_operator_end(const char *s, size_t len, size_t i)
{
    size_t j = i + 1;
    while (j < len && pg_is_op_char((unsigned char)s[j]) && !starts_comment(s, len, j))
        j++;
    return j;
}

static sql_token_kind pg_token(sql_token *tok, sql_token_kind kind, size_t offset, size_t end,
                               size_t *pos)
{
    tok->kind = kind;
    tok->offset = offset;
    tok->length = end - offset;
    *pos = end;
    return kind;
}

/* A quoted token whose body starts at `from` (after prefix and quote). */
static sql_token_kind pg_quoted(const char *s, size_t len, size_t i, size_t from, char q,
                                int backslash, sql_token_kind kind, sql_token *tok, size_t *pos)
{
    size_t end = pg_quoted_end(s, len, from, q, backslash);
    return end ? pg_token(tok, kind, i, end, pos)
               : pg_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
}

/* Tokens that start with a letter: prefixed strings, U& names, words. */
static sql_token_kind pg_letter_token(const char *s, size_t len, size_t i, sql_token *tok,
                                      size_t *pos)
{
    char c = (char)(s[i] | 0x20);
    int quote_next = i + 1 < len && s[i + 1] == '\'';
    if (c == 'e' && quote_next)
        return pg_quoted(s, len, i, i + 2, '\'', 1, SQL_TOKEN_STRING, tok, pos);
    if ((c == 'b' || c == 'x') && quote_next) {
        const char *close = memchr(s + i + 2, '\'', len - i - 2);
        return close ? pg_token(tok, SQL_TOKEN_BLOB, i, (size_t)(close - s) + 1, pos)
                     : pg_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    }
    if (c == 'n' && quote_next)
        return pg_quoted(s, len, i, i + 2, '\'', 0, SQL_TOKEN_STRING, tok, pos);
    if (c == 'u' && i + 2 < len && s[i + 1] == '&' && (s[i + 2] == '\'' || s[i + 2] == '"'))
        return pg_quoted(s, len, i, i + 3, s[i + 2], 0,
                         s[i + 2] == '"' ? SQL_TOKEN_QUOTED_NAME : SQL_TOKEN_STRING, tok, pos);
    size_t end = i + 1;
    while (end < len && pg_is_ident_char((unsigned char)s[end]))
        end++;
    return pg_token(tok, SQL_TOKEN_WORD, i, end, pos);
}

/* Tokens that start with '$': a positional parameter or a dollar-quoted
 * string; a lone '$' is punctuation the server refuses. */
static sql_token_kind pg_dollar_token(const char *s, size_t len, size_t i, sql_token *tok,
                                      size_t *pos)
{
    size_t end;
    if (i + 1 < len && pg_is_digit((unsigned char)s[i + 1])) {
        for (end = i + 1; end < len && pg_is_digit((unsigned char)s[end]); end++)
            ;
        return pg_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
    }
    size_t open_end = dollar_delimiter_end(s, len, i);
    if (!open_end)
        return pg_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
    size_t tag = open_end - i;
    const char *close = memmem(s + open_end, len - open_end, s + i, tag);
    return close ? pg_token(tok, SQL_TOKEN_STRING, i, (size_t)(close - s) + tag, pos)
                 : pg_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
}

sql_token_kind sql_pg_next_token(const char *s, size_t len, size_t *pos, sql_token *tok)
{
    size_t i = *pos;
    if (pg_skip_blank(s, len, &i) != 0)
        return pg_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    if (i >= len)
        return pg_token(tok, SQL_TOKEN_END, len, len, pos);
    unsigned char c = (unsigned char)s[i];
    size_t end;
    switch (c) {
    case '\'': return pg_quoted(s, len, i, i + 1, '\'', 0, SQL_TOKEN_STRING, tok, pos);
    case '"': return pg_quoted(s, len, i, i + 1, '"', 0, SQL_TOKEN_QUOTED_NAME, tok, pos);
    case '$': return pg_dollar_token(s, len, i, tok, pos);
    case '(': return pg_token(tok, SQL_TOKEN_LPAREN, i, i + 1, pos);
    case ')': return pg_token(tok, SQL_TOKEN_RPAREN, i, i + 1, pos);
    case ';': return pg_token(tok, SQL_TOKEN_SEMICOLON, i, i + 1, pos);
    case ':':
        if (i + 1 < len && (s[i + 1] == ':' || s[i + 1] == '='))
            return pg_token(tok, SQL_TOKEN_OPERATOR, i, i + 2, pos);
        if (i + 1 < len && pg_is_ident_start((unsigned char)s[i + 1])) {
            for (end = i + 1; end < len && pg_is_ident_char((unsigned char)s[end]); end++)
                ;
            return pg_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
        }
        return pg_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
    default: break;
    }
    if (pg_is_digit(c) || (c == '.' && i + 1 < len && pg_is_digit((unsigned char)s[i + 1])))
        return pg_token(tok, SQL_TOKEN_NUMBER, i, pg_number_end(s, len, i), pos);
    if (pg_is_ident_start(c))
        return pg_letter_token(s, len, i, tok, pos);
    if (pg_is_op_char(c))
        return pg_token(tok, SQL_TOKEN_OPERATOR, i, pg_operator_end(s, len, i), pos);
    return pg_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
}

/* ------------------------------------------------------------------------ */
/* names                                                                     */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* `digits` hex digits at s[0..n) as a code point, or -1. */
static long hex_code_point(const char *s, size_t n, size_t digits)
{
    if (n < digits)
        return -1;
    long v = 0;
    for (size_t i = 0; i < digits; i++) {
        int d = hex_value(s[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* UTF-8 of code point cp into out (room for 4 bytes); its length. Code
 * points PostgreSQL refuses (surrogates, past U+10FFFF) become '?'. */
static size_t utf8_encode(long cp, char *out)
{
    if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        out[0] = '?';
        return 1;
    }
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The escape character of the U& token t: the one character of a
 * UESCAPE 'c' right after it, else backslash. */
static char unicode_escape_char(const char *s, size_t len, const sql_token *t)
{
    size_t pos = t->offset + t->length;
    sql_token w, lit;
    sql_pg_next_token(s, len, &pos, &w);
    if (w.kind != SQL_TOKEN_WORD || w.length != 7 || strncasecmp(s + w.offset, "uescape", 7) != 0)
        return '\\';
    sql_pg_next_token(s, len, &pos, &lit);
    if (lit.kind == SQL_TOKEN_STRING && lit.length == 3 && s[lit.offset] == '\'')
        return s[lit.offset + 1];
    return '\\';
}

/* Decode the body s[from..to) of a U&"…" name into out: doubled quotes
 * undone, esc + 4 hex digits, esc + '+' + 6 hex digits and a doubled esc
 * resolved. An escape PostgreSQL would refuse is copied as it stands. */
static void unicode_name(const char *s, size_t from, size_t to, char esc, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = from; i < to && n + 5 < size;) {
        if (s[i] == '"' && i + 1 < to && s[i + 1] == '"') {
            out[n++] = '"';
            i += 2;
        } else if (s[i] == esc && i + 1 < to && s[i + 1] == esc) {
            out[n++] = esc;
            i += 2;
        } else if (s[i] == esc && i + 1 < to && s[i + 1] == '+' &&
                   hex_code_point(s + i + 2, to - i - 2, 6) >= 0) {
            n += utf8_encode(hex_code_point(s + i + 2, to - i - 2, 6), out + n);
            i += 8;
        } else if (s[i] == esc && hex_code_point(s + i + 1, to - i - 1, 4) >= 0) {
            n += utf8_encode(hex_code_point(s + i + 1, to - i - 1, 4), out + n);
            i += 5;
        } else {
            out[n++] = s[i++];
        }
    }
    out[n] = '\0';
}

void sql_pg_token_name(const char *s, size_t len, const sql_token *t, char *out, size_t size)
{
    size_t n = 0;
    if (t->kind != SQL_TOKEN_QUOTED_NAME || t->length < 2) {
        n = t->length < size - 1 ? t->length : size - 1;
        memcpy(out, s + t->offset, n);
        out[n] = '\0';
        return;
    }
    size_t end = t->offset + t->length - 1;
    if (s[t->offset] != '"') {
        unicode_name(s, t->offset + 3, end, unicode_escape_char(s, len, t), out, size);
        return;
    }
    for (size_t i = t->offset + 1; i < end && n + 1 < size; i++) {
        out[n++] = s[i];
        if (s[i] == '"' && i + 1 < end && s[i + 1] == '"')
            i++;
    }
    out[n] = '\0';
}
