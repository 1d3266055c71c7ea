/*
 * extract_pdf.c — the text of a PDF with poppler-glib: every page's text
 * in order, pages separated by a blank line; the title from the document
 * information (else the first line of text). See extract.h.
 *
 * Poppler repairs many broken files silently, reconstructing a lost cross
 * reference table from whatever objects it finds — a truncated download
 * would then be indexed as a shorter document without anyone noticing. So
 * the file must end with the %%EOF marker (within the last kilobyte, as
 * the PDF specification's readers allow) before poppler sees it.
 *
 * poppler-glib (with the glib and gobject it brings) is opened on the
 * first PDF (core/optlib.h), not linked: it and its dependencies (C++
 * runtime, cairo, icu…) would cost every process several megabytes.
 */
#include <glib.h>
#include <poppler.h>
#include <stdlib.h>
#include <string.h>

#include "core/optlib.h"
#include "core/textnorm.h"
#include "docs/extract.h"

#define PDF_MAX_PAGES 100000

/* poppler-glib's functions, and glib's it returns memory from, under their
 * own names and types; glib and gobject resolve through poppler-glib's
 * handle (they are its dependencies). Only real functions: macros such as
 * g_string_append_c and g_strstrip are spelled out at the call. */
#define PDF_SYMBOLS(X)                                                                             \
    X(poppler_document_new_from_bytes)                                                             \
    X(poppler_document_get_n_pages)                                                                \
    X(poppler_document_get_page)                                                                   \
    X(poppler_document_get_title)                                                                  \
    X(poppler_page_get_text)                                                                       \
    X(g_object_unref)                                                                              \
    X(g_bytes_new)                                                                                 \
    X(g_bytes_unref)                                                                               \
    X(g_error_free)                                                                                \
    X(g_free)                                                                                      \
    X(g_strchug)                                                                                   \
    X(g_strchomp)                                                                                  \
    X(g_string_new)                                                                                \
    X(g_string_append)                                                                             \
    X(g_string_append_len)                                                                         \
    X(g_string_truncate)                                                                           \
    X(g_string_free)

static struct {
    PDF_SYMBOLS(OPTLIB_SLOT)
} pdf_api;

#define PDF_SYMBOL(fn) OPTLIB_SYMBOL(pdf_api, fn)
static const optlib_symbol pdf_symbols[] = {PDF_SYMBOLS(PDF_SYMBOL)};
static const char *const pdf_sonames[] = {"libpoppler-glib.so.8", NULL};
static optlib pdf_lib = {
    .feature = "PDF extraction",
    .sonames = pdf_sonames,
    .package = "libpoppler-glib8",
    .symbols = pdf_symbols,
    .n_symbols = OPTLIB_COUNT(pdf_symbols),
};

static int has_eof_marker(const char *data, size_t n)
{
    size_t from = n > 1024 ? n - 1024 : 0;
    for (size_t i = n >= 5 ? n - 5 + 1 : 0; i-- > from;)
        if (memcmp(data + i, "%%EOF", 5) == 0)
            return 1;
    return 0;
}

/* Append s (UTF-8 from poppler) to *buf, invalid bytes replaced. */
static int append_text(GString *buf, const char *s)
{
    size_t len = 0;
    char *clean = doc_utf8_repair(s, strlen(s), &len);
    if (!clean)
        return DBMCP_ENOMEM;
    pdf_api.g_string_append_len(buf, clean, (gssize)len);
    free(clean);
    return 0;
}

static void trim_trailing_space(GString *buf)
{
    while (buf->len && (buf->str[buf->len - 1] == ' ' || buf->str[buf->len - 1] == '\n' ||
                        buf->str[buf->len - 1] == '\r' || buf->str[buf->len - 1] == '\f'))
        pdf_api.g_string_truncate(buf, buf->len - 1);
}

int doc_extract_pdf(const char *data, size_t n, doc_extracted *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 5 || memcmp(data, "%PDF-", 5) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF is corrupt: it does not start with the %%PDF- header");
    if (!has_eof_marker(data, n))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF is truncated or corrupt: the %%%%EOF marker is missing at the "
                               "end of the file (%zu bytes); download or copy it again",
                               n);
    int rc = optlib_open(&pdf_lib, err);
    if (rc)
        return rc;
    GBytes *bytes = pdf_api.g_bytes_new(data, n);
    GError *gerr = NULL;
    PopplerDocument *doc = pdf_api.poppler_document_new_from_bytes(bytes, NULL, &gerr);
    pdf_api.g_bytes_unref(bytes);
    if (!doc) {
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "PDF is truncated or corrupt: %s",
                             gerr && gerr->message ? gerr->message : "poppler cannot open it");
        if (gerr)
            pdf_api.g_error_free(gerr);
        return rc;
    }
    int pages = pdf_api.poppler_document_get_n_pages(doc);
    if (pages > PDF_MAX_PAGES) {
        pdf_api.g_object_unref(doc);
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "PDF has %d pages; the limit is %d", pages,
                               PDF_MAX_PAGES);
    }
    GString *buf = pdf_api.g_string_new(NULL);
    for (int i = 0; i < pages; i++) {
        PopplerPage *page = pdf_api.poppler_document_get_page(doc, i);
        if (!page)
            continue;
        char *text = pdf_api.poppler_page_get_text(page);
        int oom = 0;
        if (text && *text) {
            if (buf->len)
                pdf_api.g_string_append(buf, "\n\n");
            oom = append_text(buf, text) != 0;
            trim_trailing_space(buf);
        }
        pdf_api.g_free(text);
        pdf_api.g_object_unref(page);
        if (oom) {
            pdf_api.g_string_free(buf, TRUE);
            pdf_api.g_object_unref(doc);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
        if (buf->len > DOC_TEXT_MAX_BYTES)
            break;
    }
    char *title = pdf_api.poppler_document_get_title(doc);
    pdf_api.g_object_unref(doc);
    if (buf->len == 0) {
        pdf_api.g_string_free(buf, TRUE);
        pdf_api.g_free(title);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF has no extractable text on its %d page%s (a scan needs OCR "
                               "first)",
                               pages, pages == 1 ? "" : "s");
    }
    pdf_api.g_string_append_len(buf, "\n", 1);
    out->len = buf->len;
    out->text = malloc(buf->len + 1);
    if (out->text)
        memcpy(out->text, buf->str, buf->len + 1);
    pdf_api.g_string_free(buf, TRUE);
    if (title) {
        pdf_api.g_strchomp(pdf_api.g_strchug(title));
        if (*title && text_utf8_valid_prefix(title, strlen(title)) == strlen(title)) {
            size_t tl = strlen(title);
            if (tl > DOC_TITLE_MAX_BYTES)
                tl = text_utf8_valid_prefix(title, DOC_TITLE_MAX_BYTES);
            out->title = strndup(title, tl);
        }
        pdf_api.g_free(title);
    }
    if (!out->text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!out->title)
        out->title = doc_title_from_text(out->text, out->len, 0);
    out->mime_type = "application/pdf";
    return 0;
}
