/*
 * extract_html.c — the text of an HTML document with libxml2's HTML
 * parser (recovering, no network): body text with headings as Markdown
 * "#" lines and blocks separated by blank lines; script, style, noscript,
 * template, svg and the head are skipped; the title is <title>, else the
 * first <h1>. See extract.h.
 *
 * Encoding: UTF-8 input is parsed as UTF-8. Input that is not UTF-8 is
 * accepted only when its first kilobyte declares a charset that iconv(3)
 * converts from; otherwise it is refused with the offset of the first bad
 * byte, like plain text. We convert it to UTF-8 ourselves (bytes the
 * charset cannot map become U+FFFD) and hand libxml2 UTF-8 with the
 * encoding named, so libxml2 never switches charsets on its own (a
 * <meta> charset, a byte-order mark, UTF-7): the pre-scan below must read
 * exactly the characters libxml2 parses. libxml2 stops at a NUL byte; so
 * does the text handed to it.
 *
 * Work: libxml2's cost per start tag is quadratic in its attributes;
 * html_scan.h refuses tags with more than limits->html_max_attributes
 * before libxml2 sees them.
 *
 * libxml2 is opened on the first call (core/xml_lib.h), not linked.
 */
#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/textnorm.h"
#include "core/xml_lib.h"
#include "docs/extract.h"
#include "docs/html_scan.h"

typedef struct text_buf {
    char *s;
    size_t len, cap;
    int oom;
    int pending_space; /* a space is due before the next word */
    int pending_break; /* 0, 1 (newline) or 2 (blank line) due before the next text */
} text_buf;

static void buf_put(text_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_break(text_buf *b, int level)
{
    if (b->pending_break < level)
        b->pending_break = level;
    b->pending_space = 0;
}

/* Flush a due break before visible text (never at the very start). */
static void buf_flush_break(text_buf *b)
{
    if (b->len && b->pending_break)
        buf_put(b, "\n\n", (size_t)b->pending_break);
    else if (b->len && b->pending_space)
        buf_put(b, " ", 1);
    b->pending_break = 0;
    b->pending_space = 0;
}

/* Append text with runs of white space collapsed (pre keeps them). */
static void buf_text(text_buf *b, const char *s, int pre)
{
    if (pre) {
        buf_flush_break(b);
        buf_put(b, s, strlen(s));
        return;
    }
    const char *p = s;
    while (*p) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f') {
            if (b->len && !b->pending_break)
                b->pending_space = 1;
            p++;
            continue;
        }
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r' && *q != '\f')
            q++;
        buf_flush_break(b);
        buf_put(b, p, (size_t)(q - p));
        p = q;
    }
}

static int name_is(const xmlNode *n, const char *name)
{
    return n->name && strcasecmp((const char *)n->name, name) == 0;
}

static int is_skipped(const xmlNode *n)
{
    static const char *const skip[] = {"script", "style",  "noscript", "template", "svg",
                                       "head",   "iframe", "object",   "math",     NULL};
    for (int i = 0; skip[i]; i++)
        if (name_is(n, skip[i]))
            return 1;
    return 0;
}

static int is_block(const xmlNode *n)
{
    static const char *const blocks[] = {
        "p",          "div",      "section", "article", "header",  "footer",     "aside",
        "nav",        "ul",       "ol",      "li",      "table",   "tr",         "pre",
        "blockquote", "dl",       "dt",      "dd",      "figure",  "figcaption", "main",
        "form",       "fieldset", "address", "hr",      "caption", NULL};
    for (int i = 0; blocks[i]; i++)
        if (name_is(n, blocks[i]))
            return 1;
    return 0;
}

static int heading_level(const xmlNode *n)
{
    if (n->name && (n->name[0] == 'h' || n->name[0] == 'H') && n->name[1] >= '1' &&
        n->name[1] <= '6' && n->name[2] == '\0')
        return n->name[1] - '0';
    return 0;
}

typedef struct walk {
    text_buf out;
    char *h1; /* first h1 text, owned */
    int depth;
} walk;

static void walk_children(walk *w, const xmlNode *n, int pre);

static void walk_node(walk *w, const xmlNode *n, int pre)
{
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
        if (n->content)
            buf_text(&w->out, (const char *)n->content, pre);
        return;
    }
    if (n->type != XML_ELEMENT_NODE || is_skipped(n))
        return;
    /* Deeply nested markup is flattened beyond a bound, never recursed into. */
    if (w->depth > 256)
        return;
    int level = heading_level(n);
    if (level) {
        buf_break(&w->out, 2);
        buf_flush_break(&w->out);
        buf_put(&w->out, "######", (size_t)level);
        buf_put(&w->out, " ", 1);
        size_t start = w->out.len;
        w->depth++;
        walk_children(w, n, 0);
        w->depth--;
        if (level == 1 && !w->h1 && w->out.len > start && !w->out.oom)
            w->h1 = strndup(w->out.s + start, w->out.len - start);
        buf_break(&w->out, 2);
        return;
    }
    if (name_is(n, "br")) {
        buf_break(&w->out, 1);
        return;
    }
    int block = is_block(n);
    /* List items, rows and definition parts end a line; other blocks a paragraph. */
    int gap = name_is(n, "li") || name_is(n, "tr") || name_is(n, "dt") || name_is(n, "dd") ? 1 : 2;
    if (block)
        buf_break(&w->out, gap);
    if (name_is(n, "td") || name_is(n, "th"))
        w->out.pending_space = w->out.len > 0;
    w->depth++;
    walk_children(w, n, pre || name_is(n, "pre"));
    w->depth--;
    if (block)
        buf_break(&w->out, gap);
}

static void walk_children(walk *w, const xmlNode *n, int pre)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        walk_node(w, c, pre);
}

static const xmlNode *find_element(const xmlNode *n, const char *name, int depth)
{
    for (; n && depth < 64; n = n->next) {
        if (n->type == XML_ELEMENT_NODE && name_is(n, name))
            return n;
        const xmlNode *f = find_element(n->children, name, depth + 1);
        if (f)
            return f;
    }
    return NULL;
}

/* The text content of <title>, white space collapsed. Caller frees. */
static char *title_text(const xmlNode *title)
{
    xmlChar *raw = xml_api.xmlNodeGetContent(title);
    if (!raw)
        return NULL;
    text_buf b = {0};
    buf_text(&b, (const char *)raw, 0);
    (*xml_api.xmlFree)(raw);
    if (b.oom || !b.len) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The charset the first kilobyte declares ("charset=NAME"), when it is not
 * UTF-8 and iconv converts from it: an open converter to UTF-8, else
 * (iconv_t)-1. */
static iconv_t declared_charset(const char *data, size_t n)
{
    size_t lim = n < 1024 ? n : 1024;
    for (size_t i = 0; i + 8 < lim; i++) {
        if (strncasecmp(data + i, "charset=", 8) != 0)
            continue;
        const char *v = data + i + 8;
        size_t left = lim - i - 8;
        while (left && (*v == '"' || *v == '\'' || *v == ' ')) {
            v++;
            left--;
        }
        char name[48];
        size_t len = 0;
        while (len < left && len + 1 < sizeof name &&
               (isalnum((unsigned char)v[len]) || v[len] == '-' || v[len] == '_' || v[len] == ':' ||
                v[len] == '.'))
            len++;
        memcpy(name, v, len);
        name[len] = '\0';
        if (len == 0 || strcasecmp(name, "utf-8") == 0 || strcasecmp(name, "utf8") == 0)
            return (iconv_t)-1;
        return iconv_open("UTF-8", name);
    }
    return (iconv_t)-1;
}

/* Make room for need more bytes (and a NUL) in *buf. 0, or -1 when out of memory. */
static int reserve(char **buf, size_t *cap, size_t len, size_t need)
{
    if (*cap - len > need)
        return 0;
    size_t c = *cap;
    while (c - len <= need)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return -1;
    *buf = p;
    *cap = c;
    return 0;
}

/* data[0..n) converted by cd to UTF-8, each byte it cannot convert as
 * U+FFFD, NUL-terminated; *out_len its length. NULL when out of memory. */
static char *to_utf8(iconv_t cd, const char *data, size_t n, size_t *out_len)
{
    size_t cap = n * 2 + 64, len = 0;
    char *out = malloc(cap);
    char *in = (char *)data;
    size_t left = n;
    while (out) {
        if (reserve(&out, &cap, len, 16) != 0)
            break;
        char *o = out + len;
        size_t room = cap - len - 1;
        /* With the input consumed, one more call ends a stateful charset's shift. */
        int flushing = left == 0;
        size_t r = flushing ? iconv(cd, NULL, NULL, &o, &room) : iconv(cd, &in, &left, &o, &room);
        len = (size_t)(o - out);
        if (r != (size_t)-1 && flushing) {
            out[len] = '\0';
            *out_len = len;
            return out;
        }
        if (r != (size_t)-1 || errno == E2BIG) {
            if (r == (size_t)-1 && reserve(&out, &cap, len, cap) != 0)
                break;
            continue;
        }
        if (flushing || reserve(&out, &cap, len, 3) != 0)
            break;
        /* EILSEQ or EINVAL: a byte the charset does not map, or a cut sequence. */
        memcpy(out + len, "\xEF\xBF\xBD", 3);
        len += 3;
        in++;
        left--;
    }
    free(out);
    return NULL;
}

static void cut_title(char **title)
{
    if (*title && strlen(*title) > DOC_TITLE_MAX_BYTES)
        (*title)[text_utf8_valid_prefix(*title, DOC_TITLE_MAX_BYTES)] = '\0';
}

/* The extraction proper, on UTF-8 without NUL bytes. */
static int extract_utf8(const char *data, size_t n, doc_extracted *out, dbmcp_error *err)
{
    if (n > (size_t)INT32_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "the HTML is too large to parse");
    int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
               HTML_PARSE_NOBLANKS | HTML_PARSE_COMPACT;
    htmlDocPtr doc = xml_api.htmlReadMemory(data, (int)n, NULL, "UTF-8", opts);
    if (!doc)
        return dbmcp_error_set(err, DBMCP_EINVAL, "the HTML could not be parsed");
    const xmlNode *root = xml_api.xmlDocGetRootElement(doc);
    walk w = {0};
    const xmlNode *body = root ? find_element(root, "body", 0) : NULL;
    if (body)
        walk_children(&w, body, 0);
    else if (root)
        walk_node(&w, root, 0);
    const xmlNode *t = root ? find_element(root, "title", 0) : NULL;
    char *title = t ? title_text(t) : NULL;
    xml_api.xmlFreeDoc(doc);
    if (w.out.oom) {
        free(w.out.s);
        free(w.h1);
        free(title);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    if (!title && w.h1) {
        title = w.h1;
        w.h1 = NULL;
    }
    free(w.h1);
    if (!w.out.s || !w.out.len) {
        free(w.out.s);
        free(title);
        return dbmcp_error_set(err, DBMCP_EINVAL, "the HTML has no text in its body");
    }
    buf_put(&w.out, "\n", 1);
    /* libxml2 was given UTF-8 and hands back UTF-8; the repair only makes
     * sure of it (the text must be valid whatever libxml2 does). */
    out->text = doc_utf8_repair(w.out.s, w.out.len, &out->len);
    out->title = title ? doc_utf8_repair(title, strlen(title), NULL) : NULL;
    free(w.out.s);
    free(title);
    if (!out->text || (title && !out->title)) {
        doc_extracted_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    cut_title(&out->title);
    out->markdown = 1;
    out->mime_type = "text/html";
    return 0;
}

int doc_extract_html(const char *data, size_t n, const doc_limits *limits, doc_extracted *out,
                     dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = xml_lib_open(err);
    if (rc)
        return rc;
    char *converted = NULL;
    if (text_utf8_valid_prefix(data, n) != n || memchr(data, '\0', n)) {
        iconv_t cd = declared_charset(data, n);
        if (cd == (iconv_t)-1)
            return doc_check_utf8(data, n, "the HTML", err);
        converted = to_utf8(cd, data, n, &n);
        iconv_close(cd);
        if (!converted)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        data = converted;
        n = strlen(converted); /* libxml2 would stop at a NUL byte */
    }
    if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        n -= 3;
    }
    rc = html_scan_attributes(data, n, limits->html_max_attributes, err);
    if (!rc)
        rc = extract_utf8(data, n, out, err);
    free(converted);
    return rc;
}
