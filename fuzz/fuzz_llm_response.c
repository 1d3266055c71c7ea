/*
 * fuzz_llm_response.c — libFuzzer target for what an LLM provider sends
 * back (src/llm/): chat completion bodies, SSE streams and error bodies.
 *
 * The first input byte picks the provider (low 3 bits) and where the
 * stream is split in two feeds (the rest); the remaining bytes are the
 * body. Checks:
 *   - llm_response_parse: a failure is negative with both messages set, a
 *     success has has_tool_calls matching the calls and every call with
 *     exactly one of args / args_error;
 *   - llm_stream_parse and the same stream fed in two pieces (and byte by
 *     byte for short inputs) give the same code, kind, text and calls;
 *   - llm_error_from_http: a kind, a negative code, an operator message
 *     without control characters and a public message that is the fixed
 *     sentence of its kind and status (so it never holds provider text);
 *   - llm_retry_after_parse never returns below -1.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/internal.h"
#include "llm/llm.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_llm_response: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void check_error(int rc, const llm_error *err)
{
    if (rc >= 0 || err->base.code != rc || !err->base.message[0] || !err->base.public_message[0])
        die("a failure must be negative with both messages", err->base.message);
    if (err->kind == LLM_ERR_NONE)
        die("a failure without a kind", err->base.message);
    for (const unsigned char *p = (const unsigned char *)err->message; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            die("a control character in the provider message", NULL);
    /* The public text is a function of kind and status alone. */
    llm_error fixed;
    llm_error_clear(&fixed);
    fixed.kind = err->kind;
    fixed.http_status = err->http_status;
    llm_error_finish(&fixed);
    if (strcmp(fixed.base.public_message, err->base.public_message) != 0)
        die("the public message is not the fixed sentence", err->base.public_message);
}

static void check_response(const llm_response *r)
{
    if (r->has_tool_calls != (r->message.tool_call_count > 0))
        die("has_tool_calls disagrees with the calls", NULL);
    for (size_t i = 0; i < r->message.tool_call_count; i++) {
        const llm_tool_call *tc = &r->message.tool_calls[i];
        if (!tc->id || !tc->name || !tc->arguments)
            die("a tool call without id, name or arguments", NULL);
        if ((tc->args != NULL) == (tc->args_error != NULL))
            die("a tool call must have exactly one of args and args_error", tc->arguments);
        if (tc->args && !json_is_object(tc->args))
            die("parsed arguments that are not an object", tc->arguments);
    }
}

/* Same outcome: code, kind, text and calls. */
static void same(int rc1, const llm_response *a, const llm_error *ea, int rc2,
                 const llm_response *b, const llm_error *eb)
{
    if (rc1 != rc2)
        die("the split changed the outcome", rc1 ? ea->base.message : eb->base.message);
    if (rc1 && ea->kind != eb->kind)
        die("the split changed the error kind", ea->base.message);
    if (rc1)
        return;
    if (!a->message.content != !b->message.content ||
        (a->message.content && strcmp(a->message.content, b->message.content) != 0))
        die("the split changed the text", NULL);
    if (a->message.tool_call_count != b->message.tool_call_count)
        die("the split changed the calls", NULL);
    for (size_t i = 0; i < a->message.tool_call_count; i++)
        if (strcmp(a->message.tool_calls[i].arguments, b->message.tool_calls[i].arguments) != 0)
            die("the split changed a call's arguments", NULL);
}

static int stream_split(llm_provider p, const char *in, size_t len, size_t step, size_t at,
                        llm_response *r, llm_error *err)
{
    llm_stream *s = llm_stream_new(p, 0);
    if (!s)
        die("llm_stream_new failed", NULL);
    llm_error_clear(err);
    if (step) {
        for (size_t i = 0; i < len; i += step)
            llm_stream_feed(s, in + i, len - i < step ? len - i : step, NULL, NULL, err);
    } else {
        llm_stream_feed(s, in, at, NULL, NULL, err);
        llm_stream_feed(s, in + at, len - at, NULL, NULL, err);
    }
    int rc = llm_stream_finish(s, r, err);
    llm_stream_free(s);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    llm_provider p = (llm_provider)(data[0] % 6);
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    size_t at = len ? (size_t)(data[0] >> 3) * len / 32 : 0;

    llm_response r;
    llm_error err;
    int rc = llm_response_parse(p, in, len, &r, &err);
    if (rc)
        check_error(rc, &err);
    else
        check_response(&r);
    llm_response_free(&r);

    llm_response whole, split;
    llm_error ew, es;
    int rw = llm_stream_parse(p, in, len, &whole, &ew);
    if (rw)
        check_error(rw, &ew);
    else
        check_response(&whole);
    int rs = stream_split(p, in, len, 0, at, &split, &es);
    same(rw, &whole, &ew, rs, &split, &es);
    llm_response_free(&split);
    if (len <= 512) {
        rs = stream_split(p, in, len, 1, 0, &split, &es);
        same(rw, &whole, &ew, rs, &split, &es);
        llm_response_free(&split);
    }
    llm_response_free(&whole);

    int status = 400 + data[0] % 200;
    llm_error_clear(&err);
    llm_error_from_http(p, status, NULL, in, len, &err);
    check_error(err.base.code, &err);

    char *text = malloc(len + 1);
    if (!text)
        return 0;
    memcpy(text, in, len);
    text[len] = '\0';
    llm_http_headers h = {text, text, text};
    llm_error_from_http(p, status, &h, "", 0, &err);
    check_error(err.base.code, &err);
    if (llm_retry_after_parse(text, 1700000000L) < -1)
        die("retry-after below -1", text);
    free(text);
    return 0;
}
