/*
 * mythes.c — the MyThes .dat parser; see mythes.h. Lines are converted to
 * UTF-8 one at a time (iconv for the single-byte encodings the header
 * lists, a validity check for UTF-8), so an error can name its line.
 */
#include "thesaurus/mythes.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/textnorm.h"

#define ENCODING_NAME_MAX 40

typedef struct parser {
    const char *data;
    size_t n, pos; /* input and the offset of the next line */
    long line;     /* 1-based number of the current line */
    iconv_t cd;    /* (iconv_t)-1 for UTF-8 input */
    char encoding[ENCODING_NAME_MAX + 1];
    char *buf; /* the current line in UTF-8, NUL-terminated */
    size_t cap;
    mythes_term *terms; /* MYTHES_TERMS_MAX slots */
} parser;

/* Next raw line (without "\n" or "\r\n") or 0 at the end of input. */
static int next_line(parser *p, const char **s, size_t *len)
{
    if (p->pos >= p->n)
        return 0;
    const char *start = p->data + p->pos;
    const char *nl = memchr(start, '\n', p->n - p->pos);
    size_t l = nl ? (size_t)(nl - start) : p->n - p->pos;
    p->pos += l + (nl ? 1 : 0);
    if (l > 0 && start[l - 1] == '\r')
        l--;
    p->line++;
    *s = start;
    *len = l;
    return 1;
}

static int ensure_cap(parser *p, size_t need, dbmcp_error *err)
{
    if (need <= p->cap)
        return 0;
    char *b = realloc(p->buf, need);
    if (!b)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    p->buf = b;
    p->cap = need;
    return 0;
}

/* Convert the raw line to UTF-8 into p->buf. */
static int line_to_utf8(parser *p, const char *s, size_t len, dbmcp_error *err)
{
    if (len > MYTHES_LINE_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "line %ld: longer than %d bytes", p->line,
                               MYTHES_LINE_MAX);
    if (memchr(s, '\0', len))
        return dbmcp_error_set(err, DBMCP_EINVAL, "line %ld, column %zu: NUL byte", p->line,
                               (size_t)((const char *)memchr(s, '\0', len) - s) + 1);
    if (p->cd == (iconv_t)-1) {
        size_t ok = text_utf8_valid_prefix(s, len);
        if (ok < len)
            return dbmcp_error_set(err, DBMCP_EINVAL, "line %ld, column %zu: invalid UTF-8",
                                   p->line, ok + 1);
        if (ensure_cap(p, len + 1, err))
            return DBMCP_ENOMEM;
        memcpy(p->buf, s, len);
        p->buf[len] = '\0';
        return 0;
    }
    if (ensure_cap(p, len * 4 + 1, err))
        return DBMCP_ENOMEM;
    iconv(p->cd, NULL, NULL, NULL, NULL);
    char *in = (char *)s, *out = p->buf;
    size_t inleft = len, outleft = p->cap - 1;
    if (iconv(p->cd, &in, &inleft, &out, &outleft) == (size_t)-1)
        return dbmcp_error_set(err, DBMCP_EINVAL, "line %ld, column %zu: invalid %s byte sequence",
                               p->line, (size_t)(in - s) + 1, p->encoding);
    *out = '\0';
    if (strlen(p->buf) != (size_t)(out - p->buf))
        return dbmcp_error_set(err, DBMCP_EINVAL, "line %ld: NUL character", p->line);
    return 0;
}

static int encoding_supported(const char *e)
{
    static const char *const prefixes[] = {"ISO8859",  "ISO-8859",    "ISO_8859", "LATIN",
                                           "CP125",    "WINDOWS-125", "KOI8",     "ASCII",
                                           "US-ASCII", NULL};
    for (int i = 0; prefixes[i]; i++)
        if (strncasecmp(e, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* Line 1: the encoding name. */
static int read_encoding(parser *p, dbmcp_error *err)
{
    const char *s;
    size_t len;
    if (!next_line(p, &s, &len))
        return dbmcp_error_set(err, DBMCP_EINVAL, "line 1: empty file (expected the encoding)");
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        len -= 3;
    }
    int valid = len > 0 && len <= ENCODING_NAME_MAX;
    for (size_t i = 0; valid && i < len; i++)
        valid = isalnum((unsigned char)s[i]) || strchr("-_.:", s[i]);
    if (!valid)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "line 1: expected an encoding name such as UTF-8 or ISO8859-1");
    memcpy(p->encoding, s, len);
    p->encoding[len] = '\0';
    if (strcasecmp(p->encoding, "UTF-8") == 0 || strcasecmp(p->encoding, "UTF8") == 0)
        return 0;
    if (encoding_supported(p->encoding))
        p->cd = iconv_open("UTF-8", p->encoding);
    if (p->cd == (iconv_t)-1)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "line 1: unsupported encoding '%s' (UTF-8, ISO8859-n, "
                               "Windows-125n and KOI8 are supported)",
                               p->encoding);
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t l = strlen(s);
    while (l > 0 && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
    return s;
}

/* The relation an annotation names, or -1 for a usage note. */
static int annotation_kind(const char *a, size_t len)
{
    static const struct {
        const char *name;
        mythes_term_kind kind;
    } marks[] = {
        {"Oberbegriff", MYTHES_BROADER},   {"generic term", MYTHES_BROADER},
        {"Unterbegriff", MYTHES_NARROWER}, {"specific term", MYTHES_NARROWER},
        {"similar term", MYTHES_RELATED},  {"related term", MYTHES_RELATED},
        {"Antonym", MYTHES_ANTONYM},       {"Gegenbegriff", MYTHES_ANTONYM},
        {"Gegenwort", MYTHES_ANTONYM},     {"antonym", MYTHES_ANTONYM},
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strlen(marks[i].name) == len && strncasecmp(a, marks[i].name, len) == 0)
            return (int)marks[i].kind;
    return -1;
}

/* Strip annotation groups from both ends of term (in place); returns the
 * bare text (possibly "") and sets *kind from relation markers. */
static char *strip_annotations(char *t, mythes_term_kind *kind)
{
    *kind = MYTHES_SYNONYM;
    for (;;) {
        t = trim(t);
        size_t l = strlen(t);
        if (l < 2 || t[l - 1] != ')')
            break;
        int depth = 0;
        size_t open = l;
        for (size_t i = l; i-- > 0;) {
            depth += t[i] == ')' ? 1 : t[i] == '(' ? -1 : 0;
            if (depth == 0) {
                open = i;
                break;
            }
        }
        if (open == l)
            break;
        int k = annotation_kind(t + open + 1, l - open - 2);
        if (k >= 0)
            *kind = (mythes_term_kind)k;
        t[open] = '\0';
    }
    while (*t == '(') {
        char *close = strchr(t, ')');
        if (!close)
            break;
        t = trim(close + 1);
    }
    return t;
}

/* Split a meaning line (p->buf) into pos and terms. */
static size_t split_meaning(parser *p, const char **pos)
{
    char *s = p->buf;
    char *bar = strchr(s, '|');
    *pos = trim(s);
    if (!bar)
        return 0;
    *bar = '\0';
    *pos = trim(s);
    size_t n = 0;
    for (char *f = bar + 1; f && n < MYTHES_TERMS_MAX;) {
        char *next = strchr(f, '|');
        if (next)
            *next++ = '\0';
        char *raw = trim(f);
        mythes_term_kind kind;
        char *copy = raw;
        size_t rawlen = strlen(raw);
        char *bare = strip_annotations(raw, &kind);
        if (!*bare && rawlen > 0)
            bare = copy; /* only annotations: keep the text as written */
        if (*bare)
            p->terms[n++] = (mythes_term){bare, kind};
        f = next;
    }
    return n;
}

/* Parse "word|count" in p->buf. */
static int parse_entry(parser *p, char **word, long *count, dbmcp_error *err)
{
    char *bar = strrchr(p->buf, '|');
    char *end = NULL;
    long c = bar ? strtol(bar + 1, &end, 10) : -1;
    if (!bar || end == bar + 1 || *trim(end) != '\0' || c < 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "line %ld: expected an entry 'word|count'",
                               p->line);
    if (c > MYTHES_MEANINGS_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "line %ld: %ld meanings (at most %d)", p->line,
                               c, MYTHES_MEANINGS_MAX);
    *bar = '\0';
    *word = strdup(trim(p->buf));
    if (!*word)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    *count = c;
    return 0;
}

static int read_entry(parser *p, long index, mythes_meaning_fn fn, void *ctx, dbmcp_error *err)
{
    char *word = NULL;
    long count = 0;
    int rc = parse_entry(p, &word, &count, err);
    if (rc)
        return rc;
    long entry_line = p->line;
    for (long i = 0; i < count && !rc; i++) {
        const char *s;
        size_t len;
        if (!next_line(p, &s, &len)) {
            rc =
                dbmcp_error_set(err, DBMCP_EINVAL,
                                "line %ld: the file ends after %ld of %ld meanings of entry '%.80s'"
                                " (line %ld)",
                                p->line + 1, i, count, word, entry_line);
            break;
        }
        rc = line_to_utf8(p, s, len, err);
        if (rc)
            break;
        mythes_meaning m = {.entry = word, .entry_index = index, .index = (int)i, .line = p->line};
        m.nterms = split_meaning(p, &m.pos);
        m.terms = p->terms;
        if (memchr(s, '|', len) == NULL)
            rc = dbmcp_error_set(err, DBMCP_EINVAL,
                                 "line %ld: expected meaning %ld of %ld of entry '%.80s' "
                                 "('pos|term|term…')",
                                 p->line, i + 1, count, word);
        else
            rc = fn(ctx, &m, err);
    }
    free(word);
    return rc;
}

int mythes_parse(const char *data, size_t n, long max_entries, mythes_meaning_fn fn, void *ctx,
                 dbmcp_error *err)
{
    parser p = {.data = data, .n = n, .cd = (iconv_t)-1};
    p.terms = calloc(MYTHES_TERMS_MAX, sizeof *p.terms);
    if (!p.terms)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = read_encoding(&p, err);
    long entries = 0;
    const char *s;
    size_t len;
    while (!rc && (max_entries <= 0 || entries < max_entries) && next_line(&p, &s, &len)) {
        rc = line_to_utf8(&p, s, len, err);
        if (rc || !*trim(p.buf))
            continue;
        rc = read_entry(&p, entries++, fn, ctx, err);
    }
    if (p.cd != (iconv_t)-1)
        iconv_close(p.cd);
    free(p.buf);
    free(p.terms);
    return rc;
}
