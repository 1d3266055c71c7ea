/*
 * test_memory_rank.c — unit tests for the arithmetic and the input rules of
 * agent memory: recall weights (memory/rank.h), ISO-8601 time checks and
 * normalisation, content normalisation for de-duplication, scope
 * resolution from the caller's identity, and the extractive summary that
 * compaction writes (memory/compact.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/ids.h"
#include "memory/compact.h"
#include "memory/memory.h"
#include "memory/rank.h"

static const mem_rank_params P = {100.0, 0.5, 0.2};

static void test_status_weights_put_success_first(void **state)
{
    (void)state;
    assert_true(mem_rank_status_weight("success") > mem_rank_status_weight("partial"));
    assert_true(mem_rank_status_weight("partial") > mem_rank_status_weight("failed"));
    assert_true(mem_rank_status_weight("failed") > 0);
    assert_float_equal(mem_rank_status_weight(NULL), 1.0, 1e-12);
    assert_float_equal(mem_rank_status_weight("unknown"), 1.0, 1e-12);
}

static void test_recency_halves_the_decaying_share_per_half_life(void **state)
{
    (void)state;
    /* rw = 0.5: weight = 0.5 + 0.5 * 0.5^(age/100) */
    assert_float_equal(mem_rank_recency_weight(0, &P), 1.0, 1e-12);
    assert_float_equal(mem_rank_recency_weight(100, &P), 0.75, 1e-12);
    assert_float_equal(mem_rank_recency_weight(200, &P), 0.625, 1e-12);
    assert_float_equal(mem_rank_recency_weight(1e9, &P), 0.5, 1e-9);
    /* a clock skew never rewards the future */
    assert_float_equal(mem_rank_recency_weight(-50, &P), 1.0, 1e-12);
    assert_float_equal(mem_rank_recency_weight(NAN, &P), 1.0, 1e-12);
    mem_rank_params off = {0, 0.5, 0.2};
    assert_float_equal(mem_rank_recency_weight(1e6, &off), 1.0, 1e-12);
    mem_rank_params clamp = {100, 7.0, 0};
    assert_float_equal(mem_rank_recency_weight(100, &clamp), 0.5, 1e-12);
}

static void test_frequency_grows_slowly(void **state)
{
    (void)state;
    assert_float_equal(mem_rank_frequency_weight(0, &P), 1.0, 1e-12);
    assert_float_equal(mem_rank_frequency_weight(-3, &P), 1.0, 1e-12);
    assert_float_equal(mem_rank_frequency_weight(1, &P), 1.0 + 0.2 * log(2.0), 1e-12);
    double w10 = mem_rank_frequency_weight(10, &P), w100 = mem_rank_frequency_weight(100, &P);
    assert_true(w100 > w10);
    assert_true(w100 - w10 < w10 - 1.0); /* sublinear */
}

static void test_score_is_the_product_and_reports_parts(void **state)
{
    (void)state;
    mem_rank_parts parts;
    double s = mem_rank_score(0.02, "failed", 100, 1, &P, &parts);
    assert_float_equal(parts.rrf, 0.02, 1e-15);
    assert_float_equal(parts.status, 0.5, 1e-12);
    assert_float_equal(parts.recency, 0.75, 1e-12);
    assert_float_equal(parts.frequency, 1.0 + 0.2 * log(2.0), 1e-12);
    assert_float_equal(s, 0.02 * 0.5 * 0.75 * (1.0 + 0.2 * log(2.0)), 1e-15);
    assert_float_equal(parts.final, s, 1e-15);
    /* equal fused scores: the successful episode outranks the failed one */
    mem_rank_parts a, b;
    assert_true(mem_rank_score(0.02, "success", 10, 0, &P, &a) >
                mem_rank_score(0.02, "failed", 10, 0, &P, &b));
    /* equal everything else: the newer item wins */
    assert_true(mem_rank_score(0.02, NULL, 10, 0, &P, &a) >
                mem_rank_score(0.02, NULL, 1000, 0, &P, &b));
}

static void expect_time(const char *in, const char *want)
{
    char out[32];
    dbmcp_error err;
    assert_int_equal(mem_time_normalize("as_of", in, out, &err), 0);
    assert_string_equal(out, want);
}

static void expect_bad_time(const char *in)
{
    char out[32];
    dbmcp_error err;
    assert_int_equal(mem_time_normalize("as_of", in, out, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.public_message, "as_of"));
}

static void test_times_are_checked_and_normalised_to_utc(void **state)
{
    (void)state;
    expect_time("2026-12-02", "2026-12-02T00:00:00.000Z");
    expect_time("2026-12-02T13:41", "2026-12-02T13:41:00.000Z");
    expect_time("2026-12-02T13:41:12Z", "2026-12-02T13:41:12.000Z");
    expect_time("2026-12-02T13:41:12.5Z", "2026-12-02T13:41:12.500Z");
    expect_time("2026-12-02T13:41:12.123456Z", "2026-12-02T13:41:12.123Z");
    expect_time("2026-12-02T01:30:00+02:00", "2026-12-01T23:30:00.000Z");
    expect_time("2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z");
    expect_time("2024-02-29", "2024-02-29T00:00:00.000Z");
    expect_bad_time("yesterday");
    expect_bad_time("");
    expect_bad_time("2026-13-01");
    expect_bad_time("2025-02-29");
    expect_bad_time("2026-12-02T25:00");
    expect_bad_time("2026-12-02T10:00:00Zjunk");
    expect_bad_time("2026-12-02T10:00+5");
    expect_bad_time("12/02/2026");
    char out[32];
    dbmcp_error err;
    assert_int_equal(mem_time_normalize("from", NULL, out, &err), DBMCP_EINVAL);
}

static void test_text_normalisation_for_dedup(void **state)
{
    (void)state;
    dbmcp_error err;
    char *a = mem_text_normalize("content", "  caf\x65\xcc\x81 au lait\r\n", 1000, &err);
    char *b = mem_text_normalize("content", "caf\xc3\xa9 au lait", 1000, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b); /* NFC, trimmed: one stored item */
    char ha[33], hb[33];
    mem_hash_hex(a, strlen(a), ha);
    mem_hash_hex(b, strlen(b), hb);
    assert_string_equal(ha, hb);
    assert_int_equal(strlen(ha), 32);
    free(a);
    free(b);
    char *lines = mem_text_normalize("content", "a\r\nb", 1000, &err);
    assert_string_equal(lines, "a\nb");
    free(lines);
    assert_null(mem_text_normalize("content", "bad \xff byte", 1000, &err));
    assert_int_equal(err.code, DBMCP_EINVAL);
    assert_non_null(strstr(err.public_message, "content"));
    assert_null(mem_text_normalize("content", "0123456789", 5, &err));
    assert_int_equal(err.code, DBMCP_ETOOBIG);
    assert_non_null(strstr(err.public_message, "memory.max_content_bytes"));
}

static void test_scope_comes_from_the_key(void **state)
{
    (void)state;
    mem_scope s;
    dbmcp_error err;
    /* a key for any agent: the argument chooses, default "default" */
    assert_int_equal(mem_scope_resolve("alice", "", NULL, &s, &err), 0);
    assert_string_equal(s.user_id, "alice");
    assert_string_equal(s.agent_id, MEM_DEFAULT_AGENT);
    assert_int_equal(mem_scope_resolve("alice", NULL, "planner", &s, &err), 0);
    assert_string_equal(s.agent_id, "planner");
    /* a key bound to one agent: only that one */
    assert_int_equal(mem_scope_resolve("alice", "bot", NULL, &s, &err), 0);
    assert_string_equal(s.agent_id, "bot");
    assert_int_equal(mem_scope_resolve("alice", "bot", "bot", &s, &err), 0);
    assert_int_equal(mem_scope_resolve("alice", "bot", "other", &s, &err), DBMCP_EDENIED);
    assert_non_null(strstr(err.public_message, "agent"));
    /* never without a user */
    assert_int_equal(mem_scope_resolve("", "", NULL, &s, &err), DBMCP_EDENIED);
    assert_int_equal(mem_scope_resolve(NULL, "", NULL, &s, &err), DBMCP_EDENIED);
    assert_int_equal(mem_scope_resolve("alice", "", "bad\nagent", &s, &err), DBMCP_EINVAL);
}

static void test_summary_is_extractive_and_bounded(void **state)
{
    (void)state;
    const char *roles[] = {"user", "assistant", "tool", "user", "assistant"};
    const char *texts[] = {
        "We need the quarterly revenue report for region Nord. Thanks.",
        "The quarterly revenue report for Nord shows growth. Revenue rose in Q3.",
        "{\"rows\": 4, \"revenue\": 12345}",
        "ok",
        "Revenue for Nord grew most in the third quarter.",
    };
    char *s = mem_summarize(roles, texts, 5, 2, 400);
    assert_non_null(s);
    /* two sentences, each prefixed by its role, taken verbatim */
    int lines = 1;
    for (const char *p = s; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2);
    assert_non_null(strstr(s, "revenue"));
    assert_null(strstr(s, "rows")); /* tool output is not summarised */
    assert_true(strncmp(s, "user: ", 6) == 0 || strncmp(s, "assistant: ", 11) == 0);
    free(s);
    char *tiny = mem_summarize(roles, texts, 5, 5, 20);
    assert_true(strlen(tiny) <= 20);
    free(tiny);
    char *none = mem_summarize(roles, texts, 0, 5, 100);
    assert_string_equal(none, "");
    free(none);
}

int main(void)
{
    ids_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_weights_put_success_first),
        cmocka_unit_test(test_recency_halves_the_decaying_share_per_half_life),
        cmocka_unit_test(test_frequency_grows_slowly),
        cmocka_unit_test(test_score_is_the_product_and_reports_parts),
        cmocka_unit_test(test_times_are_checked_and_normalised_to_utc),
        cmocka_unit_test(test_text_normalisation_for_dedup),
        cmocka_unit_test(test_scope_comes_from_the_key),
        cmocka_unit_test(test_summary_is_extractive_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
