/*
 * replicas_store.h — the fleet table (dbmcp_replicas, schema 0014): one row
 * per `serve --http` sharing this database, holding its /status object and
 * the time of its last heartbeat (docs/operations.md, "Fleet").
 *
 * Times are ISO-8601 UTC strings from each replica's own clock
 * (core/ids.h), compared as text: replicas on several hosts need clocks in
 * step to well within the heartbeat interval.
 */
#ifndef DBMCP_STORE_REPLICAS_STORE_H
#define DBMCP_STORE_REPLICAS_STORE_H

#include <jansson.h>

#include "core/error.h"
#include "store/store.h"

/* Write this replica's row (insert or replace url, status and beat_at =
 * now; started_at only on insert), then delete the rows of other replicas
 * whose heartbeat is older than expire_s seconds. One transaction. */
int store_replica_beat(store *db, const char *replica_id, const char *url, const char *started_at,
                       const char *status_json, int expire_s, dbmcp_error *err);
/* Delete this replica's row (clean shutdown). */
int store_replica_remove(store *db, const char *replica_id, dbmcp_error *err);

/* Called once per row, in replica id order; strings are borrowed for the
 * call (url may be NULL). */
typedef void (*store_replica_fn)(void *ctx, const char *replica_id, const char *url,
                                 const char *started_at, const char *beat_at,
                                 const char *status_json);
/* Every row. */
int store_replica_list(store *db, store_replica_fn fn, void *ctx, dbmcp_error *err);
/* Every row as a new JSON array of {replica_id, url, started_at, beat_at,
 * stale, status}: stale is true when beat_at is older than stale_s
 * seconds, status the replica's /status object (null when it is not JSON).
 * 0 and *out set, or a negative code. */
int store_replica_list_json(store *db, int stale_s, json_t **out, dbmcp_error *err);

#endif
