/*
 * llm.h — the LLM provider client and its typed model: chat completions
 * against any OpenAI-compatible service (OpenAI, Mistral, Azure OpenAI,
 * Ollama /v1, vLLM, the llama.cpp server), streaming or not, with retries,
 * timeouts, provider quirks and one normalised error.
 *
 * The model is C structs parsed once at the edge: an llm_request holds the
 * conversation (llm_message, each with its llm_tool_call list), the tool
 * definitions and the sampling options; llm_chat sends it and fills an
 * llm_response (the assistant message, a finish-reason enum, usage,
 * latency) or an llm_error. Streaming (req->stream) gives the same
 * llm_response as a non-streaming call: deltas are accumulated (tool-call
 * deltas by index, checked for consistency) while req->on_delta sees the
 * text as it arrives.
 *
 * Provider quirks are applied on the wire only, by llm_request_to_json; the
 * structs keep what the application and the model said:
 *   - Mistral: tool-call ids are rewritten to 9 characters [a-zA-Z0-9]
 *     (a stable hash of the original id, identical in the assistant
 *     message's tool_calls and in the tool message answering it; an id that
 *     already has that shape is kept), and an assistant message carries
 *     content or tool_calls, never both (the content of an assistant message
 *     with tool calls is dropped); no stream_options are sent.
 *   - Azure: {base}/openai/deployments/{deployment}/chat/completions
 *     ?api-version=V with the key in the `api-key` header (everyone else:
 *     {base}/chat/completions with `Authorization: Bearer KEY`).
 *   - OpenAI: max_tokens is sent as max_completion_tokens.
 *
 * Errors. Every failure of llm_chat is an llm_error: provider, HTTP status,
 * the provider's type and code, a normalised kind, the provider's message
 * (sanitised: one line, at most 500 bytes, for the operator only),
 * retryable and retry_after_ms. It is normalised from every shape a
 * provider answers with: {"error":{...}} (OpenAI, Azure, vLLM, llama.cpp,
 * Ollama /v1), {"error":"text"} (Ollama), Azure API Management
 * {"statusCode":N,"message":"..."}, Mistral {"object":"error","message":
 * string-or-object,"type":...,"code":...}, FastAPI {"detail":...}, HTML
 * and plain-text pages, and an error event inside an SSE stream after a
 * 200. err->base.public_message never contains provider text: it is a fixed
 * sentence per kind ("the language model service is rate limiting requests
 * (HTTP 429)"). Nothing here aborts.
 *
 * Retries (llm_chat): on connection failures, timeouts, 408, 409, 425, 429,
 * 5xx and 529, and on a stream cut before its end when no on_delta callback
 * has been given text yet; never on 400, 401, 403, 404, 413, 422 nor on a
 * quota error (code/type insufficient_quota, billing_*, "quota" in the
 * type) whatever its status. Backoff: backoff_base_ms * 2^attempt with full
 * jitter, capped by backoff_max_ms; a Retry-After header (seconds or an HTTP
 * date) or retry-after-ms header is honoured instead when present, and a
 * wait longer than backoff_max_ms ends the retries (the error is returned
 * with retry_after_ms set so the caller can decide).
 *
 * Tool-call arguments are kept as the raw text the model sent and parsed
 * once: strictly first, then with the repair engine (core/json_repair.h); a
 * repaired call has repaired = 1 (and the response too); arguments that
 * cannot be recovered leave args NULL and args_error set — the response is
 * still returned so the agent loop can ask the model to correct itself.
 *
 * Ownership. Every char * and json_t * in these structs is owned by the
 * struct that holds it (malloc'd strings, one json_t reference) and freed by
 * its _free function: llm_message_free, llm_request_free,
 * llm_response_free. Setting a field by hand means handing it a malloc'd
 * string (strdup) or a reference (json_incref). llm_config and llm_error
 * own no heap memory. Zeroed structs are valid empty values.
 *
 * Thread-safety: llm_chat may run in several threads at once with distinct
 * requests and responses. libcurl is opened on the first llm_chat (see
 * core/curl_lib.h); when it is missing, llm_chat fails with LLM_ERR_CONFIG.
 */
#ifndef DBMCP_LLM_LLM_H
#define DBMCP_LLM_LLM_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"

/* --- limits and defaults ------------------------------------------------ */

#define LLM_DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define LLM_DEFAULT_TIMEOUT_MS 120000L
#define LLM_DEFAULT_MAX_RETRIES 3
#define LLM_DEFAULT_BACKOFF_BASE_MS 500L
#define LLM_DEFAULT_BACKOFF_MAX_MS 30000L
#define LLM_DEFAULT_MAX_RESPONSE_BYTES ((size_t)8 << 20) /* 8 MiB */
#define LLM_MAX_TOOL_CALLS 128                           /* per assistant message */
#define LLM_MISTRAL_ID_LEN 9

/* --- configuration ------------------------------------------------------- */

typedef enum llm_provider {
    LLM_PROVIDER_OPENAI = 0, /* also any unnamed OpenAI-compatible service */
    LLM_PROVIDER_MISTRAL,
    LLM_PROVIDER_AZURE,
    LLM_PROVIDER_OLLAMA,
    LLM_PROVIDER_VLLM,
    LLM_PROVIDER_LLAMACPP
} llm_provider;

typedef struct llm_config {
    llm_provider provider;
    char base_url[512];         /* e.g. "https://api.mistral.ai/v1", no trailing '/' */
    char model[128];            /* model name sent in every request */
    char api_key_env[128];      /* NAME of the env var holding the key; "" = no key */
    char azure_deployment[128]; /* Azure: deployment name ("" = use model) */
    char azure_api_version[32]; /* Azure: api-version query parameter */
    long connect_timeout_ms;    /* TCP + TLS connect, per attempt */
    long timeout_ms;            /* whole attempt, including a stream */
    int max_retries;            /* extra attempts after the first (0 = none) */
    long backoff_base_ms;       /* first backoff step */
    long backoff_max_ms;        /* cap on any wait, Retry-After included */
    size_t max_response_bytes;  /* a larger body or stream is an error */
} llm_config;

/* Defaults for provider (base URL, key variable, timeouts, retries):
 * openai https://api.openai.com/v1 + OPENAI_API_KEY; mistral
 * https://api.mistral.ai/v1 + MISTRAL_API_KEY; azure (no URL) +
 * AZURE_OPENAI_API_KEY, api-version 2024-10-21; ollama
 * http://127.0.0.1:11434/v1; vllm http://127.0.0.1:8000/v1; llamacpp
 * http://127.0.0.1:8080/v1 (the local ones: no key). model is left "". */
void llm_config_defaults(llm_config *cfg, llm_provider provider);

/* Fill cfg from settings (a JSON object {key: string}, as
 * reg_settings_all gives; NULL = none) overridden by the environment:
 *   llm.provider            DBMCP_LLM_PROVIDER       openai|mistral|azure|ollama|vllm|llamacpp
 *   llm.url                 DBMCP_LLM_URL            base URL
 *   llm.model               DBMCP_LLM_MODEL
 *   llm.api_key_env         DBMCP_LLM_API_KEY_ENV    name of the variable with the key
 *                                                    ("none": send no key)
 *   llm.azure_deployment    DBMCP_LLM_AZURE_DEPLOYMENT
 *   llm.azure_api_version   DBMCP_LLM_AZURE_API_VERSION
 *   llm.connect_timeout_ms  DBMCP_LLM_CONNECT_TIMEOUT_MS
 *   llm.timeout_ms          DBMCP_LLM_TIMEOUT_MS
 *   llm.max_retries         DBMCP_LLM_MAX_RETRIES
 *   llm.backoff_base_ms     DBMCP_LLM_BACKOFF_BASE_MS
 *   llm.backoff_max_ms      DBMCP_LLM_BACKOFF_MAX_MS
 *   llm.max_response_bytes  DBMCP_LLM_MAX_RESPONSE_BYTES
 * When no provider is named it is guessed from the URL (api.mistral.ai →
 * mistral, *.openai.azure.com → azure, :11434 → ollama), else openai.
 * The key itself is never a setting. Returns 0, or DBMCP_EINVAL naming the
 * setting/variable and the rule (unknown provider, non-numeric or negative
 * number, value too long, azure without URL). Does not require a model. */
int llm_config_load(llm_config *cfg, const json_t *settings, dbmcp_error *err);

/* Check that cfg can be used for a call: base URL and model set (azure:
 * deployment or model), URL http(s). 0 or DBMCP_EINVAL with the reason. */
int llm_config_check(const llm_config *cfg, dbmcp_error *err);

/* The chat-completions URL for cfg into out. 0, or DBMCP_ETOOBIG. */
int llm_config_chat_url(const llm_config *cfg, char *out, size_t size, dbmcp_error *err);

/* "openai", "mistral", "azure", "ollama", "vllm", "llamacpp". Never NULL. */
const char *llm_provider_name(llm_provider provider);
/* Parse a provider name (case-insensitive; "llama.cpp" and "azure_openai"
 * accepted). 0 or -1 when unknown. */
int llm_provider_parse(const char *name, llm_provider *out);

/* --- messages ---------------------------------------------------------- */

typedef enum llm_role {
    LLM_ROLE_SYSTEM = 0,
    LLM_ROLE_USER,
    LLM_ROLE_ASSISTANT,
    LLM_ROLE_TOOL
} llm_role;

typedef struct llm_tool_call {
    char *id;         /* the id as the provider sent it (wire rewriting is not stored) */
    char *name;       /* function name */
    char *arguments;  /* raw argument text as the model sent it ("" when none) */
    json_t *args;     /* parsed arguments (an object), NULL when unrecoverable */
    char *args_error; /* why args is NULL (for the correction message), else NULL */
    int repaired;     /* args needed the repair engine */
} llm_tool_call;

typedef struct llm_message {
    llm_role role;
    char *content;             /* text; NULL = none (assistant with only tool calls) */
    llm_tool_call *tool_calls; /* assistant: calls requested, tool_call_count entries */
    size_t tool_call_count;
    char *tool_call_id; /* tool: the call this message answers */
    char *name;         /* tool: the function name; user: optional participant */
} llm_message;

/* Parse a tool call's argument text into tc->args / tc->args_error /
 * tc->repaired (strict JSON object first, then repair_json). Replaces any
 * previous parse. "" and whitespace parse as {}. A value that is not an
 * object is an error. Returns 0 when args is set, DBMCP_EINVAL otherwise
 * (never fails for allocation reasons silently: DBMCP_ENOMEM). */
int llm_tool_call_parse_arguments(llm_tool_call *tc);

/* Deep copy of src into *dst (zeroed first). 0 or DBMCP_ENOMEM. */
int llm_message_copy(llm_message *dst, const llm_message *src);
/* Free what m owns and zero it; safe on a zeroed message. */
void llm_message_free(llm_message *m);
/* "system", "user", "assistant", "tool". */
const char *llm_role_name(llm_role role);

/* --- requests ------------------------------------------------------------ */

typedef enum llm_tool_choice {
    LLM_TOOL_CHOICE_UNSET = 0, /* not sent: the provider's default (auto with tools) */
    LLM_TOOL_CHOICE_NONE,
    LLM_TOOL_CHOICE_AUTO,
    LLM_TOOL_CHOICE_REQUIRED, /* Mistral accepts "required" too ("any" is its alias) */
    LLM_TOOL_CHOICE_FUNCTION  /* the one function named in tool_choice_name */
} llm_tool_choice;

/* Called with each piece of assistant text as a stream delivers it (not
 * NUL-terminated). Return nonzero to abort the call (DBMCP_EINVAL,
 * kind LLM_ERR_CANCELLED). */
typedef int (*llm_delta_fn)(void *ctx, const char *text, size_t len);

typedef struct llm_request {
    llm_message *messages; /* the conversation, in order (owned) */
    size_t message_count;
    size_t message_capacity; /* allocated entries of messages */
    json_t *tools;           /* array of {"type":"function","function":{name,
                                description, parameters}} or NULL (owned ref) */
    llm_tool_choice tool_choice;
    char *tool_choice_name; /* LLM_TOOL_CHOICE_FUNCTION: function name (owned) */
    double temperature;     /* sent when >= 0; init sets -1 */
    int max_tokens;         /* sent when > 0 */
    int stream;             /* 1: ask for SSE and accumulate it */
    char *model;            /* overrides the config's model when set (owned) */
    json_t *extra;          /* object merged into the body last (owned ref or NULL),
                               e.g. {"response_format":…,"seed":1} */
    llm_delta_fn on_delta;  /* streaming: text as it arrives (may be NULL) */
    void *on_delta_ctx;
} llm_request;

/* A zeroed request with temperature -1 (not sent). */
void llm_request_init(llm_request *req);
/* Free what req owns and zero it. */
void llm_request_free(llm_request *req);

/* Append a message with a copy of content (may be NULL). Returns the new
 * message (valid until the next append) or NULL on allocation failure. */
llm_message *llm_request_add(llm_request *req, llm_role role, const char *content);
/* Append a deep copy of m. 0 or DBMCP_ENOMEM. */
int llm_request_add_message(llm_request *req, const llm_message *m);
/* Append a tool result: role tool, tool_call_id, name (may be NULL) and
 * content (copied). 0 or DBMCP_ENOMEM. */
int llm_request_add_tool_result(llm_request *req, const char *tool_call_id, const char *name,
                                const char *content);
/* Append a tool call to assistant message m (copies; arguments may be NULL
 * for "{}"; arguments are parsed with llm_tool_call_parse_arguments).
 * Returns the call or NULL on allocation failure or over LLM_MAX_TOOL_CALLS. */
llm_tool_call *llm_message_add_tool_call(llm_message *m, const char *id, const char *name,
                                         const char *arguments);

/* Append the messages of a JSON array in the OpenAI wire shape to req:
 * {"role": "system"|"user"|"assistant"|"tool", "content": string, parts or
 * null, "tool_calls": [{"id", "function": {"name", "arguments": string or
 * object}}], "tool_call_id", "name"} — for history kept as JSON (sessions,
 * tests). Arguments are parsed as for a response. 0, or DBMCP_EINVAL
 * naming the index and the field ("messages[2].role: must be one of
 * system, user, assistant, tool"); on failure the messages appended so far
 * stay. */
int llm_request_add_json(llm_request *req, const json_t *messages, dbmcp_error *err);

/* One message in the OpenAI wire shape (ids and content as stored, no
 * provider quirks), a new reference; NULL on allocation failure. The
 * inverse of llm_request_add_json. */
json_t *llm_message_to_json(const llm_message *m);

/* The request body for cfg as a new JSON object, provider quirks applied
 * (see the top of this file): model, messages, tools, tool_choice,
 * temperature, max_tokens (max_completion_tokens for openai), stream (+
 * stream_options.include_usage except for mistral), then req->extra.
 * Rejects DBMCP_EINVAL: no messages, a tool message without tool_call_id,
 * a named tool_choice without a name, tools that are not an array, more
 * than LLM_MAX_TOOL_CALLS calls. */
json_t *llm_request_to_json(const llm_config *cfg, const llm_request *req, dbmcp_error *err);

/* The 9-character Mistral id for an id (stable, [a-zA-Z0-9]); an id of
 * that shape is copied unchanged. out needs LLM_MISTRAL_ID_LEN + 1 bytes. */
void llm_mistral_id(const char *id, char out[LLM_MISTRAL_ID_LEN + 1]);

/* --- responses ----------------------------------------------------------- */

typedef enum llm_finish {
    LLM_FINISH_STOP = 0,       /* "stop", "eos", "end_turn" */
    LLM_FINISH_LENGTH,         /* "length", "model_length", "max_tokens" */
    LLM_FINISH_TOOL_CALLS,     /* "tool_calls", "function_call" */
    LLM_FINISH_CONTENT_FILTER, /* "content_filter" */
    LLM_FINISH_ERROR,          /* "error", or no answer at all */
    LLM_FINISH_OTHER           /* anything else, or missing (see finish_raw) */
} llm_finish;

typedef struct llm_response {
    llm_message message; /* role assistant: content and/or tool_calls (owned) */
    llm_finish finish_reason;
    char *finish_raw;   /* finish_reason as sent, NULL when absent (owned) */
    int has_tool_calls; /* message.tool_call_count > 0 */
    int tokens_in;      /* usage.prompt_tokens, 0 when not reported */
    int tokens_out;     /* usage.completion_tokens, 0 when not reported */
    int usage_reported; /* the provider sent usage */
    char *model;        /* the model that answered (owned), NULL when not said */
    char *id;           /* the provider's response id (owned) or NULL */
    double latency_ms;  /* llm_chat: all attempts and waits, first byte to last */
    int attempts;       /* llm_chat: HTTP attempts made (1 = no retry) */
    int repaired;       /* some tool call's arguments needed the repair engine */
    int truncated;      /* a stream ended before its end (see llm_stream_finish) */
} llm_response;

/* Free what r owns and zero it; safe on a zeroed response. */
void llm_response_free(llm_response *r);
/* "stop", "length", "tool_calls", "content_filter", "error", "other". */
const char *llm_finish_name(llm_finish f);
/* Map a provider's finish_reason text (NULL → OTHER). */
llm_finish llm_finish_parse(const char *text);

/* --- errors ---------------------------------------------------------------- */

typedef enum llm_error_kind {
    LLM_ERR_NONE = 0,
    LLM_ERR_CONFIG,           /* bad configuration, missing key variable */
    LLM_ERR_CONNECT,          /* DNS, refused, TLS: no HTTP answer */
    LLM_ERR_TIMEOUT,          /* connect or total timeout */
    LLM_ERR_AUTH,             /* 401, 403, invalid key */
    LLM_ERR_QUOTA,            /* insufficient quota / billing: never retried */
    LLM_ERR_RATE_LIMIT,       /* 429 */
    LLM_ERR_OVERLOADED,       /* 503, 529, "overloaded" */
    LLM_ERR_SERVER,           /* other 5xx */
    LLM_ERR_BAD_REQUEST,      /* 400, 404, 405, 422: the request itself is wrong */
    LLM_ERR_CONTEXT_LENGTH,   /* the prompt exceeds the model's window */
    LLM_ERR_CONTENT_FILTER,   /* refused by a content filter */
    LLM_ERR_TOO_LARGE,        /* response over max_response_bytes */
    LLM_ERR_INVALID_RESPONSE, /* a 200 whose body is not a chat completion */
    LLM_ERR_STREAM,           /* an error event inside an SSE stream, or inconsistent deltas */
    LLM_ERR_TRUNCATED,        /* a stream cut before its end */
    LLM_ERR_CANCELLED,        /* on_delta asked to stop */
    LLM_ERR_OTHER
} llm_error_kind;

typedef struct llm_error {
    dbmcp_error base; /* code + operator message + public message (no provider text) */
    llm_error_kind kind;
    char provider[16];   /* llm_provider_name of the service asked */
    int http_status;     /* 0 when there was no HTTP answer (or a stream error event) */
    char type[64];       /* provider's error type ("invalid_request_error"), "" if none */
    char code[64];       /* provider's error code as text ("insufficient_quota"), "" */
    char message[512];   /* provider's message, one line, bounded — operator only */
    int retryable;       /* the same request may succeed later */
    long retry_after_ms; /* server-requested wait, -1 when none given */
    int attempts;        /* llm_chat: attempts made */
} llm_error;

/* Reset to no error (retry_after_ms -1). */
void llm_error_clear(llm_error *e);
/* "config", "connect", "timeout", "auth", "quota", "rate_limit", … */
const char *llm_error_kind_name(llm_error_kind kind);

/* Headers of an HTTP answer that matter to error handling (any may be NULL). */
typedef struct llm_http_headers {
    const char *content_type;
    const char *retry_after;    /* Retry-After: seconds or an HTTP date */
    const char *retry_after_ms; /* retry-after-ms (Azure, OpenAI) */
} llm_http_headers;

/* Normalise a failed HTTP answer (status >= 400, or any status whose body
 * is an error document) into *out: kind, type, code, message, retryable,
 * retry_after_ms, and base (code DBMCP_EDENIED for auth, quota and
 * content filter, DBMCP_ETIMEOUT, DBMCP_ETOOBIG, DBMCP_EINVAL for config,
 * bad request, context length and cancel, else DBMCP_EIO; the public
 * message is a fixed sentence chosen by kind and status alone). body may be NULL or any bytes
 * (HTML, binary). Never fails. */
void llm_error_from_http(llm_provider provider, int status, const llm_http_headers *h,
                         const char *body, size_t len, llm_error *out);

/* Retry-After value (delta-seconds, or an IMF-fixdate / RFC 850 / asctime
 * date relative to now_s, the current Unix time) in ms; -1 when absent or
 * unparseable; 0 for a date in the past. */
long llm_retry_after_parse(const char *value, long now_s);

/* --- parsing --------------------------------------------------------------- */

/* Parse a non-streaming chat completion body into *out (zeroed first).
 * choices[0].message: content as a string or an array of parts (text parts
 * concatenated, others ignored), tool_calls (arguments as a string, or as
 * an object — Ollama — which is serialised), finish_reason, usage, model,
 * id. A body that is an error document (see llm_error_from_http) is that
 * error even with status 200. Returns 0, or a negative code with *err
 * filled (LLM_ERR_INVALID_RESPONSE: not JSON, no choices, no message).
 * On failure *out owns nothing. */
int llm_response_parse(llm_provider provider, const char *body, size_t len, llm_response *out,
                       llm_error *err);

/* Incremental SSE parser for a streamed chat completion. Feed it the bytes
 * as they come (any split: mid-line, mid-UTF-8), then finish. Lines are
 * "data: {chunk}", "data: [DONE]", comments and other fields are ignored;
 * CRLF and LF both end lines. Each chunk's choices[0].delta adds content
 * (string or parts) and tool-call deltas: by "index" (or position when the
 * index is missing), the first delta of an index brings id and name,
 * later ones append to arguments; a later delta that carries a different id
 * or name for the same index is an error (LLM_ERR_STREAM). A data line that
 * is an error document ({"error":…}, {"object":"error",…}) or an
 * "event: error" is that error, classified like an HTTP error by its type
 * and code (a numeric code counts as the status: llama.cpp's "code":500 is
 * a retryable LLM_ERR_SERVER) and LLM_ERR_STREAM when they say nothing
 * more precise. Usage may come in any chunk (also one with empty
 * choices). A finish_reason "stop" on a message with tool calls is
 * reported as LLM_FINISH_TOOL_CALLS (finish_raw keeps "stop"); the same
 * holds for llm_response_parse. */
typedef struct llm_stream llm_stream;

/* A new parser (max_bytes: total stream limit, 0 = default). NULL on
 * allocation failure. Free with llm_stream_free. */
llm_stream *llm_stream_new(llm_provider provider, size_t max_bytes);
/* Feed bytes. Returns 0, or a negative code with *err filled once the
 * stream is known bad (later feeds return the same error). Text deltas are
 * passed to on_delta when it is not NULL. */
int llm_stream_feed(llm_stream *s, const char *data, size_t len, llm_delta_fn on_delta, void *ctx,
                    llm_error *err);
/* How many bytes of assistant text were delivered so far. */
size_t llm_stream_text_delivered(const llm_stream *s);
/* End of input: build the response into *out (zeroed first). A stream
 * without "data: [DONE]" and without any finish_reason is cut: the return
 * is DBMCP_EIO with kind LLM_ERR_TRUNCATED (retryable; the message says
 * whether it was cut inside a tool call), and *out still holds what
 * arrived, with truncated = 1 and finish_reason ERROR; free it either way.
 * A stream with a finish_reason but no [DONE] is complete. Returns 0 or a
 * negative code. */
int llm_stream_finish(llm_stream *s, llm_response *out, llm_error *err);
void llm_stream_free(llm_stream *s);

/* The whole stream text at once (llm_stream_new + feed + finish). */
int llm_stream_parse(llm_provider provider, const char *text, size_t len, llm_response *out,
                     llm_error *err);

/* --- the call ---------------------------------------------------------- */

/* Send req with cfg (retrying as described at the top) and fill *out
 * (zeroed first; owned by the caller, free with llm_response_free, also
 * after a failure since a truncated stream leaves a partial response).
 * The key is read from getenv(cfg->api_key_env) at each call; a named
 * variable that is unset or empty is LLM_ERR_CONFIG, and so is a missing
 * libcurl (the message names the library and its package). Returns 0 or a
 * negative dbmcp_code with *err filled (err->attempts, err->base). On
 * success out->attempts and out->latency_ms are set. */
int llm_chat(const llm_config *cfg, const llm_request *req, llm_response *out, llm_error *err);

#endif
