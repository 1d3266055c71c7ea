/*
 * extract.h — turning a source file into the text dbmcp indexes: plain
 * text, Markdown, HTML (libxml2's HTML parser) and PDF (poppler-glib),
 * plus the language guess used when none is given.
 *
 * Every extractor returns valid UTF-8 without NUL bytes, or an error that
 * says precisely what is wrong (err->message == err->public_message, fit
 * for the operator and the agent):
 *   DBMCP_EINVAL  "not valid UTF-8 (byte 1234)", "contains a NUL byte
 *                 (byte 17)", "PDF is truncated or corrupt: …",
 *                 "unknown format …", "no text …"
 *   DBMCP_ETOOBIG a limit of doc_limits was reached (the message names it
 *                 and its setting: "… the limit is 67108864 bytes (setting
 *                 ingest.max_text_bytes)")
 *   DBMCP_ETIMEOUT PDF extraction ran past doc_limits.pdf_timeout_ms
 * Text and Markdown are kept byte for byte (a UTF-8 byte-order mark is
 * dropped); HTML becomes Markdown-like text (headings as "#" lines,
 * paragraphs separated by blank lines, script/style/noscript/template
 * dropped); PDF text is the pages' text in order, pages separated by a
 * blank line.
 *
 * Hostile input: every extractor's work is bounded by doc_limits (the
 * settings ingest.* of docs/security.md, "Limits under attack"). PDF text
 * is extracted in a child process (extract_pdf.c) whose memory and time
 * are bounded, because poppler cannot be stopped from the inside; HTML is
 * pre-scanned so libxml2's per-attribute work stays linear
 * (extract_html.c).
 *
 * Ownership: doc_extracted owns text and title; free with
 * doc_extracted_free. Thread-safe (libxml2 and poppler keep per-call
 * state), but PDF extraction forks: call it from a process whose other
 * threads hold no lock the child needs (malloc is fork-safe in glibc; the
 * CLI runs ingestion on one thread). libxml2 and poppler-glib are opened
 * on the first HTML or PDF (core/xml_lib.h, core/optlib.h); when one is
 * missing, that format fails with DBMCP_EINTERNAL naming the library and
 * its Debian package.
 */
#ifndef DBMCP_DOCS_EXTRACT_H
#define DBMCP_DOCS_EXTRACT_H

#include <stddef.h>

#include "core/error.h"

/* The defaults of doc_limits (each a setting, see doc_limits). */
#define DOC_MAX_TEXT_BYTES_DEFAULT (64u * 1024 * 1024)
#define DOC_PDF_MAX_PAGES_DEFAULT 10000
#define DOC_PDF_MAX_MEMORY_DEFAULT (512u * 1024 * 1024)
#define DOC_PDF_TIMEOUT_MS_DEFAULT 60000
#define DOC_HTML_MAX_ATTRIBUTES_DEFAULT 256
/* Longest title kept, bytes (cut at a character boundary). */
#define DOC_TITLE_MAX_BYTES 300

typedef enum doc_format {
    DOC_FORMAT_UNKNOWN = 0,
    DOC_FORMAT_TEXT,
    DOC_FORMAT_MARKDOWN,
    DOC_FORMAT_HTML,
    DOC_FORMAT_PDF
} doc_format;

/* How much work one document may cost; every field is a setting read by
 * ingest_options_from_settings. Zero fields mean their default. */
typedef struct doc_limits {
    size_t max_text_bytes;   /* extracted text, any format: ingest.max_text_bytes */
    int pdf_max_pages;       /* pages of a PDF: ingest.pdf_max_pages */
    size_t pdf_max_memory;   /* memory the PDF extraction may add: ingest.pdf_max_memory */
    int pdf_timeout_ms;      /* wall time of one PDF's extraction: ingest.pdf_timeout_ms */
    int html_max_attributes; /* attributes on one HTML tag: ingest.html_max_attributes */
} doc_limits;

typedef struct doc_extracted {
    char *text;            /* NUL-terminated UTF-8; owned */
    size_t len;            /* bytes of text */
    char *title;           /* owned; NULL when the source names none */
    int markdown;          /* "#" lines are headings (Markdown, HTML) */
    const char *mime_type; /* of the source: static string */
} doc_extracted;

/* The format by file extension (.txt .text .md .markdown .htm .html .pdf,
 * case-insensitive), else by content (%PDF-, <!doctype html / <html),
 * else text when the bytes are valid UTF-8, else unknown. */
doc_format doc_format_detect(const char *path, const char *data, size_t n);
/* The format by file extension alone; DOC_FORMAT_UNKNOWN without a known one. */
doc_format doc_format_by_extension(const char *path);
/* "text", "markdown", "html", "pdf" → format; DOC_FORMAT_UNKNOWN otherwise. */
doc_format doc_format_parse(const char *name);
const char *doc_format_name(doc_format f);

/* The defaults into l; doc_limits_resolve fills l's zero fields with them. */
void doc_limits_default(doc_limits *l);
void doc_limits_resolve(doc_limits *l);

/* Extract data[0..n) as format f into out within the limits (NULL: the
 * defaults). 0 or an error (see above). */
int doc_extract(doc_format f, const char *data, size_t n, const doc_limits *limits,
                doc_extracted *out, dbmcp_error *err);
void doc_extracted_free(doc_extracted *d);

/* The per-format extractors behind doc_extract; limits fully resolved. */
int doc_extract_html(const char *data, size_t n, const doc_limits *limits, doc_extracted *out,
                     dbmcp_error *err);
int doc_extract_pdf(const char *data, size_t n, const doc_limits *limits, doc_extracted *out,
                    dbmcp_error *err);

/* 0 when s[0..n) is valid UTF-8 without NUL bytes; otherwise DBMCP_EINVAL
 * naming the byte offset of the first bad byte. what names the input in
 * the message ("file x.txt"). */
int doc_check_utf8(const char *s, size_t n, const char *what, dbmcp_error *err);

/* A copy of s[0..n) with every invalid UTF-8 sequence and NUL byte replaced
 * by U+FFFD, NUL-terminated; *out_len (may be NULL) gets its length. NULL
 * when out of memory. For text a library hands back (libxml2 after a
 * charset conversion, poppler), never for the user's own text files. */
char *doc_utf8_repair(const char *s, size_t n, size_t *out_len);

/* A language guess for text: "ja" (kana present), "zh" (Han, no kana),
 * "de" or "en" (by umlauts/ß and frequent function words), or "und" when
 * the text gives no evidence. Static string. */
const char *doc_language_detect(const char *text, size_t n);

/* A title from the text: the first Markdown "# " heading when markdown,
 * else the first non-empty line; trimmed and cut to DOC_TITLE_MAX_BYTES.
 * NULL when the text has no non-blank line. Caller frees. */
char *doc_title_from_text(const char *text, size_t n, int markdown);

#endif
