/*
 * test_llm.c — tests for the LLM provider client and its typed model
 * (src/llm/).
 *
 * Most cases are data, one runner per kind (each file holds one case
 * object or an array of them):
 *
 *   tests/cases/llm_errors/    {"provider", "status", "headers":
 *                              {"content_type","retry_after","retry_after_ms"},
 *                              "body": JSON value or raw text, "expect"}
 *                              → llm_error_from_http
 *   tests/cases/llm_response/  {"provider", "body", "expect"} → llm_response_parse
 *   tests/cases/llm_stream/    {"provider", "stream": [text pieces], "expect"}
 *                              → llm_stream_parse, fed whole, byte by byte and in
 *                              7-byte pieces: the same result every time
 *   tests/cases/llm_client/    {"config", "request", "scenario", "expect"}: the
 *                              scripted server tests/stub/openai-stub.mjs is
 *                              started with "scenario" and llm_chat runs
 *                              "request" against it (skipped without node)
 *
 * "expect" (all optional but "ok"): ok, kind, retryable, retry_after_ms,
 * type, code, message_contains (operator message), public_lacks (strings
 * the public message must not hold; the provider's message never may),
 * base_code, content (null = none), finish, finish_raw, tool_calls
 * [{id, name, args (null = unparsed), args_error_contains, repaired}],
 * repaired, truncated, tokens_in, tokens_out, usage_reported, model, id;
 * client cases add attempts, requests (lines in the stub's log), waits
 * (exact list of backoff waits in ms), waits_between ([[lo, hi], …]),
 * delta_text (what on_delta saw) and no_authorization_header. A client
 * case also fails when the stub recorded an expectation failure.
 *
 * The C tests below cover configuration, request serialisation (Mistral id
 * rewriting, content xor tool_calls, round trips), Retry-After parsing and
 * the failures that need no server.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "case_files.h"
#include "core/jsonutil.h"
#include "llm/internal.h"
#include "llm/llm.h"

#define WHY_SIZE 1024
#define STUB "tests/stub/openai-stub.mjs"
#define KEY_ENV "DBMCP_TEST_LLM_KEY"

/* ----- shared expectation checks ----- */

static llm_provider provider_of(const json_t *c)
{
    llm_provider p = LLM_PROVIDER_OPENAI;
    const char *name = json_get_str(c, "provider");
    if (name)
        assert_int_equal(llm_provider_parse(name, &p), 0);
    return p;
}

static int fail_why(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_why(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, WHY_SIZE, fmt, ap);
    va_end(ap);
    return 1;
}

/* Why err does not match expect, or 0. */
static int check_error(const json_t *expect, const llm_error *err, char *why)
{
    const char *kind = json_get_str(expect, "kind");
    const json_t *retryable = json_object_get(expect, "retryable");
    const json_t *after = json_object_get(expect, "retry_after_ms");
    const char *type = json_get_str(expect, "type"), *code = json_get_str(expect, "code");
    const char *contains = json_get_str(expect, "message_contains");
    const char *base = json_get_str(expect, "base_code");
    if (kind && strcmp(kind, llm_error_kind_name(err->kind)) != 0)
        return fail_why(why, "kind %s (%s)", llm_error_kind_name(err->kind), err->base.message);
    if (retryable && json_is_true(retryable) != !!err->retryable)
        return fail_why(why, "retryable %d", err->retryable);
    if (after && json_integer_value(after) != err->retry_after_ms)
        return fail_why(why, "retry_after_ms %ld", err->retry_after_ms);
    if (type && strcmp(type, err->type) != 0)
        return fail_why(why, "type \"%s\"", err->type);
    if (code && strcmp(code, err->code) != 0)
        return fail_why(why, "code \"%s\"", err->code);
    if (contains && !strstr(err->base.message, contains))
        return fail_why(why, "message \"%s\" lacks \"%s\"", err->base.message, contains);
    if (base && strcmp(base, dbmcp_code_name(err->base.code)) != 0)
        return fail_why(why, "base code %s", dbmcp_code_name(err->base.code));
    if (err->base.code >= 0 || !err->base.public_message[0] || !err->base.message[0])
        return fail_why(why, "base error not filled");
    llm_error fixed; /* the public text depends on kind and status only */
    llm_error_clear(&fixed);
    fixed.kind = err->kind;
    fixed.http_status = err->http_status;
    llm_error_finish(&fixed);
    if (strcmp(fixed.base.public_message, err->base.public_message) != 0)
        return fail_why(why, "public message \"%s\" is not the fixed one",
                        err->base.public_message);
    size_t i;
    const json_t *lack;
    json_array_foreach (json_object_get(expect, "public_lacks"), i, lack) {
        if (strstr(err->base.public_message, json_string_value(lack)))
            return fail_why(why, "public message \"%s\" holds \"%s\"", err->base.public_message,
                            json_string_value(lack));
    }
    return 0;
}

static int check_tool_call(const json_t *want, const llm_tool_call *tc, size_t i, char *why)
{
    const char *id = json_get_str(want, "id"), *name = json_get_str(want, "name");
    const json_t *args = json_object_get(want, "args");
    const char *args_error = json_get_str(want, "args_error_contains");
    const json_t *repaired = json_object_get(want, "repaired");
    if (id && strcmp(id, tc->id) != 0)
        return fail_why(why, "call %zu: id %s", i, tc->id);
    if (name && strcmp(name, tc->name) != 0)
        return fail_why(why, "call %zu: name %s", i, tc->name);
    if (json_is_null(args) && tc->args)
        return fail_why(why, "call %zu: arguments parsed, expected a failure", i);
    if (args && !json_is_null(args) && !json_equal(args, tc->args))
        return fail_why(why, "call %zu: arguments %s (%s)", i, tc->arguments,
                        tc->args_error ? tc->args_error : "");
    if ((tc->args != NULL) == (tc->args_error != NULL))
        return fail_why(why, "call %zu: args and args_error both set or both unset", i);
    if (args_error && (!tc->args_error || !strstr(tc->args_error, args_error)))
        return fail_why(why, "call %zu: args_error \"%s\"", i,
                        tc->args_error ? tc->args_error : "");
    if (repaired && json_is_true(repaired) != !!tc->repaired)
        return fail_why(why, "call %zu: repaired %d", i, tc->repaired);
    return 0;
}

static int check_int(const json_t *expect, const char *key, long got, char *why)
{
    const json_t *v = json_object_get(expect, key);
    if (v && (json_is_boolean(v) ? json_is_true(v) : json_integer_value(v)) != got)
        return fail_why(why, "%s is %ld", key, got);
    return 0;
}

static int check_str(const json_t *expect, const char *key, const char *got, char *why)
{
    const json_t *v = json_object_get(expect, key);
    if (!v)
        return 0;
    if (json_is_null(v) ? got != NULL : !got || strcmp(json_string_value(v), got) != 0)
        return fail_why(why, "%s is %s%s%s", key, got ? "\"" : "", got ? got : "NULL",
                        got ? "\"" : "");
    return 0;
}

/* Why the response r does not match expect, or 0. */
static int check_response(const json_t *expect, const llm_response *r, char *why)
{
    const char *finish = json_get_str(expect, "finish");
    const json_t *calls = json_object_get(expect, "tool_calls");
    if (check_str(expect, "content", r->message.content, why) ||
        check_str(expect, "finish_raw", r->finish_raw, why) ||
        check_str(expect, "model", r->model, why) || check_str(expect, "id", r->id, why) ||
        check_int(expect, "tokens_in", r->tokens_in, why) ||
        check_int(expect, "tokens_out", r->tokens_out, why) ||
        check_int(expect, "usage_reported", r->usage_reported, why) ||
        check_int(expect, "repaired", r->repaired, why) ||
        check_int(expect, "truncated", r->truncated, why))
        return 1;
    if (finish && strcmp(finish, llm_finish_name(r->finish_reason)) != 0)
        return fail_why(why, "finish %s", llm_finish_name(r->finish_reason));
    if (r->has_tool_calls != (r->message.tool_call_count > 0))
        return fail_why(why, "has_tool_calls disagrees with the calls");
    if (r->message.role != LLM_ROLE_ASSISTANT)
        return fail_why(why, "role is not assistant");
    if (calls && json_array_size(calls) != r->message.tool_call_count)
        return fail_why(why, "%zu tool calls", r->message.tool_call_count);
    for (size_t i = 0; calls && i < r->message.tool_call_count; i++)
        if (check_tool_call(json_array_get(calls, i), &r->message.tool_calls[i], i, why))
            return 1;
    return 0;
}

/* Check an outcome (rc, r, err) against c's expect; records the tally. */
static void check_outcome(const char *name, const json_t *c, int rc, const llm_response *r,
                          const llm_error *err, case_tally *tally)
{
    char why[WHY_SIZE] = "";
    const json_t *expect = json_object_get(c, "expect");
    int want_ok = json_is_true(json_object_get(expect, "ok"));
    int failed;
    if (want_ok && rc)
        failed = fail_why(why, "failed: %s", err->base.message);
    else if (!want_ok && !rc)
        failed = fail_why(why, "succeeded, expected an error");
    else if (rc)
        failed =
            (rc != err->base.code && fail_why(why, "rc %d, base code %d", rc, err->base.code)) ||
            check_error(expect, err, why) ||
            ((json_object_get(expect, "content") || json_object_get(expect, "truncated")) &&
             check_response(expect, r, why));
    else
        failed = check_response(expect, r, why);
    case_tally_outcome(tally, name, c, failed, why);
}

typedef void (*case_runner)(const char *name, const json_t *c, case_tally *tally);

static void each_case(const char *name, const json_t *doc, case_tally *tally, case_runner run)
{
    if (!json_is_array(doc)) {
        tally->cases++;
        run(name, doc, tally);
        return;
    }
    size_t i;
    const json_t *c;
    json_array_foreach (doc, i, c) {
        char label[512];
        snprintf(label, sizeof label, "%s[%zu]", name, i);
        tally->cases++;
        run(label, c, tally);
    }
}

/* Run every case file of kind and require at least min cases, none failed. */
static void run_kind(const char *kind, size_t flags, case_file_runner file, int min)
{
    case_tally tally = {0, 0, 0};
    case_files_run(kind, flags, file, &tally);
    print_message("%s: %d cases, %d failed\n", kind, tally.cases, tally.failures);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= min);
}

/* The body of a case: a string as is, any other value serialised. */
static char *case_body(const json_t *c, size_t *len)
{
    const json_t *body = json_object_get(c, "body");
    if (!json_is_string(body)) {
        char *text = json_dump_compact(body);
        assert_non_null(text);
        *len = strlen(text);
        return text;
    }
    *len = json_string_length(body);
    char *text = malloc(*len + 1);
    assert_non_null(text);
    memcpy(text, json_string_value(body), *len + 1);
    return text;
}

/* ----- llm_errors ----- */

static void run_error_case(const char *name, const json_t *c, case_tally *tally)
{
    size_t len;
    char *body = case_body(c, &len);
    const json_t *h = json_object_get(c, "headers");
    llm_http_headers headers = {json_get_str(h, "content_type"), json_get_str(h, "retry_after"),
                                json_get_str(h, "retry_after_ms")};
    llm_error err;
    llm_error_clear(&err);
    llm_error_from_http(provider_of(c), (int)json_integer_value(json_object_get(c, "status")),
                        &headers, body, len, &err);
    llm_response none;
    memset(&none, 0, sizeof none);
    check_outcome(name, c, err.base.code, &none, &err, tally);
    free(body);
}

static void error_file(const char *name, const json_t *doc, case_tally *tally)
{
    each_case(name, doc, tally, run_error_case);
}

static void test_error_cases(void **state)
{
    (void)state;
    run_kind("llm_errors", JSON_ALLOW_NUL, error_file, 15);
}

/* ----- llm_response ----- */

static void run_response_case(const char *name, const json_t *c, case_tally *tally)
{
    size_t len;
    char *body = case_body(c, &len);
    llm_response r;
    llm_error err;
    int rc = llm_response_parse(provider_of(c), body, len, &r, &err);
    check_outcome(name, c, rc, &r, &err, tally);
    llm_response_free(&r);
    free(body);
}

static void response_file(const char *name, const json_t *doc, case_tally *tally)
{
    each_case(name, doc, tally, run_response_case);
}

static void test_response_cases(void **state)
{
    (void)state;
    run_kind("llm_response", 0, response_file, 15);
}

/* ----- llm_stream ----- */

static char *stream_text(const json_t *c, size_t *len)
{
    llm_buf b = {0};
    size_t i;
    const json_t *piece;
    json_array_foreach (json_object_get(c, "stream"), i, piece) {
        assert_int_equal(llm_buf_add(&b, json_string_value(piece), json_string_length(piece)), 0);
    }
    assert_int_equal(llm_buf_add(&b, "", 0), 0);
    *len = b.len;
    return b.data;
}

/* Feed text in pieces of `step` bytes (0: whole). */
static int stream_run(llm_provider p, const char *text, size_t len, size_t step, llm_response *r,
                      llm_error *err)
{
    if (!step)
        return llm_stream_parse(p, text, len, r, err);
    llm_stream *s = llm_stream_new(p, 0);
    assert_non_null(s);
    llm_error_clear(err);
    for (size_t at = 0; at < len; at += step)
        llm_stream_feed(s, text + at, len - at < step ? len - at : step, NULL, NULL, err);
    int rc = llm_stream_finish(s, r, err);
    llm_stream_free(s);
    return rc;
}

static void run_stream_case(const char *name, const json_t *c, case_tally *tally)
{
    size_t len;
    char *text = stream_text(c, &len);
    static const size_t steps[] = {0, 1, 7};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        char label[600];
        snprintf(label, sizeof label, "%s (fed in %zu-byte pieces)", name, steps[k]);
        llm_response r;
        llm_error err;
        int rc = stream_run(provider_of(c), text, len, steps[k], &r, &err);
        int before = tally->failures;
        check_outcome(k ? label : name, c, rc, &r, &err, tally);
        llm_response_free(&r);
        if (tally->failures != before)
            break;
    }
    free(text);
}

static void stream_file(const char *name, const json_t *doc, case_tally *tally)
{
    each_case(name, doc, tally, run_stream_case);
}

static void test_stream_cases(void **state)
{
    (void)state;
    run_kind("llm_stream", 0, stream_file, 15);
}

/* ----- llm_client: against the scripted server ----- */

typedef struct stub {
    pid_t pid;
    int port;
    char dir[64];
    char log[128];
} stub;

static int node_available(void)
{
    return system("node --version >/dev/null 2>&1") == 0;
}

/* Start the stub with scenario (written to a temp file). */
static void stub_start(stub *s, const json_t *scenario)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/dbmcp-llm-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    char path[128];
    snprintf(path, sizeof path, "%s/scenario.json", s->dir);
    snprintf(s->log, sizeof s->log, "%s/requests.jsonl", s->dir);
    assert_int_equal(json_dump_file(scenario, path, 0), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("node", "node", STUB, "--port", "0", "--scenario", path, "--log", s->log,
               (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *out = fdopen(fds[0], "r");
    char line[32] = "";
    assert_non_null(out);
    if (!fgets(line, sizeof line, out))
        fail_msg("the stub did not print its port (is %s there?)", STUB);
    fclose(out);
    s->port = atoi(line);
    assert_true(s->port > 0);
}

static void stub_stop(stub *s)
{
    kill(s->pid, SIGTERM);
    waitpid(s->pid, NULL, 0);
    char path[160];
    snprintf(path, sizeof path, "%s/scenario.json", s->dir);
    unlink(path);
    unlink(s->log);
    rmdir(s->dir);
}

/* The stub's log as an array of request objects (new reference). */
static json_t *stub_requests(const stub *s)
{
    json_t *list = json_array();
    FILE *f = fopen(s->log, "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0)
        json_array_append_new(list, json_loads(line, 0, NULL));
    free(line);
    if (f)
        fclose(f);
    return list;
}

static long waits[16];
static int wait_count;

static void record_sleep(long ms)
{
    if (wait_count < 16)
        waits[wait_count] = ms;
    wait_count++;
}

typedef struct delta_sink {
    llm_buf text;
} delta_sink;

static int collect_delta(void *ctx, const char *text, size_t len)
{
    return llm_buf_add(&((delta_sink *)ctx)->text, text, len);
}

static void config_from_case(llm_config *cfg, const json_t *c, int port)
{
    const json_t *o = json_object_get(c, "config");
    llm_provider p = LLM_PROVIDER_OPENAI;
    if (json_get_str(o, "provider"))
        assert_int_equal(llm_provider_parse(json_get_str(o, "provider"), &p), 0);
    llm_config_defaults(cfg, p);
    snprintf(cfg->base_url, sizeof cfg->base_url, "http://127.0.0.1:%d%s", port,
             p == LLM_PROVIDER_AZURE ? "" : "/v1");
    snprintf(cfg->model, sizeof cfg->model, "%s",
             json_get_str(o, "model") ? json_get_str(o, "model") : "stub-model");
    snprintf(cfg->api_key_env, sizeof cfg->api_key_env, KEY_ENV);
    if (json_get_str(o, "azure_deployment"))
        snprintf(cfg->azure_deployment, sizeof cfg->azure_deployment, "%s",
                 json_get_str(o, "azure_deployment"));
    if (json_get_str(o, "azure_api_version"))
        snprintf(cfg->azure_api_version, sizeof cfg->azure_api_version, "%s",
                 json_get_str(o, "azure_api_version"));
    const json_t *v;
    cfg->max_retries = (v = json_object_get(o, "max_retries")) ? (int)json_integer_value(v) : 2;
    cfg->backoff_base_ms = (v = json_object_get(o, "backoff_base_ms")) ? json_integer_value(v) : 1;
    cfg->backoff_max_ms = (v = json_object_get(o, "backoff_max_ms")) ? json_integer_value(v) : 50;
    cfg->timeout_ms = (v = json_object_get(o, "timeout_ms")) ? json_integer_value(v) : 20000;
    cfg->connect_timeout_ms = 5000;
    if ((v = json_object_get(o, "max_response_bytes")))
        cfg->max_response_bytes = (size_t)json_integer_value(v);
}

/* Build a request from the case's wire-like description. */
static void request_from_case(llm_request *req, const json_t *c, delta_sink *sink)
{
    const json_t *o = json_object_get(c, "request");
    llm_request_init(req);
    dbmcp_error err;
    if (llm_request_add_json(req, json_object_get(o, "messages"), &err) != 0)
        fail_msg("request messages: %s", err.message);
    req->tools = json_incref(json_object_get(o, "tools"));
    const json_t *choice = json_object_get(o, "tool_choice");
    if (json_is_object(choice)) {
        req->tool_choice = LLM_TOOL_CHOICE_FUNCTION;
        req->tool_choice_name = strdup(json_get_str(choice, "name"));
    } else if (json_is_string(choice)) {
        const char *s = json_string_value(choice);
        req->tool_choice = strcmp(s, "none") == 0   ? LLM_TOOL_CHOICE_NONE
                           : strcmp(s, "auto") == 0 ? LLM_TOOL_CHOICE_AUTO
                                                    : LLM_TOOL_CHOICE_REQUIRED;
    }
    req->stream = json_is_true(json_object_get(o, "stream"));
    if (json_object_get(o, "max_tokens"))
        req->max_tokens = (int)json_integer_value(json_object_get(o, "max_tokens"));
    if (json_object_get(o, "temperature"))
        req->temperature = json_number_value(json_object_get(o, "temperature"));
    if (json_is_true(json_object_get(o, "deltas"))) {
        req->on_delta = collect_delta;
        req->on_delta_ctx = sink;
    }
}

/* Why the waits and the stub's log do not match expect, or 0. */
static int check_client(const json_t *expect, const json_t *requests, const llm_response *r,
                        const llm_error *err, int rc, const delta_sink *sink, char *why)
{
    const json_t *exact = json_object_get(expect, "waits");
    const json_t *between = json_object_get(expect, "waits_between");
    int attempts = rc ? err->attempts : r->attempts;
    if (check_int(expect, "attempts", attempts, why) ||
        check_int(expect, "requests", (long)json_array_size(requests), why))
        return 1;
    if (exact && json_array_size(exact) != (size_t)wait_count)
        return fail_why(why, "%d waits", wait_count);
    for (size_t i = 0; exact && i < json_array_size(exact); i++)
        if (json_integer_value(json_array_get(exact, i)) != waits[i])
            return fail_why(why, "wait %zu was %ld ms", i, waits[i]);
    if (between && json_array_size(between) != (size_t)wait_count)
        return fail_why(why, "%d waits", wait_count);
    for (size_t i = 0; between && i < json_array_size(between); i++) {
        const json_t *b = json_array_get(between, i);
        if (waits[i] < json_integer_value(json_array_get(b, 0)) ||
            waits[i] > json_integer_value(json_array_get(b, 1)))
            return fail_why(why, "wait %zu was %ld ms", i, waits[i]);
    }
    const char *delta = json_get_str(expect, "delta_text");
    if (delta && (!sink->text.data || strcmp(delta, sink->text.data) != 0))
        return fail_why(why, "on_delta saw \"%s\"", sink->text.data ? sink->text.data : "");
    size_t i;
    const json_t *req;
    json_array_foreach (requests, i, req) {
        const json_t *failures = json_object_get(req, "failures");
        if (json_array_size(failures) > 0) {
            char *text = json_dump_compact(failures);
            fail_why(why, "the stub's expectations failed: %s", text);
            free(text);
            return 1;
        }
        if (json_is_true(json_object_get(expect, "no_authorization_header")) &&
            json_object_get(json_object_get(req, "headers"), "authorization"))
            return fail_why(why, "an Authorization header was sent");
    }
    return 0;
}

static void run_client_case(const char *name, const json_t *c, case_tally *tally)
{
    stub s;
    stub_start(&s, json_object_get(c, "scenario"));
    llm_config cfg;
    config_from_case(&cfg, c, s.port);
    llm_request req;
    delta_sink sink = {{0}};
    request_from_case(&req, c, &sink);
    wait_count = 0;
    llm_response r;
    llm_error err;
    int rc = llm_chat(&cfg, &req, &r, &err);
    int before = tally->failures;
    check_outcome(name, c, rc, &r, &err, tally);
    if (tally->failures == before) {
        char why[WHY_SIZE];
        json_t *requests = stub_requests(&s);
        if (check_client(json_object_get(c, "expect"), requests, &r, &err, rc, &sink, why))
            case_tally_outcome(tally, name, c, 1, why);
        json_decref(requests);
    }
    llm_response_free(&r);
    llm_request_free(&req);
    llm_buf_free(&sink.text);
    stub_stop(&s);
}

static void client_file(const char *name, const json_t *doc, case_tally *tally)
{
    each_case(name, doc, tally, run_client_case);
}

static void test_client_cases(void **state)
{
    (void)state;
    if (!node_available()) {
        print_message("llm_client: node not found, skipped\n");
        skip();
    }
    setenv(KEY_ENV, "sk-test", 1);
    void (*saved)(long) = llm_sleep_fn;
    llm_sleep_fn = record_sleep;
    run_kind("llm_client", 0, client_file, 10);
    llm_sleep_fn = saved;
}

/* ----- failures without a server ----- */

static void test_missing_key(void **state)
{
    (void)state;
    llm_config cfg;
    llm_config_defaults(&cfg, LLM_PROVIDER_MISTRAL);
    snprintf(cfg.model, sizeof cfg.model, "mistral-small-latest");
    snprintf(cfg.api_key_env, sizeof cfg.api_key_env, "DBMCP_TEST_UNSET_KEY");
    unsetenv("DBMCP_TEST_UNSET_KEY");
    llm_request req;
    llm_request_init(&req);
    assert_non_null(llm_request_add(&req, LLM_ROLE_USER, "hi"));
    llm_response r;
    llm_error err;
    assert_int_equal(llm_chat(&cfg, &req, &r, &err), DBMCP_EINVAL);
    assert_int_equal(err.kind, LLM_ERR_CONFIG);
    assert_non_null(strstr(err.base.message, "DBMCP_TEST_UNSET_KEY"));
    assert_int_equal(err.attempts, 0);
    llm_response_free(&r);
    llm_request_free(&req);
}

static void test_connect_refused(void **state)
{
    (void)state;
    /* A port nobody listens on: bound here but not listening, so the
     * kernel refuses connections to it, and no other process can take it
     * while the test runs (a port closed again could be taken at once). */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    socklen_t alen = sizeof addr;
    getsockname(fd, (struct sockaddr *)&addr, &alen);
    llm_config cfg;
    llm_config_defaults(&cfg, LLM_PROVIDER_OLLAMA);
    snprintf(cfg.base_url, sizeof cfg.base_url, "http://127.0.0.1:%d/v1", ntohs(addr.sin_port));
    snprintf(cfg.model, sizeof cfg.model, "llama3");
    cfg.max_retries = 2;
    cfg.backoff_base_ms = 4;
    void (*saved)(long) = llm_sleep_fn;
    llm_sleep_fn = record_sleep;
    wait_count = 0;
    llm_request req;
    llm_request_init(&req);
    assert_non_null(llm_request_add(&req, LLM_ROLE_USER, "hi"));
    llm_response r;
    llm_error err;
    assert_int_equal(llm_chat(&cfg, &req, &r, &err), DBMCP_EIO);
    llm_sleep_fn = saved;
    close(fd);
    assert_int_equal(err.kind, LLM_ERR_CONNECT);
    assert_int_equal(err.attempts, 3);
    assert_int_equal(err.http_status, 0);
    assert_true(err.retryable);
    assert_string_equal(err.base.public_message, "the language model service could not be reached");
    /* Equal jitter: retry n waits within [step/2, step], step = 4 * 2^n. */
    assert_int_equal(wait_count, 2);
    assert_true(waits[0] >= 2 && waits[0] <= 4);
    assert_true(waits[1] >= 4 && waits[1] <= 8);
    llm_response_free(&r);
    llm_request_free(&req);
}

static void test_error_raw_bytes(void **state)
{
    (void)state;
    /* Invalid UTF-8, NUL bytes and control characters never reach a message
     * unsanitised, and a huge body is not parsed. */
    const char body[] = "\xff\xfe<b>\x00\x01 oops \xc3\x28 tail\r\n\tend";
    llm_error err;
    llm_error_clear(&err);
    llm_error_from_http(LLM_PROVIDER_VLLM, 500, NULL, body, sizeof body - 1, &err);
    assert_int_equal(err.kind, LLM_ERR_SERVER);
    for (const char *p = err.message; *p; p++)
        assert_true((unsigned char)*p >= 0x20);
    size_t big = (size_t)2 << 20;
    char *huge = malloc(big);
    assert_non_null(huge);
    memset(huge, '{', big);
    llm_error_from_http(LLM_PROVIDER_OPENAI, 400, NULL, huge, big, &err);
    assert_int_equal(err.kind, LLM_ERR_BAD_REQUEST);
    assert_true(strlen(err.message) < sizeof err.message);
    free(huge);
    llm_error_from_http(LLM_PROVIDER_OPENAI, 503, NULL, NULL, 10, &err);
    assert_int_equal(err.kind, LLM_ERR_OVERLOADED);
}

/* ----- Retry-After ----- */

static void test_retry_after(void **state)
{
    (void)state;
    long now = 1445412480; /* Wed, 21 Oct 2015 07:28:00 GMT */
    assert_int_equal(llm_retry_after_parse("120", now), 120000);
    assert_int_equal(llm_retry_after_parse(" 0 ", now), 0);
    assert_int_equal(llm_retry_after_parse("1.5", now), 1500);
    assert_int_equal(llm_retry_after_parse("Wed, 21 Oct 2015 07:28:30 GMT", now), 30000);
    assert_int_equal(llm_retry_after_parse("Wednesday, 21-Oct-15 07:29:00 GMT", now), 60000);
    assert_int_equal(llm_retry_after_parse("Wed Oct 21 07:28:10 2015", now), 10000);
    assert_int_equal(llm_retry_after_parse("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
    assert_int_equal(llm_retry_after_parse("-5", now), -1);
    assert_int_equal(llm_retry_after_parse("soon", now), -1);
    assert_int_equal(llm_retry_after_parse("12abc", now), -1);
    assert_int_equal(llm_retry_after_parse(NULL, now), -1);
}

/* ----- configuration ----- */

static void clear_llm_env(void)
{
    static const char *const vars[] = {"DBMCP_LLM_PROVIDER",
                                       "DBMCP_LLM_URL",
                                       "DBMCP_LLM_MODEL",
                                       "DBMCP_LLM_API_KEY_ENV",
                                       "DBMCP_LLM_AZURE_DEPLOYMENT",
                                       "DBMCP_LLM_AZURE_API_VERSION",
                                       "DBMCP_LLM_CONNECT_TIMEOUT_MS",
                                       "DBMCP_LLM_TIMEOUT_MS",
                                       "DBMCP_LLM_MAX_RETRIES",
                                       "DBMCP_LLM_BACKOFF_BASE_MS",
                                       "DBMCP_LLM_BACKOFF_MAX_MS",
                                       "DBMCP_LLM_MAX_RESPONSE_BYTES"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}

static void test_config(void **state)
{
    (void)state;
    clear_llm_env();
    llm_config cfg;
    dbmcp_error err;
    json_t *settings =
        json_pack("{s:s, s:s, s:s, s:s}", "llm.provider", "mistral", "llm.model",
                  "mistral-large-latest", "llm.timeout_ms", "5000", "llm.max_retries", "1");
    assert_int_equal(llm_config_load(&cfg, settings, &err), 0);
    assert_int_equal(cfg.provider, LLM_PROVIDER_MISTRAL);
    assert_string_equal(cfg.base_url, "https://api.mistral.ai/v1");
    assert_string_equal(cfg.api_key_env, "MISTRAL_API_KEY");
    assert_string_equal(cfg.model, "mistral-large-latest");
    assert_int_equal(cfg.timeout_ms, 5000);
    assert_int_equal(cfg.max_retries, 1);
    assert_int_equal(llm_config_check(&cfg, &err), 0);

    /* The environment wins over settings. */
    setenv("DBMCP_LLM_PROVIDER", "ollama", 1);
    setenv("DBMCP_LLM_URL", "http://gpu-box:11434/v1/", 1);
    setenv("DBMCP_LLM_MODEL", "qwen2.5:7b", 1);
    setenv("DBMCP_LLM_MAX_RETRIES", "0", 1);
    assert_int_equal(llm_config_load(&cfg, settings, &err), 0);
    assert_int_equal(cfg.provider, LLM_PROVIDER_OLLAMA);
    assert_string_equal(cfg.base_url, "http://gpu-box:11434/v1");
    assert_string_equal(cfg.model, "qwen2.5:7b");
    assert_string_equal(cfg.api_key_env, "");
    assert_int_equal(cfg.max_retries, 0);
    setenv("DBMCP_LLM_PROVIDER", "openai", 1);
    setenv("DBMCP_LLM_API_KEY_ENV", "none", 1);
    assert_int_equal(llm_config_load(&cfg, settings, &err), 0);
    assert_string_equal(cfg.api_key_env, "");
    setenv("DBMCP_LLM_API_KEY_ENV", "MY_GATEWAY_KEY", 1);
    assert_int_equal(llm_config_load(&cfg, settings, &err), 0);
    assert_string_equal(cfg.api_key_env, "MY_GATEWAY_KEY");
    unsetenv("DBMCP_LLM_API_KEY_ENV");
    setenv("DBMCP_LLM_PROVIDER", "ollama", 1);
    assert_int_equal(cfg.timeout_ms, 5000);
    char url[256];
    assert_int_equal(llm_config_chat_url(&cfg, url, sizeof url, &err), 0);
    assert_string_equal(url, "http://gpu-box:11434/v1/chat/completions");

    /* Errors name the variable and the rule. */
    setenv("DBMCP_LLM_MAX_RETRIES", "many", 1);
    assert_int_equal(llm_config_load(&cfg, settings, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "DBMCP_LLM_MAX_RETRIES"));
    assert_non_null(strstr(err.message, "between 0 and 20"));
    setenv("DBMCP_LLM_MAX_RETRIES", "2", 1);
    setenv("DBMCP_LLM_PROVIDER", "anthropic", 1);
    assert_int_equal(llm_config_load(&cfg, settings, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "unknown provider"));
    json_decref(settings);

    /* Provider guessed from the URL; Azure needs a URL. */
    clear_llm_env();
    setenv("DBMCP_LLM_URL", "https://myres.openai.azure.com", 1);
    setenv("DBMCP_LLM_AZURE_DEPLOYMENT", "gpt4o", 1);
    assert_int_equal(llm_config_load(&cfg, NULL, &err), 0);
    assert_int_equal(cfg.provider, LLM_PROVIDER_AZURE);
    assert_string_equal(cfg.api_key_env, "AZURE_OPENAI_API_KEY");
    assert_int_equal(llm_config_check(&cfg, &err), 0);
    assert_int_equal(llm_config_chat_url(&cfg, url, sizeof url, &err), 0);
    assert_string_equal(url, "https://myres.openai.azure.com/openai/deployments/gpt4o/chat/"
                             "completions?api-version=2024-10-21");
    clear_llm_env();
    setenv("DBMCP_LLM_PROVIDER", "azure", 1);
    assert_int_equal(llm_config_load(&cfg, NULL, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "required for azure"));
    clear_llm_env();
    assert_int_equal(llm_config_load(&cfg, NULL, &err), 0);
    assert_int_equal(cfg.provider, LLM_PROVIDER_OPENAI);
    assert_int_equal(llm_config_check(&cfg, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "no model"));
    snprintf(cfg.base_url, sizeof cfg.base_url, "ftp://x");
    snprintf(cfg.model, sizeof cfg.model, "m");
    assert_int_equal(llm_config_check(&cfg, &err), DBMCP_EINVAL);

    llm_provider p;
    assert_int_equal(llm_provider_parse("llama.cpp", &p), 0);
    assert_int_equal(p, LLM_PROVIDER_LLAMACPP);
    assert_string_equal(llm_provider_name(LLM_PROVIDER_VLLM), "vllm");
    assert_int_equal(llm_provider_parse("gemini", &p), -1);
}

/* ----- serialisation ----- */

static json_t *serialise(llm_provider p, const llm_request *req)
{
    llm_config cfg;
    llm_config_defaults(&cfg, p);
    snprintf(cfg.model, sizeof cfg.model, "m");
    dbmcp_error err;
    json_t *body = llm_request_to_json(&cfg, req, &err);
    if (!body)
        fail_msg("llm_request_to_json: %s", err.message);
    return body;
}

/* A conversation with one round of two tool calls. */
static void conversation(llm_request *req)
{
    llm_request_init(req);
    assert_non_null(llm_request_add(req, LLM_ROLE_SYSTEM, "Be brief."));
    assert_non_null(llm_request_add(req, LLM_ROLE_USER, "Weather in Paris and Nice?"));
    llm_message *a = llm_request_add(req, LLM_ROLE_ASSISTANT, "Looking it up.");
    assert_non_null(a);
    assert_non_null(
        llm_message_add_tool_call(a, "call_Zx81-long_id", "get_weather", "{\"city\":\"Paris\"}"));
    assert_non_null(llm_message_add_tool_call(a, "AbCdEf123", "get_weather", "{'city':'Nice'}"));
    assert_int_equal(llm_request_add_tool_result(req, "call_Zx81-long_id", "get_weather", "sunny"),
                     0);
    assert_int_equal(llm_request_add_tool_result(req, "AbCdEf123", "get_weather", "rain"), 0);
}

static void test_mistral_ids(void **state)
{
    (void)state;
    char a[LLM_MISTRAL_ID_LEN + 1], b[LLM_MISTRAL_ID_LEN + 1];
    llm_mistral_id("call_Zx81-long_id", a);
    llm_mistral_id("call_Zx81-long_id", b);
    assert_string_equal(a, b);
    assert_int_equal(strlen(a), 9);
    for (int i = 0; i < 9; i++)
        assert_true((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'z') ||
                    (a[i] >= 'A' && a[i] <= 'Z'));
    llm_mistral_id("AbCdEf123", b);
    assert_string_equal(b, "AbCdEf123");
    llm_mistral_id("call_Zx81-long_iD", b);
    assert_string_not_equal(a, b);
    llm_mistral_id("", b);
    assert_int_equal(strlen(b), 9);
    /* Distinct ids stay distinct over a realistic range. */
    char seen[2000][LLM_MISTRAL_ID_LEN + 1];
    for (int i = 0; i < 2000; i++) {
        char id[32];
        snprintf(id, sizeof id, "call_%d", i);
        llm_mistral_id(id, seen[i]);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(seen[i], seen[k]);
    }
}

static void test_serialise_mistral(void **state)
{
    (void)state;
    llm_request req;
    conversation(&req);
    req.stream = 1;
    req.max_tokens = 100;
    req.tool_choice = LLM_TOOL_CHOICE_REQUIRED;
    json_t *body = serialise(LLM_PROVIDER_MISTRAL, &req);
    json_t *msgs = json_object_get(body, "messages");
    json_t *asst = json_array_get(msgs, 2);
    char want[LLM_MISTRAL_ID_LEN + 1];
    llm_mistral_id("call_Zx81-long_id", want);
    /* content xor tool_calls */
    assert_null(json_object_get(asst, "content"));
    json_t *calls = json_object_get(asst, "tool_calls");
    assert_int_equal(json_array_size(calls), 2);
    assert_string_equal(json_get_str(json_array_get(calls, 0), "id"), want);
    assert_string_equal(json_get_str(json_array_get(calls, 1), "id"), "AbCdEf123");
    /* the same ids in the tool messages */
    assert_string_equal(json_get_str(json_array_get(msgs, 3), "tool_call_id"), want);
    assert_string_equal(json_get_str(json_array_get(msgs, 4), "tool_call_id"), "AbCdEf123");
    assert_string_equal(json_get_str(json_array_get(msgs, 3), "name"), "get_weather");
    /* repaired arguments go back as valid JSON */
    json_t *fn = json_object_get(json_array_get(calls, 1), "function");
    assert_string_equal(json_get_str(fn, "arguments"), "{\"city\":\"Nice\"}");
    /* no stream_options, max_tokens by that name, required choice */
    assert_null(json_object_get(body, "stream_options"));
    assert_true(json_is_true(json_object_get(body, "stream")));
    assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 100);
    assert_string_equal(json_get_str(body, "tool_choice"), "required");
    assert_null(json_object_get(body, "temperature"));
    /* the structs keep the original ids */
    assert_string_equal(req.messages[2].tool_calls[0].id, "call_Zx81-long_id");
    json_decref(body);
    llm_request_free(&req);
}

static void test_serialise_openai(void **state)
{
    (void)state;
    llm_request req;
    conversation(&req);
    req.stream = 1;
    req.max_tokens = 100;
    req.temperature = 0;
    req.tool_choice = LLM_TOOL_CHOICE_FUNCTION;
    req.tool_choice_name = strdup("get_weather");
    req.extra = json_pack("{s:i, s:{s:s}}", "seed", 7, "response_format", "type", "json_object");
    json_t *body = serialise(LLM_PROVIDER_OPENAI, &req);
    json_t *msgs = json_object_get(body, "messages");
    json_t *asst = json_array_get(msgs, 2);
    /* OpenAI keeps content beside tool_calls, and the ids as they were */
    assert_string_equal(json_get_str(asst, "content"), "Looking it up.");
    assert_string_equal(json_get_str(json_array_get(json_object_get(asst, "tool_calls"), 0), "id"),
                        "call_Zx81-long_id");
    assert_string_equal(json_get_str(json_array_get(msgs, 3), "tool_call_id"), "call_Zx81-long_id");
    assert_int_equal(json_integer_value(json_object_get(body, "max_completion_tokens")), 100);
    assert_null(json_object_get(body, "max_tokens"));
    assert_true(
        json_is_true(json_object_get(json_object_get(body, "stream_options"), "include_usage")));
    assert_true(json_real_value(json_object_get(body, "temperature")) == 0.0);
    assert_string_equal(
        json_get_str(json_object_get(json_object_get(body, "tool_choice"), "function"), "name"),
        "get_weather");
    assert_int_equal(json_integer_value(json_object_get(body, "seed")), 7);
    json_decref(body);

    /* An assistant message with only tool calls: content null. */
    free(req.messages[2].content);
    req.messages[2].content = NULL;
    body = serialise(LLM_PROVIDER_VLLM, &req);
    asst = json_array_get(json_object_get(body, "messages"), 2);
    assert_true(json_is_null(json_object_get(asst, "content")));
    assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 100);
    json_decref(body);
    llm_request_free(&req);
}

static void test_serialise_refusals(void **state)
{
    (void)state;
    llm_config cfg;
    llm_config_defaults(&cfg, LLM_PROVIDER_OPENAI);
    dbmcp_error err;
    llm_request req;
    llm_request_init(&req);
    assert_null(llm_request_to_json(&cfg, &req, &err));
    assert_non_null(strstr(err.message, "no messages"));
    assert_int_equal(llm_request_add_tool_result(&req, "", "f", "x"), 0);
    assert_null(llm_request_to_json(&cfg, &req, &err));
    assert_non_null(strstr(err.message, "tool_call_id"));
    llm_request_free(&req);
    assert_non_null(llm_request_add(&req, LLM_ROLE_USER, "x"));
    req.tool_choice = LLM_TOOL_CHOICE_FUNCTION;
    assert_null(llm_request_to_json(&cfg, &req, &err));
    assert_non_null(strstr(err.message, "names no function"));
    req.tool_choice = LLM_TOOL_CHOICE_AUTO;
    req.tools = json_object();
    assert_null(llm_request_to_json(&cfg, &req, &err));
    assert_non_null(strstr(err.message, "array"));
    llm_request_free(&req);
    /* Over the tool-call limit. */
    llm_message m;
    memset(&m, 0, sizeof m);
    m.role = LLM_ROLE_ASSISTANT;
    for (int i = 0; i < LLM_MAX_TOOL_CALLS; i++)
        assert_non_null(llm_message_add_tool_call(&m, "c", "f", NULL));
    assert_null(llm_message_add_tool_call(&m, "c", "f", NULL));
    llm_message_free(&m);
}

/* A response parsed, appended to the conversation, serialised, parsed back
 * by the stub's eyes: nothing is lost. */
static void test_round_trip(void **state)
{
    (void)state;
    const char *answer =
        "{\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"index\":0,\"finish_reason\":\"tool_calls\","
        "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"On it.\"}],"
        "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        "\"arguments\":\"{\\\"a\\\": [1, 2], \\\"b\\\": \\\"\\u00e9\\\"}\"}},"
        "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":"
        "\"{a: 1}\"}}]}}]}";
    llm_response r;
    llm_error err;
    assert_int_equal(llm_response_parse(LLM_PROVIDER_OPENAI, answer, strlen(answer), &r, &err), 0);
    assert_int_equal(r.repaired, 1);
    llm_request req;
    llm_request_init(&req);
    assert_non_null(llm_request_add(&req, LLM_ROLE_USER, "go"));
    assert_int_equal(llm_request_add_message(&req, &r.message), 0);
    assert_int_equal(llm_request_add_tool_result(&req, "call_1", "f", "ok"), 0);
    assert_int_equal(llm_request_add_tool_result(&req, "call_2", "g", "ok"), 0);
    llm_response_free(&r);
    for (int p = LLM_PROVIDER_OPENAI; p <= LLM_PROVIDER_LLAMACPP; p++) {
        json_t *body = serialise((llm_provider)p, &req);
        char *text = json_dump_compact(body);
        json_t *again = json_loads(text, 0, NULL);
        assert_non_null(again);
        json_t *asst = json_array_get(json_object_get(again, "messages"), 1);
        json_t *calls = json_object_get(asst, "tool_calls");
        assert_int_equal(json_array_size(calls), 2);
        for (size_t i = 0; i < 2; i++) {
            const char *args =
                json_get_str(json_object_get(json_array_get(calls, i), "function"), "arguments");
            json_t *parsed = json_loads(args, 0, NULL);
            assert_true(json_equal(parsed, req.messages[1].tool_calls[i].args));
            json_decref(parsed);
        }
        if (p == LLM_PROVIDER_MISTRAL)
            assert_null(json_object_get(asst, "content"));
        else
            assert_string_equal(json_get_str(asst, "content"), "On it.");
        json_decref(again);
        free(text);
        json_decref(body);
    }
    /* A copy is deep: freeing the request leaves the copy intact. */
    llm_message copy;
    assert_int_equal(llm_message_copy(&copy, &req.messages[1]), 0);
    llm_request_free(&req);
    assert_string_equal(copy.tool_calls[1].name, "g");
    assert_int_equal(json_integer_value(json_object_get(copy.tool_calls[1].args, "a")), 1);
    llm_message_free(&copy);
}

/* History as JSON: parsed into structs, written back the same. */
static void test_messages_json(void **state)
{
    (void)state;
    const char *text =
        "[{\"role\":\"system\",\"content\":\"S\"},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Q\"}],\"name\":\"ann\"},"
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":"
        "\"function\",\"function\":{\"name\":\"f\",\"arguments\":{\"a\":1}}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"name\":\"f\",\"content\":\"R\"}]";
    json_t *in = json_loads(text, 0, NULL);
    assert_non_null(in);
    llm_request req;
    llm_request_init(&req);
    dbmcp_error err;
    assert_int_equal(llm_request_add_json(&req, in, &err), 0);
    assert_int_equal(req.message_count, 4);
    assert_string_equal(req.messages[1].content, "Q");
    assert_null(req.messages[2].content);
    assert_int_equal(json_integer_value(json_object_get(req.messages[2].tool_calls[0].args, "a")),
                     1);
    assert_string_equal(req.messages[3].tool_call_id, "c1");
    json_t *back = json_array();
    for (size_t i = 0; i < req.message_count; i++)
        json_array_append_new(back, llm_message_to_json(&req.messages[i]));
    json_t *again = json_array();
    llm_request copy;
    llm_request_init(&copy);
    assert_int_equal(llm_request_add_json(&copy, back, &err), 0);
    for (size_t i = 0; i < copy.message_count; i++)
        json_array_append_new(again, llm_message_to_json(&copy.messages[i]));
    assert_true(json_equal(back, again));
    json_decref(back);
    json_decref(again);
    llm_request_free(&copy);
    llm_request_free(&req);
    json_decref(in);

    static const char *const bad[][2] = {
        {"[{\"role\":\"robot\",\"content\":\"x\"}]", "messages[0].role"},
        {"[{\"role\":\"user\",\"content\":1}]", "messages[0].content"},
        {"[{\"role\":\"tool\",\"content\":\"x\"}]", "messages[0].tool_call_id"},
        {"[{\"role\":\"user\"},{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{}}]}]",
         "messages[1].tool_calls[0]"},
        {"{}", "must be an array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *j = json_loads(bad[i][0], 0, NULL);
        llm_request_init(&req);
        assert_int_equal(llm_request_add_json(&req, j, &err), DBMCP_EINVAL);
        if (!strstr(err.message, bad[i][1]))
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i][0], err.message, bad[i][1]);
        llm_request_free(&req);
        json_decref(j);
    }
}

static int stop_after_first(void *ctx, const char *text, size_t len)
{
    (void)text;
    (void)len;
    return ++*(int *)ctx >= 1;
}

static void test_stream_cancel_and_limit(void **state)
{
    (void)state;
    const char *sse = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                      "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n";
    int calls = 0;
    llm_error err;
    llm_stream *s = llm_stream_new(LLM_PROVIDER_OPENAI, 0);
    assert_int_equal(llm_stream_feed(s, sse, strlen(sse), stop_after_first, &calls, &err),
                     DBMCP_EINVAL);
    assert_int_equal(err.kind, LLM_ERR_CANCELLED);
    assert_int_equal(calls, 1);
    /* later feeds keep the error */
    assert_int_equal(llm_stream_feed(s, "x", 1, NULL, NULL, &err), DBMCP_EINVAL);
    llm_response r;
    assert_int_equal(llm_stream_finish(s, &r, &err), DBMCP_EINVAL);
    llm_response_free(&r);
    llm_stream_free(s);

    s = llm_stream_new(LLM_PROVIDER_OPENAI, 40);
    assert_int_equal(llm_stream_feed(s, sse, strlen(sse), NULL, NULL, &err), DBMCP_ETOOBIG);
    assert_int_equal(err.kind, LLM_ERR_TOO_LARGE);
    llm_stream_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_cases),
        cmocka_unit_test(test_response_cases),
        cmocka_unit_test(test_stream_cases),
        cmocka_unit_test(test_client_cases),
        cmocka_unit_test(test_missing_key),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_error_raw_bytes),
        cmocka_unit_test(test_retry_after),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_mistral_ids),
        cmocka_unit_test(test_serialise_mistral),
        cmocka_unit_test(test_serialise_openai),
        cmocka_unit_test(test_serialise_refusals),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_messages_json),
        cmocka_unit_test(test_stream_cancel_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
