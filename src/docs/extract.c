/*
 * extract.c — format detection, plain text and Markdown extraction, UTF-8
 * checks, titles and the language guess. HTML and PDF live in
 * extract_html.c and extract_pdf.c. See extract.h.
 */
#include "docs/extract.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

#include "core/textnorm.h"

/* --- formats ------------------------------------------------------------------ */

static const struct {
    const char *ext;
    doc_format format;
} extensions[] = {
    {".txt", DOC_FORMAT_TEXT},          {".text", DOC_FORMAT_TEXT}, {".md", DOC_FORMAT_MARKDOWN},
    {".markdown", DOC_FORMAT_MARKDOWN}, {".htm", DOC_FORMAT_HTML},  {".html", DOC_FORMAT_HTML},
    {".xhtml", DOC_FORMAT_HTML},        {".pdf", DOC_FORMAT_PDF},
};

static int starts_with_ci(const char *data, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    return n >= pl && strncasecmp(data, prefix, pl) == 0;
}

doc_format doc_format_by_extension(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
            if (strcasecmp(dot, extensions[i].ext) == 0)
                return extensions[i].format;
    return DOC_FORMAT_UNKNOWN;
}

doc_format doc_format_detect(const char *path, const char *data, size_t n)
{
    doc_format f = doc_format_by_extension(path);
    if (f != DOC_FORMAT_UNKNOWN)
        return f;
    if (n >= 5 && memcmp(data, "%PDF-", 5) == 0)
        return DOC_FORMAT_PDF;
    size_t i = 0;
    while (i < n && i < 64 && isspace((unsigned char)data[i]))
        i++;
    if (starts_with_ci(data + i, n - i, "<!doctype html") ||
        starts_with_ci(data + i, n - i, "<html"))
        return DOC_FORMAT_HTML;
    if (text_utf8_valid_prefix(data, n) == n && !memchr(data, '\0', n))
        return DOC_FORMAT_TEXT;
    return DOC_FORMAT_UNKNOWN;
}

doc_format doc_format_parse(const char *name)
{
    static const char *const names[] = {NULL, "text", "markdown", "html", "pdf"};
    for (int f = DOC_FORMAT_TEXT; f <= DOC_FORMAT_PDF; f++)
        if (name && strcmp(name, names[f]) == 0)
            return (doc_format)f;
    return DOC_FORMAT_UNKNOWN;
}

const char *doc_format_name(doc_format f)
{
    switch (f) {
    case DOC_FORMAT_TEXT: return "text";
    case DOC_FORMAT_MARKDOWN: return "markdown";
    case DOC_FORMAT_HTML: return "html";
    case DOC_FORMAT_PDF: return "pdf";
    default: return "unknown";
    }
}

/* --- checks --------------------------------------------------------------------- */

int doc_check_utf8(const char *s, size_t n, const char *what, dbmcp_error *err)
{
    size_t ok = text_utf8_valid_prefix(s, n);
    const char *nul = memchr(s, '\0', ok);
    if (nul)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s contains a NUL byte (byte %zu); it is not text", what,
                               (size_t)(nul - s));
    if (ok < n)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s is not valid UTF-8 (byte %zu: 0x%02x); convert it to UTF-8 "
                               "first (e.g. iconv -f latin1 -t utf-8)",
                               what, ok, (unsigned char)s[ok]);
    return 0;
}

char *doc_utf8_repair(const char *s, size_t n, size_t *out_len)
{
    /* Each bad byte becomes 3 bytes at most. */
    if (n > (SIZE_MAX - 1) / 3)
        return NULL;
    char *out = malloc(n * 3 + 1);
    if (!out)
        return NULL;
    size_t len = 0, done = 0;
    while (done < n) {
        size_t ok = text_utf8_valid_prefix(s + done, n - done);
        const char *nul = memchr(s + done, '\0', ok);
        if (nul)
            ok = (size_t)(nul - (s + done));
        memcpy(out + len, s + done, ok);
        len += ok;
        done += ok;
        if (done < n) {
            memcpy(out + len, "\xEF\xBF\xBD", 3);
            len += 3;
            done++;
        }
    }
    out[len] = '\0';
    if (out_len)
        *out_len = len;
    return out;
}

/* --- text and Markdown --------------------------------------------------------------- */

static int extract_plain(const char *data, size_t n, int markdown, doc_extracted *out,
                         dbmcp_error *err)
{
    if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        data += 3;
        n -= 3;
    }
    int rc = doc_check_utf8(data, n, "the text", err);
    if (rc)
        return rc;
    if (!(out->text = malloc(n + 1)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    memcpy(out->text, data, n);
    out->text[n] = '\0';
    out->len = n;
    out->markdown = markdown;
    out->mime_type = markdown ? "text/markdown" : "text/plain";
    out->title = doc_title_from_text(out->text, n, markdown);
    return 0;
}

void doc_limits_default(doc_limits *l)
{
    l->max_text_bytes = DOC_MAX_TEXT_BYTES_DEFAULT;
    l->pdf_max_pages = DOC_PDF_MAX_PAGES_DEFAULT;
    l->pdf_max_memory = DOC_PDF_MAX_MEMORY_DEFAULT;
    l->pdf_timeout_ms = DOC_PDF_TIMEOUT_MS_DEFAULT;
    l->html_max_attributes = DOC_HTML_MAX_ATTRIBUTES_DEFAULT;
}

void doc_limits_resolve(doc_limits *l)
{
    doc_limits d;
    doc_limits_default(&d);
    if (!l->max_text_bytes)
        l->max_text_bytes = d.max_text_bytes;
    if (l->pdf_max_pages <= 0)
        l->pdf_max_pages = d.pdf_max_pages;
    if (!l->pdf_max_memory)
        l->pdf_max_memory = d.pdf_max_memory;
    if (l->pdf_timeout_ms <= 0)
        l->pdf_timeout_ms = d.pdf_timeout_ms;
    if (l->html_max_attributes <= 0)
        l->html_max_attributes = d.html_max_attributes;
}

int doc_extract(doc_format f, const char *data, size_t n, const doc_limits *limits,
                doc_extracted *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    doc_limits lim;
    if (limits)
        lim = *limits;
    else
        memset(&lim, 0, sizeof lim);
    doc_limits_resolve(&lim);
    int rc;
    switch (f) {
    case DOC_FORMAT_TEXT: rc = extract_plain(data, n, 0, out, err); break;
    case DOC_FORMAT_MARKDOWN: rc = extract_plain(data, n, 1, out, err); break;
    case DOC_FORMAT_HTML: rc = doc_extract_html(data, n, &lim, out, err); break;
    case DOC_FORMAT_PDF: rc = doc_extract_pdf(data, n, &lim, out, err); break;
    default:
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "unknown format: not text, Markdown, HTML or PDF (name the format "
                             "with a .txt, .md, .html or .pdf extension)");
    }
    if (!rc && out->len > lim.max_text_bytes)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG,
                             "the extracted text is %zu bytes; the limit is %zu bytes (setting "
                             "ingest.max_text_bytes)",
                             out->len, lim.max_text_bytes);
    if (!rc && text_utf8_valid_prefix(out->text, out->len) != out->len)
        rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "extractor produced invalid UTF-8");
    if (rc)
        doc_extracted_free(out);
    return rc;
}

void doc_extracted_free(doc_extracted *d)
{
    free(d->text);
    free(d->title);
    memset(d, 0, sizeof *d);
}

/* --- titles ------------------------------------------------------------------------- */

char *doc_title_from_text(const char *text, size_t n, int markdown)
{
    const char *first = NULL, *first_end = NULL;
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', n - i);
        const char *end = nl ? nl : text + n;
        i = (size_t)(end - text) + 1;
        const char *a = line, *b = end;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        if (a == b)
            continue;
        if (markdown && b - a > 2 && a[0] == '#' && a[1] == ' ') {
            first = a + 2;
            first_end = b;
            break;
        }
        if (!first) {
            first = a;
            first_end = b;
            if (!markdown)
                break;
        }
    }
    if (!first)
        return NULL;
    while (first < first_end && (*first == '#' || isspace((unsigned char)*first)))
        first++;
    size_t len = (size_t)(first_end - first);
    if (len > DOC_TITLE_MAX_BYTES)
        len = text_utf8_valid_prefix(first, DOC_TITLE_MAX_BYTES);
    if (len == 0)
        return NULL;
    return strndup(first, len);
}

/* --- language ----------------------------------------------------------------------- */

static int word_in(const char *w, size_t len, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == len && strncmp(list[i], w, len) == 0)
            return 1;
    return 0;
}

const char *doc_language_detect(const char *text, size_t n)
{
    static const char *const de_words[] = {
        "der",  "die",  "das",   "und",  "ist", "nicht", "mit", "von",  "den",    "dem",
        "des",  "eine", "einer", "zu",   "im",  "auf",   "bei", "wird", "werden", "sich",
        "auch", "nach", "sind",  "oder", "zum", "zur",   "ein", NULL};
    static const char *const en_words[] = {"the",  "and", "is",    "of",  "to",   "with",  "for",
                                           "on",   "are", "be",    "by",  "this", "that",  "from",
                                           "it",   "as",  "at",    "an",  "or",   "which", "will",
                                           "have", "has", "their", "all", "can",  "per",   NULL};
    size_t kana = 0, han = 0, umlaut = 0, de = 0, en = 0;
    char word[16];
    size_t wlen = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    utf8proc_ssize_t left = (utf8proc_ssize_t)n;
    while (left > 0) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t len = utf8proc_iterate(p, left, &cp);
        if (len <= 0) {
            p++;
            left--;
            continue;
        }
        p += len;
        left -= len;
        if ((cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0xFF66 && cp <= 0xFF9F))
            kana++;
        else if ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF))
            han++;
        else if (cp == 0xE4 || cp == 0xF6 || cp == 0xFC || cp == 0xDF || cp == 0xC4 || cp == 0xD6 ||
                 cp == 0xDC)
            umlaut++;
        utf8proc_category_t cat = utf8proc_category(cp);
        int letter = cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO;
        if (letter && cp >= 128)
            wlen = sizeof word; /* a word with non-ASCII letters is in neither list */
        else if (letter && wlen < sizeof word)
            word[wlen++] = (char)tolower(cp);
        else if (!letter) {
            if (wlen && wlen < sizeof word) {
                if (word_in(word, wlen, de_words))
                    de++;
                else if (word_in(word, wlen, en_words))
                    en++;
            }
            wlen = 0;
        }
    }
    if (kana >= 3 && kana * 20 >= han)
        return "ja";
    if (han >= 3)
        return kana ? "ja" : "zh";
    de += umlaut / 2;
    if (de == 0 && en == 0)
        return "und";
    return de >= en ? "de" : "en";
}
