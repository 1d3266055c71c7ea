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
 */
#include <glib.h>
#include <poppler.h>
#include <stdlib.h>
#include <string.h>

#include "docs/extract.h"
#include "search/textnorm.h"

#define PDF_MAX_PAGES 100000

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
    g_string_append_len(buf, clean, (gssize)len);
    free(clean);
    return 0;
}

static void trim_trailing_space(GString *buf)
{
    while (buf->len && (buf->str[buf->len - 1] == ' ' || buf->str[buf->len - 1] == '\n' ||
                        buf->str[buf->len - 1] == '\r' || buf->str[buf->len - 1] == '\f'))
        g_string_truncate(buf, buf->len - 1);
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
    GBytes *bytes = g_bytes_new(data, n);
    GError *gerr = NULL;
    PopplerDocument *doc = poppler_document_new_from_bytes(bytes, NULL, &gerr);
    g_bytes_unref(bytes);
    if (!doc) {
        int rc = dbmcp_error_set(err, DBMCP_EINVAL, "PDF is truncated or corrupt: %s",
                                 gerr && gerr->message ? gerr->message : "poppler cannot open it");
        if (gerr)
            g_error_free(gerr);
        return rc;
    }
    int pages = poppler_document_get_n_pages(doc);
    if (pages > PDF_MAX_PAGES) {
        g_object_unref(doc);
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "PDF has %d pages; the limit is %d", pages,
                               PDF_MAX_PAGES);
    }
    GString *buf = g_string_new(NULL);
    for (int i = 0; i < pages; i++) {
        PopplerPage *page = poppler_document_get_page(doc, i);
        if (!page)
            continue;
        char *text = poppler_page_get_text(page);
        int oom = 0;
        if (text && *text) {
            if (buf->len)
                g_string_append(buf, "\n\n");
            oom = append_text(buf, text) != 0;
            trim_trailing_space(buf);
        }
        g_free(text);
        g_object_unref(page);
        if (oom) {
            g_string_free(buf, TRUE);
            g_object_unref(doc);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
        if (buf->len > DOC_TEXT_MAX_BYTES)
            break;
    }
    char *title = poppler_document_get_title(doc);
    g_object_unref(doc);
    if (buf->len == 0) {
        g_string_free(buf, TRUE);
        g_free(title);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF has no extractable text on its %d page%s (a scan needs OCR "
                               "first)",
                               pages, pages == 1 ? "" : "s");
    }
    g_string_append_c(buf, '\n');
    out->len = buf->len;
    out->text = malloc(buf->len + 1);
    if (out->text)
        memcpy(out->text, buf->str, buf->len + 1);
    g_string_free(buf, TRUE);
    if (title) {
        g_strstrip(title);
        if (*title && text_utf8_valid_prefix(title, strlen(title)) == strlen(title)) {
            size_t tl = strlen(title);
            if (tl > DOC_TITLE_MAX_BYTES)
                tl = text_utf8_valid_prefix(title, DOC_TITLE_MAX_BYTES);
            out->title = strndup(title, tl);
        }
        g_free(title);
    }
    if (!out->text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!out->title)
        out->title = doc_title_from_text(out->text, out->len, 0);
    out->mime_type = "application/pdf";
    return 0;
}
