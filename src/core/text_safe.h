/*
 * text_safe.h — caller-supplied text made safe to store and to print.
 *
 * Whatever a client sends can end up in a table (the audit row's target,
 * client name, error detail) and later on an operator's terminal. Two
 * dangers: size (a 4 MB tool name stored whole, once per call) and control
 * characters (an ESC sequence or a newline that draws fake rows when
 * `dbmcp audit` prints the name). This module handles both for UTF-8 text:
 *
 *   - text_safe_bound / text_safe_copy: a copy of at most N bytes, cut on a
 *     character boundary, ending in a visible marker when cut
 *     ("…[truncated, 4000000 bytes]"); invalid UTF-8 becomes U+FFFD, so the
 *     result is always valid UTF-8. With TEXT_SAFE_STRIP, control characters
 *     are dropped (C0 including tab and newline, DEL, C1, and the
 *     bidirectional and zero-width format characters that reorder or hide
 *     text).
 *   - text_safe_escape: the text with those characters (tab and newline
 *     included) and invalid bytes replaced by visible escapes — `\n`, `\r`,
 *     `\t`, `\x1b`, `\u009b`, `\u202e` — for printing on a terminal.
 *
 * Ownership: text_safe_bound and text_safe_escape return malloc'd strings
 * the caller frees (NULL for NULL input or when out of memory).
 */
#ifndef DBMCP_CORE_TEXT_SAFE_H
#define DBMCP_CORE_TEXT_SAFE_H

#include <stddef.h>

/* Flags of text_safe_bound and text_safe_copy. */
#define TEXT_SAFE_STRIP 1u /* drop control and bidirectional format characters */

/* A valid UTF-8 copy of s of at most max bytes (plus the NUL), cut with
 * the marker when longer (without it when max is too small to hold it).
 * max 0 means no bound. */
char *text_safe_bound(const char *s, size_t max, unsigned flags);

/* The same into dst[size] (at most size - 1 bytes); NULL src gives "". */
void text_safe_copy(char *dst, size_t size, const char *src, unsigned flags);

/* s with control characters, bidirectional format characters and invalid
 * bytes escaped, for a terminal. */
char *text_safe_escape(const char *s);

/* Nonzero when s holds a character text_safe_escape would change. */
int text_safe_needs_escape(const char *s);

#endif
