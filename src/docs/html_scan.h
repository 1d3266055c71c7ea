/*
 * html_scan.h — a linear pre-scan of HTML that bounds the work libxml2
 * will do on it (used by docs/extract_html.c before htmlReadMemory).
 *
 * Why: libxml2 2.9 checks each attribute of a start tag against all
 * earlier ones (htmlParseStartTag) and appends it by walking the
 * element's attribute list (xmlNewNsPropEatName), so k attributes on one
 * tag cost about k²/2 comparisons and steps: 40,000 attributes took
 * seconds, 300,000 minutes. Refusing tags with more than max attributes
 * keeps that work at most max steps per attribute: linear in the input.
 *
 * The scan reads the bytes libxml2 will parse (UTF-8, no NUL byte, no
 * byte-order mark: the caller converts first) the way libxml2 2.9's HTML
 * parser does — prologue, comments, processing instructions, DOCTYPE,
 * script/style text, end tags, start tags and their attributes, including
 * libxml2's cut of names at 100 bytes — because a tag the scan took for a
 * comment, a quoted value or script text while libxml2 parses it would
 * escape the count. The few constructs whose reading depends on what the
 * scan does not model (Unicode letter classes, the stack of open
 * elements) are refused instead of guessed:
 *   - a processing instruction or DOCTYPE name with a non-ASCII character
 *     where libxml2 decides whether it is a name;
 *   - inside script or style, an end tag other than the element's own
 *     (</scripts>, or </div> right after <script>): libxml2 ends the
 *     element there only when that name is open.
 * No legitimate document needs them.
 */
#ifndef DBMCP_DOCS_HTML_SCAN_H
#define DBMCP_DOCS_HTML_SCAN_H

#include <stddef.h>

#include "core/error.h"

/* 0 when no start tag of s[0..n) has more than max_attributes attributes
 * and nothing is ambiguous; else DBMCP_ETOOBIG naming the tag, its byte
 * offset and the limit (setting ingest.html_max_attributes), or
 * DBMCP_EINVAL naming the ambiguous construct and its offset. Reads each
 * byte a bounded number of times. */
int html_scan_attributes(const char *s, size_t n, int max_attributes, dbmcp_error *err);

#endif
