/*
 * test_text_safe.c — tests for core/text_safe: bounded, control-free and
 * terminal-escaped copies of caller-supplied text.
 *
 * The cases are data. Each .json file in tests/cases/text_safe holds one
 * case object or an array of them:
 *
 *   "description":   what the case is about (printed on failure)
 *   "input":         the text, or "input_hex": its bytes in hex (bad UTF-8)
 *   "repeat":        the input repeated this many times (default 1)
 *   "max", "strip":  arguments of text_safe_bound (default 0, false)
 *   "bound":         its exact result, or any of "bound_length" (bytes),
 *                    "bound_prefix", "bound_suffix"
 *   "escape":        the exact result of text_safe_escape
 *   "needs_escape":  what text_safe_needs_escape says
 *   "pending":       a known bug, with the reason
 *
 * Every bounded result is also checked to be valid UTF-8 (re-bounding it
 * without a limit must not change it) and to respect "max". A fixed-size
 * copy (text_safe_copy) of every input is checked the same way.
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
#include "core/text_safe.h"

#define CASES_MIN 20

/* The case's input bytes (malloc'd, NUL-terminated), or NULL. */
static char *case_input(const json_t *c)
{
    const char *text = json_string_value(json_object_get(c, "input"));
    const char *hex = json_string_value(json_object_get(c, "input_hex"));
    json_int_t repeat = json_integer_value(json_object_get(c, "repeat"));
    char unit[1024];
    size_t n = 0;
    if (text) {
        n = strlen(text);
        if (n >= sizeof unit)
            return NULL;
        memcpy(unit, text, n);
    } else if (hex) {
        for (; hex[2 * n] && hex[2 * n + 1] && n < sizeof unit; n++) {
            unsigned b;
            if (sscanf(hex + 2 * n, "%2x", &b) != 1)
                return NULL;
            unit[n] = (char)b;
        }
    } else {
        return NULL;
    }
    size_t times = repeat > 0 ? (size_t)repeat : 1;
    char *out = malloc(n * times + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < times; i++)
        memcpy(out + i * n, unit, n);
    out[n * times] = '\0';
    return out;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *check_bound(const json_t *c, const char *input, char *why, size_t size)
{
    size_t max = (size_t)json_integer_value(json_object_get(c, "max"));
    unsigned flags = json_is_true(json_object_get(c, "strip")) ? TEXT_SAFE_STRIP : 0;
    char *got = text_safe_bound(input, max, flags);
    if (!got)
        return "text_safe_bound returned NULL";
    const char *want = json_string_value(json_object_get(c, "bound"));
    const char *prefix = json_string_value(json_object_get(c, "bound_prefix"));
    const char *suffix = json_string_value(json_object_get(c, "bound_suffix"));
    json_t *length = json_object_get(c, "bound_length");
    char *again = text_safe_bound(got, 0, 0);
    const char *failed = NULL;
    if (max && strlen(got) > max)
        snprintf(why, size, "%zu bytes, more than max %zu", strlen(got), max), failed = why;
    else if (!again || strcmp(again, got) != 0)
        failed = "the result is not valid UTF-8";
    else if (want && strcmp(got, want) != 0)
        snprintf(why, size, "bound: got \"%.300s\", want \"%.300s\"", got, want), failed = why;
    else if (prefix && strncmp(got, prefix, strlen(prefix)) != 0)
        snprintf(why, size, "bound does not start with \"%s\": \"%.300s\"", prefix, got),
            failed = why;
    else if (suffix && !ends_with(got, suffix))
        snprintf(why, size, "bound does not end with \"%s\": \"%.300s\"", suffix, got),
            failed = why;
    else if (length && strlen(got) != (size_t)json_integer_value(length))
        snprintf(why, size, "bound is %zu bytes, want %lld", strlen(got),
                 (long long)json_integer_value(length)),
            failed = why;
    free(again);
    free(got);
    return failed;
}

static const char *check_copy(const char *input, char *why, size_t size)
{
    char small[17];
    memset(small, 'Z', sizeof small);
    text_safe_copy(small, sizeof small, input, TEXT_SAFE_STRIP);
    char *again = text_safe_bound(small, 0, 0);
    int ok = again && strcmp(again, small) == 0 && strlen(small) < sizeof small;
    free(again);
    if (!ok)
        snprintf(why, size, "text_safe_copy into 17 bytes gave invalid text \"%s\"", small);
    return ok ? NULL : why;
}

static const char *check_case(const json_t *c, char *why, size_t size)
{
    char *input = case_input(c);
    if (!input)
        return "the case has no usable input / input_hex";
    const char *failed = NULL;
    if (json_object_get(c, "max") || json_object_get(c, "bound"))
        failed = check_bound(c, input, why, size);
    if (!failed)
        failed = check_copy(input, why, size);
    const char *want = json_string_value(json_object_get(c, "escape"));
    if (!failed && want) {
        char *got = text_safe_escape(input);
        if (!got || strcmp(got, want) != 0)
            snprintf(why, size, "escape: got \"%s\", want \"%s\"", got ? got : "(null)", want),
                failed = why;
        free(got);
    }
    json_t *needs = json_object_get(c, "needs_escape");
    if (!failed && needs && (text_safe_needs_escape(input) != 0) != json_is_true(needs))
        failed = "needs_escape disagrees";
    free(input);
    return failed;
}

static void test_cases(void **state)
{
    (void)state;
    case_files_check("text_safe", 0, check_case, CASES_MIN);
}

static void test_null_and_empty(void **state)
{
    (void)state;
    assert_null(text_safe_bound(NULL, 10, 0));
    assert_null(text_safe_escape(NULL));
    assert_false(text_safe_needs_escape(NULL));
    char buf[4] = "xyz";
    text_safe_copy(buf, sizeof buf, NULL, 0);
    assert_string_equal(buf, "");
    text_safe_copy(buf, 0, "abc", 0); /* no room at all: untouched */
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_null_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
