/*
 * failure.c — what both drivers share to classify a refused statement
 * (store.h, "why a statement failed"): the token an engine's error
 * position points at, and filling a store_failure.
 *
 * The token is read from the statement text the driver sent, never from
 * the engine's message, so it does not depend on the server's language
 * (PostgreSQL's lc_messages). The lexer is small and knows both dialects'
 * quotes; it reads one token and checks no syntax.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store/driver.h"

static int is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static int is_operator_char(unsigned char c)
{
    return c && strchr("+-*/<>=~!@#%^&|`?,;:", c) != NULL;
}

/* Past the quoted text at p (opening quote at p[0], closed by close; a
 * doubled close stands for itself); the end of the text when unterminated. */
static const char *past_quoted(const char *p, char close)
{
    for (p++; *p; p++)
        if (*p == close) {
            if (p[1] != close || close == ']')
                return p + 1;
            p++;
        }
    return p;
}

/* Past one part of a name at p (a bare word or a quoted name), or p when
 * none starts there. */
static const char *past_name_part(const char *p)
{
    if (*p == '"' || *p == '`' || *p == '[')
        return past_quoted(p, *p == '[' ? ']' : *p);
    if (!is_name_start((unsigned char)*p))
        return p;
    while (is_name_char((unsigned char)*p))
        p++;
    return p;
}

void store_failure_token_at(const char *sql, size_t offset, char *out, size_t size)
{
    out[0] = '\0';
    if (!sql || offset >= strlen(sql))
        return;
    const char *p = sql + offset, *end = p;
    if ((*p == 'E' || *p == 'e' || *p == 'X' || *p == 'x' || *p == 'B' || *p == 'b') &&
        p[1] == '\'') {
        end = past_quoted(p + 1, '\'');
    } else if (*p == '\'') {
        end = past_quoted(p, '\'');
    } else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
        while ((*end >= '0' && *end <= '9') || *end == '.' || *end == 'e' || *end == 'E' ||
               *end == 'x' || *end == 'X' || (*end >= 'a' && *end <= 'f') ||
               (*end >= 'A' && *end <= 'F'))
            end++;
    } else if (past_name_part(p) != p) {
        end = past_name_part(p);
        while (*end == '.' && past_name_part(end + 1) != end + 1) /* a.b, "s"."t" */
            end = past_name_part(end + 1);
    } else if (is_operator_char((unsigned char)*p)) {
        while (is_operator_char((unsigned char)*end) && *end != ',' && *end != ';')
            end++;
        if (end == p)
            end++;
    } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
        end = p + 1; /* ( ) . and the like stand alone */
        while ((*end & 0xC0) == 0x80)
            end++;
    }
    size_t n = (size_t)(end - p);
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
}

void store_failure_setn(store_failure *f, store_failure_kind kind, const char *name, size_t n)
{
    f->kind = kind;
    if (!name)
        n = 0;
    if (n >= sizeof f->name)
        n = sizeof f->name - 1;
    memcpy(f->name, name ? name : "", n);
    f->name[n] = '\0';
}

void store_failure_set(store_failure *f, store_failure_kind kind, const char *name)
{
    store_failure_setn(f, kind, name, name ? strlen(name) : 0);
}

const char *store_failure_kind_name(store_failure_kind kind)
{
    switch (kind) {
    case STORE_FAILURE_OTHER: return "other";
    case STORE_FAILURE_UNKNOWN_TABLE: return "unknown_table";
    case STORE_FAILURE_UNKNOWN_COLUMN: return "unknown_column";
    case STORE_FAILURE_AMBIGUOUS_COLUMN: return "ambiguous_column";
    case STORE_FAILURE_UNKNOWN_FUNCTION: return "unknown_function";
    case STORE_FAILURE_ARGUMENTS: return "arguments";
    case STORE_FAILURE_SYNTAX: return "syntax";
    case STORE_FAILURE_TYPE_MISMATCH: return "type_mismatch";
    case STORE_FAILURE_DIVISION_BY_ZERO: return "division_by_zero";
    case STORE_FAILURE_GROUPING: return "grouping";
    case STORE_FAILURE_DENIED: return "denied";
    case STORE_FAILURE_TIME_LIMIT: return "time_limit";
    case STORE_FAILURE_CANCELLED: return "cancelled";
    case STORE_FAILURE_VALUE_TOO_BIG: return "value_too_big";
    case STORE_FAILURE_MEMORY: return "memory";
    }
    return "other";
}

/* 1 when msg holds the n bytes of name as a whole word (case-insensitive
 * ASCII: an unquoted name is folded to lower case by the engine). */
static int has_word(const char *msg, const char *name, size_t n)
{
    for (const char *m = msg; n && *m; m++)
        if (strncasecmp(m, name, n) == 0 && (m == msg || !is_name_char((unsigned char)m[-1])) &&
            !is_name_char((unsigned char)m[n]))
            return 1;
    return 0;
}

void store_failure_call_in(const char *sql, const char *msg, char *out, size_t size)
{
    out[0] = '\0';
    if (!sql || !msg)
        return;
    for (const char *p = sql; *p;) {
        if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
            p = past_quoted(p, *p == '[' ? ']' : *p);
        } else if (*p == '-' && p[1] == '-') {
            p += strcspn(p, "\n");
        } else if (is_name_start((unsigned char)*p) &&
                   (p == sql || !is_name_char((unsigned char)p[-1]))) {
            const char *end = p;
            while (is_name_char((unsigned char)*end))
                end++;
            const char *q = end;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                q++;
            size_t n = (size_t)(end - p);
            if (*q == '(' && has_word(msg, p, n)) {
                snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
                return;
            }
            p = end;
        } else {
            p++;
        }
    }
}
