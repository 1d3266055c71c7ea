/*
 * json_repair.c — the response repair engine (see json_repair.h for the contract).
 *
 * The tolerant parser is a recursive descent over the raw bytes that
 * writes normalised JSON text straight into a growing buffer: strings are
 * re-escaped, numbers re-spelled, and a member cut off by the end of the
 * input is rolled back by truncating the buffer to where it began. Every
 * repair bumps a counter of its kind; the log is built from the counters at
 * the end, so it stays short however often a repair was needed.
 *
 * The strict first pass and the validation of every output are one
 * allocation-free checker (json_check) with jansson's rules; the value
 * post-passes (doubly-encoded strings, escaped JSON, string arguments) work
 * on the text too, decoding only the one string they repair. No JSON tree
 * is built: the engine runs on every model answer, and the benchmark
 * (bench/README.md, "Repair benchmark") holds it to ten times jsonrepair.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json_repair.h"

#define MAX_CANDIDATES 64   /* '{' / '[' positions tried inside prose */
#define MAX_NESTED_REPAIR 4 /* repair_json inside a string inside … */
#define LOG_LINE_MAX 96     /* bytes of the longest log line, count included */
#define RETRY_MIN 8         /* bytes a stream retry must repeat ("[1, [1, 2]" is no retry) */

/* Kinds of repair; the log has one line per kind that happened. */
enum repair_kind {
    R_BOM,
    R_REPEATED,
    R_TOOL_CALLS_PREFIX,
    R_MISTRAL_CALLS,
    R_TOOL_CALL_TAG,
    R_TOOL_CALL_ARRAY,
    R_FENCE,
    R_FENCE_UNTERMINATED,
    R_PROSE_BEFORE,
    R_PROSE_AFTER,
    R_SEVERAL_ARRAY,
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
    R_NOT_A_NUMBER,
    R_THINK,
    R_MISTRAL_THINK,
    R_ESCAPED_JSON,
    R_ESCAPED_QUOTES,
    R_ESCAPED_SPACE,
    R_UNICODE_SPACE,
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

/* The log line of each kind: before, then the count and after when after
 * is not NULL ("closed " 2 " brackets at end"). */
static const struct {
    const char *before, *after;
} repair_text[R_KIND_COUNT] = {
    [R_BOM] = {"removed byte-order mark", NULL},
    [R_REPEATED] = {"dropped text repeated by a stream retry or a duplicated delta", NULL},
    [R_TOOL_CALLS_PREFIX] = {"removed [TOOL_CALLS] prefix", NULL},
    [R_MISTRAL_CALLS] = {"read ", " Mistral [TOOL_CALLS]name[ARGS] calls"},
    [R_TOOL_CALL_TAG] = {"extracted <tool_call> block", NULL},
    [R_TOOL_CALL_ARRAY] = {"combined ", " <tool_call> blocks into an array"},
    [R_FENCE] = {"removed markdown fence", NULL},
    [R_FENCE_UNTERMINATED] = {"removed unterminated markdown fence", NULL},
    [R_PROSE_BEFORE] = {"dropped text before the JSON", NULL},
    [R_PROSE_AFTER] = {"dropped text after the JSON", NULL},
    [R_SEVERAL_ARRAY] = {"combined ", " JSON values into an array"},
    [R_CLOSED_BRACKETS] = {"closed ", " brackets at end"},
    [R_CLOSED_STRING] = {"closed a cut-off string", NULL},
    [R_DROPPED_MEMBER] = {"dropped ", " cut-off members"},
    [R_DANGLING_COMMA] = {"dropped a dangling comma", NULL},
    [R_LITERAL] = {"completed a cut-off literal", NULL},
    [R_QUOTES_IN_STRING] = {"escaped ", " quotes inside strings"},
    [R_CONTROL] = {"escaped ", " control characters in strings"},
    [R_SINGLE_QUOTES] = {"replaced single quotes", NULL},
    [R_TYPOGRAPHIC_QUOTES] = {"replaced typographic quotes", NULL},
    [R_CONCAT] = {"joined ", " concatenated strings"},
    [R_COMMENTS] = {"removed ", " comments"},
    [R_TRAILING_COMMA] = {"removed ", " trailing commas"},
    [R_EXTRA_COMMA] = {"removed ", " extra commas"},
    [R_MISSING_COMMA] = {"inserted ", " missing commas"},
    [R_MISSING_COLON] = {"inserted ", " missing colons"},
    [R_PYTHON] = {"replaced Python literals", NULL},
    [R_NOT_A_NUMBER] = {"replaced NaN, Infinity or undefined with null", NULL},
    [R_THINK] = {"dropped a <think> block", NULL},
    [R_MISTRAL_THINK] = {"dropped a [THINK] block", NULL},
    [R_ESCAPED_JSON] = {"unescaped JSON written with \\\" quotes", NULL},
    [R_ESCAPED_QUOTES] = {"replaced \\\" quotes around strings", NULL},
    [R_ESCAPED_SPACE] = {"removed ", " escaped line breaks between tokens"},
    [R_UNICODE_SPACE] = {"read ", " Unicode spaces between tokens as spaces"},
    [R_UNQUOTED_KEY] = {"quoted ", " unquoted keys"},
    [R_PLACEHOLDER] = {"dropped ", " placeholders"},
    [R_NUMBER] = {"fixed ", " numbers"},
    [R_ESCAPE] = {"fixed ", " invalid escapes"},
    [R_UTF8] = {"replaced invalid UTF-8", NULL},
    [R_BRACKET] = {"fixed ", " mismatched brackets"},
    [R_DOUBLE_ENCODED] = {"decoded a doubly-encoded JSON string", NULL},
    [R_ARGUMENTS] = {"parsed ", " string arguments"},
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
    char container;           /* '{' or '[' being parsed, 0 at top level */
    int in_key;               /* the string being parsed is a key */
    text_buf out;             /* normalised JSON written so far */
    int counts[R_KIND_COUNT]; /* repairs done, by kind */
    int lossy;                /* a truncation repair happened */
    char why[200];            /* first reason a parse failed */
    int too_deep;             /* the failure was the nesting limit */
    int final;                /* the failure ends the search for a payload */
    int several;              /* several values become an array (repair_options) */
} parser;

enum { ST_ERROR = -1, ST_VALUE = 0, ST_EOF = 1, ST_SKIP = 2 };

/* ---- buffer ------------------------------------------------------------- */

/* Make room for n more bytes and the NUL; 0 when out of memory. */
static int buf_grow(text_buf *b, size_t n)
{
    if (b->oom)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
        b->oom = 1;
        return 0;
    }
    b->data = grown;
    b->cap = cap;
    return 1;
}

static inline void buf_put(text_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap && !buf_grow(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void buf_putc(text_buf *b, char c)
{
    if (b->len + 2 > b->cap && !buf_grow(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

static void buf_truncate(text_buf *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

/* ---- character classes -------------------------------------------------- */

/* Is c one of set (never true for the NUL byte)? */
static inline int in_set(char c, const char *set)
{
    if (c == '\0')
        return 0;
    for (; *set; set++)
        if (*set == c)
            return 1;
    return 0;
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

/* Are the 8 bytes at q all printable ASCII other than '"', '\\' and (with
 * apostrophe set) '\''? Word-at-a-time: the common run of plain text. */
static inline int plain8(const unsigned char *q, int apostrophe)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t w;
    memcpy(&w, q, 8);
#define HAS_ZERO(v) (((v)-ones) & ~(v)&highs)
    uint64_t bad = (w & highs) | ((w - 0x20 * ones) & ~w & highs) | HAS_ZERO(w ^ ('"' * ones)) |
                   HAS_ZERO(w ^ ('\\' * ones)) | (apostrophe ? HAS_ZERO(w ^ ('\'' * ones)) : 0);
#undef HAS_ZERO
    return bad == 0;
}

enum quote_kind { Q_NONE, Q_DOUBLE, Q_SINGLE, Q_ESCAPED, Q_LEFT_DOUBLE, Q_LEFT_SINGLE };

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
    if (*p == '\\' && p + 1 < end && p[1] == '"') { /* {"q": \"foo\"}: over-escaped */
        *n = 2;
        return Q_ESCAPED;
    }
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
    case Q_ESCAPED: return *p == '\\' && p + 1 < end && p[1] == '"' ? 2 : 0;
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

/* Length of the Unicode space at p that JSON does not count as whitespace
 * (no-break spaces U+00A0 and U+202F, U+FEFF, U+2000..U+200B, U+2028,
 * U+2029, U+205F, U+3000), 0 when there is none. Models and the text they
 * were trained on indent with them; between tokens they are spaces. */
static size_t unicode_space_at(const char *p, const char *end)
{
    const unsigned char *q = (const unsigned char *)p;
    size_t left = (size_t)(end - p);
    if (left >= 2 && q[0] == 0xC2 && q[1] == 0xA0)
        return 2;
    if (left < 3)
        return 0;
    if ((q[0] == 0xEF && q[1] == 0xBB && q[2] == 0xBF) ||
        (q[0] == 0xE3 && q[1] == 0x80 && q[2] == 0x80))
        return 3;
    if (q[0] == 0xE2 && q[1] == 0x80 &&
        (q[2] <= 0x8B || q[2] == 0xA8 || q[2] == 0xA9 || q[2] == 0xAF))
        return 3;
    return q[0] == 0xE2 && q[1] == 0x81 && q[2] == 0x9F ? 3 : 0;
}

/* Skip whitespace and comments from p; *newline is set when a line break
 * was skipped. Unicode spaces and line breaks written as escapes (a
 * backslash and n, r or t, from JSON escaped once too often) count as
 * whitespace too. counts (may be NULL) gets the comments, Unicode spaces
 * and escaped line breaks skipped. */
static const char *skip_space_slow(const char *p, const char *end, int *newline, int *counts)
{
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (is_ws(c)) {
            if (c == '\n' && newline)
                *newline = 1;
            p++;
            continue;
        }
        if (c >= 0xC2) {
            size_t n = unicode_space_at(p, end);
            if (!n)
                break;
            p += n;
            if (counts)
                counts[R_UNICODE_SPACE]++;
            continue;
        }
        if (c == '\\') {
            if (p + 1 >= end || !in_set(p[1], "nrt"))
                break;
            p += 2;
            if (counts)
                counts[R_ESCAPED_SPACE]++;
            continue;
        }
        if (c != '/' || p + 1 >= end || (p[1] != '/' && p[1] != '*'))
            break;
        if (p[1] == '/') {
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            p = eol ? eol : end;
        } else {
            const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
            p = close ? close + 2 : end;
        }
        if (counts)
            counts[R_COMMENTS]++;
    }
    return p;
}

static inline const char *skip_space_at(const char *p, const char *end, int *newline, int *counts)
{
    unsigned char c = p < end ? (unsigned char)*p : 0;
    if (p < end && !is_ws(c) && c != '/' && c != '\\' && c < 0xC2)
        return p; /* the common case: nothing to skip */
    return skip_space_slow(p, end, newline, counts);
}

static void skip_space(parser *ps)
{
    ps->p = skip_space_at(ps->p, ps->end, NULL, ps->counts);
}

static int is_placeholder(const char *p, const char *end)
{
    return p < end && ((*p == '.' && starts_with(p, end, "...")) ||
                       ((unsigned char)*p == 0xE2 && starts_with(p, end, ELLIPSIS)));
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

#define LOOKAHEAD_MAX 4096 /* bytes a quoted key is scanned for its end */

/* Is a literal parse_word knows (true, None, NaN, …) at p, as a whole
 * word or cut off by the end of the input? */
static int literal_at(const char *p, const char *end)
{
    static const char *const words[] = {"true", "false", "null",     "True",     "False",
                                        "None", "NaN",   "Infinity", "undefined"};
    const char *q = p;
    while (q < end && is_ident_byte((unsigned char)*q))
        q++;
    size_t n = (size_t)(q - p);
    for (size_t i = 0; n && i < sizeof words / sizeof words[0]; i++) {
        size_t wn = strlen(words[i]);
        if ((n == wn || (q >= end && n < wn)) && memcmp(p, words[i], n) == 0)
            return 1;
    }
    return 0;
}

/* The end of a bare number at p (p itself when there is none). */
static const char *number_end(const char *p, const char *end)
{
    const char *q = p;
    if (q < end && (*q == '-' || *q == '+'))
        q++;
    if (q >= end || !((*q >= '0' && *q <= '9') || *q == '.'))
        return p;
    while (q < end && ((*q >= '0' && *q <= '9') || in_set(*q, ".eE+-")))
        q++;
    return q;
}

/* Is p, after spaces, the end of an item: end of input, a line break or
 * one of , } ] ? */
static int item_ends(const char *p, const char *end)
{
    int newline = 0;
    p = skip_space_at(p, end, &newline, NULL);
    return p >= end || newline || in_set(*p, ",}]");
}

/* Past the quoted text at p (opening quote of kind, n bytes) or past the
 * end of the look-ahead window when it does not close there. */
static const char *skip_quoted(const char *p, size_t n, enum quote_kind kind, const char *end)
{
    const char *limit = end - p > LOOKAHEAD_MAX ? p + LOOKAHEAD_MAX : end;
    for (p += n; p < limit; p++) {
        size_t m = closing_quote_at(kind, p, limit);
        if (m)
            return p + m;
        if (*p == '\\')
            p++;
    }
    return limit;
}

/* After a quote and a comma inside a string: does a plausible next item
 * start at p? In an object that is a key followed by ':' (or by a value,
 * the colon missing); in an array, a value. "a "b", c" has none, so its
 * middle quote is content. */
static int next_item_follows(const char *p, const char *end, char container)
{
    p = skip_space_at(p, end, NULL, NULL);
    if (p >= end || *p == '}' || *p == ']' || *p == ',' || is_placeholder(p, end))
        return 1;
    size_t n;
    enum quote_kind kind = quote_at(p, end, &n);
    if (container != '{')
        return kind != Q_NONE || *p == '{' || *p == '[' || number_end(p, end) > p ||
               literal_at(p, end);
    const char *after = p;
    if (kind != Q_NONE)
        after = skip_quoted(p, n, kind, end);
    else
        while (after < end && is_ident_byte((unsigned char)*after))
            after++;
    if (after == p)
        return 0;
    after = skip_space_at(after, end, NULL, NULL);
    if (after >= end || *after == ':' || *after == '=')
        return 1;
    return kind != Q_NONE &&
           (quote_at(after, end, &n) != Q_NONE || *after == '{' || *after == '[' ||
            number_end(after, end) > after || literal_at(after, end));
}

/* After a quote and spaces on the same line: does a bare item follow with
 * its separator missing ("Bernd"  7], 'bar'  x: 1)? A number or literal
 * that ends the item, or in an object an unquoted key and its colon. */
static int bare_item_follows(const char *p, const char *end, char container)
{
    const char *q = number_end(p, end);
    if (q > p)
        return item_ends(q, end);
    if (literal_at(p, end)) {
        while (q < end && is_ident_byte((unsigned char)*q))
            q++;
        return item_ends(q, end);
    }
    if (container != '{')
        return 0;
    while (q < end && is_ident_byte((unsigned char)*q))
        q++;
    q = skip_space_at(q, end, NULL, NULL);
    return q > p && q < end && *q == ':';
}

/* Is the quote of length n at q the end of the string? A quote followed
 * (after spaces and comments) by } ] : another quote, a bracket, a line
 * break, '+' or the end closes it; so does one followed by a comma and a
 * plausible next item, or by a bare item with its comma missing; any other
 * is content. container is the enclosing '{' or '['. */
static int quote_closes(const char *q, size_t n, const char *end, int is_key, char container)
{
    int newline = 0;
    const char *look = skip_space_at(q + n, end, &newline, NULL);
    size_t m;
    if (look >= end || newline)
        return 1;
    if (is_key && (*look == '=' || (look > q + n && value_starts(look, end))))
        return 1; /* "key" = value, "key" value: the colon is missing */
    if (*look == ',')
        return is_key || next_item_follows(look + 1, end, container);
    if (!is_key && look == q + n && (size_t)(end - look) >= n && memcmp(look, q, n) == 0 &&
        item_ends(look + n, end))
        return 0; /* "say "hi"": the first of two quotes that end the item is content */
    if (in_set(*look, "}]:{[+") || quote_at(look, end, &m) != Q_NONE)
        return 1;
    return !is_key && look > q + n && bare_item_follows(look, end, container);
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

/* Is p..end the start of a \\uXXXX escape cut off by the end of the input
 * (or nothing at all)? */
static int escape_cut_at(const char *p, const char *end)
{
    if (p >= end)
        return 1;
    if (end - p >= 6 || *p != '\\' || (end - p >= 2 && p[1] != 'u'))
        return 0;
    for (const char *h = p + 2; h < end; h++)
        if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f') || (*h >= 'A' && *h <= 'F')))
            return 0;
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
        } else if (cp >= 0xD800 && cp <= 0xDBFF && escape_cut_at(ps->p, ps->end)) {
            ps->p = ps->end; /* a surrogate pair cut off in its middle: dropped */
        } else if ((cp >= 0xD800 && cp <= 0xDFFF) || (cp == 0 && ps->in_key)) {
            put_hex_escape(&ps->out, 0xFFFD); /* jansson holds no NUL in a key */
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
            put_hex_escape(&ps->out, c == 0 && ps->in_key ? 0xFFFD : c);
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

/* The length of the run at p of bytes that are string content as they
 * stand: printable ASCII other than backslash and the quotes that may
 * close a string of kind, and valid UTF-8 (up to the lead byte of a
 * typographic quote when kind is one). The common case, copied in one go. */
static size_t plain_run(const char *p, const char *end, enum quote_kind kind)
{
    const unsigned char *q = (const unsigned char *)p, *e = (const unsigned char *)end;
    while (e - q >= 8 && plain8(q, kind != Q_DOUBLE))
        q += 8;
    while (q < e) {
        unsigned char c = *q;
        if (c >= 0x20 && c < 0x80) {
            if (c == '"' || c == '\\' || (c == '\'' && kind != Q_DOUBLE))
                break;
            q++;
        } else if (c >= 0x80 && !(c == 0xE2 && kind >= Q_LEFT_DOUBLE)) {
            size_t n = utf8_length(q, e);
            if (n == 0)
                break;
            q += n;
        } else {
            break;
        }
    }
    return (size_t)(q - (const unsigned char *)p);
}

/* The content of one string literal after its opening quote, up to and
 * including its closing quote. Returns ST_EOF when the input ended first. */
static int string_body(parser *ps, enum quote_kind kind, int is_key)
{
    ps->in_key = is_key;
    while (ps->p < ps->end) {
        size_t n = plain_run(ps->p, ps->end, kind);
        if (n) {
            buf_put(&ps->out, ps->p, n);
            ps->p += n;
            continue;
        }
        n = closing_quote_at(kind, ps->p, ps->end);
        if (n && quote_closes(ps->p, n, ps->end, is_key, ps->container)) {
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
        else if (kind == Q_ESCAPED)
            ps->counts[R_ESCAPED_QUOTES] = 1;
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

static int number_in_range(const unsigned char *s, size_t n, int real);

/* Make the number written at b[mark..] one jansson can hold: an integer
 * beyond json_int_t becomes a real (its digits kept, ".0" added), a real
 * beyond double becomes null. Returns 1 when it changed the number. */
static int fit_number(text_buf *b, size_t mark)
{
    if (b->oom)
        return 0;
    const unsigned char *s = (const unsigned char *)b->data + mark;
    size_t n = b->len - mark;
    int exponent = memchr(s, 'e', n) || memchr(s, 'E', n);
    int real = exponent || memchr(s, '.', n);
    if ((real ? !exponent && n <= 300 : n < 19) || number_in_range(s, n, real))
        return 0; /* as check_number: only these can be out of range */
    if (!real && number_in_range(s, n, 1)) {
        buf_put(b, ".0", 2);
        return 1;
    }
    buf_truncate(b, mark);
    buf_put(b, "null", 4);
    return 1;
}

/* A number at ps->p, re-spelled as JSON: a leading '+' and leading zeros
 * go, a bare '.' gets a 0, an empty fraction or exponent is dropped. */
static int parse_number(parser *ps)
{
    const char *p = ps->p, *end = ps->end;
    int fixed = 0;
    size_t mark = ps->out.len;
    if ((*p == '-' || *p == '+') && starts_with(p + 1, end, "Infinity")) {
        buf_put(&ps->out, "null", 4); /* -Infinity: JSON has no such number */
        ps->counts[R_NOT_A_NUMBER] = 1;
        ps->p = p + 9;
        return ST_VALUE;
    }
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
    fixed |= fit_number(&ps->out, mark);
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
        int kind; /* the repair it is, 0 for JSON's own */
    } words[] = {{"true", "true", 0},
                 {"false", "false", 0},
                 {"null", "null", 0},
                 {"True", "true", R_PYTHON},
                 {"False", "false", R_PYTHON},
                 {"None", "null", R_PYTHON},
                 {"NaN", "null", R_NOT_A_NUMBER},
                 {"Infinity", "null", R_NOT_A_NUMBER},
                 {"undefined", "null", R_NOT_A_NUMBER}};
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
        if (words[i].kind)
            ps->counts[words[i].kind] = 1;
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
    if (ps->p == start && *start == ':') /* "code": "d = {"k": 1}": which quote ends it? */
        return fail(ps,
                    "unexpected '%c' where a key should be: a string before it may hold "
                    "unescaped quotes",
                    start);
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
    if (c == '{' || c == '[') {
        char outer = ps->container;
        ps->container = c;
        int st = c == '{' ? parse_object(ps) : parse_array(ps);
        ps->container = outer;
        return st;
    }
    if (quote_at(ps->p, ps->end, &n) != Q_NONE)
        return parse_string(ps, 0, &cut);
    if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))
        return parse_number(ps);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return parse_word(ps);
    return fail(ps, "unexpected '%c' where a value should be", ps->p);
}

/* ---- extraction --------------------------------------------------------- */

/* s past whitespace and Unicode spaces. */
static const char *trim_start(const char *s, const char *e)
{
    for (;;) {
        while (s < e && is_ws((unsigned char)*s))
            s++;
        size_t n = unicode_space_at(s, e);
        if (!n)
            return s;
        s += n;
    }
}

/* The first needle in s..e, or NULL; a memchr for its first byte, which
 * is rare in JSON, beats a general search. */
static const char *find_text(const char *s, const char *e, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = s; p < e; p++) {
        p = memchr(p, needle[0], (size_t)(e - p));
        if (!p || (size_t)(e - p) < n)
            return NULL;
        if (memcmp(p, needle, n) == 0)
            return p;
    }
    return NULL;
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
    if (s < e && *s == '<' &&
        (starts_with_nocase(s, e, "<!doctype") || starts_with_nocase(s, e, "<html") ||
         starts_with_nocase(s, e, "<head") || starts_with_nocase(s, e, "<body") ||
         find_text(s, s + ((e - s) < 1024 ? (e - s) : 1024), "<html")))
        return "input is an HTML page, not JSON";
    while (s < e && *s == ':') { /* event-stream comment lines (": keep-alive") */
        const char *eol = memchr(s, '\n', (size_t)(e - s));
        s = trim_start(eol ? eol : e, e);
    }
    if (starts_with(s, e, "data:") || starts_with(s, e, "event:") || starts_with(s, e, "id:") ||
        starts_with(s, e, "retry:"))
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

/* Is out[a..a+n) the same text as out[b..b+n)? */
static int same_text(const text_buf *out, size_t a, size_t b, size_t n)
{
    return memcmp(out->data + a, out->data + b, n) == 0;
}

/* Insert c at out[at] (the output buffer grows by one byte). */
static void buf_insert(text_buf *b, size_t at, char c)
{
    if (b->len + 2 > b->cap && !buf_grow(b, 1))
        return;
    memmove(b->data + at + 1, b->data + at, b->len - at + 1);
    b->data[at] = c;
    b->len++;
}

/* After the value written at out[mark..]: the values that follow it
 * (concatenated, one per line, or after ',' or ';'), up to e. A value that
 * is a copy of the one before it is a duplicate (a delta sent twice) and
 * dropped. With ps->several the values become an array; otherwise more
 * than one is an error that ends the search (never the first value alone:
 * the others would be lost silently). Text that is no value is prose. */
static int more_values(parser *ps, size_t mark, const char *e)
{
    size_t prev = mark, prev_len = ps->out.len - mark;
    int count = 1;
    for (;;) {
        const char *rest = skip_space_at(ps->p, e, NULL, ps->counts), *next = rest;
        if (next < e && (*next == ',' || *next == ';'))
            next = skip_space_at(next + 1, e, NULL, ps->counts);
        if (next >= e || (*next != '{' && *next != '[')) {
            if (rest < e)
                ps->counts[R_PROSE_AFTER] = 1;
            break;
        }
        int saved[R_KIND_COUNT], saved_lossy = ps->lossy;
        memcpy(saved, ps->counts, sizeof saved);
        size_t here = ps->out.len;
        buf_putc(&ps->out, ',');
        ps->p = next;
        ps->depth = 0;
        int st = parse_value(ps);
        if (ps->out.oom || ps->too_deep)
            return ps->out.oom ? ST_VALUE : ST_ERROR;
        if (st == ST_VALUE && *next == '[' && !prose_array_ok(&ps->out, here + 1))
            st = ST_ERROR;
        if (st != ST_VALUE) { /* not a value: text after the JSON */
            buf_truncate(&ps->out, here);
            memcpy(ps->counts, saved, sizeof saved);
            ps->lossy = saved_lossy;
            ps->why[0] = '\0';
            ps->counts[R_PROSE_AFTER] = 1;
            break;
        }
        size_t len = ps->out.len - here - 1;
        if (len == prev_len && same_text(&ps->out, prev, here + 1, len)) {
            buf_truncate(&ps->out, here);
            ps->counts[R_REPEATED] = 1;
            continue;
        }
        prev = here + 1;
        prev_len = len;
        count++;
    }
    if (count == 1)
        return ST_VALUE;
    if (!ps->several) {
        snprintf(ps->why, sizeof ps->why,
                 "several JSON values (%d) where one was expected; a caller that expects "
                 "several tool calls asks for them as an array (--several)",
                 count);
        ps->final = 1;
        return ST_ERROR;
    }
    buf_insert(&ps->out, mark, '[');
    buf_putc(&ps->out, ']');
    ps->counts[R_SEVERAL_ARRAY] = count;
    return ST_VALUE;
}

/* Parse the first repairable object or array in s..e, and the values that
 * follow it (more_values), appending them to ps->out. Returns ST_VALUE or
 * ST_ERROR (ps->why says why). */
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
            st = more_values(ps, mark, e);
            if (st == ST_VALUE)
                return ST_VALUE;
        }
        buf_truncate(&ps->out, mark);
        memcpy(ps->counts, saved, sizeof saved);
        ps->lossy = saved_lossy;
        if (ps->too_deep || ps->final)
            return ST_ERROR;
        if (c == start && *c == '{')
            return ST_ERROR; /* text that opens as an object and breaks: the
                                objects inside it are no answer of their own */
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
        if (ps->too_deep || ps->final)
            return ST_ERROR;
        fence = stop ? find_text(stop + 3, e, "```") : NULL;
    }
    ps->why[0] = '\0'; /* no fenced block held JSON: look at the whole text */
    return ST_SKIP;
}

/* ---- Mistral tool calls ---------------------------------------------------- */

#define MISTRAL_CALLS "[TOOL_CALLS]"
#define MISTRAL_ARGS "[ARGS]"
#define MISTRAL_CALL_ID "[CALL_ID]"

static int is_name_byte(unsigned char c)
{
    return is_ident_byte(c) || c == '.';
}

/* The end of a tool name at p (p itself when there is none). */
static const char *name_end(const char *p, const char *e)
{
    while (p < e && is_name_byte((unsigned char)*p))
        p++;
    return p;
}

/* Does s..e (after spaces) start with Mistral's call header: a name
 * followed by [ARGS], [CALL_ID] or (v11 tokenizers decoding [ARGS] away)
 * directly by the arguments' '{'? */
static int mistral_call_at(const char *s, const char *e)
{
    s = trim_start(s, e);
    const char *p = name_end(s, e);
    return p > s && (starts_with(p, e, MISTRAL_ARGS) || starts_with(p, e, MISTRAL_CALL_ID) ||
                     (p < e && *p == '{'));
}

/* One call "name[CALL_ID]id[ARGS]value" in s..e, written as
 * {"name":…,"id":…,"arguments":value}. */
static int parse_mistral_call(parser *ps, const char *s, const char *e)
{
    const char *name = trim_start(s, e), *p = name_end(name, e);
    buf_put(&ps->out, "{\"name\":\"", 9);
    buf_put(&ps->out, name, (size_t)(p - name));
    buf_putc(&ps->out, '"');
    if (starts_with(p, e, MISTRAL_CALL_ID)) {
        const char *id = p + strlen(MISTRAL_CALL_ID);
        p = name_end(id, e);
        buf_put(&ps->out, ",\"id\":\"", 7);
        buf_put(&ps->out, id, (size_t)(p - id));
        buf_putc(&ps->out, '"');
    }
    if (starts_with(p, e, MISTRAL_ARGS))
        p += strlen(MISTRAL_ARGS);
    buf_put(&ps->out, ",\"arguments\":", 13);
    ps->p = p;
    ps->end = e;
    ps->depth = 0;
    ps->container = 0;
    int st = parse_value(ps);
    if (st == ST_ERROR)
        return ST_ERROR;
    if (st != ST_VALUE) {
        snprintf(ps->why, sizeof ps->why, "the tool call %.*s has no arguments",
                 (int)(p - name < 64 ? p - name : 64), name);
        return ST_ERROR;
    }
    buf_putc(&ps->out, '}');
    if (skip_space_at(ps->p, e, NULL, ps->counts) < e)
        ps->counts[R_PROSE_AFTER] = 1;
    ps->counts[R_MISTRAL_CALLS]++;
    return ST_VALUE;
}

/* Remove the brackets of the array written at out[at..] (the last byte is
 * its ']'), and the comma before it when it is empty: its elements join
 * the array around it. */
static void unwrap_array(text_buf *out, size_t at)
{
    assert(out->data[at] == '[' && out->data[out->len - 1] == ']');
    size_t inner = out->len - at - 2;
    memmove(out->data + at, out->data + at + 1, inner);
    buf_truncate(out, at + inner);
    if (inner == 0 && at > 0 && out->data[at - 1] == ',')
        buf_truncate(out, at - 1);
}

/* Mistral's tool calls in s..e: "[TOOL_CALLS]" and a JSON array (before
 * v11) or "name[ARGS]{…}" (v11 on), repeated for parallel calls; s may
 * start with a call whose "[TOOL_CALLS]" a server already took. One call
 * gives its value, several an array, like <tool_call> blocks; the arrays
 * of several "[TOOL_CALLS] [...]" join into one. Returns ST_SKIP when
 * there is no such call. */
static int parse_mistral_calls(parser *ps, const char *s, const char *e)
{
    const char *marker = find_text(s, e, MISTRAL_CALLS);
    const char *seg;
    if (marker && find_text(s, marker, MISTRAL_ARGS) && mistral_call_at(s, marker)) {
        seg = s; /* a first call whose marker the server took, then more */
    } else if (marker) {
        seg = marker + strlen(MISTRAL_CALLS);
        ps->counts[R_TOOL_CALLS_PREFIX] = 1;
    } else if (mistral_call_at(s, e) && find_text(s, e, MISTRAL_ARGS)) {
        seg = s;
    } else {
        return ST_SKIP;
    }
    const char *trimmed_end = e;
    while (trimmed_end > seg && is_ws((unsigned char)trimmed_end[-1]))
        trimmed_end--;
    if (trimmed_end - seg >= 4 && memcmp(trimmed_end - 4, "</s>", 4) == 0)
        e = trimmed_end - 4; /* the end-of-sequence token, decoded */
    size_t mark = ps->out.len;
    buf_putc(&ps->out, '[');
    int count = 0, several = find_text(seg, e, MISTRAL_CALLS) != NULL;
    while (seg) {
        const char *stop = find_text(seg, e, MISTRAL_CALLS);
        const char *seg_end = stop ? stop : e;
        if (count > 0 && ps->out.data[ps->out.len - 1] != '[')
            buf_putc(&ps->out, ',');
        size_t at = ps->out.len;
        int st = mistral_call_at(seg, seg_end) ? parse_mistral_call(ps, seg, seg_end)
                                               : parse_region(ps, seg, seg_end);
        if (st == ST_ERROR)
            return ST_ERROR;
        if (several && !ps->out.oom && ps->out.data[at] == '[')
            unwrap_array(&ps->out, at);
        count++;
        seg = stop ? stop + strlen(MISTRAL_CALLS) : NULL;
    }
    buf_putc(&ps->out, ']');
    if (ps->out.oom)
        return ST_VALUE; /* reported by the caller */
    if (count == 1) {    /* unwrap the single value */
        memmove(ps->out.data + mark, ps->out.data + mark + 1, ps->out.len - mark - 2);
        buf_truncate(&ps->out, ps->out.len - 2);
    }
    return ST_VALUE;
}

/* s past a reasoning block at its start: <think>…</think> or Mistral's
 * [THINK]…[/THINK]. An unterminated block is left alone. */
static const char *skip_reasoning(parser *ps, const char *s, const char *e)
{
    static const struct {
        const char *open, *close;
        int kind;
    } blocks[] = {{"<think>", "</think>", R_THINK}, {"[THINK]", "[/THINK]", R_MISTRAL_THINK}};
    const char *t = trim_start(s, e);
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        if (!starts_with(t, e, blocks[i].open))
            continue;
        const char *close = find_text(t, e, blocks[i].close);
        if (!close)
            return s;
        ps->counts[blocks[i].kind] = 1;
        return close + strlen(blocks[i].close);
    }
    return s;
}

/* The whole tolerant path over in..e into ps->out. */
static int extract_and_parse(parser *ps, const char *s, const char *e)
{
    if (starts_with(s, e, "\xEF\xBB\xBF")) {
        s += 3;
        ps->counts[R_BOM] = 1;
    }
    s = skip_reasoning(ps, s, e);
    int st = parse_mistral_calls(ps, s, e);
    if (st == ST_SKIP)
        st = parse_tool_calls(ps, s, e);
    if (st == ST_SKIP)
        st = parse_fences(ps, s, e);
    if (st == ST_SKIP)
        st = parse_region(ps, s, e);
    return st;
}

/* ---- strict validation ------------------------------------------------ */

/* A strict RFC 8259 checker with jansson's extra rules (the ones of
 * json_loadb with JSON_DECODE_ANY | JSON_ALLOW_NUL): no allocation, no
 * tree. It decides the strict first pass and validates every output, so
 * it must accept exactly what jansson accepts: integers must fit in
 * json_int_t, reals must not overflow, "\u0000" is refused inside keys,
 * lone surrogate escapes and invalid UTF-8 are refused. The fuzz target
 * holds it to that (valid input comes back unchanged, every output
 * parses with jansson). */
enum { CHECK_OK = 0, CHECK_INVALID = 1, CHECK_TOO_DEEP = 2 };

typedef struct checker {
    const unsigned char *p, *end; /* the unread text */
    int depth, max_depth;         /* current and allowed nesting */
} checker;

static void check_space(checker *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int check_string(checker *c, int is_key)
{
    const unsigned char *p = c->p + 1, *end = c->end;
    unsigned cp, low;
    for (;;) {
        while (end - p >= 8 && plain8(p, 0))
            p += 8;
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p >= end || *p < 0x20)
            return CHECK_INVALID;
        if (*p == '"') {
            c->p = p + 1;
            return CHECK_OK;
        }
        if (*p >= 0x80) {
            size_t n = utf8_length(p, end);
            if (n == 0)
                return CHECK_INVALID;
            p += n;
            continue;
        }
        if (p + 1 >= end)
            return CHECK_INVALID;
        if (p[1] != 'u') {
            if (!in_set((char)p[1], "\"\\/bfnrt"))
                return CHECK_INVALID;
            p += 2;
            continue;
        }
        if (!hex4((const char *)p + 2, (const char *)end, &cp))
            return CHECK_INVALID;
        p += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return CHECK_INVALID;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - p < 6 || p[0] != '\\' || p[1] != 'u' ||
                !hex4((const char *)p + 2, (const char *)end, &low) || low < 0xDC00 || low > 0xDFFF)
                return CHECK_INVALID;
            p += 6;
        } else if (cp == 0 && is_key) {
            return CHECK_INVALID; /* jansson: NUL byte in object key not supported */
        }
    }
}

/* Does the number text s[0..n) fit jansson (json_int_t, finite double)? */
static int number_in_range(const unsigned char *s, size_t n, int real)
{
    char small[64], *text = n < sizeof small ? small : malloc(n + 1);
    if (!text)
        return 0;
    memcpy(text, s, n);
    text[n] = '\0';
    errno = 0;
    int ok;
    if (real) {
        double v = strtod(text, NULL);
        ok = !(errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL));
    } else {
        (void)strtoll(text, NULL, 10);
        ok = errno != ERANGE;
    }
    if (text != small)
        free(text);
    return ok;
}

static int check_number(checker *c)
{
    const unsigned char *start = c->p, *p = start, *end = c->end;
    int real = 0, exponent = 0;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if (p < end && *p >= '1' && *p <= '9')
        while (p < end && is_digit(*p))
            p++;
    else
        return CHECK_INVALID;
    if (p < end && *p == '.') {
        if (++p >= end || !is_digit(*p))
            return CHECK_INVALID;
        while (p < end && is_digit(*p))
            p++;
        real = 1;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return CHECK_INVALID;
        while (p < end && is_digit(*p))
            p++;
        real = exponent = 1;
    }
    size_t n = (size_t)(p - start);
    /* Only long integers and reals with an exponent or hundreds of digits
     * can be out of range; the rest skip strtoll/strtod. */
    if ((real ? exponent || n > 300 : n > 18) && !number_in_range(start, n, real))
        return CHECK_INVALID;
    c->p = p;
    return CHECK_OK;
}

static int check_value(checker *c);

static int check_container(checker *c)
{
    int object = *c->p == '{';
    unsigned char close = object ? '}' : ']';
    if (++c->depth > c->max_depth)
        return CHECK_TOO_DEEP;
    c->p++;
    check_space(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return CHECK_OK;
    }
    for (;;) {
        int rc;
        if (object) {
            check_space(c);
            if (c->p >= c->end || *c->p != '"')
                return CHECK_INVALID;
            if ((rc = check_string(c, 1)) != CHECK_OK)
                return rc;
            check_space(c);
            if (c->p >= c->end || *c->p != ':')
                return CHECK_INVALID;
            c->p++;
        }
        if ((rc = check_value(c)) != CHECK_OK)
            return rc;
        check_space(c);
        if (c->p >= c->end)
            return CHECK_INVALID;
        if (*c->p == close) {
            c->p++;
            c->depth--;
            return CHECK_OK;
        }
        if (*c->p != ',')
            return CHECK_INVALID;
        c->p++;
    }
}

static int check_literal(checker *c, const char *word)
{
    if (!starts_with((const char *)c->p, (const char *)c->end, word))
        return CHECK_INVALID;
    c->p += strlen(word);
    return CHECK_OK;
}

static int check_value(checker *c)
{
    check_space(c);
    if (c->p >= c->end)
        return CHECK_INVALID;
    switch (*c->p) {
    case '"': return check_string(c, 0);
    case '{':
    case '[': return check_container(c);
    case 't': return check_literal(c, "true");
    case 'f': return check_literal(c, "false");
    case 'n': return check_literal(c, "null");
    default: return check_number(c);
    }
}

/* Is s[0..len) one valid JSON value (no deeper than max_depth)? Returns a
 * CHECK_ code; *first gets the value's first byte ('"' for a string). */
static int json_check(const char *s, size_t len, int max_depth, char *first)
{
    checker c = {(const unsigned char *)s, (const unsigned char *)s + len, 0, max_depth};
    check_space(&c);
    *first = c.p < c.end ? (char)*c.p : '\0';
    int rc = check_value(&c);
    if (rc != CHECK_OK)
        return rc;
    check_space(&c);
    return c.p == c.end ? CHECK_OK : CHECK_INVALID;
}

/* ---- results ------------------------------------------------------------ */

/* Write the log line of kind k with count into line (LOG_LINE_MAX bytes
 * hold the longest); no printf, as this runs for every repair. Returns its
 * length. */
static size_t format_line(char *line, int k, int count)
{
    size_t n = strlen(repair_text[k].before);
    memcpy(line, repair_text[k].before, n);
    if (repair_text[k].after) {
        char rev[12];
        size_t nd = 0;
        unsigned v = count > 0 ? (unsigned)count : 0;
        do
            rev[nd++] = (char)('0' + v % 10);
        while ((v /= 10) && nd < sizeof rev);
        while (nd)
            line[n++] = rev[--nd];
        size_t na = strlen(repair_text[k].after);
        memcpy(line + n, repair_text[k].after, na);
        n += na;
    }
    line[n] = '\0';
    return n;
}

/* Build out->repairs from counts: one allocation holding the pointer array
 * and the lines (measured first, then written in place). */
static int log_counts(repair_result *out, const int *counts)
{
    char line[LOG_LINE_MAX];
    size_t count = 0, text = 0;
    for (int k = 0; k < R_KIND_COUNT; k++)
        if (counts[k])
            count++, text += format_line(line, k, counts[k]) + 1;
    if (count == 0)
        return 0;
    char **log = malloc(count * sizeof *log + text);
    if (!log)
        return DBMCP_ENOMEM;
    char *at = (char *)(log + count);
    size_t i = 0;
    for (int k = 0; k < R_KIND_COUNT; k++)
        if (counts[k])
            log[i++] = at, at += format_line(at, k, counts[k]) + 1;
    out->repairs = log;
    out->repair_count = count;
    return 0;
}

void repair_result_free(repair_result *r)
{
    if (!r)
        return;
    free(r->output);
    free(r->repairs); /* the lines live in the same block */
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

static int repair_level(const char *in, size_t len, const repair_options *opt, int level,
                        int *counts, repair_result *out, dbmcp_error *err);

/* Does the string s hold object or array text (after spaces)? */
static int holds_structure(const char *s, size_t len)
{
    const char *p = trim_start(s, s + len);
    return p < s + len && (*p == '{' || *p == '[');
}

/* Append the UTF-8 encoding of code point cp to b. */
static void put_utf8(text_buf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    buf_put(b, u, n);
}

/* Decode the content of a string literal from p (after its opening
 * quote) into b, up to its closing quote or end; an invalid escape is
 * dropped. Returns the end of the literal. */
static const char *string_decode(const char *p, const char *end, text_buf *b)
{
    static const char simple[][2] = {{'b', '\b'}, {'f', '\f'}, {'n', '\n'},  {'r', '\r'},
                                     {'t', '\t'}, {'"', '"'},  {'\\', '\\'}, {'/', '/'}};
    for (;;) {
        const char *run = p;
        while (p < end && *p != '"' && *p != '\\')
            p++;
        buf_put(b, run, (size_t)(p - run));
        if (p + 1 >= end || *p == '"')
            return p < end ? p + 1 : end;
        unsigned cp, low;
        if (p[1] == 'u' && hex4(p + 2, end, &cp)) {
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF && p + 6 <= end && hex4(p + 2, end, &low)) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            put_utf8(b, cp);
            continue;
        }
        for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
            if (simple[i][0] == p[1])
                buf_putc(b, simple[i][1]);
        p += 2;
    }
}

/* Repair the decoded text of the string literal at s as a nested payload
 * into *inner (counts and log of the inner repair go to inner_counts).
 * Returns 0, ST_SKIP when the string holds no object or array text (or
 * cannot be repaired), DBMCP_ENOMEM. *end_of_literal gets its end. */
static int repair_literal(const char *s, const char *end, const repair_options *opt, int level,
                          int *inner_counts, repair_result *inner, const char **end_of_literal)
{
    text_buf text = {0};
    *end_of_literal = string_decode(s + 1, end, &text);
    if (text.oom) {
        free(text.data);
        return DBMCP_ENOMEM;
    }
    int rc = ST_SKIP;
    dbmcp_error ignored;
    if (text.data && holds_structure(text.data, text.len))
        rc = repair_level(text.data, text.len, opt, level + 1, inner_counts, inner, &ignored);
    free(text.data);
    return rc == DBMCP_ENOMEM ? rc : rc ? ST_SKIP : 0;
}

/* Copy valid JSON text s[0..len) into b, replacing every member
 * "arguments" whose value is a string holding object or array text by its
 * repaired value. Returns how many were replaced, or DBMCP_ENOMEM. */
static int splice_arguments(const char *s, size_t len, const repair_options *opt, int level,
                            text_buf *b, int *lossy)
{
    const char *p = s, *end = s + len, *copied = s;
    char stack[REPAIR_MAX_DEPTH + 1];
    int depth = 0, expect_key = 0, done = 0;
    while (p < end) {
        char c = *p;
        if (c != '"') {
            if (c == '{' || c == '[')
                stack[depth++] = c, expect_key = c == '{';
            else if (c == '}' || c == ']')
                depth--, expect_key = 0;
            else if (c == ':')
                expect_key = 0;
            else if (c == ',')
                expect_key = depth > 0 && stack[depth - 1] == '{';
            p++;
            continue;
        }
        const char *key = p;
        for (p++; p < end && *p != '"'; p++)
            p += *p == '\\'; /* valid JSON: an escape is two bytes or more */
        p += p < end;
        if (!expect_key || p - key != 11 || memcmp(key, "\"arguments\"", 11) != 0)
            continue;
        const char *value = trim_start(p, end);
        value = value < end && *value == ':' ? trim_start(value + 1, end) : end;
        if (value >= end || *value != '"')
            continue;
        repair_result inner;
        int scratch[R_KIND_COUNT] = {0}; /* the inner repairs are not logged */
        const char *after;
        int rc = repair_literal(value, end, opt, level, scratch, &inner, &after);
        if (rc == DBMCP_ENOMEM)
            return rc;
        expect_key = 0;
        p = after;
        if (rc != 0)
            continue;
        buf_put(b, copied, (size_t)(value - copied));
        buf_put(b, inner.output, inner.output_len);
        copied = after;
        *lossy |= inner.lossy;
        repair_result_free(&inner);
        done++;
    }
    buf_put(b, copied, (size_t)(end - copied));
    return b->oom ? DBMCP_ENOMEM : done;
}

/* The string-arguments post-pass over out->output (valid JSON). */
static int parse_arguments(repair_result *out, const repair_options *opt, int level, int *counts,
                           dbmcp_error *err)
{
    if (!opt->parse_string_arguments || level >= MAX_NESTED_REPAIR ||
        !memmem(out->output, out->output_len, "\"arguments\"", 11))
        return 0;
    text_buf b = {0};
    int lossy = 0;
    char first;
    int done = splice_arguments(out->output, out->output_len, opt, level, &b, &lossy);
    if (done < 0 || b.oom) {
        free(b.data);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    /* The spliced values nest inside the document: the whole must still be
     * within the nesting limit, or the arguments stay strings. */
    if (done == 0 || json_check(b.data, b.len, opt->max_depth, &first) != CHECK_OK) {
        free(b.data);
        return 0;
    }
    out->lossy |= lossy;
    free(out->output);
    out->output = b.data;
    out->output_len = b.len;
    out->changed = 1;
    counts[R_ARGUMENTS] += done;
    return 0;
}

/* Valid JSON: returned as is, unless it is a doubly-encoded string. */
static int strict_result(const char *in, size_t len, char first, const repair_options *opt,
                         int level, int *counts, repair_result *out, dbmcp_error *err)
{
    if (first == '"' && !opt->keep_encoded_strings && level < MAX_NESTED_REPAIR) {
        int inner_counts[R_KIND_COUNT] = {0};
        const char *after;
        int rc = repair_literal(trim_start(in, in + len), in + len, opt, level, inner_counts, out,
                                &after);
        if (rc == DBMCP_ENOMEM)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        if (rc == 0) {
            out->changed = 1;
            for (int k = 0; k < R_KIND_COUNT; k++)
                counts[k] += inner_counts[k];
            counts[R_DOUBLE_ENCODED] = 1;
            return 0;
        }
    }
    if (set_output(out, in, len))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return parse_arguments(out, opt, level, counts, err);
}

/* Is the first object or array of s..e written with escaped quotes, as
 * the content of a JSON string without its quotes ({\"a\": 1})? */
static int escaped_json_at(const char *s, const char *e)
{
    const char *p = s;
    while (p < e && *p != '{' && *p != '[')
        p++;
    const char *open = p;
    while (p < e && (*p == '{' || *p == '[' || is_ws((unsigned char)*p)))
        p++;
    return p > open && starts_with(p, e, "\\\"");
}

/* Escaped JSON: decoded as string content, then repaired. Returns 0 or
 * ST_SKIP (not escaped JSON, or not repairable so: go the usual way). */
static int escaped_result(const char *in, size_t len, const repair_options *opt, int level,
                          int *counts, repair_result *out)
{
    if (level >= MAX_NESTED_REPAIR || !escaped_json_at(in, in + len))
        return ST_SKIP;
    text_buf text = {0};
    string_decode(in, in + len, &text);
    int inner_counts[R_KIND_COUNT] = {0};
    dbmcp_error ignored;
    int rc = ST_SKIP;
    if (!text.oom && text.data)
        rc = repair_level(text.data, text.len, opt, level + 1, inner_counts, out, &ignored);
    free(text.data);
    if (rc != 0)
        return ST_SKIP;
    out->changed = 1;
    for (int k = 0; k < R_KIND_COUNT; k++)
        counts[k] += inner_counts[k];
    counts[R_ESCAPED_JSON] = 1;
    return 0;
}

/* A stream retry: in..e is P + T where T starts with all of P (the part
 * sent before the stream broke, cut anywhere) and T is the whole answer
 * sent again. Returns the start of T, or NULL. T starts with the same
 * opening bracket as the input; up to MAX_CANDIDATES of them are tried,
 * RETRY_MIN bytes or more from the start. */
static const char *retry_restart(const char *in, const char *e)
{
    const char *s = trim_start(in, e);
    if (s >= e || (*s != '{' && *s != '['))
        return NULL;
    int tries = 0;
    for (const char *k = s + RETRY_MIN; k < e && tries < MAX_CANDIDATES; k++, tries++) {
        k = memchr(k, *s, (size_t)(e - k));
        if (!k || k - s > e - k)
            return NULL;
        if (memcmp(s, k, (size_t)(k - s)) == 0)
            return k;
    }
    return NULL;
}

/* Did the parse repair only a cut-off end (and find nothing else)? */
static int only_truncation(const int *counts)
{
    for (int k = 0; k < R_KIND_COUNT; k++)
        if (counts[k] && k != R_CLOSED_BRACKETS && k != R_CLOSED_STRING && k != R_DROPPED_MEMBER &&
            k != R_DANGLING_COMMA && k != R_LITERAL && k != R_BOM)
            return 0;
    return 1;
}

/* Extraction and repair of in[0..len) into ps (zeroed here; the caller
 * frees ps->out.data). Returns ST_VALUE or ST_ERROR. */
static int tolerant_parse(parser *ps, const char *in, size_t len, const repair_options *opt)
{
    memset(ps, 0, sizeof *ps);
    ps->max_depth = opt->max_depth;
    ps->several = opt->several_values;
    ps->out.cap = len + len / 8 + 64; /* repairs rarely grow the text more */
    ps->out.data = malloc(ps->out.cap);
    if (!ps->out.data) {
        ps->out.oom = 1;
        return ST_ERROR;
    }
    ps->out.data[0] = '\0';
    return extract_and_parse(ps, in, in + len);
}

/* A stream retry (retry_restart) whose repeated answer T repairs without
 * loss: T's result. When the whole input also reads as one value that was
 * merely cut off ({"a":{"a":1}), the two readings differ and the input is
 * refused. Returns 0, ST_SKIP (no retry: go the usual way) or an error. */
static int retry_result(const char *in, size_t len, const repair_options *opt, int level,
                        int *counts, repair_result *out, dbmcp_error *err)
{
    const char *restart = retry_restart(in, in + len);
    if (!restart || level >= MAX_NESTED_REPAIR)
        return ST_SKIP;
    int inner_counts[R_KIND_COUNT] = {0};
    dbmcp_error ignored;
    size_t tail = len - (size_t)(restart - in);
    if (repair_level(restart, tail, opt, level + 1, inner_counts, out, &ignored) != 0)
        return ST_SKIP;
    if (out->lossy) {
        repair_result_free(out);
        return ST_SKIP;
    }
    parser whole;
    int st = tolerant_parse(&whole, in, len, opt);
    int ambiguous =
        st == ST_VALUE && !whole.out.oom && whole.lossy && only_truncation(whole.counts);
    free(whole.out.data);
    if (ambiguous) {
        repair_result_free(out);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "the input repeats its first %zu bytes at byte %zu: either a stream "
                               "retry or one value cut off; refusing to guess",
                               len - tail - (size_t)(trim_start(in, in + len) - in), len - tail);
    }
    out->changed = 1;
    for (int k = 0; k < R_KIND_COUNT; k++)
        counts[k] += inner_counts[k];
    counts[R_REPEATED] = 1;
    return 0;
}

/* The tolerant path: extraction and repair, then validation. */
static int tolerant_result(const char *in, size_t len, const repair_options *opt, int level,
                           int *counts, repair_result *out, dbmcp_error *err)
{
    const char *foreign = foreign_body(in, in + len);
    if (foreign)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s", foreign);
    if (escaped_result(in, len, opt, level, counts, out) == 0)
        return 0;
    int retry = retry_result(in, len, opt, level, counts, out, err);
    if (retry != ST_SKIP)
        return retry;
    parser ps;
    int rc = tolerant_parse(&ps, in, len, opt);
    char first;
    if (ps.out.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    else if (rc == ST_ERROR)
        rc = dbmcp_error_set(err, ps.too_deep ? DBMCP_ETOOBIG : DBMCP_EINVAL, "%s", ps.why);
    else if (json_check(ps.out.data, ps.out.len, opt->max_depth, &first) != CHECK_OK)
        rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "repaired JSON did not validate");
    else {
        out->output = ps.out.data;
        out->output_len = ps.out.len;
        ps.out.data = NULL;
        out->changed = 1;
        out->lossy = ps.lossy;
        for (int k = 0; k < R_KIND_COUNT; k++)
            counts[k] += ps.counts[k];
        rc = parse_arguments(out, opt, level, counts, err);
    }
    free(ps.out.data);
    return rc;
}

/* One repair at nesting level (doubly-encoded strings and arguments
 * recurse); the repairs done are added to counts. */
static int repair_level(const char *in, size_t len, const repair_options *opt, int level,
                        int *counts, repair_result *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in)
        return dbmcp_error_set(err, DBMCP_EINVAL, "no input");
    if (len > opt->max_bytes)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "input of %zu bytes is over the %zu-byte limit",
                               len, opt->max_bytes);
    char first;
    int check = json_check(in, len, opt->max_depth, &first);
    int rc;
    if (check == CHECK_TOO_DEEP)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG, "nesting deeper than %d levels", opt->max_depth);
    else if (check == CHECK_OK)
        rc = strict_result(in, len, first, opt, level, counts, out, err);
    else
        rc = tolerant_result(in, len, opt, level, counts, out, err);
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
    int counts[R_KIND_COUNT] = {0};
    int rc = repair_level(in, len, &o, 0, counts, out, err);
    if (rc == 0 && log_counts(out, counts)) {
        repair_result_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    return rc;
}
