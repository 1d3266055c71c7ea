/*
 * json_write.h — compact JSON text from a jansson tree, fast.
 *
 * Every response dbmcp sends is a jansson tree serialised compactly; with
 * json_dumps that cost 6 % of the server's CPU on a trivial tools/call and
 * 11-12 % on an execute_query preview, mostly in jansson's string escaper
 * (it decodes every code point and emits segment by segment through
 * callbacks). This writer copies the runs of a string that need no escape
 * in bulk (8 bytes checked at a time), into a stack buffer for output under
 * 8 KiB that is then copied into one exact-size allocation.
 *
 * The output is byte for byte what jansson 2.14's
 * json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) writes (for an object or
 * an array, what json_dumps(v, JSON_COMPACT) writes):
 *   - object members in jansson's iteration order (insertion order), no
 *     whitespace anywhere;
 *   - integers as "%" JSON_INTEGER_FORMAT;
 *   - reals as "%.17g" with '.' as decimal point whatever the locale, ".0"
 *     appended when neither '.' nor 'e' is there, and the exponent without
 *     '+' and leading zeros ("1e300", "1e-5");
 *   - strings and keys as they are, except '"' and '\\' (escaped with a
 *     backslash), \b \f \n \r \t, and the other bytes below 0x20 as \u00XX
 *     (upper-case hex); '/', DEL and non-ASCII are not escaped.
 *
 * Where it differs from json_dumps, it refuses (NULL) what jansson would
 * write:
 *   - containers nested more than JSON_WRITE_MAX_DEPTH deep (jansson's own
 *     parser refuses those too, so every parsed tree can be written; a
 *     cyclic tree always hits this limit);
 *   - an object key that is not valid UTF-8 (only json_object_setn_nocheck
 *     can make one; jansson then writes invalid JSON: `{":null}`).
 * Like jansson it refuses a string that is not valid UTF-8 (only the
 * *_nocheck constructors make one). jansson cannot hold NaN or infinities.
 *
 * Thread safety: reads the tree only (no reference counts change); callers
 * must not modify it concurrently.
 */
#ifndef DBMCP_CORE_JSON_WRITE_H
#define DBMCP_CORE_JSON_WRITE_H

#include <jansson.h>
#include <stddef.h>

/* Deepest nesting of arrays and objects written (jansson's
 * JSON_PARSER_MAX_DEPTH): the top-level container is depth 1. */
#define JSON_WRITE_MAX_DEPTH 2048

/* Serialise v compactly (see above). Returns a new NUL-terminated string
 * the caller frees with free(), and its length in *len when len is not
 * NULL; NULL (and *len untouched) when v is NULL, nested too deep or
 * cyclic, holds a string or key that is not valid UTF-8, or memory ran
 * out. */
char *json_write_compact(const json_t *v, size_t *len);

#endif
