/*
 * test_jsonschema.c — unit tests for core/jsonschema.
 *
 * Most cases are data. Every .json file in tests/cases/jsonschema (the cases
 * directory comes from $DBMCP_CASES, default "tests/cases", so run from the
 * repository root) holds a schema and what it must accept or refuse, or
 * schemas jsonschema_check must accept or refuse; test_case_files runs them
 * all. A file may have:
 *
 *   "schema":              must pass jsonschema_check(schema, 0)
 *   "strict":              true to validate with jsonschema_validate_strict
 *   "cases":               [{"instance": v, "valid": bool, "error_contains": "...",
 *                            "description": "..."}] validated against "schema"
 *   "defaults":            [{"instance": v, "expect": v}] jsonschema_apply_defaults
 *                            on "schema" must turn instance into expect
 *   "check_cases":         [{"schema": s, "require_object_root": bool, "valid": bool,
 *                            "error_contains": "..."}] run through jsonschema_check
 *
 * Adding a case never needs C. The C tests below cover what a data file
 * cannot express: exact messages, NULL arguments, documents nested thousands
 * of levels deep, schemas that fan out exponentially, strings with NUL bytes,
 * and who owns what after defaults.
 */
/* opendir and strdup are POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/jsonschema.h"

#include "case_files.h"

/* The data files must hold at least this many cases in all. */
#define CASES_MIN 60

static json_t *json_from(const char *text)
{
    json_error_t error;
    json_t *value = json_loads(text, JSON_DECODE_ANY, &error);
    if (!value)
        fail_msg("bad JSON in test: %s: %s", error.text, text);
    return value;
}

/* ----- data-driven cases ----- */

static void case_report(const char *file, const char *kind, size_t index, const json_t *c,
                        const char *problem, const dbmcp_error *err)
{
    const char *description = json_string_value(json_object_get(c, "description"));
    print_error("%s: %s %zu%s%s%s: %s%s%s\n", file, kind, index, description ? " (" : "",
                description ? description : "", description ? ")" : "", problem,
                err ? " — got: " : "", err ? err->message : "");
}

/* Does (rc, err) match what case c says: valid, or invalid with the text? */
static int case_outcome_matches(const json_t *c, int rc, const dbmcp_error *err)
{
    int valid = json_is_true(json_object_get(c, "valid"));
    const char *contains = json_string_value(json_object_get(c, "error_contains"));
    if (valid)
        return rc == 0;
    if (rc != DBMCP_EINVAL || err->code != DBMCP_EINVAL)
        return 0;
    if (strncmp(err->message, err->public_message, strlen(err->public_message)) != 0)
        return 0;
    return !contains || strstr(err->message, contains) != NULL;
}

static void cases_run_validation(const char *file, const json_t *doc, case_tally *tally)
{
    const json_t *schema = json_object_get(doc, "schema");
    int strict = json_is_true(json_object_get(doc, "strict"));
    const json_t *cases = json_object_get(doc, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++) {
        const json_t *c = json_array_get(cases, i);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        const json_t *instance = json_object_get(c, "instance");
        int rc = strict ? jsonschema_validate_strict(schema, instance, &err)
                        : jsonschema_validate(schema, instance, &err);
        tally->cases++;
        if (!instance || !case_outcome_matches(c, rc, &err)) {
            tally->failures++;
            case_report(file, "case", i, c, "unexpected outcome", rc ? &err : NULL);
        }
    }
}

static void cases_run_defaults(const char *file, const json_t *doc, case_tally *tally)
{
    const json_t *schema = json_object_get(doc, "schema");
    const json_t *defaults = json_object_get(doc, "defaults");
    for (size_t i = 0; i < json_array_size(defaults); i++) {
        const json_t *c = json_array_get(defaults, i);
        json_t *instance = json_deep_copy(json_object_get(c, "instance"));
        jsonschema_apply_defaults(schema, instance);
        tally->cases++;
        if (!instance || !json_equal(instance, json_object_get(c, "expect"))) {
            char *got = instance ? json_dumps(instance, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
            tally->failures++;
            case_report(file, "defaults", i, c, got ? got : "(no instance)", NULL);
            free(got);
        }
        json_decref(instance);
    }
}

static void cases_run_checks(const char *file, const json_t *doc, case_tally *tally)
{
    const json_t *checks = json_object_get(doc, "check_cases");
    for (size_t i = 0; i < json_array_size(checks); i++) {
        const json_t *c = json_array_get(checks, i);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        int root = json_is_true(json_object_get(c, "require_object_root"));
        int rc = jsonschema_check(json_object_get(c, "schema"), root, &err);
        tally->cases++;
        if (!case_outcome_matches(c, rc, &err)) {
            tally->failures++;
            case_report(file, "check_case", i, c, "unexpected outcome", rc ? &err : NULL);
        }
    }
}

static void case_file_run(const char *name, const json_t *doc, case_tally *tally)
{
    const json_t *schema = json_object_get(doc, "schema");
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (schema && jsonschema_check(schema, 0, &err) != 0) {
        tally->failures++;
        print_error("%s: schema refused: %s\n", name, err.message);
    } else {
        cases_run_validation(name, doc, tally);
        cases_run_defaults(name, doc, tally);
    }
    cases_run_checks(name, doc, tally);
}

static void test_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    size_t files = case_files_run("jsonschema", 0, case_file_run, &tally);
    print_message("jsonschema: %d cases in %zu files, %d failed\n", tally.cases, files,
                  tally.failures);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= CASES_MIN);
}

/* ----- messages ----- */

static void expect_message(const char *schema_text, const char *instance_text, int strict,
                           const char *expected)
{
    json_t *schema = json_from(schema_text);
    json_t *instance = json_from(instance_text);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(jsonschema_check(schema, 1, &err), 0);
    int rc = strict ? jsonschema_validate_strict(schema, instance, &err)
                    : jsonschema_validate(schema, instance, &err);
    assert_int_equal(rc, DBMCP_EINVAL);
    assert_int_equal(err.code, DBMCP_EINVAL);
    assert_string_equal(err.message, expected);
    assert_string_equal(err.public_message, expected);
    json_decref(schema);
    json_decref(instance);
}

static void test_messages_exact(void **state)
{
    (void)state;
    expect_message("{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\"}}}",
                   "{\"age\":\"25\"}", 0, "argument 'age': expected integer, got string \"25\"");
    expect_message("{\"type\":\"object\",\"properties\":{\"filters\":{\"type\":\"object\","
                   "\"properties\":{\"region\":{\"enum\":[\"Nord\",\"Süd\"]}}}}}",
                   "{\"filters\":{\"region\":\"West\"}}", 0,
                   "argument 'filters.region': must be one of [\"Nord\",\"Süd\"], got string "
                   "\"West\"");
    expect_message("{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}}}",
                   "{\"query\":\"x\",\"foo\":1}", 1,
                   "unknown argument 'foo' (additionalProperties is false; known arguments: "
                   "query)");
    expect_message("{\"type\":\"object\",\"required\":[\"query\"]}", "{}", 0,
                   "missing required argument 'query'");
    expect_message("{\"type\":\"object\"}", "[]", 0, "arguments: expected object, got array");
    expect_message("{\"type\":\"object\",\"properties\":{\"rows\":{\"items\":{\"type\":"
                   "[\"integer\",\"null\"]}}}}",
                   "{\"rows\":[1,null,true]}", 0,
                   "argument 'rows[2]': expected integer or null, got boolean true");
}

static void test_check_message_exact(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"object\",\"properties\":{\"age\":"
                               "{\"type\":\"integer\",\"minimum\":\"0\"}}}");
    dbmcp_error err;
    assert_int_equal(jsonschema_check(schema, 1, &err), DBMCP_EINVAL);
    assert_string_equal(err.message, "schema /properties/age/minimum: must be a number");
    json_decref(schema);
}

/* ----- NULL arguments ----- */

static void test_null_arguments(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"object\",\"required\":[\"q\"]}");
    json_t *instance = json_object();
    dbmcp_error err;
    assert_int_equal(jsonschema_check(NULL, 0, &err), DBMCP_EINVAL);
    assert_int_equal(jsonschema_check(schema, 0, NULL), 0);
    assert_int_equal(jsonschema_validate(schema, instance, NULL), DBMCP_EINVAL);
    assert_int_equal(jsonschema_validate(schema, NULL, &err), DBMCP_EINVAL);
    assert_string_equal(err.message, "arguments: missing");
    assert_int_equal(jsonschema_validate(NULL, instance, &err), DBMCP_EINVAL);
    jsonschema_apply_defaults(NULL, instance);
    jsonschema_apply_defaults(schema, NULL);
    json_decref(schema);
    json_decref(instance);
}

/* ----- limits ----- */

/* [[[…]]] nested `depth` levels. */
static json_t *nested_arrays(int depth)
{
    json_t *value = json_array();
    for (int i = 1; i < depth; i++) {
        json_t *outer = json_array();
        json_array_append_new(outer, value);
        value = outer;
    }
    return value;
}

/* {"<keyword>": {"<keyword>": … {} …}} nested `depth` subschemas deep. */
static json_t *nested_schemas(const char *keyword, int depth)
{
    json_t *schema = json_object();
    for (int i = 0; i < depth; i++) {
        json_t *outer = json_object();
        json_object_set_new(outer, keyword, schema);
        schema = outer;
    }
    return schema;
}

static void test_instance_depth_limit(void **state)
{
    (void)state;
    json_t *schema = json_from("{}");
    json_t *ok = nested_arrays(JSONSCHEMA_MAX_DEPTH);
    json_t *deep = nested_arrays(JSONSCHEMA_MAX_DEPTH + 1);
    json_t *very_deep = nested_arrays(5000);
    dbmcp_error err;
    assert_int_equal(jsonschema_validate(schema, ok, &err), 0);
    assert_int_equal(jsonschema_validate(schema, deep, &err), DBMCP_EINVAL);
    assert_string_equal(err.message, "arguments: nests deeper than 64 levels");
    assert_int_equal(jsonschema_validate(schema, very_deep, &err), DBMCP_EINVAL);
    json_decref(schema);
    json_decref(ok);
    json_decref(deep);
    json_decref(very_deep);
}

static void test_schema_depth_limit(void **state)
{
    (void)state;
    json_t *ok = nested_schemas("items", JSONSCHEMA_MAX_DEPTH);
    json_t *deep = nested_schemas("items", JSONSCHEMA_MAX_DEPTH + 1);
    dbmcp_error err;
    assert_int_equal(jsonschema_check(ok, 0, &err), 0);
    assert_int_equal(jsonschema_check(deep, 0, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "subschemas nest deeper than 64 levels"));
    json_decref(ok);
    json_decref(deep);
}

/* An unchecked schema nested far past the limit must fail cleanly, not
 * overflow the stack, and "not" must not turn that failure into success. */
static void test_unchecked_deep_schema(void **state)
{
    (void)state;
    json_t *deep = nested_schemas("not", 5000);
    json_t *instance = json_integer(1);
    dbmcp_error err;
    assert_int_equal(jsonschema_validate(deep, instance, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "cannot be checked"));
    json_decref(deep);
    json_decref(instance);
}

static void test_ref_cycle(void **state)
{
    (void)state;
    json_t *loop = json_from("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}");
    json_t *negated = json_from("{\"$defs\":{\"a\":{\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}},"
                                "\"not\":{\"$ref\":\"#/$defs/a\"}}");
    json_t *instance = json_string("x");
    dbmcp_error err;
    assert_int_equal(jsonschema_check(loop, 0, &err), 0);
    assert_int_equal(jsonschema_validate(loop, instance, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "recursion is too deep"));
    assert_int_equal(jsonschema_validate(negated, instance, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "cannot be checked"));
    json_decref(loop);
    json_decref(negated);
    json_decref(instance);
}

/* {"children":[{"children":[…]}]} nested `depth` nodes deep. */
static json_t *tree(int depth)
{
    json_t *node = json_object();
    json_object_set_new(node, "children", json_array());
    for (int i = 1; i < depth; i++) {
        json_t *parent = json_object();
        json_t *children = json_array();
        json_array_append_new(children, node);
        json_object_set_new(parent, "children", children);
        node = parent;
    }
    return node;
}

static void test_recursive_schema(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"object\",\"$ref\":\"#/$defs/node\",\"$defs\":{\"node\":"
                               "{\"type\":\"object\",\"required\":[\"children\"],\"properties\":"
                               "{\"children\":{\"type\":\"array\",\"items\":"
                               "{\"$ref\":\"#/$defs/node\"}}}}}}");
    json_t *ok = tree(30);
    json_t *deep = tree(40);
    dbmcp_error err;
    assert_int_equal(jsonschema_check(schema, 1, &err), 0);
    assert_int_equal(jsonschema_validate_strict(schema, ok, &err), 0);
    assert_int_equal(jsonschema_validate_strict(schema, deep, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "nests deeper than 64 levels"));
    json_decref(schema);
    json_decref(ok);
    json_decref(deep);
}

/* $defs d0..d29, each an anyOf of two $refs to the next: 2^30 paths through
 * a small schema. Validation must give up, not run for hours. */
static void test_exponential_schema_is_bounded(void **state)
{
    (void)state;
    json_t *defs = json_object();
    for (int k = 0; k < 30; k++) {
        char name[16], next[32];
        snprintf(name, sizeof name, "d%d", k);
        snprintf(next, sizeof next, "#/$defs/d%d", k + 1);
        json_object_set_new(defs, name,
                            json_pack("{s[{ss}{ss}]}", "anyOf", "$ref", next, "$ref", next));
    }
    json_object_set_new(defs, "d30", json_pack("{ss}", "type", "string"));
    json_t *schema =
        json_pack("{sss[{ss}]so}", "type", "object", "allOf", "$ref", "#/$defs/d0", "$defs", defs);
    json_t *instance = json_object();
    dbmcp_error err;
    assert_int_equal(jsonschema_check(schema, 1, &err), 0);
    assert_int_equal(jsonschema_validate(schema, instance, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "too complex"));
    assert_int_equal(jsonschema_validate_strict(schema, instance, &err), DBMCP_EINVAL);
    jsonschema_apply_defaults(schema, instance);
    json_decref(schema);
    json_decref(instance);
}

/* ----- strings ----- */

/* regexec stops at NUL: what follows must not slip past the pattern. */
static void test_pattern_embedded_nul(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}");
    json_t *clean = json_string("abc");
    json_t *smuggled = json_stringn("abc\0; drop table t", 19);
    dbmcp_error err;
    assert_int_equal(jsonschema_validate(schema, clean, &err), 0);
    assert_int_equal(jsonschema_validate(schema, smuggled, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "must match the pattern"));
    json_decref(schema);
    json_decref(clean);
    json_decref(smuggled);
}

static void test_long_value_is_cut(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"integer\"}");
    char *text = malloc(100001);
    memset(text, 'a', 100000);
    text[100000] = '\0';
    json_t *instance = json_string(text);
    dbmcp_error err;
    assert_int_equal(jsonschema_validate(schema, instance, &err), DBMCP_EINVAL);
    assert_true(strlen(err.message) < 200);
    assert_non_null(strstr(err.message, "aaa..."));
    free(text);
    json_decref(schema);
    json_decref(instance);
}

/* ----- defaults ----- */

static void test_defaults_are_copies(void **state)
{
    (void)state;
    json_t *schema = json_from("{\"type\":\"object\",\"properties\":{\"tags\":"
                               "{\"type\":\"array\",\"default\":[\"a\"]}}}");
    json_t *first = json_object();
    json_t *second = json_object();
    jsonschema_apply_defaults(schema, first);
    json_array_append_new(json_object_get(first, "tags"), json_string("b"));
    jsonschema_apply_defaults(schema, second);
    assert_int_equal(json_array_size(json_object_get(second, "tags")), 1);
    json_t *schema_default =
        json_object_get(json_object_get(json_object_get(schema, "properties"), "tags"), "default");
    assert_int_equal(json_array_size(schema_default), 1);
    json_decref(schema);
    json_decref(first);
    json_decref(second);
}

static void test_defaults_then_strict(void **state)
{
    (void)state;
    json_t *schema =
        json_from("{\"type\":\"object\",\"required\":[\"query\"],\"properties\":{"
                  "\"query\":{\"type\":\"string\"},"
                  "\"limit\":{\"type\":\"integer\",\"default\":100,\"maximum\":1000}}}");
    json_t *instance = json_from("{\"query\":\"select 1\"}");
    dbmcp_error err;
    assert_int_equal(jsonschema_check(schema, 1, &err), 0);
    jsonschema_apply_defaults(schema, instance);
    assert_int_equal(jsonschema_validate_strict(schema, instance, &err), 0);
    assert_int_equal(json_integer_value(json_object_get(instance, "limit")), 100);
    json_decref(schema);
    json_decref(instance);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_messages_exact),
        cmocka_unit_test(test_check_message_exact),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_instance_depth_limit),
        cmocka_unit_test(test_schema_depth_limit),
        cmocka_unit_test(test_unchecked_deep_schema),
        cmocka_unit_test(test_ref_cycle),
        cmocka_unit_test(test_recursive_schema),
        cmocka_unit_test(test_exponential_schema_is_bounded),
        cmocka_unit_test(test_pattern_embedded_nul),
        cmocka_unit_test(test_long_value_is_cut),
        cmocka_unit_test(test_defaults_are_copies),
        cmocka_unit_test(test_defaults_then_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
