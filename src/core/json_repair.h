/*
 * json_repair.h — the response repair engine: turns what a language model
 * answered when asked for JSON into valid JSON text, or says why it cannot.
 *
 * The input is first checked strictly (RFC 8259 with jansson's limits: any
 * value at top level, "\u0000" allowed except in keys, integers within 64
 * bits, finite reals): valid JSON is returned byte for byte, with
 * changed = 0. The one exception is a top-level JSON string whose content
 * is object or array text (a doubly-encoded payload): it is decoded (and
 * repaired) unless opt->keep_encoded_strings is set.
 *
 * Otherwise the engine's own tolerant parser looks for the payload and
 * repairs it; the result of the tolerant path is always an object or an
 * array. Extraction, in this order:
 *   - JSON written with escaped quotes and no outer quotes ({\"a\": 1})
 *     is unescaped once, then repaired;
 *   - a stream retry, P + T where T is the whole answer and starts with
 *     all of P (the part sent before the stream broke), gives T when T
 *     repairs without loss; when the whole input also reads as one value
 *     that was merely cut off, it is refused as ambiguous;
 *   - a UTF-8 byte-order mark and a leading <think>…</think> or
 *     [THINK]…[/THINK] block (a reasoning model's thoughts) are dropped;
 *   - Mistral's tool calls: "[TOOL_CALLS]" and a JSON array, or
 *     "[TOOL_CALLS]name[CALL_ID]id[ARGS]value" (v11 on; [CALL_ID] optional,
 *     [ARGS] possibly decoded away), written {"name":…,"id":…,
 *     "arguments":value}; a first call whose marker a server took comes
 *     with [ARGS]; one call gives its value, several an array;
 *   - <tool_call>…</tool_call> blocks (the last may be unterminated): one
 *     block gives its value, several give an array of their values in
 *     order (parallel tool calls);
 *   - markdown fences ```json … ``` (also unterminated): the first fenced
 *     block that holds a repairable object or array;
 *   - otherwise the first '{' or '[' in the text that starts a repairable
 *     value. Inside prose (text before it) an array is taken only when its
 *     first element is an object, array or string, so "error [429]" is not
 *     JSON. Text that starts with '{' and does not repair is refused: the
 *     objects inside it are not searched ({"a": "x"{"a": "y"} is no "y"). Further values after it
 * (concatenated, one per line, after ',' or ';'; arrays under the same rule) are several values: a
 * copy of the value before is a duplicated delta and dropped; then, with opt->several_values (the
 * caller expects parallel tool calls), more than one value gives an array of them, and without it
 * an error
 *     ("several JSON values (3) where one was expected"), never the first
 *     value alone. Other text after the value is dropped and logged.
 * Repairs: truncation (cut-off strings, arrays and objects are closed, a
 * half-written member or a dangling comma is dropped, a half-written escape
 * or surrogate pair is dropped, cut-off true, false and null are
 * completed; these set lossy), unescaped quotes inside strings (a quote is
 * content unless followed by } ] : a quote, a bracket, a line break, '+',
 * the end, a comma and a plausible next member or element, or a bare item
 * whose comma is missing), raw control characters, single and typographic
 * quotes, quotes written \" around a string ({"q": \"foo\"}), "a" + "b"
 * concatenation, // and block comments, trailing, extra
 * and missing commas, missing colons, Python True/False/None, NaN,
 * Infinity and undefined (null), unquoted keys, ... and … placeholders,
 * invalid escapes, invalid UTF-8, integers beyond 64 bits (written as
 * reals) and reals beyond double (null); between tokens, Unicode spaces
 * (U+00A0, U+FEFF, U+2000..U+200B, U+202F, U+205F, U+3000, U+2028/9) and
 * line breaks written as escapes (\n, \r, \t) are whitespace.
 * HTML pages, server-sent event streams and text without a JSON structure
 * are errors (DBMCP_EINVAL), never repaired into a string.
 *
 * The output is always validated by the same strict check before it is
 * returned (the fuzz target holds that check to jansson's parser).
 * docs/repair.md is the user's description.
 *
 * Pure code in core/: the typed message model (llm/message.c) repairs
 * tool-call arguments with it, below the agent loop that relies on it.
 */
#ifndef DBMCP_CORE_JSON_REPAIR_H
#define DBMCP_CORE_JSON_REPAIR_H

#include <stddef.h>

#include "core/error.h"

#define REPAIR_DEFAULT_MAX_BYTES ((size_t)4 << 20) /* 4 MiB */
#define REPAIR_MAX_DEPTH 512                       /* deepest nesting accepted */

typedef struct repair_options {
    size_t max_bytes;           /* input size limit; 0: REPAIR_DEFAULT_MAX_BYTES */
    int max_depth;              /* nesting limit; 0 or above REPAIR_MAX_DEPTH: the maximum */
    int parse_string_arguments; /* a member "arguments" holding JSON text as a string is
                                   replaced by its (repaired) value */
    int keep_encoded_strings;   /* do not decode a top-level doubly-encoded string */
    int several_values;         /* the caller expects several values (parallel tool calls):
                                   values one after another become an array; without it,
                                   several distinct values are an error */
} repair_options;

typedef struct repair_result {
    char *output;        /* valid JSON text, NUL-terminated, malloc'd */
    size_t output_len;   /* bytes in output, without the NUL */
    int changed;         /* 0: the input was valid JSON and output is a copy of it */
    int lossy;           /* a truncation repair dropped or invented content */
    char **repairs;      /* what was done, short sentences ("closed 2 brackets at end"),
                            one per kind, in a fixed order; one allocation */
    size_t repair_count; /* entries in repairs */
} repair_result;

/* Repair in[0..len) with opt (NULL: defaults) into *out. Returns 0, or a
 * negative dbmcp_code with err filled: DBMCP_EINVAL when no JSON could be
 * recovered (the reason says why: "input is an HTML page, not JSON"),
 * DBMCP_ETOOBIG over the size or nesting limit, DBMCP_ENOMEM. *out is
 * zeroed first and owns its memory only on success; release it with
 * repair_result_free. */
int repair_json(const char *in, size_t len, const repair_options *opt, repair_result *out,
                dbmcp_error *err);

/* Free everything *r owns and zero it; safe on a zeroed result. */
void repair_result_free(repair_result *r);

#endif
