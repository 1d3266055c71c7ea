/*
 * test_jsonrpc.c — unit tests for mcp/jsonrpc: the envelope every transport
 * hands to the server.
 *
 * Most cases are data. Each .json file in tests/cases/jsonrpc (the cases
 * directory comes from $DBMCP_CASES, default "tests/cases") is one message
 * and what jsonrpc_parse must make of it:
 *
 *   "description":      what the case is about (printed on failure)
 *   the raw bytes, built from one or more of, in this order:
 *     "input":          text; "\u0000" in it is a real NUL byte
 *     "input_hex":      bytes in hex, for what JSON text cannot hold (bad UTF-8)
 *     "input_parts":    [{"text": "...", "repeat": n}], e.g. deep nesting
 *     "pad_to":         append spaces until the message is this many bytes
 *   "kind":             "request", "notification", "response" or "error"
 *   for messages:       "method", "id" (compared type-strictly: 1 is not 1.0),
 *                       "params" (exact object, or null for absent),
 *                       "result_output" (compact jsonrpc_result(id, {}) text:
 *                       proves the id survives the round trip digit for digit)
 *   for errors:         "error_code", "error_id" (default null),
 *                       "message_contains"
 *   "pending":          a known bug, with the reason. The case still runs; while
 *                       it fails it is reported and not counted, once it passes
 *                       the runner says to drop the marker.
 *
 * Adding a case never needs C. The C tests below cover the builders.
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

#include "mcp/jsonrpc.h"

#include "case_files.h"

/* The directory must hold at least this many cases. */
#define CASES_MIN 40

/* A growable byte buffer for a case's raw input. */
typedef struct byte_buffer {
    char *data;  /* malloc'd, not NUL-terminated */
    size_t len;  /* bytes used */
    size_t size; /* bytes allocated */
} byte_buffer;

static void buffer_append(byte_buffer *b, const char *bytes, size_t len)
{
    if (len == 0)
        return;
    if (b->len + len > b->size) {
        size_t size = (b->len + len) * 2 + 64;
        char *grown = realloc(b->data, size);
        assert_non_null(grown);
        b->data = grown;
        b->size = size;
    }
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Append the bytes spelt by hex (whitespace ignored); 0, or -1 when malformed. */
static int buffer_append_hex(byte_buffer *b, const char *hex)
{
    int high = -1;
    for (const char *p = hex; *p; p++) {
        if (*p == ' ' || *p == '\n')
            continue;
        int v = hex_digit(*p);
        if (v < 0)
            return -1;
        if (high < 0) {
            high = v;
            continue;
        }
        char byte = (char)(high * 16 + v);
        buffer_append(b, &byte, 1);
        high = -1;
    }
    return high < 0 ? 0 : -1;
}

/* Build a case's raw message into b; 0, or -1 when the case file is malformed. */
static int case_input(const json_t *c, byte_buffer *b)
{
    const json_t *text = json_object_get(c, "input");
    const json_t *hex = json_object_get(c, "input_hex");
    const json_t *parts = json_object_get(c, "input_parts");
    const json_t *pad = json_object_get(c, "pad_to");
    if (!text && !hex && !parts)
        return -1;
    if (text)
        buffer_append(b, json_string_value(text), json_string_length(text));
    if (hex && buffer_append_hex(b, json_string_value(hex)) != 0)
        return -1;
    size_t i;
    const json_t *part;
    json_array_foreach (parts, i, part) {
        const json_t *piece = json_object_get(part, "text");
        json_int_t repeat = json_integer_value(json_object_get(part, "repeat"));
        for (json_int_t k = 0; k < (repeat > 0 ? repeat : 1); k++)
            buffer_append(b, json_string_value(piece), json_string_length(piece));
    }
    while (json_is_integer(pad) && b->len < (size_t)json_integer_value(pad))
        buffer_append(b, " ", 1);
    return 0;
}

static const char *kind_name(jsonrpc_kind kind)
{
    switch (kind) {
    case JSONRPC_REQUEST: return "request";
    case JSONRPC_NOTIFICATION: return "notification";
    case JSONRPC_RESPONSE: return "response";
    }
    return "?";
}

/* Write why a case failed into why; returns 0 when it behaved as expected. */
static int check_message(const json_t *c, const jsonrpc_msg *msg, char *why, size_t size)
{
    const char *kind = json_string_value(json_object_get(c, "kind"));
    const char *method = json_string_value(json_object_get(c, "method"));
    const json_t *id = json_object_get(c, "id");
    const json_t *params = json_object_get(c, "params");
    const char *output = json_string_value(json_object_get(c, "result_output"));
    if (strcmp(kind, kind_name(msg->kind)) != 0)
        return snprintf(why, size, "parsed as a %s", kind_name(msg->kind));
    if (method && (!msg->method || strcmp(method, msg->method) != 0))
        return snprintf(why, size, "method is '%s'", msg->method ? msg->method : "(none)");
    if (id && !json_equal(id, msg->id))
        return snprintf(why, size, "id differs");
    if (params && !(json_is_null(params) ? msg->params == NULL : json_equal(params, msg->params)))
        return snprintf(why, size, "params differ");
    if (!output)
        return 0;
    json_t *response = jsonrpc_result(msg->id, json_object());
    char *text = json_dumps(response, JSON_COMPACT);
    json_decref(response);
    int same = text && strcmp(text, output) == 0;
    if (!same)
        snprintf(why, size, "jsonrpc_result gave %s", text ? text : "(nothing)");
    free(text);
    return !same;
}

/* A complete JSON-RPC error object with the expected code, id and text? */
static int check_error(const json_t *c, const json_t *response, char *why, size_t size)
{
    if (!response)
        return snprintf(why, size, "refused without an error response");
    const json_t *error = json_object_get(response, "error");
    const json_t *code = json_object_get(error, "code");
    const char *message = json_string_value(json_object_get(error, "message"));
    const json_t *want_id = json_object_get(c, "error_id");
    const json_t *id = json_object_get(response, "id");
    const char *contains = json_string_value(json_object_get(c, "message_contains"));
    if (!json_is_string(json_object_get(response, "jsonrpc")) || !json_is_integer(code) ||
        !message || !id || json_object_size(response) != 3)
        return snprintf(why, size, "error response is not a complete JSON-RPC error");
    if (json_integer_value(code) != json_integer_value(json_object_get(c, "error_code")))
        return snprintf(why, size, "error code %lld (%s)", (long long)json_integer_value(code),
                        message);
    if (want_id ? !json_equal(id, want_id) : !json_is_null(id))
        return snprintf(why, size, "error response has the wrong id");
    if (contains && !strstr(message, contains))
        return snprintf(why, size, "message is '%s'", message);
    return 0;
}

/* The message of an error response, for reports. */
static const char *error_message(const json_t *response)
{
    const char *m =
        json_string_value(json_object_get(json_object_get(response, "error"), "message"));
    return m ? m : "(no error response)";
}

/* Run one case; returns 0 when it behaved as its file says, with why filled otherwise. */
static int case_run(const json_t *c, char *why, size_t size)
{
    const char *kind = json_string_value(json_object_get(c, "kind"));
    byte_buffer input = {NULL, 0, 0};
    if (!kind || case_input(c, &input) != 0) {
        free(input.data);
        return snprintf(why, size, "malformed case: needs kind and an input");
    }
    json_t *response = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(input.data ? input.data : "", input.len, &response);
    free(input.data);
    int expect_error = strcmp(kind, "error") == 0;
    int rc;
    if (msg && response)
        rc = snprintf(why, size, "parsed and also gave an error response");
    else if (msg && expect_error)
        rc = snprintf(why, size, "parsed as a %s; expected an error", kind_name(msg->kind));
    else if (msg)
        rc = check_message(c, msg, why, size);
    else if (expect_error)
        rc = check_error(c, response, why, size);
    else
        rc = snprintf(why, size, "refused: %s", error_message(response));
    jsonrpc_msg_free(msg);
    json_decref(response);
    return rc != 0;
}

static void case_file_run(const char *name, const json_t *c, case_tally *tally)
{
    char why[512] = "";
    tally->cases++;
    int failed = case_run(c, why, sizeof why);
    case_tally_outcome(tally, name, c, failed, why);
}

static void test_case_files(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("jsonrpc", JSON_ALLOW_NUL, case_file_run, &tally);
    print_message("jsonrpc: %d cases, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= CASES_MIN);
}

/* ----- builders ----- */

static void assert_json_text(json_t *value, const char *expected)
{
    assert_non_null(value);
    char *text = json_dumps(value, JSON_COMPACT);
    assert_non_null(text);
    assert_string_equal(text, expected);
    free(text);
    json_decref(value);
}

static void test_result_steals_result(void **state)
{
    (void)state;
    json_t *id = json_integer(7);
    json_t *result = json_pack("{s:i}", "n", 1);
    json_t *response = jsonrpc_result(id, result);
    assert_int_equal(id->refcount, 2);
    assert_int_equal(result->refcount, 1); /* now owned by response */
    assert_json_text(response, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"n\":1}}");
    assert_int_equal(id->refcount, 1);
    json_decref(id);
}

static void test_result_defaults(void **state)
{
    (void)state;
    assert_json_text(jsonrpc_result(NULL, NULL), "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}");
}

static void test_error_with_and_without_data(void **state)
{
    (void)state;
    json_t *id = json_string("a");
    assert_json_text(jsonrpc_error(id, JSONRPC_METHOD_NOT_FOUND, "Method not found: x", NULL),
                     "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32601,"
                     "\"message\":\"Method not found: x\"}}");
    assert_json_text(jsonrpc_error(id, MCP_RESOURCE_NOT_FOUND_LEGACY, "Resource not found",
                                   json_pack("{s:s}", "uri", "test://x")),
                     "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32002,"
                     "\"message\":\"Resource not found\",\"data\":{\"uri\":\"test://x\"}}}");
    assert_json_text(jsonrpc_error(NULL, JSONRPC_PARSE_ERROR, "Parse error", NULL),
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                     "\"message\":\"Parse error\"}}");
    assert_int_equal(id->refcount, 1);
    json_decref(id);
}

static void test_notification_and_request(void **state)
{
    (void)state;
    assert_json_text(jsonrpc_notification("notifications/tools/list_changed", NULL),
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    assert_json_text(
        jsonrpc_notification("notifications/progress",
                             json_pack("{s:s, s:i}", "progressToken", "t", "progress", 1)),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
        "\"params\":{\"progressToken\":\"t\",\"progress\":1}}");
    json_t *id = json_string("dbmcp-1");
    assert_json_text(jsonrpc_request(id, "sampling/createMessage", json_object()),
                     "{\"jsonrpc\":\"2.0\",\"id\":\"dbmcp-1\","
                     "\"method\":\"sampling/createMessage\",\"params\":{}}");
    assert_int_equal(id->refcount, 1);
    json_decref(id);
}

/* A parsed message owns its parts: they outlive the caller's buffer and
 * stay valid until jsonrpc_msg_free. */
static void test_message_owns_its_parts(void **state)
{
    (void)state;
    char text[] = "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"tools/call\","
                  "\"params\":{\"name\":\"echo\"}}";
    json_t *response = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(text, strlen(text), &response);
    assert_non_null(msg);
    assert_null(response);
    memset(text, 'x', sizeof text - 1);
    assert_string_equal(msg->method, "tools/call");
    assert_string_equal(json_string_value(msg->id), "r1");
    assert_string_equal(json_string_value(json_object_get(msg->params, "name")), "echo");
    assert_ptr_equal(json_object_get(msg->raw, "params"), msg->params);
    assert_null(msg->result);
    assert_null(msg->error);
    jsonrpc_msg_free(msg);
    jsonrpc_msg_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_result_steals_result),
        cmocka_unit_test(test_result_defaults),
        cmocka_unit_test(test_error_with_and_without_data),
        cmocka_unit_test(test_notification_and_request),
        cmocka_unit_test(test_message_owns_its_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
