/*
 * fuzz_repair.c — libFuzzer target for the response repair engine
 * (agent/repair).
 *
 * Each input is a model answer. The target checks that repair_json either
 * fails with a negative code, no output and a message, or returns output
 * that jansson parses (any value, "\u0000" allowed) and, when unchanged,
 * is the input byte for byte; and that the same input always gives the
 * same answer. With the string-arguments option the output must parse too.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/repair.h"

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
    if (!r->output || strlen(r->output) > r->output_len || r->output[r->output_len] != '\0')
        die("output missing or not terminated", NULL);
    json_error_t jerr;
    json_t *v = json_loadb(r->output, r->output_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v)
        die("output is not JSON", jerr.text);
    json_decref(v);
    if (!r->changed && (r->output_len != len || memcmp(r->output, in, len) != 0))
        die("unchanged output differs from the input", NULL);
    return 0;
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

    repair_options opt = {0};
    opt.parse_string_arguments = 1;
    opt.max_depth = 16;
    if (check(in, size, &opt, &first) == 0)
        repair_result_free(&first);
    return 0;
}
