/*
 * render.c — query results as one compact markdown table plus a metadata
 * line; the contract (cell formats, escapes, limits, metadata wording) is
 * in render.h.
 *
 * Everything is written through a text_sink: growable for the table (every
 * size overflow-checked), fixed for render_cell, where a piece that does
 * not fit is refused whole so output is never cut inside a UTF-8 sequence
 * or an escape. Text is decoded strictly (no overlongs, surrogates or code
 * points past U+10FFFF) so the output is valid UTF-8 whatever the database
 * holds. A row is rendered straight into the table buffer and rolled back
 * if it ends past byte_cap.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/render.h"

#define RENDER_DEFAULT_MAX_ROWS 25
#define RENDER_DEFAULT_CELL_MAX 500
#define RENDER_DEFAULT_BYTE_CAP (256 * 1024)

/* Numbers are never truncated: SQLite's text of an integer or a real is at
 * most 22 characters, so this floor keeps them whole at any cell_max. */
#define RENDER_NUMBER_MIN_CHARS 24

/* utf8_decode's code point for an invalid sequence (shown as U+FFFD). */
#define UTF8_INVALID UINT32_MAX

static const char ELLIPSIS[] = "\xE2\x80\xA6";    /* … */
static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* ----- sinks ----- */

typedef struct text_sink {
    char *buf;    /* growable: malloc'd; fixed: the caller's buffer */
    size_t len;   /* bytes written, the NUL excluded */
    size_t cap;   /* bytes available, the NUL included */
    int growable; /* realloc when full; otherwise refuse what does not fit */
    int failed;   /* growable: allocation failed; fixed: a piece was refused */
} text_sink;

/* Append n bytes whole or not at all (then failed is set and every later
 * append is refused too, so a fixed sink ends at a piece boundary). */
static int sink_put(text_sink *s, const char *piece, size_t n)
{
    if (s->failed)
        return -1;
    if (n > SIZE_MAX - 1 - s->len) {
        s->failed = 1;
        return -1;
    }
    size_t need = s->len + n + 1;
    if (need > s->cap) {
        if (!s->growable) {
            s->failed = 1;
            return -1;
        }
        size_t cap = s->cap ? s->cap : 256;
        while (cap < need)
            cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        char *grown = realloc(s->buf, cap);
        if (!grown) {
            s->failed = 1;
            return -1;
        }
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, piece, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return 0;
}

static int sink_puts(text_sink *s, const char *text)
{
    return sink_put(s, text, strlen(text));
}

/* Forget everything written after len (a dropped row). */
static void sink_truncate(text_sink *s, size_t len)
{
    if (len < s->len) {
        s->len = len;
        s->buf[len] = '\0';
    }
}

/* ----- UTF-8 ----- */

/* Decode the code point at s (n > 0 bytes left) into *cp and return its
 * length. An invalid sequence gives UTF8_INVALID and the length of its
 * maximal invalid subpart (at least 1), as Unicode recommends, so one
 * broken character becomes one U+FFFD. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t len;
    uint32_t value;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        value = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        value = b & 0x0F;
        if (b == 0xE0)
            lo = 0xA0; /* overlong */
        else if (b == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        value = b & 0x07;
        if (b == 0xF0)
            lo = 0x90; /* overlong */
        else if (b == 0xF4)
            hi = 0x8F; /* past U+10FFFF */
    } else {
        *cp = UTF8_INVALID;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        unsigned char c = i < n ? s[i] : 0;
        if (i >= n || c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF)) {
            *cp = UTF8_INVALID;
            return i;
        }
        value = (value << 6) | (c & 0x3F);
    }
    *cp = value;
    return len;
}

/* A combining mark stays with the character before it when text is cut. */
static int is_combining(uint32_t cp)
{
    return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x1AB0 && cp <= 0x1AFF) ||
           (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE20 && cp <= 0xFE2F);
}

/* Byte offset where text of n bytes is cut to at most max_chars code
 * points; n when it fits. A cut that would leave combining marks behind
 * moves back to the start of their base character, unless that base is
 * the first character (then the marks are split rather than show nothing). */
static size_t text_cut(const unsigned char *p, size_t n, size_t max_chars)
{
    if (n <= max_chars)
        return n; /* a code point takes at least one byte */
    size_t off = 0, chars = 0, base = 0;
    uint32_t cp;
    while (off < n && chars < max_chars) {
        size_t len = utf8_decode(p + off, n - off, &cp);
        if (!is_combining(cp))
            base = off;
        off += len;
        chars++;
    }
    if (off >= n)
        return n;
    utf8_decode(p + off, n - off, &cp);
    if (is_combining(cp) && base > 0)
        return base;
    return off;
}

/* ----- cells ----- */

/* The escape for a code point, or NULL when it is written as it is. */
static const char *escape_of(uint32_t cp, char *tmp, size_t size)
{
    switch (cp) {
    case '|': return "\\|";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case UTF8_INVALID: return REPLACEMENT;
    default: break;
    }
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
        snprintf(tmp, size, "\\x%02x", (unsigned)cp);
        return tmp;
    }
    return NULL;
}

/* Write n bytes of text escaped; runs that need no escape go in one piece. */
static void text_escape(text_sink *s, const unsigned char *p, size_t n)
{
    size_t run = 0, off = 0;
    char tmp[8];
    while (off < n) {
        uint32_t cp;
        size_t len;
        if (p[off] >= 0x20 && p[off] < 0x7F && p[off] != '|' && p[off] != '\\') {
            off++; /* printable ASCII: the common case, written as it is */
            continue;
        }
        len = utf8_decode(p + off, n - off, &cp);
        const char *escape = escape_of(cp, tmp, sizeof tmp);
        if (escape) {
            sink_put(s, (const char *)p + run, off - run);
            sink_puts(s, escape);
            run = off + len;
        }
        off += len;
    }
    sink_put(s, (const char *)p + run, n - run);
}

/* Text equal to NULL inside k >= 0 pairs of double quotes: shown with one
 * pair more, so it never reads as SQL NULL or as another such text. */
static int looks_like_null(const unsigned char *p, size_t n)
{
    size_t k = 0;
    while (k < n && p[k] == '"')
        k++;
    if (n != 2 * k + 4 || memcmp(p + k, "NULL", 4) != 0)
        return 0;
    for (size_t i = k + 4; i < n; i++)
        if (p[i] != '"')
            return 0;
    return 1;
}

static void text_format(text_sink *s, const unsigned char *p, size_t n, size_t max_chars)
{
    int quoted = looks_like_null(p, n);
    size_t cut = text_cut(p, n, max_chars);
    if (quoted)
        sink_put(s, "\"", 1);
    text_escape(s, p, cut);
    if (cut < n)
        sink_puts(s, ELLIPSIS);
    if (quoted)
        sink_put(s, "\"", 1);
}

static void blob_format(text_sink *s, store_kind kind, size_t bytes)
{
    char tmp[64];
    if (kind == STORE_KIND_VECTOR && bytes > 0 && bytes % 4 == 0)
        snprintf(tmp, sizeof tmp, "<VECTOR(%zu)>", bytes / 4);
    else
        snprintf(tmp, sizeof tmp, "<binary %zu bytes>", bytes);
    sink_puts(s, tmp);
}

static void cell_format(text_sink *s, store_type type, store_kind kind, const void *data,
                        size_t bytes, size_t cell_max)
{
    const unsigned char *text = data ? data : (const unsigned char *)"";
    size_t text_bytes = data ? bytes : 0;
    switch (type) {
    case STORE_NULL: sink_puts(s, "NULL"); return;
    case STORE_BLOB: blob_format(s, kind, bytes); return;
    case STORE_INTEGER:
    case STORE_FLOAT:
        text_format(s, text, text_bytes,
                    cell_max > RENDER_NUMBER_MIN_CHARS ? cell_max : RENDER_NUMBER_MIN_CHARS);
        return;
    case STORE_TEXT: text_format(s, text, text_bytes, cell_max); return;
    }
}

size_t render_cell(store_type type, store_kind kind, const void *data, size_t bytes,
                   size_t cell_max, char *out, size_t out_size)
{
    if (!out || out_size == 0)
        return 0;
    out[0] = '\0';
    text_sink s = {out, 0, out_size, 0, 0};
    cell_format(&s, type, kind, data, bytes, cell_max);
    return s.len;
}

/* ----- the table ----- */

render_limits render_limits_default(void)
{
    render_limits limits = {RENDER_DEFAULT_MAX_ROWS, RENDER_DEFAULT_CELL_MAX,
                            RENDER_DEFAULT_BYTE_CAP};
    return limits;
}

void render_table_init(render_table *t, render_limits limits)
{
    memset(t, 0, sizeof *t);
    t->limits = limits;
}

void render_table_free(render_table *t)
{
    if (!t)
        return;
    free(t->buf);
    render_table_init(t, t->limits);
}

/* The table's buffer as a growable sink; table_sink_close hands it back. */
static text_sink table_sink_open(render_table *t)
{
    text_sink s = {t->buf, t->len, t->cap, 1, 0};
    return s;
}

/* 0, or -1 (and t->oom) when an allocation failed. */
static int table_sink_close(render_table *t, text_sink *s)
{
    t->buf = s->buf;
    t->len = s->len;
    t->cap = s->cap;
    if (s->failed)
        t->oom = 1;
    return s->failed ? -1 : 0;
}

/* Header and separator lines; omitted (and said so) when over byte_cap. */
static int table_header(render_table *t, store_stmt *st)
{
    int columns = store_column_count(st);
    t->columns = columns > 0 ? columns : 0;
    if (t->columns == 0)
        return 0;
    text_sink s = table_sink_open(t);
    sink_puts(&s, "|");
    for (int c = 0; c < columns; c++) {
        const char *name = store_column_name(st, c);
        sink_puts(&s, " ");
        cell_format(&s, STORE_TEXT, STORE_KIND_PLAIN, name, name ? strlen(name) : 0,
                    t->limits.cell_max);
        sink_puts(&s, " |");
    }
    sink_puts(&s, "\n|");
    for (int c = 0; c < columns; c++)
        sink_puts(&s, " --- |");
    sink_puts(&s, "\n");
    if (table_sink_close(t, &s) != 0)
        return -1;
    t->header_bytes = t->len;
    if (t->len > t->limits.byte_cap) {
        sink_truncate(&s, 0);
        table_sink_close(t, &s);
        t->header_omitted = 1;
        t->byte_capped = 1;
    }
    return 0;
}

/* Append the current row: 1 when it fits under byte_cap, 0 when it was
 * dropped (nothing of it kept), -1 when an allocation failed. */
/* An integer as decimal text (what the engine's own conversion gives,
 * without its formatting machinery); returns the length. */
static size_t int64_text(char out[24], int64_t v)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

static int table_row(render_table *t, store_stmt *st)
{
    size_t start = t->len;
    text_sink s = table_sink_open(t);
    sink_puts(&s, "|");
    for (int c = 0; c < t->columns && s.len <= t->limits.byte_cap; c++) {
        store_type type = store_column_type(st, c);
        const void *data = NULL;
        size_t bytes = 0;
        char num[24];
        if (type == STORE_INTEGER) {
            bytes = int64_text(num, store_column_int(st, c));
            data = num;
        } else if (type != STORE_NULL && type != STORE_BLOB)
            data = store_column_text(st, c); /* before bytes: the length of the text */
        if (type != STORE_NULL && type != STORE_INTEGER)
            bytes = store_column_bytes(st, c);
        /* Only a blob's rendering depends on the column's kind. */
        store_kind kind = type == STORE_BLOB ? store_column_kind(st, c) : STORE_KIND_PLAIN;
        sink_puts(&s, " ");
        cell_format(&s, type, kind, data, bytes, t->limits.cell_max);
        sink_puts(&s, " |");
    }
    sink_puts(&s, "\n");
    if (table_sink_close(t, &s) != 0)
        return -1;
    if (t->len <= t->limits.byte_cap)
        return 1;
    sink_truncate(&s, start);
    table_sink_close(t, &s);
    return 0;
}

static int table_oom(render_table *t, dbmcp_error *err)
{
    t->oom = 1;
    return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory rendering the result");
}

int render_table_from_stmt(render_table *t, store_stmt *st, atomic_int *cancelled, dbmcp_error *err)
{
    if (!t || !st)
        return dbmcp_error_set(err, DBMCP_EINVAL, "render_table_from_stmt: no table or statement");
    int64_t max_rows = t->limits.max_rows > 0 ? t->limits.max_rows : 0;
    int64_t fetched = 0; /* rows within max_rows, shown or dropped */
    int header_done = 0;
    for (;;) {
        if (cancelled && *cancelled)
            return dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
        int rc = store_step(st, err);
        if (rc < 0)
            return rc;
        if (!header_done) {
            header_done = 1;
            if (table_header(t, st) != 0)
                return table_oom(t, err);
        }
        if (rc == STORE_DONE)
            return 0;
        if (fetched == max_rows) {
            t->more_rows = 1;
            return 0;
        }
        fetched++;
        if (t->byte_capped) {
            t->dropped_rows++;
            continue;
        }
        int fits = table_row(t, st);
        if (fits < 0)
            return table_oom(t, err);
        if (fits) {
            t->rows++;
        } else {
            t->byte_capped = 1;
            t->dropped_rows++;
        }
    }
}

/* Append one printf-formatted piece of the metadata line. */
static void sink_printf(text_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sink_printf(text_sink *s, const char *fmt, ...)
{
    char piece[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof piece)
        s->failed = 1; /* no piece here is that long; refuse rather than cut */
    else
        sink_put(s, piece, (size_t)n);
}

/* The metadata line (formats in render.h). */
static void metadata_line(text_sink *s, const render_table *t, double elapsed_ms)
{
    long long shown = (long long)t->rows;
    const char *noun = shown == 1 ? "row" : "rows";
    if (t->dropped_rows > 0)
        sink_printf(s, "%lld %s shown, %lld dropped", shown, noun, (long long)t->dropped_rows);
    else if (t->more_rows)
        sink_printf(s, "%lld %s shown", shown, noun);
    else
        sink_printf(s, "%lld %s", shown, noun);
    if (t->header_omitted)
        sink_printf(s, "%s header (%zu bytes) omitted", t->dropped_rows > 0 ? " and the" : ",",
                    t->header_bytes);
    if (t->byte_capped)
        sink_printf(s, " to stay under %zu bytes", t->limits.byte_cap);
    if (t->more_rows)
        sink_puts(s, " (more exist)");
    if (elapsed_ms >= 0)
        sink_printf(s, " \xC2\xB7 %.1f ms", elapsed_ms < 1e12 ? elapsed_ms : 1e12);
}

char *render_table_finish(render_table *t, double elapsed_ms)
{
    text_sink s = table_sink_open(t);
    if (s.len > 0)
        sink_puts(&s, "\n");
    metadata_line(&s, t, elapsed_ms);
    char *text = s.failed || t->oom ? NULL : s.buf;
    if (!text)
        free(s.buf);
    render_table_init(t, t->limits);
    return text;
}
