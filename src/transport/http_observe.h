/*
 * http_observe.h — the monitoring pages of the HTTP transport, private to
 * transport/: GET /metrics (Prometheus text exposition 0.0.4, the metrics
 * of core/metrics.h) and GET /status (one JSON object), both built from
 * mcp_server_stats_get and the figures only the daemon knows. http.c
 * routes the requests and decides who may read them (http_metrics_config);
 * this file loads that configuration, checks the metrics secret and writes
 * the bodies.
 *
 * Each page costs one catalog connection for two small queries (schema
 * version, embedding backlog); nothing is cached, so every scrape is
 * current.
 */
#ifndef DBMCP_TRANSPORT_HTTP_OBSERVE_H
#define DBMCP_TRANSPORT_HTTP_OBSERVE_H

#include <jansson.h>
#include <stddef.h>

#include "transport/http.h"

#define HTTP_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* What the daemon holds at the moment of the request. */
typedef struct http_observe_live {
    long connections_open;    /* served by libmicrohttpd now */
    long connections_waiting; /* queued by admission */
    long connections_accepted;
    long connections_refused;
    long sessions;  /* legacy sessions in the daemon's table */
    long in_flight; /* requests on workers (against max_in_flight) */
} http_observe_live;

/* Nonzero when `token` (n bytes, the value after "Bearer ") is the
 * metrics secret of cfg (constant time; always 0 outside key mode). */
int http_metrics_key_matches(const http_metrics_config *cfg, const char *token, size_t n);

/* The body of GET /metrics (malloc'd, *len bytes), or NULL when out of
 * memory. */
char *http_observe_metrics(mcp_server *srv, const http_observe_live *live, size_t *len);
/* The body of GET /status: a new reference, or NULL when out of memory. */
json_t *http_observe_status(mcp_server *srv, const http_observe_live *live);

/* --- the fleet (docs/operations.md, "Fleet") --------------------------------- */

#define HTTP_FLEET_HEARTBEAT_S_DEFAULT 5 /* setting fleet.heartbeat_s */
#define HTTP_FLEET_EXPIRE_S_DEFAULT 3600 /* setting fleet.expire_s */
#define HTTP_FLEET_STALE_BEATS 3         /* heartbeats missed before a row is stale */

/* Write this replica's row into dbmcp_replicas: its /status object, the URL
 * it serves; rows older than expire_s are deleted. 0 or a negative code. */
int http_observe_heartbeat(mcp_server *srv, const http_observe_live *live, const char *url,
                           int expire_s, dbmcp_error *err);
/* Delete this replica's row (at shutdown; failures are logged). */
void http_observe_heartbeat_end(mcp_server *srv);
/* Every replica's row (store_replica_list_json), stale after
 * HTTP_FLEET_STALE_BEATS heartbeats of heartbeat_s; NULL when the
 * database did not answer. */
json_t *http_observe_fleet(mcp_server *srv, int heartbeat_s);

#endif
