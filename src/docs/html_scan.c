/*
 * html_scan.c — the attribute pre-scan of HTML (see html_scan.h).
 *
 * Each function below mirrors one of libxml2 2.9's HTMLparser.c and says
 * which; "the parser" means that code. The input is UTF-8 without NUL
 * bytes, so "end of input" is where the parser sees 0, and comparing
 * bytes with ASCII characters is comparing characters (a byte of a
 * multi-byte sequence is never ASCII).
 */
#include "docs/html_scan.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The parser's HTML_PARSER_BUFFER_SIZE: htmlParseHTMLName cuts names there. */
#define HTML_NAME_MAX 100

typedef struct scan {
    const unsigned char *s; /* the document */
    size_t n;               /* its length */
    size_t i;               /* the parser's position */
    int max;                /* attributes allowed on one tag */
    dbmcp_error *err;
} scan;

static int byte_at(const scan *sc, size_t k)
{
    return k < sc->n ? sc->s[k] : 0;
}

static int cur(const scan *sc)
{
    return byte_at(sc, sc->i);
}

/* IS_BLANK_CH */
static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* htmlParseHTMLName's first and following characters. */
static int html_name_start(int c)
{
    return is_alpha(c) || c == '_' || c == ':' || c == '.';
}

static int html_name_char(int c)
{
    return is_alpha(c) || is_digit(c) || c == ':' || c == '-' || c == '_' || c == '.';
}

static int looking_at(const scan *sc, const char *text)
{
    size_t len = strlen(text);
    return sc->n - sc->i >= len && memcmp(sc->s + sc->i, text, len) == 0;
}

static int looking_at_ci(const scan *sc, size_t from, const char *text)
{
    size_t len = strlen(text);
    return from <= sc->n && sc->n - from >= len &&
           strncasecmp((const char *)sc->s + from, text, len) == 0;
}

static void skip_blanks(scan *sc)
{
    while (is_blank(cur(sc)))
        sc->i++;
}

/* To the next c, or the end. */
static void skip_to(scan *sc, int c)
{
    const unsigned char *p = sc->i < sc->n ? memchr(sc->s + sc->i, c, sc->n - sc->i) : NULL;
    sc->i = p ? (size_t)(p - sc->s) : sc->n;
}

static int ambiguous(scan *sc, size_t at, const char *what)
{
    return dbmcp_error_set(sc->err, DBMCP_EINVAL,
                           "the HTML is ambiguous at byte %zu: %s; dbmcp refuses it rather than "
                           "guess how the parser reads it",
                           at, what);
}

/* htmlParseHTMLName: at most HTML_NAME_MAX name characters, lowercased
 * into name[HTML_NAME_MAX + 1] when name is not NULL; the length, 0 when
 * no name starts here (nothing consumed). */
static size_t html_name(scan *sc, char *name)
{
    size_t len = 0;
    if (html_name_start(cur(sc)))
        while (len < HTML_NAME_MAX && html_name_char(cur(sc))) {
            if (name)
                name[len] = (char)(cur(sc) | (is_alpha(cur(sc)) ? 0x20 : 0));
            len++;
            sc->i++;
        }
    if (name)
        name[len] = '\0';
    return len;
}

/* htmlParseName, for the targets of processing instructions and DOCTYPE
 * names: 1 and consumed, 0 when no name starts here, or -1 when a
 * non-ASCII character decides (the parser then asks Unicode's letter
 * classes). */
static int xml_name(scan *sc)
{
    int c = cur(sc);
    if (c >= 0x80)
        return -1;
    if (!(is_alpha(c) || c == '_' || c == ':'))
        return 0;
    size_t k = sc->i + 1;
    while (html_name_char(byte_at(sc, k)))
        k++;
    if (byte_at(sc, k) >= 0x80)
        return -1;
    sc->i = k;
    return 1;
}

/* htmlParseComment, at "<!--": the end is "-->" or "--!>" whose dashes
 * come after the opening, else the end of input. */
static void comment(scan *sc)
{
    for (size_t j = sc->i + 6; j < sc->n; j++)
        if (sc->s[j - 2] == '-' && sc->s[j - 1] == '-') {
            if (sc->s[j] == '>') {
                sc->i = j + 1;
                return;
            }
            if (sc->s[j] == '!' && byte_at(sc, j + 1) == '>') {
                sc->i = j + 2;
                return;
            }
        }
    sc->i = sc->n;
}

/* htmlParsePI, at "<?": with a target, up to and with the next '>';
 * without one only "<?" is consumed. */
static int processing_instruction(scan *sc)
{
    size_t at = sc->i;
    sc->i += 2;
    int target = xml_name(sc);
    if (target < 0)
        return ambiguous(sc, at, "a processing instruction <? starts with a non-ASCII character");
    if (target) {
        skip_to(sc, '>');
        if (sc->i < sc->n)
            sc->i++;
    }
    return 0;
}

/* htmlParseSystemLiteral and htmlParsePubidLiteral: a quoted string, when
 * one starts here. */
static void literal(scan *sc)
{
    int q = cur(sc);
    if (q != '"' && q != '\'')
        return;
    sc->i++;
    skip_to(sc, q);
    if (sc->i < sc->n)
        sc->i++;
}

/* htmlParseDocTypeDecl with htmlParseExternalID, at "<!DOCTYPE". */
static int doctype(scan *sc)
{
    size_t at = sc->i;
    sc->i += 9;
    skip_blanks(sc);
    if (xml_name(sc) < 0)
        return ambiguous(sc, at, "a DOCTYPE name contains a non-ASCII character");
    skip_blanks(sc);
    if (looking_at_ci(sc, sc->i, "SYSTEM")) {
        sc->i += 6;
        skip_blanks(sc);
        literal(sc);
    } else if (looking_at_ci(sc, sc->i, "PUBLIC")) {
        sc->i += 6;
        skip_blanks(sc);
        literal(sc);
        skip_blanks(sc);
        literal(sc);
    }
    skip_blanks(sc);
    skip_to(sc, '>');
    if (sc->i < sc->n)
        sc->i++;
    return 0;
}

/* htmlParseEndTag, at "</": the name (lowercased into name), then up to
 * and with the next '>'; without a name only "</" is consumed. The name's
 * length, 0 when none. */
static size_t end_tag(scan *sc, char *name)
{
    sc->i += 2;
    size_t len = html_name(sc, name);
    if (!len)
        return 0;
    skip_to(sc, '>');
    if (sc->i < sc->n)
        sc->i++;
    return len;
}

/* htmlParseAttValue (through htmlParseHTMLAttribute): quoted up to the
 * same quote, else up to a blank or '>'. A character reference or entity
 * inside never reaches past those. */
static void attribute_value(scan *sc)
{
    int q = cur(sc);
    if (q == '"' || q == '\'') {
        literal(sc);
        return;
    }
    for (int c = cur(sc); c && c != '>' && !is_blank(c); c = cur(sc))
        sc->i++;
}

static int tag_end(const scan *sc)
{
    int c = cur(sc);
    return c == 0 || c == '>' || (c == '/' && byte_at(sc, sc->i + 1) == '>');
}

/* htmlParseStartTag with htmlParseAttribute and the end of
 * htmlParseElementInternal, at '<' and a letter. *raw is set when the
 * element's content is script or style text (the tag ended with '>'). */
static int start_tag(scan *sc, char *name, int *raw)
{
    size_t at = sc->i;
    sc->i++;
    html_name(sc, name);
    skip_blanks(sc);
    int count = 0;
    while (!tag_end(sc)) {
        if (html_name_start(cur(sc))) {
            html_name(sc, NULL);
            if (++count > sc->max)
                return dbmcp_error_set(sc->err, DBMCP_ETOOBIG,
                                       "the HTML has a <%.40s> tag (byte %zu) with more than %d "
                                       "attributes; the limit is %d attributes per tag (setting "
                                       "ingest.html_max_attributes)",
                                       name, at, sc->max, sc->max);
            skip_blanks(sc);
            if (cur(sc) == '=') {
                sc->i++;
                skip_blanks(sc);
                attribute_value(sc);
            }
        } else {
            /* Not a name: the parser drops it up to a blank or the tag's end. */
            while (!tag_end(sc) && !is_blank(cur(sc)))
                sc->i++;
        }
        skip_blanks(sc);
    }
    *raw = cur(sc) == '>' && (strcmp(name, "script") == 0 || strcmp(name, "style") == 0);
    if (cur(sc) == '>')
        sc->i++;
    else if (cur(sc) == '/')
        sc->i += 2;
    return 0;
}

/* Whether a start tag here ends the script or style element raw: the
 * parser's loop top looks at "<name" (htmlParseHTMLName_nonInvasive: no
 * '.') and pops the element when htmlStartClose lists that pair, which it
 * does for <noscript> in script and <body> or <frameset> in style. */
static int closes_raw(const scan *sc, const char *raw)
{
    char name[HTML_NAME_MAX + 1];
    size_t len = 0;
    int c = byte_at(sc, sc->i + 1);
    if (cur(sc) != '<' || !(is_alpha(c) || c == '_' || c == ':'))
        return 0;
    while (len < HTML_NAME_MAX && (is_alpha(c = byte_at(sc, sc->i + 1 + len)) || is_digit(c) ||
                                   c == ':' || c == '-' || c == '_'))
        name[len++] = (char)(c | (is_alpha(c) ? 0x20 : 0));
    name[len] = '\0';
    if (strcmp(raw, "script") == 0)
        return strcmp(name, "noscript") == 0;
    return strcmp(name, "body") == 0 || strcmp(name, "frameset") == 0;
}

/* The content of a script or style element (htmlParseScript, and what
 * htmlParseContentInternal's loop top reads between its calls: end tags,
 * start tags that close the element), up to and with its end tag, or up
 * to a start tag that closes it. An end tag for another name would end
 * the element only if that name were open: refused. */
static int raw_text(scan *sc, const char *name)
{
    while (sc->i < sc->n) {
        if (looking_at(sc, "</")) {
            size_t at = sc->i;
            char end[HTML_NAME_MAX + 1];
            if (!end_tag(sc, end))
                continue;
            if (strcmp(end, name) == 0)
                return 0;
            char what[128];
            snprintf(what, sizeof what, "an end tag </%.40s> inside <%.40s>", end, name);
            return ambiguous(sc, at, what);
        }
        if (closes_raw(sc, name))
            return 0;
        /* htmlParseScript: up to "</" followed by the element's name, any case. */
        for (;;) {
            skip_to(sc, '<');
            if (sc->i >= sc->n)
                return 0;
            if (byte_at(sc, sc->i + 1) == '/' && looking_at_ci(sc, sc->i + 2, name))
                break;
            sc->i++;
        }
    }
    return 0;
}

/* htmlParseDocument's comments and processing instructions before and
 * after the DOCTYPE. */
static int misc(scan *sc)
{
    while (looking_at(sc, "<!--") || looking_at(sc, "<?")) {
        if (looking_at(sc, "<!--"))
            comment(sc);
        if (looking_at(sc, "<?")) {
            int rc = processing_instruction(sc);
            if (rc)
                return rc;
        }
        skip_blanks(sc);
    }
    return 0;
}

static int is_doctype(const scan *sc)
{
    return looking_at(sc, "<!") && looking_at_ci(sc, sc->i + 2, "DOCTYPE");
}

/* One step of htmlParseContentInternal after a possible end tag: a
 * DOCTYPE (after which, in the same step, "</" and another DOCTYPE are
 * text), a comment, a processing instruction, an element, or text. */
static int content_step(scan *sc)
{
    if (is_doctype(sc)) {
        int rc = doctype(sc);
        if (rc)
            return rc;
    }
    if (looking_at(sc, "<!--")) {
        comment(sc);
        return 0;
    }
    if (looking_at(sc, "<?"))
        return processing_instruction(sc);
    if (cur(sc) == '<' && is_alpha(byte_at(sc, sc->i + 1))) {
        char name[HTML_NAME_MAX + 1];
        int raw = 0;
        int rc = start_tag(sc, name, &raw);
        return !rc && raw ? raw_text(sc, name) : rc;
    }
    if (cur(sc) == '<') {
        sc->i++;
        return 0;
    }
    skip_to(sc, '<'); /* text and references up to the next '<' */
    return 0;
}

int html_scan_attributes(const char *s, size_t n, int max_attributes, dbmcp_error *err)
{
    scan sc = {(const unsigned char *)s, n, 0, max_attributes, err};
    /* htmlParseDocument: blanks, misc, a DOCTYPE, misc, then the content. */
    skip_blanks(&sc);
    int rc = misc(&sc);
    if (!rc && is_doctype(&sc))
        rc = doctype(&sc);
    skip_blanks(&sc);
    if (!rc)
        rc = misc(&sc);
    while (!rc && sc.i < sc.n) {
        if (looking_at(&sc, "</")) {
            end_tag(&sc, NULL);
            continue;
        }
        rc = content_step(&sc);
    }
    return rc;
}
