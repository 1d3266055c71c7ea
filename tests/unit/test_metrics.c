/*
 * test_metrics.c — the metrics registry (src/core/metrics.h): counts per
 * label combination, cumulative histogram buckets, bounded and escaped
 * label values, the series cap, gauges left out when unknown, and exact
 * counts under concurrent recording.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"

static char *render(void)
{
    size_t len = 0;
    char *text = metrics_render(NULL, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

/* The value of the sample line starting with `prefix` + " ", or -1. */
static double sample(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *line = text; line && *line;) {
        if (strncmp(line, prefix, n) == 0 && line[n] == ' ')
            return strtod(line + n + 1, NULL);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return -1;
}

static int reset(void **state)
{
    (void)state;
    metrics_reset();
    return 0;
}

static void test_calls_and_errors_per_series(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        metrics_tool_call_begin();
        metrics_tool_call_end("echo", "default", "http", 0, 0.001);
    }
    metrics_tool_call_begin();
    metrics_tool_call_end("echo", "default", "http", 1, 0.001);
    metrics_tool_call_begin();
    metrics_tool_call_end("echo", "default", "stdio", 0, 0.001);
    metrics_tool_call_begin();
    metrics_tool_call_end(NULL, "default", "http", 1, 0.001);
    metrics_tool_call_begin();
    assert_int_equal(metrics_tool_calls_in_flight(), 1);
    char *t = render();
    assert_true(
        sample(t,
               "dbmcp_tool_calls_total{tool=\"echo\",interface=\"default\",transport=\"http\"}") ==
        4);
    assert_true(sample(t, "dbmcp_tool_call_errors_total{tool=\"echo\",interface=\"default\","
                          "transport=\"http\"}") == 1);
    assert_true(sample(t, "dbmcp_tool_calls_total{tool=\"echo\",interface=\"default\","
                          "transport=\"stdio\"}") == 1);
    assert_true(sample(t, "dbmcp_tool_calls_total{tool=\"unknown\",interface=\"default\","
                          "transport=\"http\"}") == 1);
    assert_true(sample(t, "dbmcp_tool_calls_in_flight") == 1);
    /* the histogram adds up the transports of a tool */
    assert_true(sample(t, "dbmcp_tool_call_duration_seconds_count{tool=\"echo\"}") == 5);
    free(t);
    metrics_tool_call_end("echo", "default", "http", 0, 0);
    assert_int_equal(metrics_tool_calls_in_flight(), 0);
}

static void test_histogram_is_cumulative(void **state)
{
    (void)state;
    const double seconds[] = {0.001, 0.005, 0.02, 0.7, 3, 100, -1};
    for (size_t i = 0; i < sizeof seconds / sizeof seconds[0]; i++) {
        metrics_tool_call_begin();
        metrics_tool_call_end("slow", "default", "cli", 0, seconds[i]);
    }
    char *t = render();
    const char *b = "dbmcp_tool_call_duration_seconds_bucket{tool=\"slow\",le=";
    char name[160];
    struct {
        const char *le;
        double want;
    } expect[] = {{"0.005", 3}, {"0.01", 3}, {"0.025", 4}, {"0.5", 4}, {"1", 5},
                  {"2.5", 5},   {"5", 6},    {"60", 6},    {"+Inf", 7}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        snprintf(name, sizeof name, "%s\"%s\"}", b, expect[i].le);
        assert_true(sample(t, name) == expect[i].want);
    }
    assert_true(sample(t, "dbmcp_tool_call_duration_seconds_count{tool=\"slow\"}") == 7);
    double sum = sample(t, "dbmcp_tool_call_duration_seconds_sum{tool=\"slow\"}");
    assert_true(sum > 103.72 && sum < 103.73);
    free(t);
}

static void test_label_values_are_bounded_and_escaped(void **state)
{
    (void)state;
    metrics_llm_call("openai", "a\"b\\c\nd\x01", 10, 5, 2, 0);
    metrics_llm_call("openai", "a\"b\\c\nd\x01", 1, 0, 0, 1);
    char *t = render();
    /* newline and \x01 are control characters: stored as '_' */
    assert_true(sample(t, "dbmcp_llm_calls_total{provider=\"openai\",model=\"a\\\"b\\\\c_d_\"}") ==
                2);
    assert_true(
        sample(t, "dbmcp_llm_call_errors_total{provider=\"openai\",model=\"a\\\"b\\\\c_d_\"}") ==
        1);
    assert_true(
        sample(t, "dbmcp_llm_retries_total{provider=\"openai\",model=\"a\\\"b\\\\c_d_\"}") == 2);
    assert_true(sample(t, "dbmcp_llm_tokens_total{provider=\"openai\",model=\"a\\\"b\\\\c_d_\","
                          "type=\"prompt\"}") == 11);
    assert_true(sample(t, "dbmcp_llm_tokens_total{provider=\"openai\",model=\"a\\\"b\\\\c_d_\","
                          "type=\"completion\"}") == 5);
    free(t);

    /* 127 ASCII bytes then 'é' (2 bytes) would cross 128: cut before it */
    char name[300];
    memset(name, 'x', 127);
    strcpy(name + 127, "\xc3\xa9tail");
    metrics_tool_call_begin();
    metrics_tool_call_end(name, "default", "http", 0, 0);
    t = render();
    char want[400];
    snprintf(want, sizeof want,
             "dbmcp_tool_calls_total{tool=\"%.127s\",interface=\"default\",transport=\"http\"}",
             name);
    assert_true(sample(t, want) == 1);
    assert_null(strstr(t, "tail"));
    free(t);
}

static void test_series_past_the_cap_count_as_other(void **state)
{
    (void)state;
    char name[32];
    for (int i = 0; i < METRICS_TOOL_SERIES_MAX + 50; i++) {
        snprintf(name, sizeof name, "tool_%d", i);
        metrics_tool_call_begin();
        metrics_tool_call_end(name, "default", "http", 0, 0.01);
    }
    /* an existing series is still found past the cap */
    metrics_tool_call_begin();
    metrics_tool_call_end("tool_0", "default", "http", 0, 0.01);
    char *t = render();
    assert_true(sample(t, "dbmcp_tool_calls_total{tool=\"other\",interface=\"other\","
                          "transport=\"other\"}") == 50);
    assert_true(sample(t, "dbmcp_tool_calls_total{tool=\"tool_0\",interface=\"default\","
                          "transport=\"http\"}") == 2);
    size_t series = 0;
    for (const char *p = t; (p = strstr(p, "\ndbmcp_tool_calls_total{")) != NULL; p++)
        series++;
    assert_int_equal(series, METRICS_TOOL_SERIES_MAX + 1);
    free(t);
}

static void test_unknown_gauges_are_left_out(void **state)
{
    (void)state;
    metrics_gauges g;
    metrics_gauges_init(&g);
    char *t = metrics_render(&g, NULL);
    assert_non_null(t);
    assert_null(strstr(t, "dbmcp_audit_queue_rows"));
    assert_null(strstr(t, "dbmcp_db_pool_size"));
    assert_null(strstr(t, "dbmcp_build_info"));
    free(t);
    g.version = "1.2.3";
    g.audit_rows = 7;
    g.audit_oldest_s = 1.5;
    g.n_pools = 1;
    g.pools[0] = (metrics_pool){"catalog", 4, 1, 0, 10, 2, 0.25};
    g.resident_bytes = metrics_resident_bytes();
    assert_true(g.resident_bytes > 0);
    t = metrics_render(&g, NULL);
    assert_true(sample(t, "dbmcp_build_info{version=\"1.2.3\"}") == 1);
    assert_true(sample(t, "dbmcp_audit_queue_rows") == 7);
    assert_true(sample(t, "dbmcp_audit_oldest_pending_seconds") == 1.5);
    assert_true(sample(t, "dbmcp_db_pool_size{pool=\"catalog\"}") == 4);
    assert_true(sample(t, "dbmcp_db_pool_acquire_waits_total{pool=\"catalog\"}") == 2);
    assert_true(sample(t, "dbmcp_db_pool_acquire_wait_seconds_total{pool=\"catalog\"}") == 0.25);
    assert_true(sample(t, "dbmcp_process_resident_memory_bytes") == (double)g.resident_bytes);
    free(t);
}

#define THREADS 4
#define CALLS 20000

static void *record(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "t%d", (int)(intptr_t)arg % 2);
    for (int i = 0; i < CALLS; i++) {
        metrics_tool_call_begin();
        metrics_tool_call_end(name, "default", "http", i % 10 == 0, 0.002);
        metrics_llm_call("vllm", "m", 1, 2, 0, 0);
    }
    return NULL;
}

static void test_concurrent_counts_are_exact(void **state)
{
    (void)state;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, record, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    char *t = render();
    const double per_tool = (double)CALLS * THREADS / 2;
    assert_true(sample(t, "dbmcp_tool_calls_total{tool=\"t0\",interface=\"default\","
                          "transport=\"http\"}") == per_tool);
    assert_true(sample(t, "dbmcp_tool_call_errors_total{tool=\"t1\",interface=\"default\","
                          "transport=\"http\"}") == per_tool / 10);
    assert_true(sample(t, "dbmcp_tool_call_duration_seconds_bucket{tool=\"t1\",le=\"0.005\"}") ==
                per_tool);
    assert_true(sample(t, "dbmcp_llm_tokens_total{provider=\"vllm\",model=\"m\","
                          "type=\"completion\"}") == 2.0 * CALLS * THREADS);
    assert_true(sample(t, "dbmcp_tool_calls_in_flight") == 0);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_calls_and_errors_per_series, reset),
        cmocka_unit_test_setup(test_histogram_is_cumulative, reset),
        cmocka_unit_test_setup(test_label_values_are_bounded_and_escaped, reset),
        cmocka_unit_test_setup(test_series_past_the_cap_count_as_other, reset),
        cmocka_unit_test_setup(test_unknown_gauges_are_left_out, reset),
        cmocka_unit_test_setup(test_concurrent_counts_are_exact, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
