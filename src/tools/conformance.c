/*
 * conformance.c — fixture tools of the official MCP conformance suite
 * (@modelcontextprotocol/conformance). They belong to the built-in
 * `conformance` interface, which `dbmcp init` creates disabled; the test
 * script enables it. Names, texts and data are the ones the suite's
 * scenarios check. They also exercise every server feature a real tool can
 * use: content types, progress, logging, legacy sampling and elicitation,
 * and modern multi-round (input_required) results with requestState.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/builtins.h"
#include "tools/tool.h"

#define PNG_1X1                                                                                    \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJg" \
    "gg"                                                                                           \
    "=="
#define WAV_TINY "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void add_block(tool_output *out, json_t *block)
{
    if (!out->content)
        out->content = json_array();
    json_array_append_new(out->content, block);
}

static int t_simple_text(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    tool_output_text(out, "This is a simple text response for testing.");
    return 0;
}

static int t_image(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    add_block(out, json_pack("{s:s, s:s, s:s}", "type", "image", "data", PNG_1X1, "mimeType",
                             "image/png"));
    return 0;
}

static int t_audio(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    add_block(out, json_pack("{s:s, s:s, s:s}", "type", "audio", "data", WAV_TINY, "mimeType",
                             "audio/wav"));
    return 0;
}

static int t_embedded(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    add_block(out, json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "resource", "resource", "uri",
                             "test://embedded-resource", "mimeType", "text/plain", "text",
                             "This is an embedded resource content."));
    return 0;
}

static int t_mixed(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    tool_output_text(out, "Multiple content types test:");
    add_block(out, json_pack("{s:s, s:s, s:s}", "type", "image", "data", PNG_1X1, "mimeType",
                             "image/png"));
    add_block(out, json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "resource", "resource", "uri",
                             "test://mixed-content-resource", "mimeType", "application/json",
                             "text", "{\"test\":\"data\",\"value\":123}"));
    return 0;
}

static int t_error(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)args, (void)err;
    tool_output_text(out, "This tool intentionally returns an error for testing");
    out->is_error = 1;
    return 0;
}

static int t_progress(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    for (int step = 0; step <= 2; step++) {
        if (step)
            sleep_ms(50);
        env->progress(env, step * 50.0, 100.0, NULL);
    }
    tool_output_text(out, "Progress test completed");
    return 0;
}

static int t_logging(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    static const char *lines[] = {"Tool execution started", "Tool processing data",
                                  "Tool execution completed"};
    for (int i = 0; i < 3; i++) {
        if (i)
            sleep_ms(50);
        env->log(env, "info", json_string(lines[i]));
    }
    tool_output_text(out, "Logging test completed");
    return 0;
}

/* Legacy: ask the client and return its answer as text. */
static int ask_client(tool_env *env, const char *method, json_t *params, const char *prefix,
                      tool_output *out, dbmcp_error *err)
{
    json_t *answer = env->client_request(env, method, params, err);
    if (!answer)
        return err->code;
    json_t *content = json_object_get(answer, "content");
    const char *text = json_string_value(json_object_get(content, "text"));
    char *dump = NULL;
    if (!text) {
        dump = json_dumps(answer, JSON_COMPACT);
        text = dump;
    }
    char *msg = NULL;
    if (asprintf(&msg, "%s%s", prefix, text ? text : "") >= 0)
        tool_output_text(out, msg);
    free(msg);
    free(dump);
    json_decref(answer);
    return 0;
}

static int t_sampling(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    const char *prompt = json_string_value(json_object_get(args, "prompt"));
    json_t *params =
        json_pack("{s:[{s:s, s:{s:s, s:s}}], s:i}", "messages", "role", "user", "content", "type",
                  "text", "text", prompt ? prompt : "", "maxTokens", 100);
    return ask_client(env, "sampling/createMessage", params, "LLM response: ", out, err);
}

static json_t *user_info_schema(void)
{
    return json_pack("{s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}, s:[s,s]}", "type", "object",
                     "properties", "username", "type", "string", "description", "User's response",
                     "email", "type", "string", "description", "User's email address", "required",
                     "username", "email");
}

static int t_elicitation(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    const char *message = json_string_value(json_object_get(args, "message"));
    json_t *params = json_pack("{s:s, s:s, s:o}", "mode", "form", "message",
                               message ? message : "Please provide your information",
                               "requestedSchema", user_info_schema());
    return ask_client(env, "elicitation/create", params, "User response: ", out, err);
}

static int t_sep1034(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args;
    json_t *schema =
        json_pack("{s:s, s:{s:{s:s, s:s}, s:{s:s, s:i}, s:{s:s, s:f}, s:{s:s, s:[s,s,s], s:s}, "
                  "s:{s:s, s:b}}}",
                  "type", "object", "properties", "name", "type", "string", "default", "John Doe",
                  "age", "type", "integer", "default", 30, "score", "type", "number", "default",
                  95.5, "status", "type", "string", "enum", "active", "inactive", "pending",
                  "default", "active", "verified", "type", "boolean", "default", 1);
    json_t *params = json_pack("{s:s, s:s, s:o}", "mode", "form", "message",
                               "Please review and update the form fields with defaults",
                               "requestedSchema", schema);
    return ask_client(env, "elicitation/create", params, "Elicitation completed: ", out, err);
}

static json_t *titled(const char *a, const char *ta, const char *b, const char *tb, const char *c,
                      const char *tc)
{
    return json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]", "const", a, "title", ta, "const", b,
                     "title", tb, "const", c, "title", tc);
}

static int t_sep1330(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args;
    json_t *props = json_object();
    json_object_set_new(
        props, "untitledSingle",
        json_pack("{s:s, s:[s,s,s]}", "type", "string", "enum", "option1", "option2", "option3"));
    json_object_set_new(props, "titledSingle",
                        json_pack("{s:s, s:o}", "type", "string", "oneOf",
                                  titled("value1", "First Option", "value2", "Second Option",
                                         "value3", "Third Option")));
    json_object_set_new(props, "legacyEnum",
                        json_pack("{s:s, s:[s,s,s], s:[s,s,s]}", "type", "string", "enum", "opt1",
                                  "opt2", "opt3", "enumNames", "Option One", "Option Two",
                                  "Option Three"));
    json_object_set_new(props, "untitledMulti",
                        json_pack("{s:s, s:{s:s, s:[s,s,s]}}", "type", "array", "items", "type",
                                  "string", "enum", "option1", "option2", "option3"));
    json_object_set_new(props, "titledMulti",
                        json_pack("{s:s, s:{s:o}}", "type", "array", "items", "anyOf",
                                  titled("value1", "First Choice", "value2", "Second Choice",
                                         "value3", "Third Choice")));
    json_t *params = json_pack("{s:s, s:s, s:{s:s, s:o}}", "mode", "form", "message",
                               "Please choose from the enum options", "requestedSchema", "type",
                               "object", "properties", props);
    return ask_client(env, "elicitation/create", params, "Elicitation completed: ", out, err);
}

static int has_capability(tool_env *env, const char *cap)
{
    return json_object_get(env->client_capabilities, cap) != NULL;
}

static int t_missing_capability(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err)
{
    (void)args, (void)err;
    if (!has_capability(env, "sampling")) {
        out->missing_capabilities = json_pack("{s:{}}", "sampling");
        return 0;
    }
    tool_output_text(out, "The client declared sampling.");
    return 0;
}

static int t_logging_quiet(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    env->log(env, "info", json_string("test_logging_tool ran"));
    tool_output_text(out, "Logging tool completed");
    return 0;
}

static int t_trigger(tool_env *env, const char *kind, tool_output *out)
{
    env->announce_change(env, kind);
    tool_output_text(out, "Change announced");
    return 0;
}

static int t_trigger_tools(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    return t_trigger(env, "tools", out);
}

static int t_trigger_prompts(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    return t_trigger(env, "prompts", out);
}

/* --- multi-round (2026-07-28 input_required) --------------------------------- */

static void request_input(tool_output *out, const char *key, json_t *request)
{
    if (!out->input_required)
        out->input_required = json_pack("{s:{}}", "inputRequests");
    json_object_set_new(json_object_get(out->input_required, "inputRequests"), key, request);
}

static json_t *elicit_request(const char *message, const char *property, const char *type)
{
    return json_pack("{s:s, s:{s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}}", "method", "elicitation/create",
                     "params", "message", message, "requestedSchema", "type", "object",
                     "properties", property, "type", type, "required", property);
}

static json_t *sampling_request(const char *text, int max_tokens)
{
    return json_pack("{s:s, s:{s:[{s:s, s:{s:s, s:s}}], s:i}}", "method", "sampling/createMessage",
                     "params", "messages", "role", "user", "content", "type", "text", "text", text,
                     "maxTokens", max_tokens);
}

static json_t *roots_request(void)
{
    return json_pack("{s:s, s:{}}", "method", "roots/list", "params");
}

/* The accepted elicitation answer's content[field] as a string, or NULL. */
static const char *accepted_field(tool_env *env, const char *key, const char *field)
{
    json_t *r = json_object_get(env->input_responses, key);
    if (!json_is_object(r) ||
        strcmp(json_string_value(json_object_get(r, "action")) ?: "", "accept"))
        return NULL;
    return json_string_value(json_object_get(json_object_get(r, "content"), field));
}

static json_t *response_of(tool_env *env, const char *key)
{
    json_t *r = json_object_get(env->input_responses, key);
    return json_is_object(r) ? r : NULL;
}

static int t_ir_elicitation(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    const char *name = accepted_field(env, "user_name", "name");
    if (!name) {
        request_input(out, "user_name", elicit_request("What is your name?", "name", "string"));
        return 0;
    }
    char msg[256];
    snprintf(msg, sizeof msg, "Hello, %s!", name);
    tool_output_text(out, msg);
    return 0;
}

static int t_ir_sampling(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    json_t *r = response_of(env, "capital_question");
    const char *text = json_string_value(json_object_get(json_object_get(r, "content"), "text"));
    if (!text) {
        request_input(out, "capital_question",
                      sampling_request("What is the capital of France?", 100));
        return 0;
    }
    char msg[512];
    snprintf(msg, sizeof msg, "Sampling answered: %s", text);
    tool_output_text(out, msg);
    return 0;
}

static int t_ir_roots(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    json_t *roots = json_object_get(response_of(env, "client_roots"), "roots");
    if (!json_is_array(roots)) {
        request_input(out, "client_roots", roots_request());
        return 0;
    }
    char msg[512];
    json_t *first = json_array_get(roots, 0);
    snprintf(msg, sizeof msg, "Client roots: %zu (first: %s)", json_array_size(roots),
             json_string_value(json_object_get(first, "uri")) ?: "none");
    tool_output_text(out, msg);
    return 0;
}

static int t_ir_request_state(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    json_t *r = response_of(env, "confirm");
    if (env->request_state && strcmp(env->request_state, "confirm:pending") == 0 && r) {
        tool_output_text(out, "state-ok: confirmation received");
        return 0;
    }
    request_input(out, "confirm", elicit_request("Please confirm", "ok", "boolean"));
    out->request_state = strdup("confirm:pending");
    return 0;
}

static int t_ir_multiple(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    if (env->request_state && response_of(env, "user_name") && response_of(env, "greeting") &&
        response_of(env, "client_roots")) {
        tool_output_text(out, "All three inputs received");
        return 0;
    }
    request_input(out, "user_name", elicit_request("What is your name?", "name", "string"));
    request_input(out, "greeting", sampling_request("Generate a greeting", 50));
    request_input(out, "client_roots", roots_request());
    out->request_state = strdup("multiple:pending");
    return 0;
}

static int t_ir_multi_round(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    const char *state = env->request_state ? env->request_state : "";
    const char *name = accepted_field(env, "step1", "name");
    const char *color = accepted_field(env, "step2", "color");
    if (strncmp(state, "round2:", 7) == 0 && color) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s likes %s", state + 7, color);
        tool_output_text(out, msg);
        return 0;
    }
    if (strcmp(state, "round1") == 0 && name) {
        request_input(out, "step2",
                      elicit_request("Step 2: What is your favorite color?", "color", "string"));
        if (asprintf(&out->request_state, "round2:%s", name) < 0)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        return 0;
    }
    request_input(out, "step1", elicit_request("Step 1: What is your name?", "name", "string"));
    out->request_state = strdup("round1");
    return 0;
}

static int t_ir_tampered(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    if (env->request_state && strcmp(env->request_state, "tamper-check") == 0) {
        tool_output_text(out, "requestState verified");
        return 0;
    }
    request_input(out, "confirm", elicit_request("Please confirm", "ok", "boolean"));
    out->request_state = strdup("tamper-check");
    return 0;
}

/* Asks only for what the client declared it can answer. */
static int t_ir_capabilities(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args, (void)err;
    if (env->input_responses && json_object_size(env->input_responses) > 0) {
        tool_output_text(out, "Inputs received");
        return 0;
    }
    if (has_capability(env, "elicitation"))
        request_input(out, "user_name", elicit_request("What is your name?", "name", "string"));
    if (has_capability(env, "sampling"))
        request_input(out, "greeting", sampling_request("Generate a greeting", 50));
    if (has_capability(env, "roots"))
        request_input(out, "client_roots", roots_request());
    if (!out->input_required)
        tool_output_text(out, "The client declared no capability to ask with");
    return 0;
}

static int t_streaming_elicitation(tool_env *env, const json_t *args, tool_output *out,
                                   dbmcp_error *err)
{
    if (!env->stateless)
        return t_elicitation(env, args, out, err);
    return t_ir_elicitation(env, args, out, err);
}

/* --- tasks extension (io.modelcontextprotocol/tasks) ------------------------------ */

/* Sleep ms in short steps; nonzero when the call was cancelled meanwhile. */
static int nap(tool_env *env, long ms)
{
    for (long slept = 0; slept < ms; slept += 50) {
        if (env->cancelled && *env->cancelled)
            return 1;
        sleep_ms(ms - slept < 50 ? ms - slept : 50);
    }
    return env->cancelled && *env->cancelled;
}

static int cancelled_error(dbmcp_error *err)
{
    dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled");
    snprintf(err->public_message, sizeof err->public_message, "The call was cancelled");
    return DBMCP_ETIMEOUT;
}

static int t_greet(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)err;
    const char *name = json_string_value(json_object_get(args, "name"));
    char msg[300];
    snprintf(msg, sizeof msg, "Hello, %s!", name ? name : "World");
    tool_output_text(out, msg);
    return 0;
}

static int t_slow_compute(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    double seconds = json_number_value(json_object_get(args, "seconds"));
    const char *label = json_string_value(json_object_get(args, "label"));
    long ms = (long)(seconds * 1000);
    for (long done = 0; done < ms; done += 250) {
        if (nap(env, ms - done < 250 ? ms - done : 250))
            return cancelled_error(err);
        if (env->progress)
            env->progress(env, (double)(done + 250 < ms ? done + 250 : ms), (double)ms, NULL);
    }
    char msg[300];
    snprintf(msg, sizeof msg, "Computed %s after %g seconds", label ? label : "result", seconds);
    tool_output_text(out, msg);
    return 0;
}

static int t_failing_job(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args;
    if (nap(env, 1000))
        return cancelled_error(err);
    tool_output_text(out, "The job failed: the fixture always fails");
    out->is_error = 1;
    return 0;
}

static int t_protocol_error_job(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err)
{
    (void)args;
    if (nap(env, 500))
        return cancelled_error(err);
    out->protocol_error = strdup("Internal error: the fixture failed below the tool");
    return 0;
}

static int t_confirm_delete(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    const char *file = json_string_value(json_object_get(args, "filename"));
    json_t *answer = response_of(env, "confirm");
    if (!answer) {
        /* looking the file up takes a moment: the call becomes a task first */
        if (nap(env, 500))
            return cancelled_error(err);
        request_input(out, "confirm", elicit_request("Delete this file?", "confirm", "boolean"));
        return 0;
    }
    int yes = json_is_true(json_object_get(json_object_get(answer, "content"), "confirm"));
    char msg[300];
    snprintf(msg, sizeof msg, "%s %s", yes ? "Deleted" : "Kept", file ? file : "the file");
    tool_output_text(out, msg);
    return 0;
}

static int t_multi_input(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args;
    json_t *a = response_of(env, "name"), *b = response_of(env, "confirm");
    if (!a || !b) {
        if (nap(env, 500))
            return cancelled_error(err);
        if (!a)
            request_input(out, "name", elicit_request("Your name?", "name", "string"));
        if (!b)
            request_input(out, "confirm", elicit_request("Go ahead?", "confirm", "boolean"));
        return 0;
    }
    const char *name = json_string_value(json_object_get(json_object_get(a, "content"), "name"));
    char msg[300];
    snprintf(msg, sizeof msg, "Both inputs received (%s)", name ? name : "");
    tool_output_text(out, msg);
    return 0;
}

static int t_tool_with_task(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)args;
    const char *name = accepted_field(env, "user_name", "name");
    if (!name) {
        request_input(out, "user_name", elicit_request("What is your name?", "name", "string"));
        return 0;
    }
    if (nap(env, 1000))
        return cancelled_error(err);
    char msg[300];
    snprintf(msg, sizeof msg, "Hello, %s! (computed as a task)", name);
    tool_output_text(out, msg);
    return 0;
}

static int t_custom_header(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    (void)env, (void)err;
    const char *region = json_string_value(json_object_get(args, "region"));
    char msg[300];
    snprintf(msg, sizeof msg, "Region: %s", region ? region : "");
    tool_output_text(out, msg);
    return 0;
}

typedef struct fixture {
    const char *name;
    tool_handler_fn fn;
    tools_task_kind task;
} fixture;

static const fixture fixtures[] = {
    {"conformance_simple_text", t_simple_text, TOOLS_TASK_FORBIDDEN},
    {"conformance_image", t_image, TOOLS_TASK_FORBIDDEN},
    {"conformance_audio", t_audio, TOOLS_TASK_FORBIDDEN},
    {"conformance_embedded_resource", t_embedded, TOOLS_TASK_FORBIDDEN},
    {"conformance_mixed", t_mixed, TOOLS_TASK_FORBIDDEN},
    {"conformance_error", t_error, TOOLS_TASK_FORBIDDEN},
    {"conformance_progress", t_progress, TOOLS_TASK_FORBIDDEN},
    {"conformance_logging", t_logging, TOOLS_TASK_FORBIDDEN},
    {"conformance_sampling", t_sampling, TOOLS_TASK_FORBIDDEN},
    {"conformance_elicitation", t_elicitation, TOOLS_TASK_FORBIDDEN},
    {"conformance_sep1034", t_sep1034, TOOLS_TASK_FORBIDDEN},
    {"conformance_sep1330", t_sep1330, TOOLS_TASK_FORBIDDEN},
    {"conformance_missing_capability", t_missing_capability, TOOLS_TASK_FORBIDDEN},
    {"conformance_streaming_elicitation", t_streaming_elicitation, TOOLS_TASK_FORBIDDEN},
    {"conformance_logging_quiet", t_logging_quiet, TOOLS_TASK_FORBIDDEN},
    {"conformance_trigger_tools", t_trigger_tools, TOOLS_TASK_FORBIDDEN},
    {"conformance_trigger_prompts", t_trigger_prompts, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_elicitation", t_ir_elicitation, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_sampling", t_ir_sampling, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_roots", t_ir_roots, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_request_state", t_ir_request_state, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_multiple", t_ir_multiple, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_multi_round", t_ir_multi_round, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_tampered", t_ir_tampered, TOOLS_TASK_FORBIDDEN},
    {"conformance_ir_capabilities", t_ir_capabilities, TOOLS_TASK_FORBIDDEN},
    {"conformance_greet", t_greet, TOOLS_TASK_FORBIDDEN},
    {"conformance_slow_compute", t_slow_compute, TOOLS_TASK_OPTIONAL},
    {"conformance_failing_job", t_failing_job, TOOLS_TASK_REQUIRED},
    {"conformance_protocol_error_job", t_protocol_error_job, TOOLS_TASK_OPTIONAL},
    {"conformance_confirm_delete", t_confirm_delete, TOOLS_TASK_OPTIONAL},
    {"conformance_multi_input", t_multi_input, TOOLS_TASK_OPTIONAL},
    {"conformance_tool_with_task", t_tool_with_task, TOOLS_TASK_REQUIRED},
    {"conformance_custom_header", t_custom_header, TOOLS_TASK_FORBIDDEN},
    {NULL, NULL, TOOLS_TASK_FORBIDDEN},
};

tool_handler_fn tools_conformance_find(const char *name)
{
    for (const fixture *f = fixtures; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f->fn;
    return NULL;
}

tools_task_kind tools_conformance_task_support(const char *name)
{
    for (const fixture *f = fixtures; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f->task;
    return TOOLS_TASK_FORBIDDEN;
}

int tools_builtin_template_read(const char *handler, const char *uri, const json_t *vars,
                                char **text_out, dbmcp_error *err)
{
    *text_out = NULL;
    if (strcmp(handler, "conformance_template") != 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no builtin template handler '%s'", handler);
    (void)uri;
    const char *id = json_string_value(json_object_get(vars, "id"));
    json_t *doc = json_pack("{s:s, s:b, s:s+}", "id", id ? id : "", "templateTest", 1, "data",
                            "Data for ID: ", id ? id : "");
    *text_out = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return *text_out ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
}
