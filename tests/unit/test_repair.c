/*
 * test_repair.c — tests for the response repair engine (core/json_repair).
 *
 * Most cases are data. Each .json file in tests/cases/repair holds one case
 * object or an array of them: hand-written files, and the generated corpus
 * gen_*.json (tests/cases/repair/generate.mjs: realistic payloads with
 * seeded mutations; README.md there states how expected results are
 * judged). Every case is checked:
 *
 *   "description":    what the case is about (printed on failure)
 *   "input":          the model's answer, a string
 *   "output":         the expected value (compared with json_equal, not as
 *                     text), or null when the input must be refused
 *   "error_contains": with "output": null, text the error message must hold
 *   "lossy", "changed": when present, the expected flags
 *   "repairs_contain": when present, text one line of the repair log holds
 *   "options":        {"arguments": true, "keep_encoded": true, "several": true}
 *   "pending":        a known bug, with the reason
 *   "kind":           the corpus category (for the benchmark; ignored here)
 *
 * Every successful output is checked to parse with jansson, and an
 * unchanged one to be the input byte for byte. The C tests below cover the
 * limits, ownership and argument handling.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_files.h"
#include "core/json_repair.h"

#define CASES_MIN 1000    /* hand-written and generated: a lost file fails the test */
#define REAL_CASES_MIN 40 /* the real corpus, likewise */
#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

static repair_options case_options(const json_t *c)
{
    repair_options opt = {0};
    const json_t *o = json_object_get(c, "options");
    opt.parse_string_arguments = json_is_true(json_object_get(o, "arguments"));
    opt.keep_encoded_strings = json_is_true(json_object_get(o, "keep_encoded"));
    opt.several_values = json_is_true(json_object_get(o, "several"));
    return opt;
}

static int log_holds(const repair_result *r, const char *text)
{
    for (size_t i = 0; i < r->repair_count; i++)
        if (strstr(r->repairs[i], text))
            return 1;
    return 0;
}

/* Why the successful result r does not match case c, or NULL. */
static const char *check_success(const json_t *c, const char *input, size_t len,
                                 const repair_result *r, char *why, size_t why_size)
{
    const json_t *want = json_object_get(c, "output");
    json_error_t jerr;
    json_t *got = json_loadb(r->output, r->output_len, LOAD_FLAGS, &jerr);
    const json_t *lossy = json_object_get(c, "lossy"), *changed = json_object_get(c, "changed");
    const char *repairs = json_string_value(json_object_get(c, "repairs_contain"));
    if (!got)
        snprintf(why, why_size, "output is not JSON (%s): %s", jerr.text, r->output);
    else if (json_is_null(want))
        snprintf(why, why_size, "expected an error, got %s", r->output);
    else if (!json_equal(got, want))
        snprintf(why, why_size, "wrong output: %s", r->output);
    else if (!r->changed && (r->output_len != len || memcmp(r->output, input, len) != 0))
        snprintf(why, why_size, "unchanged but not the input byte for byte");
    else if (lossy && json_is_true(lossy) != !!r->lossy)
        snprintf(why, why_size, "lossy is %d", r->lossy);
    else if (changed && json_is_true(changed) != !!r->changed)
        snprintf(why, why_size, "changed is %d", r->changed);
    else if (repairs && !log_holds(r, repairs))
        snprintf(why, why_size, "no repair log line holds \"%s\"", repairs);
    else
        why = NULL;
    json_decref(got);
    return why;
}

static void run_case(const char *name, const json_t *c, case_tally *tally)
{
    char why_buf[2048];
    const char *why = NULL;
    const json_t *input = json_object_get(c, "input");
    tally->cases++;
    if (!json_is_string(input) || !json_object_get(c, "output")) {
        case_tally_outcome(tally, name, c, 1, "a case needs \"input\" (string) and \"output\"");
        return;
    }
    repair_options opt = case_options(c);
    repair_result r;
    dbmcp_error err;
    const char *text = json_string_value(input);
    size_t len = json_string_length(input);
    if (repair_json(text, len, &opt, &r, &err) == 0) {
        why = check_success(c, text, len, &r, why_buf, sizeof why_buf);
        repair_result_free(&r);
    } else {
        const char *contains = json_string_value(json_object_get(c, "error_contains"));
        assert_null(r.output);
        if (!json_is_null(json_object_get(c, "output")))
            snprintf(why_buf, sizeof why_buf, "refused: %s", err.message), why = why_buf;
        else if (contains && !strstr(err.message, contains))
            snprintf(why_buf, sizeof why_buf, "error \"%s\" lacks \"%s\"", err.message, contains),
                why = why_buf;
    }
    case_tally_outcome(tally, name, c, why != NULL, why ? why : "");
}

static void case_file_run(const char *name, const json_t *doc, case_tally *tally)
{
    if (!json_is_array(doc)) {
        run_case(name, doc, tally);
        return;
    }
    size_t i;
    const json_t *c;
    json_array_foreach (doc, i, c) {
        char label[512];
        snprintf(label, sizeof label, "%s[%zu]", name, i);
        run_case(label, c, tally);
    }
}

static void test_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("repair", JSON_ALLOW_NUL, case_file_run, &tally);
    print_message("repair: %d cases, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= CASES_MIN);
}

/* The real corpus (tests/cases/repair/real): model outputs quoted in
 * public bug reports and parser fixtures, each citing its source. */
static void test_real_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("repair/real", JSON_ALLOW_NUL, case_file_run, &tally);
    print_message("repair/real: %d cases, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= REAL_CASES_MIN);
}

/* ----- limits ----- */

static void test_size_limit(void **state)
{
    (void)state;
    repair_options opt = {0};
    opt.max_bytes = 8;
    repair_result r;
    dbmcp_error err;
    assert_int_equal(repair_json("[1,2,3,4,5]", 11, &opt, &r, &err), DBMCP_ETOOBIG);
    assert_non_null(strstr(err.message, "limit"));
    assert_null(r.output);
    assert_int_equal(repair_json("[1,2,3]", 7, &opt, &r, &err), 0);
    repair_result_free(&r);

    /* The default is 4 MiB. */
    size_t big = REPAIR_DEFAULT_MAX_BYTES + 1;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, ' ', big);
    text[0] = '[';
    text[big - 1] = ']';
    assert_int_equal(repair_json(text, big, NULL, &r, &err), DBMCP_ETOOBIG);
    assert_int_equal(repair_json(text, big - 1, NULL, &r, &err), 0);
    assert_string_equal(r.output, "[]");
    repair_result_free(&r);
    free(text);
}

static char *nested(int depth, int closed)
{
    char *s = malloc((size_t)depth * 2 + 1);
    assert_non_null(s);
    for (int i = 0; i < depth; i++)
        s[i] = '[';
    int n = depth;
    for (int i = 0; closed && i < depth; i++)
        s[n++] = ']';
    s[n] = '\0';
    return s;
}

static void test_nesting_limit(void **state)
{
    (void)state;
    repair_result r;
    dbmcp_error err;
    for (int closed = 0; closed <= 1; closed++) {
        char *ok = nested(REPAIR_MAX_DEPTH, closed), *deep = nested(REPAIR_MAX_DEPTH + 1, closed);
        assert_int_equal(repair_json(ok, strlen(ok), NULL, &r, &err), 0);
        assert_int_equal(r.changed, !closed);
        repair_result_free(&r);
        assert_int_equal(repair_json(deep, strlen(deep), NULL, &r, &err), DBMCP_ETOOBIG);
        assert_non_null(strstr(err.message, "nesting"));
        free(ok);
        free(deep);
    }
    repair_options opt = {0};
    opt.max_depth = 2;
    assert_int_equal(repair_json("[[[1]]]", 7, &opt, &r, &err), DBMCP_ETOOBIG);
    assert_int_equal(repair_json("[[1", 3, &opt, &r, &err), 0);
    repair_result_free(&r);
    assert_int_equal(repair_json("[[[1", 4, &opt, &r, &err), DBMCP_ETOOBIG);
}

/* ----- ownership and flags ----- */

static void test_ownership(void **state)
{
    (void)state;
    repair_result r;
    dbmcp_error err;
    const char *valid = "{ \"a\" : 1 }";
    assert_int_equal(repair_json(valid, strlen(valid), NULL, &r, &err), 0);
    assert_ptr_not_equal(r.output, valid);
    assert_string_equal(r.output, valid);
    assert_int_equal(r.output_len, strlen(valid));
    assert_int_equal(r.changed, 0);
    assert_int_equal(r.lossy, 0);
    assert_int_equal(r.repair_count, 0);
    repair_result_free(&r);
    assert_null(r.output);
    assert_null(r.repairs);
    repair_result_free(&r); /* again: harmless on a zeroed result */
    repair_result_free(NULL);

    assert_int_equal(repair_json("{'a': [1, 2", 11, NULL, &r, &err), 0);
    assert_string_equal(r.output, "{\"a\":[1,2]}");
    assert_int_equal(r.changed, 1);
    assert_int_equal(r.lossy, 1);
    assert_true(log_holds(&r, "closed 2 brackets at end"));
    assert_true(log_holds(&r, "replaced single quotes"));
    repair_result_free(&r);

    /* A failure leaves nothing to free; err may be NULL. */
    assert_int_equal(repair_json("<html></html>", 13, NULL, &r, NULL), DBMCP_EINVAL);
    assert_null(r.output);
    assert_int_equal(repair_json("", 0, NULL, &r, &err), DBMCP_EINVAL);
    assert_int_equal(repair_json(NULL, 0, NULL, &r, &err), DBMCP_EINVAL);
    assert_int_equal(repair_json("[]", 2, NULL, NULL, &err), DBMCP_EINVAL);
}

static void test_input_not_terminated(void **state)
{
    (void)state;
    /* len bounds the input: nothing after it is read. */
    char text[] = {'[', '1', ',', ' ', '2'};
    repair_result r;
    dbmcp_error err;
    assert_int_equal(repair_json(text, sizeof text, NULL, &r, &err), 0);
    assert_string_equal(r.output, "[1,2]");
    repair_result_free(&r);
    assert_int_equal(repair_json("[1, 2]garbage", 6, NULL, &r, &err), 0);
    assert_int_equal(r.changed, 0);
    assert_string_equal(r.output, "[1, 2]");
    repair_result_free(&r);
}

static void test_arguments_option(void **state)
{
    (void)state;
    const char *call = "{\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 1,}\"}";
    repair_result r;
    dbmcp_error err;
    assert_int_equal(repair_json(call, strlen(call), NULL, &r, &err), 0);
    assert_int_equal(r.changed, 0);
    repair_result_free(&r);
    repair_options opt = {0};
    opt.parse_string_arguments = 1;
    assert_int_equal(repair_json(call, strlen(call), &opt, &r, &err), 0);
    assert_string_equal(r.output, "{\"name\":\"f\",\"arguments\":{\"x\":1}}");
    assert_int_equal(r.changed, 1);
    assert_true(log_holds(&r, "parsed 1 string arguments"));
    repair_result_free(&r);
}

/* Arguments parsed into a deep document must keep the whole within the
 * nesting limit; past it they stay strings. */
static void test_arguments_nesting(void **state)
{
    (void)state;
    int outer = 300, inner = 300;
    size_t cap = (size_t)(outer + inner) * 2 + 64;
    char *doc = malloc(cap);
    assert_non_null(doc);
    size_t n = 0;
    for (int i = 0; i < outer; i++)
        doc[n++] = '[';
    n += (size_t)snprintf(doc + n, cap - n, "{\"arguments\":\"");
    for (int i = 0; i < inner; i++)
        doc[n++] = '[';
    for (int i = 0; i < inner; i++)
        doc[n++] = ']';
    n += (size_t)snprintf(doc + n, cap - n, "\"}");
    for (int i = 0; i < outer; i++)
        doc[n++] = ']';
    repair_options opt = {0};
    opt.parse_string_arguments = 1;
    repair_result r;
    dbmcp_error err;
    assert_int_equal(repair_json(doc, n, &opt, &r, &err), 0);
    assert_int_equal(r.changed, 0); /* 601 levels: the string stays */
    repair_result_free(&r);
    opt.max_depth = 0;
    assert_int_equal(repair_json(doc + outer - 10, n - (size_t)(outer - 10) * 2, &opt, &r, &err),
                     0);
    assert_int_equal(r.changed, 1); /* 311 levels: parsed */
    json_t *v = json_loadb(r.output, r.output_len, LOAD_FLAGS, NULL);
    assert_non_null(v);
    json_decref(v);
    repair_result_free(&r);
    free(doc);
}

/* Every prefix of a document repairs to valid JSON or fails cleanly. */
static void test_every_prefix(void **state)
{
    (void)state;
    const char *doc = "Sure! ```json\n{\"name\": \"run\", 'args': {\"q\": \"say \\\"hi\\\"\", "
                      "n: -12.5e3, ok: True, list: [1, 2, null, \"x\" + \"y\"], // c\n"
                      "\"u\": \"\\u00e9\\ud83d\\ude00\"}}\n```";
    size_t len = strlen(doc);
    for (size_t n = 0; n <= len; n++) {
        repair_result r;
        dbmcp_error err;
        if (repair_json(doc, n, NULL, &r, &err) != 0) {
            assert_null(r.output);
            continue;
        }
        json_t *v = json_loadb(r.output, r.output_len, LOAD_FLAGS, NULL);
        if (!v)
            fail_msg("prefix %zu: invalid output %s", n, r.output);
        json_decref(v);
        repair_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),       cmocka_unit_test(test_real_case_files),
        cmocka_unit_test(test_size_limit),       cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_ownership),        cmocka_unit_test(test_input_not_terminated),
        cmocka_unit_test(test_arguments_option), cmocka_unit_test(test_arguments_nesting),
        cmocka_unit_test(test_every_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
