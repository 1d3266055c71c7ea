/*
 * repair.c — the response repair engine (see repair.h for the contract).
 *
 * The tolerant parser is a recursive descent over the raw bytes that
 * writes normalised JSON text straight into a growing buffer: strings are
 * re-escaped, numbers re-spelled, and a member cut off by the end of the
 * input is rolled back by truncating the buffer to where it began. Every
 * repair bumps a counter of its kind; the log is built from the counters at
 * the end, so it stays short however often a repair was needed. jansson is
 * used only for the strict first pass, the final validation and the
 * post-passes that work on values (doubly-encoded strings, arguments).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/repair.h"

#define MAX_CANDIDATES 64   /* '{' / '[' positions tried inside prose */
#define MAX_NESTED_REPAIR 4 /* repair_json inside a string inside … */
#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

/* Kinds of repair; the log has one line per kind that happened. A "%d" in
 * the text is replaced by the count. */
enum repair_kind {
    R_BOM,
    R_TOOL_CALLS_PREFIX,
    R_TOOL_CALL_TAG,
    R_TOOL_CALL_ARRAY,
    R_FENCE,
    R_FENCE_UNTERMINATED,
    R_PROSE_BEFORE,
    R_PROSE_AFTER,
    R_SEVERAL,
    R_CLOSED_BRACKETS,
    R_CLOSED_STRING,
    R_DROPPED_MEMBER,
    R_DANGLING_COMMA,
    R_LITERAL,
    R_QUOTES_IN_STRING,
    R_CONTROL,
    R_SINGLE_QUOTES,
    R_TYPOGRAPHIC_QUOTES,
    R_CONCAT,
    R_COMMENTS,
    R_TRAILING_COMMA,
    R_EXTRA_COMMA,
    R_MISSING_COMMA,
    R_MISSING_COLON,
    R_PYTHON,
    R_UNQUOTED_KEY,
    R_PLACEHOLDER,
    R_NUMBER,
    R_ESCAPE,
    R_UTF8,
    R_BRACKET,
    R_DOUBLE_ENCODED,
    R_ARGUMENTS,
    R_KIND_COUNT
};

static const char *const repair_text[R_KIND_COUNT] = {
    [R_BOM] = "removed byte-order mark",
    [R_TOOL_CALLS_PREFIX] = "removed [TOOL_CALLS] prefix",
    [R_TOOL_CALL_TAG] = "extracted <tool_call> block",
    [R_TOOL_CALL_ARRAY] = "combined %d <tool_call> blocks into an array",
    [R_FENCE] = "removed markdown fence",
    [R_FENCE_UNTERMINATED] = "removed unterminated markdown fence",
    [R_PROSE_BEFORE] = "dropped text before the JSON",
    [R_PROSE_AFTER] = "dropped text after the JSON",
    [R_SEVERAL] = "took the first of several JSON values",
    [R_CLOSED_BRACKETS] = "closed %d brackets at end",
    [R_CLOSED_STRING] = "closed a cut-off string",
    [R_DROPPED_MEMBER] = "dropped %d cut-off members",
    [R_DANGLING_COMMA] = "dropped a dangling comma",
    [R_LITERAL] = "completed a cut-off literal",
    [R_QUOTES_IN_STRING] = "escaped %d quotes inside strings",
    [R_CONTROL] = "escaped %d control characters in strings",
    [R_SINGLE_QUOTES] = "replaced single quotes",
    [R_TYPOGRAPHIC_QUOTES] = "replaced typographic quotes",
    [R_CONCAT] = "joined %d concatenated strings",
    [R_COMMENTS] = "removed %d comments",
    [R_TRAILING_COMMA] = "removed %d trailing commas",
    [R_EXTRA_COMMA] = "removed %d extra commas",
    [R_MISSING_COMMA] = "inserted %d missing commas",
    [R_MISSING_COLON] = "inserted %d missing colons",
    [R_PYTHON] = "replaced Python literals",
    [R_UNQUOTED_KEY] = "quoted %d unquoted keys",
    [R_PLACEHOLDER] = "dropped %d placeholders",
    [R_NUMBER] = "fixed %d numbers",
    [R_ESCAPE] = "fixed %d invalid escapes",
    [R_UTF8] = "replaced invalid UTF-8",
    [R_BRACKET] = "fixed %d mismatched brackets",
    [R_DOUBLE_ENCODED] = "decoded a doubly-encoded JSON string",
    [R_ARGUMENTS] = "parsed %d string arguments",
};

/* A growing output buffer; oom is sticky and checked once at the end. */
typedef struct text_buf {
    char *data; /* NUL-terminated when not NULL */
    size_t len; /* bytes used */
    size_t cap; /* bytes allocated */
    int oom;    /* an allocation failed; data is incomplete */
} text_buf;

/* State of one tolerant parse (or one extraction over several parses). */
typedef struct parser {
    const char *p, *end;      /* the unread input */
    int depth, max_depth;     /* current and allowed nesting */
    text_buf out;             /* normalised JSON written so far */
    int counts[R_KIND_COUNT]; /* repairs done, by kind */
    int lossy;                /* a truncation repair happened */
    char why[200];            /* first reason a parse failed */
    int too_deep;             /* the failure was the nesting limit */
} parser;

enum { ST_ERROR = -1, ST_VALUE = 0, ST_EOF = 1, ST_SKIP = 2 };

/* ---- buffer ------------------------------------------------------------- */

static void buf_put(text_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_putc(text_buf *b, char c)
{
    buf_put(b, &c, 1);
}

static void buf_truncate(text_buf *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

/* ---- character classes -------------------------------------------------- */

/* Is c one of set (never true for the NUL byte)? */
static int in_set(char c, const char *set)
{
    return c != '\0' && strchr(set, c) != NULL;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int starts_with(const char *p, const char *end, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* Length of the valid UTF-8 sequence at p (0 when invalid or cut off). */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    unsigned cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

enum quote_kind { Q_NONE, Q_DOUBLE, Q_SINGLE, Q_LEFT_DOUBLE, Q_LEFT_SINGLE };

#define LEFT_DOUBLE "\xE2\x80\x9C"  /* “ */
#define RIGHT_DOUBLE "\xE2\x80\x9D" /* ” */
#define LEFT_SINGLE "\xE2\x80\x98"  /* ‘ */
#define RIGHT_SINGLE "\xE2\x80\x99" /* ’ */
#define ELLIPSIS "\xE2\x80\xA6"     /* … */

/* The opening quote at p, and its length in *n. */
static enum quote_kind quote_at(const char *p, const char *end, size_t *n)
{
    *n = 1;
    if (p >= end)
        return Q_NONE;
    if (*p == '"')
        return Q_DOUBLE;
    if (*p == '\'')
        return Q_SINGLE;
    *n = 3;
    if (starts_with(p, end, LEFT_DOUBLE) || starts_with(p, end, RIGHT_DOUBLE))
        return Q_LEFT_DOUBLE;
    if (starts_with(p, end, LEFT_SINGLE) || starts_with(p, end, RIGHT_SINGLE))
        return Q_LEFT_SINGLE;
    return Q_NONE;
}

/* Length of a closing quote for kind at p, 0 when there is none. */
static size_t closing_quote_at(enum quote_kind kind, const char *p, const char *end)
{
    switch (kind) {
    case Q_DOUBLE: return *p == '"';
    case Q_SINGLE: return *p == '\'';
    case Q_LEFT_DOUBLE:
        if (*p == '"')
            return 1;
        return starts_with(p, end, RIGHT_DOUBLE) || starts_with(p, end, LEFT_DOUBLE) ? 3 : 0;
    case Q_LEFT_SINGLE:
        if (*p == '\'')
            return 1;
        return starts_with(p, end, RIGHT_SINGLE) ? 3 : 0;
    default: return 0;
    }
}

/* Skip whitespace and comments from p; *newline is set when a line break
 * was skipped, *comments counts the comments. */
static const char *skip_space_at(const char *p, const char *end, int *newline, int *comments)
{
    while (p < end) {
        if (is_ws((unsigned char)*p)) {
            if (*p == '\n' && newline)
                *newline = 1;
            p++;
        } else if (starts_with(p, end, "//")) {
            while (p < end && *p != '\n')
                p++;
            if (comments)
                (*comments)++;
        } else if (starts_with(p, end, "/*")) {
            const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
            p = close ? close + 2 : end;
            if (comments)
                (*comments)++;
        } else {
            break;
        }
    }
    return p;
}

static void skip_space(parser *ps)
{
    ps->p = skip_space_at(ps->p, ps->end, NULL, &ps->counts[R_COMMENTS]);
}

static int is_placeholder(const char *p, const char *end)
{
    return starts_with(p, end, "...") || starts_with(p, end, ELLIPSIS);
}

static void skip_placeholder(parser *ps)
{
    if (*ps->p == '.')
        while (ps->p < ps->end && *ps->p == '.')
            ps->p++;
    else
        ps->p += 3;
    ps->counts[R_PLACEHOLDER]++;
}

static int is_ident_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '-';
}

/* Does a value start at p (for missing-comma and missing-colon repairs)? */
static int value_starts(const char *p, const char *end)
{
    size_t n;
    if (p >= end)
        return 0;
    unsigned char c = (unsigned char)*p;
    return quote_at(p, end, &n) != Q_NONE || c == '{' || c == '[' || c == '-' || c == '+' ||
           (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int fail(parser *ps, const char *fmt, const char *at)
{
    if (!ps->why[0]) {
        char shown =
            at < ps->end && (unsigned char)*at >= 0x20 && (unsigned char)*at < 0x7F ? *at : '?';
        snprintf(ps->why, sizeof ps->why, fmt, shown);
    }
    return ST_ERROR;
}

/* ---- strings ------------------------------------------------------------ */

/* Is the quote of length n at q the end of the string? A quote followed
 * (after spaces and comments) by , } ] : another quote, a bracket, a line
 * break, '+' or the end closes it; any other is content. */
static int quote_closes(const char *q, size_t n, const char *end, int is_key)
{
    int newline = 0;
    const char *look = skip_space_at(q + n, end, &newline, NULL);
    size_t m;
    if (look >= end || newline)
        return 1;
    if (is_key && (*look == '=' || (look > q + n && value_starts(look, end))))
        return 1; /* "key" = value, "key" value: the colon is missing */
    return in_set(*look, ",}]:{[+") || quote_at(look, end, &m) != Q_NONE;
}

static void put_hex_escape(text_buf *b, unsigned cp)
{
    char tmp[8];
    snprintf(tmp, sizeof tmp, "\\u%04x", cp & 0xFFFF);
    buf_put(b, tmp, 6);
}

static int hex4(const char *p, const char *end, unsigned *cp)
{
    if (end - p < 4)
        return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *cp = v;
    return 1;
}

/* A backslash escape at ps->p inside a string. */
static void string_escape(parser *ps)
{
    const char *p = ps->p;
    if (p + 1 >= ps->end) { /* cut off right after the backslash */
        ps->p = ps->end;
        return;
    }
    char e = p[1];
    unsigned cp, low;
    if (in_set(e, "\"\\/bfnrt")) {
        buf_put(&ps->out, p, 2);
        ps->p += 2;
    } else if (e == '\'') {
        buf_putc(&ps->out, '\'');
        ps->p += 2;
    } else if (e == 'u' && hex4(p + 2, ps->end, &cp)) {
        ps->p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && starts_with(ps->p, ps->end, "\\u") &&
            hex4(ps->p + 2, ps->end, &low) && low >= 0xDC00 && low <= 0xDFFF) {
            put_hex_escape(&ps->out, cp);
            put_hex_escape(&ps->out, low);
            ps->p += 6;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            put_hex_escape(&ps->out, 0xFFFD);
            ps->counts[R_ESCAPE]++;
        } else {
            put_hex_escape(&ps->out, cp);
        }
    } else if (e == 'u' && ps->end - p < 6) { /* cut off inside \uXXXX */
        ps->p = ps->end;
    } else { /* not an escape: the backslash is content */
        buf_put(&ps->out, "\\\\", 2);
        ps->p += 1;
        ps->counts[R_ESCAPE]++;
    }
}

/* One content byte (or UTF-8 sequence) at ps->p. */
static void string_char(parser *ps, enum quote_kind kind)
{
    unsigned char c = (unsigned char)*ps->p;
    if (c == '"') { /* content here: either inside other quotes or not closing */
        buf_put(&ps->out, "\\\"", 2);
        if (kind == Q_DOUBLE)
            ps->counts[R_QUOTES_IN_STRING]++;
        ps->p++;
    } else if (c < 0x20) {
        static const char *const short_escape[0x20] = {
            ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t"};
        if (short_escape[c])
            buf_put(&ps->out, short_escape[c], 2);
        else
            put_hex_escape(&ps->out, c);
        ps->counts[R_CONTROL]++;
        ps->p++;
    } else if (c >= 0x80) {
        size_t n = utf8_length((const unsigned char *)ps->p, (const unsigned char *)ps->end);
        if (n == 0) {
            buf_put(&ps->out, "\xEF\xBF\xBD", 3);
            ps->counts[R_UTF8]++;
            n = 1;
        } else {
            buf_put(&ps->out, ps->p, n);
        }
        ps->p += n;
    } else {
        buf_putc(&ps->out, (char)c);
        ps->p++;
    }
}

/* The content of one string literal after its opening quote, up to and
 * including its closing quote. Returns ST_EOF when the input ended first. */
static int string_body(parser *ps, enum quote_kind kind, int is_key)
{
    while (ps->p < ps->end) {
        size_t n = closing_quote_at(kind, ps->p, ps->end);
        if (n && quote_closes(ps->p, n, ps->end, is_key)) {
            ps->p += n;
            return ST_VALUE;
        }
        if (n && kind != Q_DOUBLE) { /* an apostrophe or inner quote: content */
            if (*ps->p == '"')
                string_char(ps, kind);
            else
                buf_put(&ps->out, ps->p, n), ps->p += n;
        } else if (*ps->p == '\\') {
            string_escape(ps);
        } else {
            string_char(ps, kind);
        }
    }
    return ST_EOF;
}

/* A string literal at ps->p (an opening quote). Values may be joined with
 * '+'; keys may not. *cut is set when the input ended inside it. */
static int parse_string(parser *ps, int is_key, int *cut)
{
    *cut = 0;
    buf_putc(&ps->out, '"');
    for (;;) {
        size_t n;
        enum quote_kind kind = quote_at(ps->p, ps->end, &n);
        if (kind == Q_SINGLE)
            ps->counts[R_SINGLE_QUOTES] = 1;
        else if (kind != Q_DOUBLE)
            ps->counts[R_TYPOGRAPHIC_QUOTES] = 1;
        ps->p += n;
        if (string_body(ps, kind, is_key) == ST_EOF) {
            *cut = 1;
            break;
        }
        if (is_key)
            break;
        const char *plus = skip_space_at(ps->p, ps->end, NULL, NULL);
        if (plus >= ps->end || *plus != '+')
            break;
        const char *next = skip_space_at(plus + 1, ps->end, NULL, NULL);
        if (quote_at(next, ps->end, &n) == Q_NONE)
            break;
        ps->p = next;
        ps->counts[R_CONCAT]++;
    }
    buf_putc(&ps->out, '"');
    if (*cut) {
        ps->counts[R_CLOSED_STRING] = 1;
        ps->lossy = 1;
    }
    return ST_VALUE;
}

/* ---- numbers and words -------------------------------------------------- */

static const char *digits_end(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* A number at ps->p, re-spelled as JSON: a leading '+' and leading zeros
 * go, a bare '.' gets a 0, an empty fraction or exponent is dropped. */
static int parse_number(parser *ps)
{
    const char *p = ps->p, *end = ps->end;
    int fixed = 0;
    if (*p == '-')
        buf_putc(&ps->out, '-'), p++;
    else if (*p == '+')
        p++, fixed = 1;
    const char *int_start = p, *int_end = digits_end(p, end);
    const char *frac_start = NULL, *frac_end = NULL;
    if (int_end < end && *int_end == '.') {
        frac_start = int_end + 1;
        frac_end = digits_end(frac_start, end);
    }
    const char *after = frac_end ? frac_end : int_end;
    if (int_end == int_start && (!frac_start || frac_end == frac_start)) {
        if (after >= end) { /* a lone sign cut off at the end */
            ps->p = end;
            ps->lossy = 1;
            return ST_EOF;
        }
        return fail(ps, "unexpected '%c'", after);
    }
    while (int_end - int_start > 1 && *int_start == '0')
        int_start++, fixed = 1;
    if (int_end == int_start)
        buf_putc(&ps->out, '0'), fixed = 1;
    else
        buf_put(&ps->out, int_start, (size_t)(int_end - int_start));
    if (frac_start && frac_end > frac_start) {
        buf_putc(&ps->out, '.');
        buf_put(&ps->out, frac_start, (size_t)(frac_end - frac_start));
    } else if (frac_start) {
        fixed = 1;
    }
    if (after < end && (*after == 'e' || *after == 'E')) {
        const char *q = after + 1;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        const char *exp_end = digits_end(q, end);
        if (exp_end > q) {
            buf_put(&ps->out, after, (size_t)(exp_end - after));
            after = exp_end;
        } else {
            after = q;
            fixed = 1;
        }
    }
    ps->counts[R_NUMBER] += fixed;
    ps->p = after;
    return ST_VALUE;
}

/* A bare word in value position: JSON and Python literals, and a literal
 * cut off by the end of the input. Anything else is not JSON. */
static int parse_word(parser *ps)
{
    static const struct {
        const char *word, *json;
        int python;
    } words[] = {{"true", "true", 0}, {"false", "false", 0}, {"null", "null", 0},
                 {"True", "true", 1}, {"False", "false", 1}, {"None", "null", 1}};
    const char *start = ps->p, *p = start;
    while (p < ps->end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
        p++;
    size_t n = (size_t)(p - start);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t wn = strlen(words[i].word);
        int exact = n == wn && memcmp(start, words[i].word, n) == 0;
        int cut = p >= ps->end && n < wn && memcmp(start, words[i].word, n) == 0;
        if (!exact && !cut)
            continue;
        buf_put(&ps->out, words[i].json, strlen(words[i].json));
        if (words[i].python)
            ps->counts[R_PYTHON] = 1;
        if (cut) {
            ps->counts[R_LITERAL] = 1;
            ps->lossy = 1;
        }
        ps->p = p;
        return ST_VALUE;
    }
    return fail(ps, "unexpected word starting with '%c'", start);
}

/* ---- structures --------------------------------------------------------- */

static int parse_value(parser *ps);

static int enter(parser *ps)
{
    if (ps->depth >= ps->max_depth) {
        ps->too_deep = 1;
        snprintf(ps->why, sizeof ps->why, "nesting deeper than %d levels", ps->max_depth);
        return ST_ERROR;
    }
    ps->depth++;
    ps->p++;
    return ST_VALUE;
}

/* Close the open container c at the end of the input. */
static int close_at_end(parser *ps, char c, int pending_comma)
{
    buf_putc(&ps->out, c);
    ps->counts[R_CLOSED_BRACKETS]++;
    if (pending_comma)
        ps->counts[R_DANGLING_COMMA] = 1;
    ps->lossy = 1;
    ps->depth--;
    return ST_VALUE;
}

static int close_here(parser *ps, char c, char want, int pending_comma)
{
    if (c != want)
        ps->counts[R_BRACKET]++;
    if (pending_comma)
        ps->counts[R_TRAILING_COMMA]++;
    buf_putc(&ps->out, want);
    ps->p++;
    ps->depth--;
    return ST_VALUE;
}

/* A key at ps->p: quoted (any quote) or a bare identifier. */
static int parse_key(parser *ps, int *cut)
{
    *cut = 0;
    size_t n;
    if (quote_at(ps->p, ps->end, &n) != Q_NONE)
        return parse_string(ps, 1, cut);
    const char *start = ps->p;
    while (ps->p < ps->end && is_ident_byte((unsigned char)*ps->p))
        ps->p++;
    if (ps->p == start)
        return fail(ps, "unexpected '%c' where a key should be", start);
    if (ps->p >= ps->end) { /* a bare key cut off: nothing to keep */
        *cut = 1;
        return ST_VALUE;
    }
    buf_putc(&ps->out, '"');
    buf_put(&ps->out, start, (size_t)(ps->p - start));
    buf_putc(&ps->out, '"');
    ps->counts[R_UNQUOTED_KEY]++;
    return ST_VALUE;
}

/* One member; ST_EOF when the input ended inside it (the caller rolls
 * back), ST_SKIP for a placeholder value. */
static int parse_member(parser *ps)
{
    int cut;
    if (parse_key(ps, &cut) == ST_ERROR)
        return ST_ERROR;
    if (cut)
        return ST_EOF;
    skip_space(ps);
    if (ps->p >= ps->end)
        return ST_EOF;
    if (*ps->p == ':' || *ps->p == '=') {
        if (*ps->p == '=')
            ps->counts[R_MISSING_COLON]++;
        ps->p++;
    } else if (value_starts(ps->p, ps->end) || is_placeholder(ps->p, ps->end)) {
        ps->counts[R_MISSING_COLON]++;
    } else {
        return fail(ps, "expected ':' after a key, found '%c'", ps->p);
    }
    buf_putc(&ps->out, ':');
    return parse_value(ps);
}

static int parse_object(parser *ps)
{
    if (enter(ps) == ST_ERROR)
        return ST_ERROR;
    buf_putc(&ps->out, '{');
    int members = 0, pending_comma = 0, skipped = 0; /* skipped: a placeholder was dropped */
    for (;;) {
        skip_space(ps);
        if (ps->p >= ps->end)
            return close_at_end(ps, '}', pending_comma);
        char c = *ps->p;
        if (c == '}' || c == ']')
            return close_here(ps, c, '}', pending_comma && !skipped);
        if (c == ',') {
            if ((pending_comma || members == 0) && !skipped)
                ps->counts[R_EXTRA_COMMA]++;
            pending_comma = !skipped || pending_comma;
            skipped = 0;
            ps->p++;
            continue;
        }
        if (is_placeholder(ps->p, ps->end)) {
            skip_placeholder(ps);
            skipped = 1;
            continue;
        }
        if (members > 0 && !pending_comma && !skipped)
            ps->counts[R_MISSING_COMMA]++;
        size_t mark = ps->out.len;
        if (members > 0)
            buf_putc(&ps->out, ',');
        int st = parse_member(ps);
        if (st == ST_ERROR)
            return ST_ERROR;
        if (st == ST_EOF) {
            buf_truncate(&ps->out, mark);
            ps->counts[R_DROPPED_MEMBER]++;
            return close_at_end(ps, '}', 0);
        }
        if (st == ST_SKIP) {
            buf_truncate(&ps->out, mark);
            skipped = 1;
            continue;
        }
        members++;
        pending_comma = skipped = 0;
    }
}

static int parse_array(parser *ps)
{
    if (enter(ps) == ST_ERROR)
        return ST_ERROR;
    buf_putc(&ps->out, '[');
    int elements = 0, pending_comma = 0, skipped = 0;
    for (;;) {
        skip_space(ps);
        if (ps->p >= ps->end)
            return close_at_end(ps, ']', pending_comma);
        char c = *ps->p;
        if (c == ']' || c == '}')
            return close_here(ps, c, ']', pending_comma && !skipped);
        if (c == ',') {
            if ((pending_comma || elements == 0) && !skipped)
                ps->counts[R_EXTRA_COMMA]++;
            pending_comma = !skipped || pending_comma;
            skipped = 0;
            ps->p++;
            continue;
        }
        if (!is_placeholder(ps->p, ps->end) && !value_starts(ps->p, ps->end) && *ps->p != '.')
            return fail(ps, "unexpected '%c' in an array", ps->p);
        if (elements > 0 && !pending_comma && !skipped && !is_placeholder(ps->p, ps->end))
            ps->counts[R_MISSING_COMMA]++;
        size_t mark = ps->out.len;
        if (elements > 0)
            buf_putc(&ps->out, ',');
        int st = parse_value(ps);
        if (st == ST_ERROR)
            return ST_ERROR;
        if (st == ST_EOF) {
            buf_truncate(&ps->out, mark);
            return close_at_end(ps, ']', 0);
        }
        if (st == ST_SKIP) {
            buf_truncate(&ps->out, mark);
            skipped = 1;
            continue;
        }
        elements++;
        pending_comma = skipped = 0;
    }
}

/* Any value at ps->p: ST_VALUE (written), ST_EOF (input ended before a
 * value), ST_SKIP (a placeholder, nothing written) or ST_ERROR. */
static int parse_value(parser *ps)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return ST_EOF;
    if (is_placeholder(ps->p, ps->end)) {
        skip_placeholder(ps);
        return ST_SKIP;
    }
    size_t n;
    int cut;
    char c = *ps->p;
    if (c == '{')
        return parse_object(ps);
    if (c == '[')
        return parse_array(ps);
    if (quote_at(ps->p, ps->end, &n) != Q_NONE)
        return parse_string(ps, 0, &cut);
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))
        return parse_number(ps);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return parse_word(ps);
    return fail(ps, "unexpected '%c' where a value should be", ps->p);
}

/* ---- extraction --------------------------------------------------------- */

static const char *trim_start(const char *s, const char *e)
{
    while (s < e && is_ws((unsigned char)*s))
        s++;
    return s;
}

static const char *find_text(const char *s, const char *e, const char *needle)
{
    size_t n = strlen(needle);
    if (s >= e)
        return NULL;
    return memmem(s, (size_t)(e - s), needle, n);
}

static int starts_with_nocase(const char *p, const char *end, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(end - p) >= n && strncasecmp(p, s, n) == 0;
}

/* The reason s..e is not JSON at all (HTML, an event stream), or NULL. */
static const char *foreign_body(const char *s, const char *e)
{
    s = trim_start(s, e);
    if (starts_with_nocase(s, e, "<!doctype") || starts_with_nocase(s, e, "<html") ||
        starts_with_nocase(s, e, "<head") || starts_with_nocase(s, e, "<body") ||
        (s < e && *s == '<' && find_text(s, s + ((e - s) < 1024 ? (e - s) : 1024), "<html")))
        return "input is an HTML page, not JSON";
    if (starts_with(s, e, "data:") || starts_with(s, e, "event:"))
        return "input is a server-sent event stream, not JSON";
    return NULL;
}

/* Is the array written at out[mark..] acceptable as a payload found inside
 * prose? Its first element must be an object, array or string. */
static int prose_array_ok(const text_buf *out, size_t mark)
{
    char c = out->data[mark + 1];
    return c == '{' || c == '[' || c == '"';
}

/* Parse the first repairable object or array in s..e, appending it to
 * ps->out. Returns ST_VALUE or ST_ERROR (ps->why says why). */
static int parse_region(parser *ps, const char *s, const char *e)
{
    const char *start = trim_start(s, e);
    int saved[R_KIND_COUNT];
    memcpy(saved, ps->counts, sizeof saved);
    int saved_lossy = ps->lossy, tries = 0, found = 0;
    size_t mark = ps->out.len;
    for (const char *c = start; c < e && tries < MAX_CANDIDATES; c++) {
        if (*c != '{' && *c != '[')
            continue;
        found = 1;
        tries++;
        ps->p = c;
        ps->end = e;
        ps->depth = 0;
        int st = parse_value(ps);
        int in_prose = c != start;
        if (st == ST_VALUE && !ps->out.oom && in_prose && *c == '[' &&
            !prose_array_ok(&ps->out, mark))
            st = ST_ERROR;
        if (st == ST_VALUE) {
            if (in_prose)
                ps->counts[R_PROSE_BEFORE] = 1;
            const char *rest = skip_space_at(ps->p, e, NULL, &ps->counts[R_COMMENTS]);
            if (rest < e)
                ps->counts[in_set(*rest, "{[,") ? R_SEVERAL : R_PROSE_AFTER] = 1;
            return ST_VALUE;
        }
        if (ps->too_deep)
            return ST_ERROR;
        buf_truncate(&ps->out, mark);
        memcpy(ps->counts, saved, sizeof saved);
        ps->lossy = saved_lossy;
    }
    if (!found || !ps->why[0])
        snprintf(ps->why, sizeof ps->why, "no JSON object or array found in the input");
    return ST_ERROR;
}

/* <tool_call> blocks in s..e: one gives its value, several an array.
 * Returns ST_SKIP when there is no such block. */
static int parse_tool_calls(parser *ps, const char *s, const char *e)
{
    static const char open[] = "<tool_call>", close[] = "</tool_call>";
    const char *block = find_text(s, e, open);
    if (!block)
        return ST_SKIP;
    size_t mark = ps->out.len;
    buf_putc(&ps->out, '[');
    int count = 0;
    while (block) {
        const char *body = block + strlen(open);
        const char *stop = find_text(body, e, close);
        const char *body_end = stop ? stop : e;
        if (count > 0)
            buf_putc(&ps->out, ',');
        if (parse_region(ps, body, body_end) == ST_ERROR)
            return ST_ERROR;
        count++;
        block = stop ? find_text(stop + strlen(close), e, open) : NULL;
    }
    buf_putc(&ps->out, ']');
    if (ps->out.oom)
        return ST_VALUE; /* reported by the caller */
    if (count == 1) {    /* unwrap the single value */
        memmove(ps->out.data + mark, ps->out.data + mark + 1, ps->out.len - mark - 2);
        buf_truncate(&ps->out, ps->out.len - 2);
        ps->counts[R_TOOL_CALL_TAG] = 1;
    } else {
        ps->counts[R_TOOL_CALL_ARRAY] = count;
    }
    return ST_VALUE;
}

/* The first markdown-fenced block of s..e that holds a repairable value.
 * Returns ST_SKIP when there is no fence. */
static int parse_fences(parser *ps, const char *s, const char *e)
{
    const char *fence = find_text(s, e, "```");
    if (!fence)
        return ST_SKIP;
    while (fence) {
        const char *body = fence + 3;
        while (body < e && *body != '\n' && *body != '{' && *body != '[')
            body++; /* the info string ("json") */
        const char *stop = find_text(body, e, "```");
        const char *body_end = stop ? stop : e;
        ps->why[0] = '\0';
        if (parse_region(ps, body, body_end) == ST_VALUE) {
            ps->counts[stop ? R_FENCE : R_FENCE_UNTERMINATED] = 1;
            ps->counts[R_PROSE_BEFORE] = trim_start(s, fence) != fence;
            ps->counts[R_PROSE_AFTER] = stop && trim_start(stop + 3, e) != e;
            return ST_VALUE;
        }
        if (ps->too_deep)
            return ST_ERROR;
        fence = stop ? find_text(stop + 3, e, "```") : NULL;
    }
    ps->why[0] = '\0'; /* no fenced block held JSON: look at the whole text */
    return ST_SKIP;
}

/* The whole tolerant path over in..e into ps->out. */
static int extract_and_parse(parser *ps, const char *s, const char *e)
{
    if (starts_with(s, e, "\xEF\xBB\xBF")) {
        s += 3;
        ps->counts[R_BOM] = 1;
    }
    const char *prefix = find_text(s, e, "[TOOL_CALLS]");
    if (prefix) {
        s = prefix + strlen("[TOOL_CALLS]");
        ps->counts[R_TOOL_CALLS_PREFIX] = 1;
    }
    int st = parse_tool_calls(ps, s, e);
    if (st == ST_SKIP)
        st = parse_fences(ps, s, e);
    if (st == ST_SKIP)
        st = parse_region(ps, s, e);
    return st;
}

/* ---- results ------------------------------------------------------------ */

static int add_log(repair_result *out, const char *line)
{
    char **grown = realloc(out->repairs, (out->repair_count + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    out->repairs = grown;
    if (!(grown[out->repair_count] = strdup(line)))
        return DBMCP_ENOMEM;
    out->repair_count++;
    return 0;
}

static int log_counts(repair_result *out, const int *counts)
{
    for (int k = 0; k < R_KIND_COUNT; k++) {
        if (!counts[k])
            continue;
        char line[128];
        if (strstr(repair_text[k], "%d"))
            snprintf(line, sizeof line, repair_text[k], counts[k]);
        else
            snprintf(line, sizeof line, "%s", repair_text[k]);
        if (add_log(out, line))
            return DBMCP_ENOMEM;
    }
    return 0;
}

void repair_result_free(repair_result *r)
{
    if (!r)
        return;
    free(r->output);
    for (size_t i = 0; i < r->repair_count; i++)
        free(r->repairs[i]);
    free(r->repairs);
    memset(r, 0, sizeof *r);
}

static int set_output(repair_result *out, const char *text, size_t len)
{
    out->output = malloc(len + 1);
    if (!out->output)
        return DBMCP_ENOMEM;
    memcpy(out->output, text, len);
    out->output[len] = '\0';
    out->output_len = len;
    return 0;
}

/* Nesting depth of valid JSON text (strings skipped). */
static int text_depth(const char *s, size_t len)
{
    int depth = 0, deepest = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest)
                deepest = depth;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return deepest;
}

static int repair_level(const char *in, size_t len, const repair_options *opt, int level,
                        repair_result *out, dbmcp_error *err);

/* Does the string s hold object or array text (after spaces)? */
static int holds_structure(const char *s, size_t len)
{
    const char *p = trim_start(s, s + len);
    return p < s + len && (*p == '{' || *p == '[');
}

/* Replace members "arguments" whose value is a string holding JSON text by
 * the repaired value, everywhere in v. Returns how many were replaced. */
static int decode_arguments(json_t *v, const repair_options *opt, int level, int *lossy)
{
    int done = 0;
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach (v, i, item)
            done += decode_arguments(item, opt, level, lossy);
        return done;
    }
    if (!json_is_object(v))
        return 0;
    const char *key;
    json_t *member;
    json_object_foreach (v, key, member) {
        if (strcmp(key, "arguments") != 0 || !json_is_string(member)) {
            done += decode_arguments(member, opt, level, lossy);
            continue;
        }
        const char *text = json_string_value(member);
        size_t len = json_string_length(member);
        if (!holds_structure(text, len))
            continue;
        repair_result inner;
        dbmcp_error ignored;
        if (repair_level(text, len, opt, level + 1, &inner, &ignored))
            continue;
        json_t *value = json_loadb(inner.output, inner.output_len, LOAD_FLAGS, NULL);
        *lossy |= inner.lossy;
        repair_result_free(&inner);
        if (value && json_object_set_new(v, key, value) == 0)
            done++;
    }
    return done;
}

/* Validate out->output with jansson, then run the value post-passes. */
static int finish(repair_result *out, const repair_options *opt, int level, int *counts,
                  dbmcp_error *err)
{
    json_error_t jerr;
    json_t *value = json_loadb(out->output, out->output_len, LOAD_FLAGS, &jerr);
    if (!value)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "repaired JSON did not validate: %s",
                               jerr.text);
    if (opt->parse_string_arguments && level < MAX_NESTED_REPAIR) {
        int done = decode_arguments(value, opt, level, &out->lossy);
        if (done) {
            char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
            if (!text) {
                json_decref(value);
                return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            }
            free(out->output);
            out->output = text;
            out->output_len = strlen(text);
            out->changed = 1;
            counts[R_ARGUMENTS] += done;
        }
    }
    json_decref(value);
    if (log_counts(out, counts))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return 0;
}

/* Valid JSON: returned as is, unless it is a doubly-encoded string. */
static int strict_result(const char *in, size_t len, json_t *value, const repair_options *opt,
                         int level, repair_result *out, dbmcp_error *err)
{
    int counts[R_KIND_COUNT] = {0};
    int max_depth = opt->max_depth;
    if (text_depth(in, len) > max_depth)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "nesting deeper than %d levels", max_depth);
    if (json_is_string(value) && !opt->keep_encoded_strings && level < MAX_NESTED_REPAIR &&
        holds_structure(json_string_value(value), json_string_length(value))) {
        repair_result inner;
        dbmcp_error ignored;
        if (repair_level(json_string_value(value), json_string_length(value), opt, level + 1,
                         &inner, &ignored) == 0) {
            *out = inner;
            out->changed = 1;
            if (add_log(out, repair_text[R_DOUBLE_ENCODED]))
                return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            return 0;
        }
    }
    if (set_output(out, in, len))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return finish(out, opt, level, counts, err);
}

static int repair_level(const char *in, size_t len, const repair_options *opt, int level,
                        repair_result *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in)
        return dbmcp_error_set(err, DBMCP_EINVAL, "no input");
    if (len > opt->max_bytes)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "input of %zu bytes is over the %zu-byte limit",
                               len, opt->max_bytes);
    int rc;
    json_t *strict = len ? json_loadb(in, len, LOAD_FLAGS, NULL) : NULL;
    if (strict) {
        rc = strict_result(in, len, strict, opt, level, out, err);
        json_decref(strict);
    } else {
        const char *foreign = foreign_body(in, in + len);
        if (foreign)
            return dbmcp_error_set(err, DBMCP_EINVAL, "%s", foreign);
        parser ps;
        memset(&ps, 0, sizeof ps);
        ps.max_depth = opt->max_depth;
        rc = extract_and_parse(&ps, in, in + len);
        if (ps.out.oom)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        else if (rc == ST_ERROR)
            rc = dbmcp_error_set(err, ps.too_deep ? DBMCP_ETOOBIG : DBMCP_EINVAL, "%s", ps.why);
        else {
            out->output = ps.out.data;
            out->output_len = ps.out.len;
            ps.out.data = NULL;
            out->changed = 1;
            out->lossy = ps.lossy;
            rc = finish(out, opt, level, ps.counts, err);
        }
        free(ps.out.data);
    }
    if (rc)
        repair_result_free(out);
    return rc;
}

int repair_json(const char *in, size_t len, const repair_options *opt, repair_result *out,
                dbmcp_error *err)
{
    repair_options o = opt ? *opt : (repair_options){0};
    if (o.max_bytes == 0)
        o.max_bytes = REPAIR_DEFAULT_MAX_BYTES;
    if (o.max_depth <= 0 || o.max_depth > REPAIR_MAX_DEPTH)
        o.max_depth = REPAIR_MAX_DEPTH;
    if (!out) {
        dbmcp_error_set(err, DBMCP_EINVAL, "no result to fill");
        return DBMCP_EINVAL;
    }
    if (err)
        dbmcp_error_clear(err);
    return repair_level(in, len, &o, 0, out, err);
}
