/*
 * test_trace.c — W3C Trace Context and spans (src/core/trace.h) and the
 * OTLP/JSON encoding (src/core/otlp.h): the traceparent cases of the W3C
 * test suite (valid, each field malformed, uppercase, all-zero ids, version
 * ff, later versions), tracestate limits, which context a request gets,
 * parent/child ids of nested and leaf spans, and the shape of an export.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/ids.h"
#include "core/otlp.h"
#include "core/trace.h"

#define GOOD "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

static int parse(const char *s, trace_context *ctx, dbmcp_error *err)
{
    dbmcp_error_clear(err);
    return trace_parse_traceparent(s, strlen(s), ctx, err);
}

static void test_traceparent_valid(void **state)
{
    (void)state;
    trace_context ctx;
    dbmcp_error err;
    assert_int_equal(parse(GOOD, &ctx, &err), 0);
    assert_true(ctx.valid);
    char hex[33];
    trace_hex(ctx.trace_id, 16, hex);
    assert_string_equal(hex, "0af7651916cd43dd8448eb211c80319c");
    trace_hex(ctx.span_id, 8, hex);
    assert_string_equal(hex, "b7ad6b7169203331");
    assert_int_equal(ctx.flags, 1);
    char back[TRACE_PARENT_LEN + 1];
    trace_format_traceparent(&ctx, back);
    assert_string_equal(back, GOOD);
    /* a later version may carry more fields after a '-' */
    assert_int_equal(
        parse("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what", &ctx, &err), 0);
    assert_int_equal(parse("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", &ctx, &err),
                     0);
}

static void test_traceparent_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"", "traceparent: 0 bytes, expected 55"},
        {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0",
         "traceparent: 54 bytes, expected 55"},
        {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-",
         "traceparent: version 00 is exactly 55 bytes"},
        {"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
         "traceparent: version ff is invalid"},
        {"0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
         "traceparent: version must be 2 lowercase hex digits then '-'"},
        {"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
         "traceparent: trace-id must be 32 lowercase hex digits then '-'"},
        {"00-00000000000000000000000000000000-b7ad6b7169203331-01",
         "traceparent: trace-id is all zeros"},
        {"00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
         "traceparent: parent-id is all zeros"},
        {"00-0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331-01",
         "traceparent: trace-id must be 32 lowercase hex digits then '-'"},
        {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01",
         "traceparent: parent-id must be 16 lowercase hex digits then '-'"},
        {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0x",
         "traceparent: trace-flags must be 2 lowercase hex digits"},
        {" 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
         "traceparent: version must be 2 lowercase hex digits then '-'"},
        {"cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01.what",
         "traceparent: a later version's fields after byte 55 start with '-'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trace_context ctx;
        dbmcp_error err;
        assert_int_equal(parse(cases[i].text, &ctx, &err), DBMCP_EINVAL);
        assert_string_equal(err.message, cases[i].message);
        assert_false(ctx.valid);
    }
    char big[TRACE_PARENT_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    trace_context ctx;
    dbmcp_error err;
    assert_int_equal(parse(big, &ctx, &err), DBMCP_ETOOBIG);
    assert_string_equal(err.message, "traceparent: 513 bytes, at most 512");
}

static void test_tracestate(void **state)
{
    (void)state;
    dbmcp_error err;
    static const char *const good[] = {
        "",
        "congo=t61rcWkgMzE",
        "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE",
        "tenant@system=v, ,a-b_c*d/e=x y",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(trace_check_tracestate(good[i], strlen(good[i]), &err), 0);
    static const char *const bad[] = {
        "novalue", "Upper=x", "a=", "a=b,c=d=e", "1abc=x", "a=ctl\x01", "@sys=x", "t@=x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(trace_check_tracestate(bad[i], strlen(bad[i]), &err), DBMCP_EINVAL);
    char many[33 * 5 + 1] = "";
    for (int i = 0; i < 33; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%sk%c=1", i ? "," : "",
                 'a' + i % 26);
    assert_int_equal(trace_check_tracestate(many, strlen(many), &err), DBMCP_ETOOBIG);
    assert_string_equal(err.message, "tracestate: more than 32 members");
}

static void test_request_context(void **state)
{
    (void)state;
    trace_context ctx;
    const char *other = "00-11111111111111111111111111111111-2222222222222222-00";
    /* _meta wins over the header; an invalid one is ignored, not the header's */
    assert_true(trace_context_from_request(GOOD, "a=b", other, "c=d", &ctx));
    char hex[33];
    trace_hex(ctx.trace_id, 16, hex);
    assert_string_equal(hex, "0af7651916cd43dd8448eb211c80319c");
    assert_string_equal(ctx.tracestate, "a=b");
    assert_true(trace_context_from_request(NULL, NULL, other, "c=d", &ctx));
    trace_hex(ctx.trace_id, 16, hex);
    assert_string_equal(hex, "11111111111111111111111111111111");
    assert_true(trace_context_from_request("00-bad", NULL, other, NULL, &ctx)); /* the header's */
    trace_hex(ctx.trace_id, 16, hex);
    assert_string_equal(hex, "11111111111111111111111111111111");
    assert_false(trace_context_from_request("00-bad", NULL, NULL, NULL, &ctx));
    assert_false(trace_context_from_request(NULL, NULL, NULL, NULL, &ctx));
    /* a bad tracestate is dropped, the traceparent kept */
    assert_true(trace_context_from_request(GOOD, "Bad=1", NULL, NULL, &ctx));
    assert_string_equal(ctx.tracestate, "");
}

/* --- spans ---------------------------------------------------------------------- */

static trace_span ended[8];
static int n_ended;

static void capture(trace_span *s)
{
    assert_true(n_ended < 8);
    ended[n_ended] = *s;
    json_incref(ended[n_ended++].attrs); /* the sink only borrows them */
}

static void test_spans_nest(void **state)
{
    (void)state;
    n_ended = 0;
    trace_span orphan;
    trace_span_begin_leaf(&orphan, "SELECT", TRACE_KIND_CLIENT);
    assert_false(orphan.active); /* no sink, no current span: nothing */
    trace_set_sink(capture);
    trace_context parent;
    assert_int_equal(trace_parse_traceparent(GOOD, strlen(GOOD), &parent, NULL), 0);
    trace_span call, sql, llm;
    trace_span_begin(&call, "tools/call t", TRACE_KIND_SERVER, &parent);
    assert_ptr_equal(trace_current(), &call);
    trace_span_begin_leaf(&sql, "SELECT", TRACE_KIND_CLIENT);
    assert_ptr_equal(trace_current(), &call); /* a leaf never becomes current */
    trace_span_set_int(&sql, "db.response.returned_rows", 3);
    trace_span_begin(&llm, "chat m", TRACE_KIND_CLIENT, NULL);
    assert_ptr_equal(trace_current(), &llm);
    trace_span_set_error(&llm, "rate_limited");
    trace_span_end(&llm);
    trace_span_end(&sql);
    char tid[33];
    trace_current_trace_id(tid);
    assert_string_equal(tid, "0af7651916cd43dd8448eb211c80319c");
    trace_span_end(&call);
    assert_null(trace_current());
    trace_set_sink(NULL);

    assert_int_equal(n_ended, 3);
    /* all in the caller's trace; the call under the caller's span, both others under the call */
    for (int i = 0; i < 3; i++)
        assert_memory_equal(ended[i].ctx.trace_id, parent.trace_id, 16);
    assert_string_equal(ended[2].name, "tools/call t");
    assert_memory_equal(ended[2].parent_id, parent.span_id, 8);
    assert_memory_equal(ended[0].parent_id, ended[2].ctx.span_id, 8);
    assert_memory_equal(ended[1].parent_id, ended[2].ctx.span_id, 8);
    assert_true(ended[0].error);
    assert_string_equal(ended[0].message, "rate_limited");
    assert_int_equal(
        json_integer_value(json_object_get(ended[1].attrs, "db.response.returned_rows")), 3);
    for (int i = 0; i < 3; i++) {
        assert_true(ended[i].end_ns >= ended[i].start_ns);
        json_decref(ended[i].attrs);
    }
}

static void test_root_without_parent(void **state)
{
    (void)state;
    trace_span s;
    trace_span_begin(&s, "x", TRACE_KIND_INTERNAL, NULL);
    assert_false(s.active); /* not recording, nothing to join: no span */
    char tid[33];
    trace_span_trace_id(&s, tid);
    assert_string_equal(tid, "");
    n_ended = 0;
    trace_set_sink(capture);
    trace_span_begin(&s, "x", TRACE_KIND_INTERNAL, NULL);
    assert_true(s.active);
    trace_span_trace_id(&s, tid);
    assert_int_equal(strlen(tid), 32);
    trace_span_end(&s);
    trace_set_sink(NULL);
    assert_int_equal(n_ended, 1);
    static const uint8_t zero[8];
    assert_memory_equal(ended[0].parent_id, zero, 8);
    json_decref(ended[0].attrs);
}

static void test_otlp_encode(void **state)
{
    (void)state;
    json_t *spans = json_pack("[{s:s}]", "name", "x");
    otlp_config cfg = {
        .endpoint = "http://127.0.0.1:1", .service_version = "1.2", .instance_id = "h:1:abcd"};
    char *text = otlp_encode(&cfg, spans);
    json_error_t jerr;
    json_t *body = json_loads(text, 0, &jerr);
    assert_non_null(body);
    json_t *rs = json_array_get(json_object_get(body, "resourceSpans"), 0);
    json_t *attrs = json_object_get(json_object_get(rs, "resource"), "attributes");
    assert_int_equal(json_array_size(attrs), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(attrs, 0), "key")),
                        "service.name");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_array_get(attrs, 0), "value"), "stringValue")),
                        "dbmcp");
    json_t *ss = json_array_get(json_object_get(rs, "scopeSpans"), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(ss, "spans"), 0), "name")),
        "x");
    free(text);
    json_decref(body);
    json_decref(spans);
    dbmcp_error err;
    cfg.endpoint = "ftp://x";
    assert_int_equal(otlp_start(&cfg, &err), DBMCP_EINVAL);
    assert_string_equal(err.message, "trace.otlp_endpoint: \"ftp://x\" is not an http:// or "
                                     "https:// URL");
}

int main(void)
{
    ids_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traceparent_valid), cmocka_unit_test(test_traceparent_invalid),
        cmocka_unit_test(test_tracestate),        cmocka_unit_test(test_request_context),
        cmocka_unit_test(test_spans_nest),        cmocka_unit_test(test_root_without_parent),
        cmocka_unit_test(test_otlp_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
