/*
 * stats.c — mcp_server_stats_get (server_stats.h): a copy of the
 * server's figures for monitoring, kept apart from server.c so the
 * lifecycle code stays about the lifecycle.
 */
#include <string.h>

#include "core/ids.h"
#include "mcp/internal.h"
#include "mcp/server_stats.h"
#include "store/memory_store.h"
#include "store/migrate.h"

/* Schema version and embedding backlog, on one catalog connection. */
static void stats_from_database(mcp_server *srv, mcp_server_stats *out)
{
    dbmcp_error err;
    store *db = store_pool_acquire(srv->catalog, &err);
    if (!db)
        return;
    int version = 0;
    if (store_schema_version(db, &version, &err) == 0)
        out->schema_version = version;
    char now[32];
    ids_now_iso(now);
    int64_t pending = 0, due = 0, failing = 0;
    if (mstore_jobs_backlog(db, now, &pending, &due, &failing, &err) == 0) {
        out->embed_pending = pending;
        out->embed_due = due;
        out->embed_failing = failing;
    }
    store_pool_release(srv->catalog, db);
}

void mcp_server_stats_get(mcp_server *srv, mcp_server_stats *out)
{
    memset(out, 0, sizeof *out);
    out->schema_version = -1;
    out->embed_pending = out->embed_due = out->embed_failing = -1;
    pthread_mutex_lock(&srv->lock);
    out->started_at = srv->started_at;
    out->uptime_s = (ids_monotonic_ms() - srv->started_ms) / 1000.0;
    out->tools_version = srv->versions.tools;
    out->prompts_version = srv->versions.prompts;
    out->resources_version = srv->versions.resources;
    out->catalog_changed_at = srv->catalog_changed_at;
    for (mcp_session *s = srv->sessions; s; s = s->next)
        out->sessions++;
    pthread_mutex_unlock(&srv->lock);
    audit_queue_stats(srv->audit, &out->audit);
    store_pool_stats(srv->catalog, &out->catalog);
    store_pool_stats(srv->query, &out->query);
    stats_from_database(srv, out);
}
