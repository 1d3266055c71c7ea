/*
 * otlp.h — export of dbmcp's spans (core/trace.h) to an OpenTelemetry
 * collector over OTLP/HTTP with the JSON encoding (POST <endpoint>/v1/traces,
 * Content-Type application/json), through libcurl (core/curl_lib.h).
 *
 * Never blocking a call. Ended spans go into a bounded queue (queue_max
 * spans); a span that finds the queue full is dropped and counted. One
 * background thread sends batches of at most batch_max spans every
 * flush_ms (at once when a batch is full); a request that fails or takes
 * longer than timeout_ms drops its batch (counted), so a slow or absent
 * collector costs memory up to the bound and nothing else. The counters
 * appear in /metrics (dbmcp_trace_spans_*; metrics.h gathers them with
 * otlp_stats).
 *
 * One exporter per process: otlp_start installs its sink with
 * trace_set_sink, otlp_stop removes it, sends what is queued (one attempt,
 * within timeout_ms) and joins the thread.
 */
#ifndef DBMCP_CORE_OTLP_H
#define DBMCP_CORE_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define OTLP_ENDPOINT_MAX 1024
#define OTLP_QUEUE_MAX_DEFAULT 4096
#define OTLP_BATCH_MAX_DEFAULT 512
#define OTLP_FLUSH_MS_DEFAULT 1000
#define OTLP_TIMEOUT_MS_DEFAULT 2000

typedef struct otlp_config {
    const char *endpoint;        /* collector base URL (http://host:4318) or the full
                                    …/v1/traces URL; required */
    const char *service_name;    /* resource service.name; NULL: "dbmcp" */
    const char *service_version; /* service.version; NULL: left out */
    const char *instance_id;     /* service.instance.id (the replica id); NULL: left out */
    int queue_max;               /* spans queued at most; <= 0: default */
    int batch_max;               /* spans per request at most; <= 0: default */
    int flush_ms;                /* send interval; <= 0: default */
    int timeout_ms;              /* whole request, connect included; <= 0: default */
} otlp_config;

typedef struct otlp_stats {
    uint64_t exported;        /* spans the collector accepted (HTTP 2xx) */
    uint64_t dropped_full;    /* spans dropped because the queue was full */
    uint64_t dropped_error;   /* spans of batches the collector refused or did not take in time */
    uint64_t requests_failed; /* export requests that failed */
    size_t queued;            /* spans waiting now */
    int running;              /* an exporter is installed */
} otlp_stats;

/* Start the exporter: opens libcurl, starts the thread, installs the sink.
 * DBMCP_EINVAL for a missing or non-http(s) endpoint, DBMCP_EINTERNAL when
 * libcurl or the thread cannot start, DBMCP_EEXISTS when one runs. */
int otlp_start(const otlp_config *cfg, dbmcp_error *err);
/* Remove the sink, send what is queued once, stop. No-op when not started. */
void otlp_stop(void);
/* The exporter's counters (zero when none ever ran). */
void otlp_stats_get(otlp_stats *out);

/* The OTLP/JSON body (ExportTraceServiceRequest) for spans already
 * rendered as OTLP span objects (a JSON array, borrowed), as a malloc'd
 * string; exposed for tests. */
char *otlp_encode(const otlp_config *cfg, void *spans_json_array);

#endif
