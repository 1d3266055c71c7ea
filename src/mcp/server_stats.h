/*
 * server_stats.h — what a running mcp_server tells a monitor: how long it
 * has run, the schema and catalog it serves, its sessions, and the depth
 * of its queues (the audit writer, the database pools, the embedding
 * jobs). transport/http_observe.c turns it into GET /metrics and
 * GET /status.
 *
 * Cost: the in-memory figures are copied under their locks; the schema
 * version and the embedding backlog take one catalog connection and two
 * small queries (the backlog reads only the job table).
 */
#ifndef DBMCP_MCP_SERVER_STATS_H
#define DBMCP_MCP_SERVER_STATS_H

#include <stdint.h>

#include "mcp/audit.h"
#include "mcp/server.h"
#include "store/store.h"

typedef struct mcp_server_stats {
    double started_at;         /* unix time mcp_server_create ran, seconds */
    double uptime_s;           /* seconds since then */
    int schema_version;        /* the database's; -1 when it did not answer */
    int64_t tools_version;     /* the catalog versions the watcher saw last */
    int64_t prompts_version;   /* … */
    int64_t resources_version; /* … */
    double catalog_changed_at; /* unix time the watcher saw them change; 0: not since start */
    long sessions;             /* sessions alive: legacy ones and per-request ones running */
    audit_stats audit;         /* the audit writer (audit_queue_stats) */
    store_pool_usage catalog;  /* the read-write pool of dbmcp's tables */
    store_pool_usage query;    /* the read-only pool of agent SQL */
    int64_t embed_pending;     /* embedding jobs; -1 when the database did not answer */
    int64_t embed_due;         /* of them due now; -1 likewise */
    int64_t embed_failing;     /* of them failed at least once; -1 likewise */
} mcp_server_stats;

/* Fill out. Never fails: what the database did not answer is -1. */
void mcp_server_stats_get(mcp_server *srv, mcp_server_stats *out);

#endif
