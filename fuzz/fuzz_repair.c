/*
 * fuzz_repair.c — libFuzzer target for the response repair engine
 * (core/json_repair).
 *
 * Each input is a model answer. The target checks the engine's contract:
 *   - repair_json either fails with a negative code, no output and a
 *     message, or returns NUL-terminated output;
 *   - it never returns invalid JSON: every output is re-parsed strictly
 *     with jansson (any value at top level, "\u0000" allowed), with and
 *     without the string-arguments and several-values options;
 *   - valid JSON is never rewritten: when jansson accepts the input, the
 *     engine (told to keep doubly-encoded strings) succeeds, says unchanged,
 *     returns the input byte for byte and so the same value (json_equal);
 *     the only refusal allowed is the nesting limit, which needs more
 *     brackets than REPAIR_MAX_DEPTH (input with a NUL byte is exempt: see
 *     check_valid_unchanged);
 *   - an unchanged output is the input byte for byte, whatever the input;
 *   - the same input always gives the same answer.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_repair.h"

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_repair: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Run one repair and check its contract; returns the code. */
static int check(const char *in, size_t len, const repair_options *opt, repair_result *r)
{
    dbmcp_error err;
    int rc = repair_json(in, len, opt, r, &err);
    if (rc) {
        if (rc >= 0 || r->output || !err.message[0])
            die("a failure must be negative, without output, with a message", err.message);
        return rc;
    }
    if (!r->output || r->output[r->output_len] != '\0')
        die("output missing or not terminated", NULL);
    json_error_t jerr;
    json_t *v = json_loadb(r->output, r->output_len, LOAD_FLAGS, &jerr);
    if (!v)
        die("output is not JSON", jerr.text);
    json_decref(v);
    if (!r->changed && (r->output_len != len || memcmp(r->output, in, len) != 0))
        die("unchanged output differs from the input", NULL);
    return 0;
}

/* Could in[0..len) be nested deeper than the engine's limit? */
static int may_be_too_deep(const char *in, size_t len)
{
    size_t brackets = 0;
    for (size_t i = 0; i < len; i++)
        brackets += in[i] == '[' || in[i] == '{';
    return brackets > REPAIR_MAX_DEPTH;
}

/* Valid JSON (by jansson) must come back as it is. A raw NUL byte is
 * never valid JSON, though jansson takes one after a top-level number
 * ("7\0") as the end of its input: such input is not held to this. */
static void check_valid_unchanged(const char *in, size_t len)
{
    if (memchr(in, '\0', len))
        return;
    json_t *want = json_loadb(in, len, LOAD_FLAGS, NULL);
    if (!want)
        return;
    repair_options opt = {0};
    opt.keep_encoded_strings = 1;
    repair_result r;
    int rc = check(in, len, &opt, &r);
    if (rc == DBMCP_ETOOBIG && may_be_too_deep(in, len)) {
        json_decref(want);
        return;
    }
    if (rc)
        die("valid JSON was refused", NULL);
    if (r.changed)
        die("valid JSON was rewritten", r.output);
    json_t *got = json_loadb(r.output, r.output_len, LOAD_FLAGS, NULL);
    if (!got || !json_equal(got, want))
        die("valid JSON came back as another value", r.output);
    json_decref(got);
    json_decref(want);
    repair_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    repair_result first, second;
    int rc = check(in, size, NULL, &first);
    if (check(in, size, NULL, &second) != rc)
        die("not deterministic", NULL);
    if (rc == 0 && (first.output_len != second.output_len ||
                    memcmp(first.output, second.output, first.output_len) != 0))
        die("not deterministic", NULL);
    repair_result_free(&first);
    repair_result_free(&second);

    check_valid_unchanged(in, size);

    repair_options opt = {0};
    opt.parse_string_arguments = 1;
    opt.several_values = 1;
    opt.max_depth = 16;
    if (check(in, size, &opt, &first) == 0)
        repair_result_free(&first);
    return 0;
}
