/*
 * internal.h — helpers shared by the llm/ files and not part of the
 * contract (llm.h is). Private to src/llm/.
 */
#ifndef DBMCP_LLM_INTERNAL_H
#define DBMCP_LLM_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "llm/llm.h"

/* A growing byte buffer, always NUL-terminated when data is not NULL. */
typedef struct llm_buf {
    char *data;
    size_t len, cap;
} llm_buf;

/* Append n bytes; 0 or -1 on allocation failure. */
int llm_buf_add(llm_buf *b, const char *s, size_t n);
void llm_buf_free(llm_buf *b);

/* strdup that accepts NULL (returns NULL). *failed is set when a non-NULL
 * src could not be copied. */
char *llm_strdup(const char *src, int *failed);

/* Copy text into a fixed field as one sanitised line: control characters
 * become spaces, runs of spaces collapse, invalid UTF-8 is dropped, cut at
 * a character boundary to fit. */
void llm_copy_line(char *field, size_t size, const char *text, size_t len);

/* Content of a message or delta: a string, or an array of parts whose text
 * parts ({"type":"text","text":…} or bare strings) are appended. Returns 1
 * when content was present (string or parts), 0 when null/absent, -1 on
 * allocation failure. */
int llm_content_append(llm_buf *b, const json_t *content);

/* When doc is an error document of any provider shape, fill *err entirely
 * (kind, type, code, message, retryable, a hinted retry_after_ms, base)
 * and return 1; else 0 with *err untouched. Below 400 (0: inside a
 * stream, 200: a body that says it failed) the kind comes from type and
 * code (a numeric code counts as the status), and when they say nothing it
 * is LLM_ERR_STREAM in a stream, LLM_ERR_OTHER otherwise. */
int llm_error_from_document(llm_provider provider, int status, const json_t *doc, llm_error *err);

/* Fill err->base from kind and status (the fixed public sentence, the
 * operator message with provider text) and return its code. */
int llm_error_finish(llm_error *err);

/* Set a local (non-HTTP) failure: kind, retryable, operator detail. */
int llm_error_local(llm_error *err, llm_provider provider, llm_error_kind kind, int retryable,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Build tool call tc from wire fields (copies; arguments may be a string,
 * an object or NULL) and parse its arguments. 0 or DBMCP_ENOMEM. */
int llm_tool_call_set(llm_tool_call *tc, const char *id, const char *name, const json_t *arguments);

/* Settle a response after its message is complete: has_tool_calls,
 * repaired. */
void llm_response_settle(llm_response *r);

/* How llm_chat waits between attempts (nanosleep). Tests replace it to
 * record the waits instead of sleeping; never changed in the product. */
extern void (*llm_sleep_fn)(long ms);

#endif
