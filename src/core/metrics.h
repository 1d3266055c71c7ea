/*
 * metrics.h — the registry of what dbmcp counts for monitoring, and its
 * rendering in the Prometheus text exposition format 0.0.4 (served at
 * GET /metrics by `serve --http`, transport/http_observe.c).
 *
 * This header is the whole list. Two kinds of metrics:
 *   - counters that the code bumps while it works (tool calls, LLM calls,
 *     compaction runs), held here in series created on the first use of a
 *     label combination;
 *   - gauges and counters that other modules already keep (the audit
 *     queue, the database pools, the embedding backlog, HTTP connections
 *     and sessions): the scraper gathers them into a metrics_gauges and
 *     metrics_render prints everything, so every metric name, type and
 *     label is spelled in metrics.c, and docs/operations.md (Monitoring)
 *     lists the same.
 *
 * Recording is lock-free: every counter is a C11 atomic; a series is found
 * in an open-addressing table of atomic pointers and added with one
 * compare-and-swap; series are never freed while the process runs. The only
 * allocation is one per new label combination, none per call.
 *
 * Bounded labels. Every label value comes from the code or the catalog,
 * never from a request: tool names from the catalog (callers pass
 * METRICS_UNKNOWN_TOOL for a name the caller's catalog does not hold),
 * interfaces from API keys and configuration, transports from the code, LLM
 * providers from an enum and models from configuration. On top of that a
 * family holds at most METRICS_TOOL_SERIES_MAX (METRICS_LLM_SERIES_MAX)
 * series; calls past the cap are counted in one series whose labels are all
 * METRICS_OTHER. A NULL or empty value becomes METRICS_UNKNOWN_TOOL
 * ("unknown"); control characters become '_'; values are cut to
 * METRICS_LABEL_MAX - 1 bytes on a character boundary.
 *
 * Thread safety: every function may be called from any thread, except
 * metrics_reset (tests only).
 */
#ifndef DBMCP_CORE_METRICS_H
#define DBMCP_CORE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#define METRICS_LABEL_MAX 129          /* bytes of a label value, NUL included */
#define METRICS_TOOL_SERIES_MAX 1024   /* (tool, interface, transport) combinations */
#define METRICS_LLM_SERIES_MAX 64      /* (provider, model) combinations */
#define METRICS_UNKNOWN_TOOL "unknown" /* the label of a tool the catalog does not hold */
#define METRICS_OTHER "other"          /* every label of the series past a family's cap */

/* The upper bounds (seconds) of dbmcp_tool_call_duration_seconds's
 * buckets, besides +Inf. */
#define METRICS_DURATION_BUCKETS                                                                   \
    {                                                                                              \
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60                            \
    }
#define METRICS_DURATION_BUCKET_COUNT 13

/* --- recording ------------------------------------------------------------ */

/* A tool call entered the dispatch path (dbmcp_tool_calls_in_flight). */
void metrics_tool_call_begin(void);
/* The call that metrics_tool_call_begin announced ended: count it for
 * (tool, interface, transport) in dbmcp_tool_calls_total, in
 * dbmcp_tool_call_errors_total when failed, and its duration in
 * dbmcp_tool_call_duration_seconds (per tool). */
void metrics_tool_call_end(const char *tool, const char *interface, const char *transport,
                           int failed, double seconds);
/* Tool calls between begin and end now. */
long metrics_tool_calls_in_flight(void);

/* One llm_chat: dbmcp_llm_calls_total, _errors_total when failed,
 * dbmcp_llm_retries_total (attempts beyond the first) and
 * dbmcp_llm_tokens_total{type="prompt"|"completion"} as the provider
 * reported them. */
void metrics_llm_call(const char *provider, const char *model, long prompt_tokens,
                      long completion_tokens, int retries, int failed);

/* One memory compaction run (dbmcp_memory_compaction_runs_total{result}). */
void metrics_compaction_run(int failed);

/* --- scraping --------------------------------------------------------------- */

/* A database connection pool's figures (store_pool_stats). */
typedef struct metrics_pool {
    const char *name;    /* label `pool`: "catalog" or "query" */
    int size;            /* slots */
    int in_use;          /* handles checked out now */
    int waiting;         /* threads waiting for a handle now */
    uint64_t acquires;   /* handles checked out since the start */
    uint64_t waits;      /* of them, the ones that waited */
    double wait_seconds; /* time those waits took, in all */
} metrics_pool;

#define METRICS_MAX_POOLS 2

/* What other modules hold, gathered at scrape time. A negative count or
 * time (metrics_gauges_init sets them all) leaves its metric out. */
typedef struct metrics_gauges {
    const char *version;      /* dbmcp_build_info{version}; NULL: left out */
    double start_time;        /* unix time the server started, seconds */
    long long resident_bytes; /* process resident set size */
    long long audit_rows;     /* rows waiting for the audit writer */
    long long audit_bytes;    /* their bytes */
    double audit_oldest_s;    /* age of the oldest of them (0 when none) */
    long long audit_written;  /* rows committed since the start */
    long long audit_failed;   /* batch writes the database refused */
    metrics_pool pools[METRICS_MAX_POOLS];
    int n_pools;
    long long embed_pending;       /* embedding jobs in the table */
    long long embed_due;           /* of them, due now */
    long long embed_failing;       /* of them, failed at least once */
    long long http_open;           /* connections being served */
    long long http_waiting;        /* connections waiting for a slot */
    long long http_accepted;       /* connections accepted since the start */
    long long http_refused;        /* answered 503 by admission */
    long long http_sessions;       /* legacy sessions held */
    long long http_in_flight;      /* requests running (against http.max_in_flight) */
    long long trace_exported;      /* spans the collector accepted (core/otlp.h) */
    long long trace_dropped_full;  /* spans dropped: the export queue was full */
    long long trace_dropped_error; /* spans dropped: the collector refused or was too slow */
    long long trace_failures;      /* export requests that failed */
    long long trace_queued;        /* spans waiting for export now */
} metrics_gauges;

/* Every field unknown (-1, no pools, no version). */
void metrics_gauges_init(metrics_gauges *g);

/* The whole exposition: every family of this registry, then g's. Returns
 * a malloc'd NUL-terminated text (the caller frees it) and its length in
 * *len, or NULL when out of memory. */
char *metrics_render(const metrics_gauges *g, size_t *len);

/* The resident set size of this process in bytes (/proc/self/statm), or
 * -1 when it cannot be read. */
long long metrics_resident_bytes(void);

/* Drop every series and zero every counter. Not thread-safe: for tests,
 * while nothing records. */
void metrics_reset(void);

#endif
