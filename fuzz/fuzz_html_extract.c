/*
 * fuzz_html_extract.c — libFuzzer target for the HTML extractor
 * (docs/extract_html.c through doc_extract).
 *
 * Each input is an HTML document. The target checks the extractor's
 * contract:
 *   - it either fails with a negative code, no text and a message, or
 *     returns text that is valid UTF-8, holds no NUL byte, is exactly
 *     out.len bytes long and is not empty;
 *   - a title, when there is one, is valid UTF-8, at most
 *     DOC_TITLE_MAX_BYTES long;
 *   - the same input always gives the same answer;
 *   - the attribute pre-scan (docs/html_scan.h) sees every tag libxml2
 *     parses: when it accepts an input (UTF-8, no NUL) with a limit of
 *     SCAN_LIMIT attributes per tag, no element libxml2 builds from that
 *     input has more than SCAN_LIMIT attributes. A markup trick that hid a
 *     tag from the scan (a comment, quote or script text read differently)
 *     breaks this.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "core/xml_lib.h"
#include "docs/extract.h"
#include "docs/html_scan.h"

#define SCAN_LIMIT 3

static void die(const char *what)
{
    fprintf(stderr, "fuzz_html_extract: %s\n", what);
    abort();
}

static void check_output(const doc_extracted *d)
{
    if (!d->text)
        die("success without text");
    if (strlen(d->text) != d->len)
        die("text length differs from out.len (NUL inside)");
    if (d->len == 0)
        die("success with empty text");
    if (text_utf8_valid_prefix(d->text, d->len) != d->len)
        die("text is not valid UTF-8");
    if (d->title) {
        size_t tl = strlen(d->title);
        if (tl > DOC_TITLE_MAX_BYTES || text_utf8_valid_prefix(d->title, tl) != tl)
            die("title too long or not UTF-8");
    }
}

/* The most attributes on one element of the tree under n (depth-bounded
 * like the extractor's walk, iteratively over siblings). */
static int most_attributes(const xmlNode *n, int depth)
{
    int most = 0;
    for (; n && depth < 512; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        int count = 0;
        for (const xmlAttr *a = n->properties; a; a = a->next)
            count++;
        int below = most_attributes(n->children, depth + 1);
        most = count > most ? count : most;
        most = below > most ? below : most;
    }
    return most;
}

static void check_scan(const char *data, size_t size)
{
    if (text_utf8_valid_prefix(data, size) != size || memchr(data, '\0', size))
        return;
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        size -= 3;
    }
    dbmcp_error err;
    if (html_scan_attributes(data, size, SCAN_LIMIT, &err) != 0 || xml_lib_open(&err) != 0)
        return;
    int opts = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |
               HTML_PARSE_NOBLANKS | HTML_PARSE_COMPACT;
    htmlDocPtr doc = xml_api.htmlReadMemory(data, (int)size, NULL, "UTF-8", opts);
    if (!doc)
        return;
    int most = most_attributes(xml_api.xmlDocGetRootElement(doc), 0);
    xml_api.xmlFreeDoc(doc);
    if (most > SCAN_LIMIT)
        die("libxml2 built an element with more attributes than the pre-scan counted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    doc_extracted a, b;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = doc_extract(DOC_FORMAT_HTML, (const char *)data, size, NULL, &a, &err);
    if (rc) {
        if (rc >= 0 || a.text || !err.message[0])
            die("failure without a negative code and a message, or with text");
        if (rc == DBMCP_EINTERNAL) /* a bug, or libxml2 missing: every input would pass */
            die(err.message);
    } else {
        check_output(&a);
    }
    int rc2 = doc_extract(DOC_FORMAT_HTML, (const char *)data, size, NULL, &b, &err);
    if (rc2 != rc || (!rc && (a.len != b.len || memcmp(a.text, b.text, a.len) != 0)))
        die("the same input gave a different answer");
    doc_extracted_free(&a);
    doc_extracted_free(&b);
    check_scan((const char *)data, size);
    return 0;
}
