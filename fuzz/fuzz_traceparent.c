/*
 * fuzz_traceparent.c — libFuzzer target for the W3C Trace Context parsers
 * (core/trace.h): traceparent and tracestate.
 *
 * The input is split at its first newline: the bytes before are a
 * traceparent value, the bytes after a tracestate value. Contracts:
 * trace_parse_traceparent either fails with a negative code and a message
 * or gives a valid context whose ids are not all zero and which, written
 * back as version 00, parses again to the same ids and flags (and, for a
 * version-00 input, is the input itself); trace_check_tracestate returns 0
 * or a negative code with a message, never reading past len; and
 * trace_context_from_request agrees with both.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_traceparent: %s: %s\n", what, detail);
    abort();
}

static void check_parent(const char *text, size_t len)
{
    trace_context ctx;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = trace_parse_traceparent(text, len, &ctx, &err);
    if (rc > 0 || (rc < 0 && (!err.message[0] || ctx.valid)))
        die("a failure without a message, or with a context", err.message);
    if (rc < 0)
        return;
    static const uint8_t zero[16];
    if (!ctx.valid || !memcmp(ctx.trace_id, zero, 16) || !memcmp(ctx.span_id, zero, 8))
        die("an accepted context with zero ids", text);
    char again[TRACE_PARENT_LEN + 1];
    trace_format_traceparent(&ctx, again);
    trace_context back;
    if (trace_parse_traceparent(again, strlen(again), &back, &err) != 0 ||
        memcmp(back.trace_id, ctx.trace_id, 16) || memcmp(back.span_id, ctx.span_id, 8) ||
        back.flags != ctx.flags)
        die("the formatted context does not parse back", again);
    if (text[0] == '0' && text[1] == '0' && memcmp(again, text, TRACE_PARENT_LEN) != 0)
        die("a version-00 value changed on the way back", again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nl = memchr(data, '\n', size);
    size_t plen = nl ? (size_t)(nl - (const char *)data) : size;
    size_t slen = nl ? size - plen - 1 : 0;
    /* Exact-size copies, so ASan sees any read past len. */
    char *parent = malloc(plen ? plen : 1);
    char *state = malloc(slen ? slen : 1);
    if (!parent || !state)
        abort();
    memcpy(parent, data, plen);
    if (slen)
        memcpy(state, nl + 1, slen);
    check_parent(parent, plen);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int src = trace_check_tracestate(state, slen, &err);
    if (src > 0 || (src < 0 && !err.message[0]))
        die("tracestate: a failure without a message", err.message);

    /* The request form takes NUL-terminated values. */
    char *p = strndup(parent, plen), *s = strndup(state, slen);
    if (!p || !s)
        abort();
    trace_context ctx, direct;
    int has = trace_context_from_request(p, s, NULL, NULL, &ctx);
    int parsed = strlen(p) == plen && trace_parse_traceparent(p, plen, &direct, &err) == 0;
    if (strlen(p) == plen && has != parsed)
        die("trace_context_from_request disagrees with the parser", p);
    if (has && ctx.tracestate[0] && (strlen(s) != slen || src != 0))
        die("an invalid tracestate was kept", s);
    free(p);
    free(s);
    free(parent);
    free(state);
    return 0;
}
