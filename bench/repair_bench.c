/*
 * repair_bench.c — the dbmcp side of the repair benchmark (bench/repair.sh,
 * bench/README.md "Repair benchmark"): loops repair_json in-process over a
 * corpus, the same way the Node runner loops jsonrepair, and writes the
 * timing and the outputs of the first pass for the runner to judge.
 *
 *   repair_bench CORPUS OUT [SECONDS]
 *
 * CORPUS is a JSON array of {"input": TEXT, "arguments": BOOL,
 * "keep_encoded": BOOL, "several": BOOL} (written by bench/repair/run.mjs). The corpus is
 * repaired in whole passes until SECONDS (default 3) of wall time have
 * passed, at least 3 passes; only repair_json and repair_result_free are
 * timed. OUT gets {"passes", "seconds", "bytes_per_pass", "results": [
 * {"ok": true, "output": TEXT, "lossy": BOOL} | {"ok": false, "error":
 * TEXT}, …]} in corpus order. Exits 1 with the reason on stderr when the
 * corpus cannot be read or OUT cannot be written.
 */
#define _POSIX_C_SOURCE 200809L

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/json_repair.h"

#define MIN_PASSES 3

typedef struct bench_case {
    const char *input;  /* the model answer (owned by the corpus document) */
    size_t len;         /* its bytes */
    repair_options opt; /* per-case options */
} bench_case;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The cases of corpus (an array), or NULL with *count 0 when malformed.
 * Caller frees the array; the strings stay owned by corpus. */
static bench_case *cases_from(const json_t *corpus, size_t *count)
{
    *count = 0;
    if (!json_is_array(corpus) || json_array_size(corpus) == 0)
        return NULL;
    bench_case *cases = calloc(json_array_size(corpus), sizeof *cases);
    size_t i;
    const json_t *c;
    json_array_foreach (corpus, i, c) {
        const json_t *input = json_object_get(c, "input");
        if (!cases || !json_is_string(input)) {
            free(cases);
            return NULL;
        }
        cases[i].input = json_string_value(input);
        cases[i].len = json_string_length(input);
        cases[i].opt.parse_string_arguments = json_is_true(json_object_get(c, "arguments"));
        cases[i].opt.keep_encoded_strings = json_is_true(json_object_get(c, "keep_encoded"));
        cases[i].opt.several_values = json_is_true(json_object_get(c, "several"));
    }
    *count = i;
    return cases;
}

/* One result object for the outputs file; NULL when out of memory. */
static json_t *result_json(int rc, const repair_result *r, const dbmcp_error *err)
{
    if (rc)
        return json_pack("{s:b,s:s}", "ok", 0, "error", err->message);
    return json_pack("{s:b,s:s%,s:b}", "ok", 1, "output", r->output, r->output_len, "lossy",
                     r->lossy);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: repair_bench CORPUS OUT [SECONDS]\n");
        return 1;
    }
    double budget = argc == 4 ? atof(argv[3]) : 3.0;
    json_error_t jerr;
    json_t *corpus = json_load_file(argv[1], JSON_ALLOW_NUL, &jerr);
    size_t count;
    bench_case *cases = cases_from(corpus, &count);
    if (!cases) {
        fprintf(stderr, "repair_bench: %s: not a JSON array of {\"input\": string} (%s)\n", argv[1],
                corpus ? "wrong shape" : jerr.text);
        json_decref(corpus);
        return 1;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++)
        bytes += cases[i].len;

    /* The first pass keeps its results (untimed); then timed passes. */
    json_t *results = json_array();
    for (size_t i = 0; i < count; i++) {
        repair_result r;
        dbmcp_error err;
        int rc = repair_json(cases[i].input, cases[i].len, &cases[i].opt, &r, &err);
        json_array_append_new(results, result_json(rc, &r, &err));
        repair_result_free(&r);
    }
    double elapsed = 0;
    long passes = 0;
    while (passes < MIN_PASSES || elapsed < budget) {
        double start = now_seconds();
        for (size_t i = 0; i < count; i++) {
            repair_result r;
            dbmcp_error err;
            repair_json(cases[i].input, cases[i].len, &cases[i].opt, &r, &err);
            repair_result_free(&r);
        }
        elapsed += now_seconds() - start;
        passes++;
    }

    json_t *report = json_pack("{s:I,s:f,s:I,s:o}", "passes", (json_int_t)passes, "seconds",
                               elapsed, "bytes_per_pass", (json_int_t)bytes, "results", results);
    int rc = report && json_dump_file(report, argv[2], JSON_COMPACT) == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "repair_bench: cannot write %s\n", argv[2]);
    json_decref(report);
    json_decref(corpus);
    free(cases);
    return rc;
}
