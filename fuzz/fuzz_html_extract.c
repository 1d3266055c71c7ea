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
 *   - the same input always gives the same answer.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docs/extract.h"
#include "search/textnorm.h"

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
    return 0;
}
