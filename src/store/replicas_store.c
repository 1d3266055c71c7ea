/*
 * replicas_store.c — the fleet table's statements (replicas_store.h).
 * Plain SQL both engines accept; the upsert is the one lease.c uses.
 */
#include "store/replicas_store.h"

#include <string.h>

#include "core/ids.h"

int store_replica_beat(store *db, const char *replica_id, const char *url, const char *started_at,
                       const char *status_json, int expire_s, dbmcp_error *err)
{
    char now[32], expired[32];
    ids_now_iso(now);
    ids_iso_from_now(-(double)expire_s, expired);
    store_stmt *st = NULL;
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    rc = store_prepare(db,
                       "INSERT INTO dbmcp_replicas (replica_id, url, started_at, beat_at, status)"
                       " VALUES (:id, :url, :started, :now, :status)"
                       " ON CONFLICT (replica_id) DO UPDATE SET url = excluded.url,"
                       " beat_at = excluded.beat_at, status = excluded.status",
                       &st, err);
    if (!rc) {
        store_bind_text(st, ":id", replica_id);
        store_bind_text(st, ":url", url);
        store_bind_text(st, ":started", started_at);
        store_bind_text(st, ":now", now);
        store_bind_text(st, ":status", status_json);
        rc = store_step(st, err) < 0 ? err->code : 0;
        store_finalize(st);
    }
    if (!rc)
        rc = store_prepare(db,
                           "DELETE FROM dbmcp_replicas WHERE beat_at < :expired"
                           " AND replica_id <> :id",
                           &st, err);
    if (!rc) {
        store_bind_text(st, ":expired", expired);
        store_bind_text(st, ":id", replica_id);
        rc = store_step(st, err) < 0 ? err->code : 0;
        store_finalize(st);
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

int store_replica_remove(store *db, const char *replica_id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_replicas WHERE replica_id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", replica_id);
    rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int store_replica_list(store *db, store_replica_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT replica_id, url, started_at, beat_at, status FROM dbmcp_replicas"
                           " ORDER BY replica_id",
                           &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW)
        fn(ctx, store_column_text(st, 0), store_column_text(st, 1), store_column_text(st, 2),
           store_column_text(st, 3), store_column_text(st, 4));
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

typedef struct list_json {
    json_t *rows;
    char stale_before[32];
} list_json;

static void add_row(void *ctx, const char *replica_id, const char *url, const char *started_at,
                    const char *beat_at, const char *status_json)
{
    list_json *l = ctx;
    json_t *status = status_json ? json_loads(status_json, 0, NULL) : NULL;
    int stale = !beat_at || strcmp(beat_at, l->stale_before) < 0;
    json_array_append_new(l->rows,
                          json_pack("{s:s?, s:s?, s:s?, s:s?, s:b, s:o}", "replica_id", replica_id,
                                    "url", url, "started_at", started_at, "beat_at", beat_at,
                                    "stale", stale, "status", status ? status : json_null()));
}

int store_replica_list_json(store *db, int stale_s, json_t **out, dbmcp_error *err)
{
    list_json l = {json_array(), ""};
    ids_iso_from_now(-(double)stale_s, l.stale_before);
    int rc = store_replica_list(db, add_row, &l, err);
    if (rc) {
        json_decref(l.rows);
        return rc;
    }
    *out = l.rows;
    return 0;
}
