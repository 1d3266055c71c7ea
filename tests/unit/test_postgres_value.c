/*
 * test_postgres_value.c — the PostgreSQL driver's cell conversions
 * (store/postgres_value.h): bytea in both output formats, pgvector text to
 * float32 and back, which type a numeric value is reported as, and the
 * number parsing behind store_column_int/double. Pure, no server.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/postgres_value.h"

static void test_bytea_hex_and_escape(void **state)
{
    (void)state;
    unsigned char *out = NULL;
    size_t size = 99;
    const char hex[] = "\\x00ff41005c";
    assert_int_equal(pg_bytea_decode(hex, strlen(hex), &out, &size), 0);
    assert_int_equal(size, 5);
    assert_memory_equal(out,
                        "\0\xff"
                        "A\0\\",
                        5);
    assert_int_equal(out[5], 0); /* NUL past the end */
    free(out);
    assert_int_equal(pg_bytea_decode("\\x", 2, &out, &size), 0);
    assert_int_equal(size, 0);
    free(out);
    const char esc[] = "a\\000b\\\\c\\377";
    assert_int_equal(pg_bytea_decode(esc, strlen(esc), &out, &size), 0);
    assert_int_equal(size, 6);
    assert_memory_equal(out, "a\0b\\c\xff", 6);
    free(out);
    assert_int_equal(pg_bytea_decode("\\x0", 3, &out, &size), -1);
    assert_int_equal(pg_bytea_decode("\\xzz", 4, &out, &size), -1);
    assert_null(out);
}

static void test_vector_round_trip(void **state)
{
    (void)state;
    unsigned char *out = NULL;
    size_t size = 0;
    assert_int_equal(pg_vector_decode("[1,2.5,-0.125]", &out, &size), 0);
    assert_int_equal(size, 3 * sizeof(float));
    float v[3];
    memcpy(v, out, sizeof v);
    assert_true(v[0] == 1.0f && v[1] == 2.5f && v[2] == -0.125f);
    char *text = pg_vector_encode(out, size);
    assert_string_equal(text, "[1,2.5,-0.125]");
    free(text);
    free(out);
    float third = 1.0f / 3.0f;
    text = pg_vector_encode(&third, sizeof third);
    assert_int_equal(pg_vector_decode(text, &out, &size), 0);
    assert_memory_equal(out, &third, sizeof third); /* exact round trip */
    free(text);
    free(out);
    assert_int_equal(pg_vector_decode("[]", &out, &size), 0);
    assert_int_equal(size, 0);
    free(out);
    assert_int_equal(pg_vector_decode("1,2", &out, &size), -1);
    assert_int_equal(pg_vector_decode("[1,,2]", &out, &size), -1);
    assert_null(pg_vector_encode("abc", 3));
}

static void test_numeric_type(void **state)
{
    (void)state;
    assert_int_equal(pg_numeric_type("42"), STORE_INTEGER);
    assert_int_equal(pg_numeric_type("-9223372036854775808"), STORE_INTEGER);
    assert_int_equal(pg_numeric_type("9223372036854775808"), STORE_TEXT); /* past int64 */
    assert_int_equal(pg_numeric_type("12345678901234567890"), STORE_TEXT);
    assert_int_equal(pg_numeric_type("1.25"), STORE_FLOAT);
    assert_int_equal(pg_numeric_type("5.00"), STORE_FLOAT);
    assert_int_equal(pg_numeric_type("0.000000000000001"), STORE_FLOAT);
    assert_int_equal(pg_numeric_type("123456789012345.6"), STORE_TEXT);
    assert_int_equal(pg_numeric_type("NaN"), STORE_FLOAT);
    assert_int_equal(pg_numeric_type("-Infinity"), STORE_FLOAT);
    assert_int_equal(pg_numeric_type("1e5"), STORE_TEXT);
    assert_int_equal(pg_numeric_type(""), STORE_TEXT);
}

static void test_text_numbers(void **state)
{
    (void)state;
    assert_true(pg_text_int("9223372036854775807") == INT64_MAX);
    assert_true(pg_text_int("-17") == -17);
    assert_true(pg_text_int("2.9") == 2);
    assert_true(pg_text_int("-2.9") == -2);
    assert_true(pg_text_int("1e3") == 1000);
    assert_true(pg_text_int("1e300") == INT64_MAX);
    assert_true(pg_text_int("abc") == 0);
    assert_true(pg_text_int(NULL) == 0);
    assert_true(pg_text_double("2.5") == 2.5);
    assert_true(isinf(pg_text_double("-Infinity")));
    assert_true(pg_text_double("x") == 0.0);
    char buf[32];
    pg_double_text(0.1, buf, sizeof buf);
    assert_true(strtod(buf, NULL) == 0.1);
    pg_double_text(INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "Infinity");
    pg_double_text(-INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "-Infinity");
    pg_double_text(NAN, buf, sizeof buf);
    assert_string_equal(buf, "NaN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytea_hex_and_escape),
        cmocka_unit_test(test_vector_round_trip),
        cmocka_unit_test(test_numeric_type),
        cmocka_unit_test(test_text_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
