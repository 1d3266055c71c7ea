/*
 * test_query_caps.c — the counters behind query.max_concurrent and
 * query.max_concurrent_per_key (src/mcp/query_caps.h): which cap refuses,
 * that a refusal counts nothing, and that leaving frees the slot.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "mcp/query_caps.h"

static void test_per_key_cap_refuses_only_that_key(void **state)
{
    (void)state;
    query_caps *c = query_caps_create();
    assert_non_null(c);
    assert_int_equal(query_caps_enter(c, "key:a", 8, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "key:a", 8, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "key:a", 8, 2), QUERY_CAPS_KEY_FULL);
    assert_int_equal(query_caps_enter(c, "key:b", 8, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_running(c, "key:a"), 2);
    assert_int_equal(query_caps_running(c, NULL), 3);
    query_caps_leave(c, "key:a");
    assert_int_equal(query_caps_enter(c, "key:a", 8, 2), QUERY_CAPS_OK);
    query_caps_leave(c, "key:a");
    query_caps_leave(c, "key:a");
    query_caps_leave(c, "key:b");
    assert_int_equal(query_caps_running(c, NULL), 0);
    assert_int_equal(query_caps_running(c, "key:a"), 0);
    query_caps_free(c);
}

static void test_total_cap_refuses_every_key(void **state)
{
    (void)state;
    query_caps *c = query_caps_create();
    assert_int_equal(query_caps_enter(c, "key:a", 3, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "key:a", 3, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "key:b", 3, 2), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "key:c", 3, 2), QUERY_CAPS_TOTAL_FULL);
    /* the caller's own cap is named first when both are full */
    assert_int_equal(query_caps_enter(c, "key:a", 3, 2), QUERY_CAPS_KEY_FULL);
    assert_int_equal(query_caps_running(c, "key:c"), 0);
    query_caps_leave(c, "key:b");
    assert_int_equal(query_caps_enter(c, "key:c", 3, 2), QUERY_CAPS_OK);
    query_caps_leave(c, "key:c");
    query_caps_leave(c, "key:a");
    query_caps_leave(c, "key:a");
    query_caps_free(c);
}

static void test_caps_below_one_count_as_one(void **state)
{
    (void)state;
    query_caps *c = query_caps_create();
    assert_int_equal(query_caps_enter(c, "principal:local", 0, -5), QUERY_CAPS_OK);
    assert_int_equal(query_caps_enter(c, "principal:local", 0, -5), QUERY_CAPS_KEY_FULL);
    assert_int_equal(query_caps_enter(c, "principal:other", 0, -5), QUERY_CAPS_TOTAL_FULL);
    query_caps_leave(c, "principal:local");
    query_caps_free(c);
}

/* Many callers come and go: entries of callers with nothing running are
 * dropped, so the table stays as small as what runs. */
static void test_many_callers(void **state)
{
    (void)state;
    query_caps *c = query_caps_create();
    char name[32];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 100; i++) {
            snprintf(name, sizeof name, "key:%d", i);
            assert_int_equal(query_caps_enter(c, name, 1000, 1), QUERY_CAPS_OK);
        }
        assert_int_equal(query_caps_running(c, NULL), 100);
        for (int i = 99; i >= 0; i -= 2) {
            snprintf(name, sizeof name, "key:%d", i);
            query_caps_leave(c, name);
        }
        for (int i = 0; i < 100; i += 2) {
            snprintf(name, sizeof name, "key:%d", i);
            assert_int_equal(query_caps_running(c, name), 1);
            query_caps_leave(c, name);
        }
        assert_int_equal(query_caps_running(c, NULL), 0);
    }
    query_caps_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_key_cap_refuses_only_that_key),
        cmocka_unit_test(test_total_cap_refuses_every_key),
        cmocka_unit_test(test_caps_below_one_count_as_one),
        cmocka_unit_test(test_many_callers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
