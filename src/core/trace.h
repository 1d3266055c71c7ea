/*
 * trace.h — W3C Trace Context (traceparent, tracestate) and the spans
 * dbmcp records: one per tool call, SQL statement, embedding request and
 * LLM request (docs/operations.md, "Traces").
 *
 * Context. A request may carry a traceparent (HTTP header, or the MCP
 * `params._meta.traceparent`); trace_parse_traceparent checks it strictly
 * against the W3C format. The span a thread is working in is its current
 * span (thread-local): trace_span_begin makes a new span a child of the
 * given parent, else of the current span, else the root of a new trace,
 * and makes it current until trace_span_end. Code below the dispatch path
 * (store, embedders, the LLM client) so nests its spans without passing a
 * context through every call.
 *
 * Recording. Spans go to one process-wide sink (core/otlp.h sets it when a
 * collector is configured). Without a sink nothing is recorded, and a span
 * only exists when a parent was given (so a call's audit row still gets
 * the caller's trace id); trace_recording() lets hot paths (every SQL
 * statement) skip all work then.
 *
 * Thread safety: the current span is per thread; the sink is set once at
 * startup, before requests are served, and cleared after they stopped.
 */
#ifndef DBMCP_CORE_TRACE_H
#define DBMCP_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/error.h"

#define TRACE_PARENT_MAX 512     /* bytes of a traceparent value we read at all */
#define TRACE_STATE_MAX 512      /* bytes of a tracestate kept (W3C: at least 512) */
#define TRACE_STATE_MEMBERS 32   /* list members of a tracestate (W3C limit) */
#define TRACE_PARENT_LEN 55      /* "00-" 32 hex "-" 16 hex "-" 2 hex */
#define TRACE_NAME_MAX 96        /* bytes of a span name */
#define TRACE_ATTR_TEXT_MAX 2048 /* bytes of a string attribute (longer is cut) */

/* A position in a trace: the trace and the span a child hangs under. */
typedef struct trace_context {
    uint8_t trace_id[16];                 /* never all zero when valid */
    uint8_t span_id[8];                   /* the parent span of what follows */
    uint8_t flags;                        /* trace-flags; bit 0: sampled */
    int valid;                            /* 0: no context */
    char tracestate[TRACE_STATE_MAX + 1]; /* as received (validated), or "" */
} trace_context;

typedef enum trace_kind {
    TRACE_KIND_INTERNAL = 1, /* OTLP SpanKind values */
    TRACE_KIND_SERVER = 2,
    TRACE_KIND_CLIENT = 3,
} trace_kind;

/* One span, on the stack of the code it measures. */
typedef struct trace_span {
    trace_context ctx;         /* trace id, this span's id, flags, tracestate */
    uint8_t parent_id[8];      /* the parent span (all zero: a root span) */
    char name[TRACE_NAME_MAX]; /* "tools/call execute_query", "SELECT", … */
    int kind;                  /* trace_kind */
    uint64_t start_ns;         /* unix time, nanoseconds */
    uint64_t end_ns;
    int error;                   /* status ERROR when set */
    char message[160];           /* status message (an error class), or "" */
    json_t *attrs;               /* {key: string|integer|real}, owned; NULL: none */
    int active;                  /* begun and not ended; current on its thread */
    int recording;               /* goes to the sink at its end */
    int leaf;                    /* never current (trace_span_begin_leaf) */
    struct trace_span *previous; /* the thread's current span before this one */
} trace_span;

/* --- W3C Trace Context --------------------------------------------------------- */

/* Parse a traceparent header value of len bytes (W3C Trace Context level 1:
 * lowercase hex, version 00 exactly 55 bytes, a later version at least 55
 * with '-' after them, version ff, all-zero trace or parent ids refused).
 * 0 and *out filled (valid = 1, no tracestate), or DBMCP_EINVAL /
 * DBMCP_ETOOBIG (past TRACE_PARENT_MAX) with a message naming the field. */
int trace_parse_traceparent(const char *text, size_t len, trace_context *out, dbmcp_error *err);
/* Check a tracestate value (at most TRACE_STATE_MAX bytes and
 * TRACE_STATE_MEMBERS list members, each key=value per the W3C grammar);
 * 0 when valid, else DBMCP_EINVAL / DBMCP_ETOOBIG with the reason. */
int trace_check_tracestate(const char *text, size_t len, dbmcp_error *err);
/* ctx as a version-00 traceparent into out[TRACE_PARENT_LEN + 1]. */
void trace_format_traceparent(const trace_context *ctx, char out[TRACE_PARENT_LEN + 1]);
/* Lowercase hex of n bytes into out[2n + 1]. */
void trace_hex(const uint8_t *bytes, size_t n, char *out);

/* The context a request names: params._meta.traceparent/tracestate when
 * valid, else the transport's header values (any may be NULL). An invalid
 * traceparent is ignored (logged at debug level), as W3C says; an invalid
 * tracestate is dropped and its traceparent kept. 1 when *out holds a
 * context. */
int trace_context_from_request(const char *meta_parent, const char *meta_state,
                               const char *header_parent, const char *header_state,
                               trace_context *out);

/* --- spans ------------------------------------------------------------------------- */

/* Receives every ended recording span, borrowed for the call (its attrs
 * are freed after it returns). */
typedef void (*trace_sink_fn)(trace_span *span);

/* Set (NULL: clear) the process-wide sink. */
void trace_set_sink(trace_sink_fn fn);
/* Whether spans are recorded (a sink is set). */
int trace_recording(void);

/* Begin span s named `name` (cut at TRACE_NAME_MAX) under parent when given
 * (valid), else under the thread's current span, else as the root of a new
 * trace; it becomes current. Without a sink and without a parent or
 * current span, s stays inactive and every other call on it is a no-op. */
void trace_span_begin(trace_span *s, const char *name, trace_kind kind,
                      const trace_context *parent);
/* Begin a leaf span under the thread's current span: it is recorded but
 * never becomes current, so it may end in any order (an SQL statement
 * that stays open while others run). Inactive unless spans are recorded
 * and a current span exists. */
void trace_span_begin_leaf(trace_span *s, const char *name, trace_kind kind);
/* Attributes (ignored on inactive or non-recording spans). */
void trace_span_set_str(trace_span *s, const char *key, const char *value);
void trace_span_set_int(trace_span *s, const char *key, int64_t value);
/* Mark the span failed with a short message (an error class). */
void trace_span_set_error(trace_span *s, const char *message);
/* End s: the previous span becomes current again; a recording span goes to
 * the sink. Spans end in the reverse order of their begin on a thread. */
void trace_span_end(trace_span *s);
/* The trace id of s as 32 hex digits into out[33]; "" when s is inactive. */
void trace_span_trace_id(const trace_span *s, char out[33]);
/* An attribute on the thread's current span (no-op without one). */
void trace_current_set_str(const char *key, const char *value);
/* The thread's current trace id as 32 hex digits into out[33]; "" when
 * the thread has no current span. */
void trace_current_trace_id(char out[33]);
/* The thread's current span, or NULL. */
const trace_span *trace_current(void);
/* The traceparent that continues the current span (for an outgoing
 * request) into out[TRACE_PARENT_LEN + 1]; 0 when there is none. */
int trace_current_traceparent(char out[TRACE_PARENT_LEN + 1]);

#endif
