/*
 * memory_recall_store.c — the SQL behind memory recall, the embedding job
 * queue and compaction (see memory_store.h): FTS5 keyword candidates,
 * vector loading for the in-memory index, per-item hit details, job
 * claims (one replica per job), completion with backoff, and the
 * compaction queries.
 */
#include "store/memory_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "store/dialect.h"
#include "store/memory_store_internal.h"
#include "store/search_index.h"

/* --- recall ------------------------------------------------------------------ */

/* The tiers of a mask: message 1, episode 2, knowledge 4 (recall.h). */
#define TIERS_ALL 0x7
#define TIER_MASK_SQL                                                                              \
    " (((:m & 1) <> 0 AND i.tier = 'message') OR ((:m & 2) <> 0 AND i.tier = 'episode') OR"        \
    " ((:m & 4) <> 0 AND i.tier = 'knowledge'))"

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The conditions of each tier; each %s is that tier's metadata condition
 * (meta_condition below). A parameter tested for NULL is cast first, so
 * PostgreSQL knows its type wherever it appears first. */
#define MESSAGE_SQL                                                                                \
    " (i.tier = 'message' AND CAST(:st AS TEXT) IS NULL AND CAST(:tt AS TEXT) IS NULL"             \
    " AND CAST(:cat AS TEXT) IS NULL AND EXISTS (SELECT 1 FROM dbmcp_mem_messages m"               \
    " WHERE m.item_id = i.id AND m.user_id = :u AND m.agent_id = :a"                               \
    " AND (CAST(:role AS TEXT) IS NULL OR m.role = :role)"                                         \
    " AND (CAST(:sess AS TEXT) IS NULL OR m.session_id = :sess)%s))"
#define EPISODE_SQL                                                                                \
    " (i.tier = 'episode' AND CAST(:role AS TEXT) IS NULL AND CAST(:cat AS TEXT) IS NULL"          \
    " AND EXISTS (SELECT 1 FROM dbmcp_mem_episodes e WHERE e.item_id = i.id AND e.user_id = :u"    \
    " AND e.agent_id = :a AND (CAST(:st AS TEXT) IS NULL OR e.status = :st)"                       \
    " AND (CAST(:tt AS TEXT) IS NULL OR e.task_type = :tt)"                                        \
    " AND (CAST(:sess AS TEXT) IS NULL OR e.session_id = :sess)%s))"
#define KNOWLEDGE_SQL                                                                              \
    " (i.tier = 'knowledge' AND CAST(:role AS TEXT) IS NULL AND CAST(:st AS TEXT) IS NULL"         \
    " AND CAST(:tt AS TEXT) IS NULL AND CAST(:sess AS TEXT) IS NULL"                               \
    " AND EXISTS (SELECT 1 FROM dbmcp_mem_knowledge k WHERE k.item_id = i.id AND k.user_id = :u"   \
    " AND k.agent_id = :a AND (CAST(:cat AS TEXT) IS NULL OR k.category = :cat)%s))"

/* " AND …": every pair of :meta (a JSON object of scalars) equals the
 * same-named member of the JSON column `column`. */
static int meta_condition(store *db, const char *column, char *buf, size_t size, dbmcp_error *err)
{
    int n = snprintf(buf, size, " AND (CAST(:meta AS TEXT) IS NULL OR ");
    int rc = dialect_format(db, DIALECT_JSON_MATCHES_ALL, buf + n, size - (size_t)n - 1, err,
                            ":meta", column);
    if (!rc)
        strcat(buf, ")");
    return rc;
}

/* The attribute filters of an mstore_item_filter as one condition over
 * the item alias i, into sql (parameters :u, :a, :role, :st, :tt, :cat,
 * :sess, :meta). */
static int attr_condition(store *db, char *sql, size_t size, dbmcp_error *err)
{
    char m[512], e[512], k[512];
    int rc = meta_condition(db, "m.metadata", m, sizeof m, err);
    if (!rc)
        rc = meta_condition(db, "e.metadata", e, sizeof e, err);
    if (!rc)
        rc = meta_condition(db, "k.metadata", k, sizeof k, err);
    if (rc)
        return rc;
    int n = snprintf(sql, size, "(" MESSAGE_SQL " OR" EPISODE_SQL " OR" KNOWLEDGE_SQL ")", m, e, k);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "memory filter statement too long");
    return 0;
}

/* The statement of mstore_scope_item_ids_filtered into sql. */
static int filtered_ids_sql(store *db, char *sql, size_t size, dbmcp_error *err)
{
    char cond[3072];
    int rc = attr_condition(db, cond, sizeof cond, err);
    if (rc)
        return rc;
    int n = snprintf(sql, size,
                     "SELECT i.id FROM dbmcp_mem_items i WHERE i.user_id = :u AND"
                     " i.agent_id = :a AND" TIER_MASK_SQL " AND %s",
                     cond);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "memory filter statement too long");
    return 0;
}

void mstore_search_scope(const char *u, const char *a, search_index_scope *out)
{
    /* No version: the figures come from dbmcp_mem_scope_stats, kept by
     * triggers in step with the items (0009), one row read per search. */
    *out = (search_index_scope){
        .rows = "dbmcp_mem_items",
        .condition = "sr.user_id = :u AND sr.agent_id = :a",
        .stats = "SELECT items, length FROM dbmcp_mem_scope_stats WHERE user_id = :u AND"
                 " agent_id = :a",
        .names = {":u", ":a"},
        .values = {u, a}};
}

int mstore_search_scope_filtered(store *db, const char *u, const char *a, int tier_mask,
                                 const mstore_item_filter *f, char *buf, size_t size,
                                 search_index_scope *out, dbmcp_error *err)
{
    mstore_search_scope(u, a, out);
    if ((tier_mask & TIERS_ALL) == TIERS_ALL && !f)
        return 0;
    /* The tiers as literals: the mask is ours, never the caller's text. */
    char tiers[96] = "";
    static const char *const names[] = {"message", "episode", "knowledge"};
    for (int t = 0; t < 3; t++)
        if (tier_mask & (1 << t))
            snprintf(tiers + strlen(tiers), sizeof tiers - strlen(tiers), "%s'%s'",
                     tiers[0] ? ", " : "", names[t]);
    if (!tiers[0])
        snprintf(tiers, sizeof tiers, "NULL");
    char attrs[3072] = "";
    int rc = f ? attr_condition(db, attrs, sizeof attrs, err) : 0;
    if (rc)
        return rc;
    /* sr is the item itself: the tiers need no lookup, the attribute
     * filters (written over the alias i) one by primary key. */
    int n = f ? snprintf(buf, size,
                         "sr.tier IN (%s) AND EXISTS (SELECT 1 FROM dbmcp_mem_items i WHERE"
                         " i.id = sr.id AND %s)",
                         tiers, attrs)
              : snprintf(buf, size, "sr.tier IN (%s)", tiers);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "memory filter condition too long");
    out->eligible = buf;
    if (f) {
        const char *names2[] = {":role", ":st", ":tt", ":cat", ":sess", ":meta"};
        const char *values2[] = {f->role,     f->status,     f->task_type,
                                 f->category, f->session_id, f->metadata};
        for (int i = 0; i < 6; i++) {
            out->names[2 + i] = names2[i];
            out->values[2 + i] = values2[i];
        }
    }
    return 0;
}

int mstore_scope_item_ids(store *db, const char *u, const char *a, int tier_mask, int64_t **ids,
                          size_t *n, dbmcp_error *err)
{
    return mstore_scope_item_ids_filtered(db, u, a, tier_mask, NULL, ids, n, err);
}

int mstore_scope_item_ids_filtered(store *db, const char *u, const char *a, int tier_mask,
                                   const mstore_item_filter *f, int64_t **ids, size_t *n,
                                   dbmcp_error *err)
{
    *ids = NULL;
    *n = 0;
    char sql[4096] = "SELECT i.id FROM dbmcp_mem_items i WHERE i.user_id = :u AND"
                     " i.agent_id = :a AND" TIER_MASK_SQL;
    store_stmt *st;
    int rc = f ? filtered_ids_sql(db, sql, sizeof sql, err) : 0;
    if (rc || (rc = mstore_prepare_scoped(db, sql, u, a, &st, err)))
        return rc;
    store_bind_int(st, ":m", tier_mask);
    if (f) {
        store_bind_text(st, ":role", f->role);
        store_bind_text(st, ":st", f->status);
        store_bind_text(st, ":tt", f->task_type);
        store_bind_text(st, ":cat", f->category);
        store_bind_text(st, ":sess", f->session_id);
        store_bind_text(st, ":meta", f->metadata);
    }
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 1024;
            int64_t *p = realloc(*ids, ncap * sizeof *p);
            if (!p) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            *ids = p;
            cap = ncap;
        }
        (*ids)[(*n)++] = store_column_int(st, 0);
    }
    store_finalize(st);
    if (rc < 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return rc;
    }
    /* Sorted here: an ORDER BY would sort through a temporary file. */
    if (*n > 1)
        qsort(*ids, *n, sizeof **ids, cmp_id);
    return 0;
}

/* The hit details of one item: its newest reference (message, episode or
 * knowledge version) passing the time filters (:asof, :from, :to). %s: the
 * age of that reference in seconds. */
static const char item_detail_sql[] =
    "SELECT i.tier, i.text, i.last_seen_at, i.seen_count, i.use_count, r.ref_id,"
    " r.session_id, r.role, r.status, r.category, r.key, r.ef, r.et, r.ref_time, r.metadata,"
    " r.tool_name, %s,"
    " CASE WHEN EXISTS (SELECT 1 FROM dbmcp_mem_vectors v WHERE v.item_id = i.id"
    " AND v.model = :model) THEN 1 ELSE 0 END,"
    " r.task_type FROM dbmcp_mem_items i CROSS JOIN (SELECT * FROM ("
    "  SELECT m.id AS ref_id, m.session_id, m.role, NULL AS status, NULL AS category,"
    "   NULL AS key, NULL AS ef, NULL AS et, m.created_at AS ref_time, m.metadata,"
    "   m.tool_name, NULL AS task_type FROM dbmcp_mem_messages m WHERE m.item_id = :id"
    "   AND m.user_id = :u AND m.agent_id = :a"
    "   AND (CAST(:asof AS TEXT) IS NULL OR m.created_at <= :asof)"
    "   AND (CAST(:from AS TEXT) IS NULL OR m.created_at >= :from)"
    "   AND (CAST(:to AS TEXT) IS NULL OR m.created_at <= :to)"
    "  UNION ALL"
    "  SELECT e.id, e.session_id, NULL, e.status, NULL, NULL, NULL, NULL, e.ended_at,"
    "   e.metadata, NULL, e.task_type FROM dbmcp_mem_episodes e WHERE e.item_id = :id"
    "   AND e.user_id = :u AND e.agent_id = :a"
    "   AND (:asof IS NULL OR e.ended_at <= :asof) AND (:from IS NULL OR e.ended_at >= :from)"
    "   AND (:to IS NULL OR e.ended_at <= :to)"
    "  UNION ALL"
    "  SELECT k.id, NULL, NULL, NULL, k.category, k.key, k.effective_from, k.effective_to,"
    "   k.effective_from, k.metadata, NULL, NULL FROM dbmcp_mem_knowledge k"
    "   WHERE k.item_id = :id AND k.user_id = :u AND k.agent_id = :a"
    "   AND ((:asof IS NULL AND k.effective_to IS NULL) OR (:asof IS NOT NULL AND"
    "   k.effective_from <= :asof AND (k.effective_to IS NULL OR k.effective_to > :asof)))"
    "   AND (:from IS NULL OR k.effective_from >= :from) AND (:to IS NULL OR"
    "   k.effective_from <= :to)"
    " ) AS refs ORDER BY ref_time DESC, ref_id DESC LIMIT 1) r"
    " WHERE i.id = :id AND i.user_id = :u AND i.agent_id = :a";

/* The detail statement for the scope u/a, its filter and the time bound:
 * what one item or a list of them binds :id into. */
static int prepare_detail(store *db, const char *u, const char *a,
                          const mstore_detail_filter *filter, store_stmt **out, dbmcp_error *err)
{
    char age[128], sql[4096];
    int rc =
        dialect_format(db, DIALECT_SECONDS_BETWEEN, age, sizeof age, err, ":now", "r.ref_time");
    if (rc)
        return rc;
    snprintf(sql, sizeof sql, item_detail_sql, age);
    store_stmt *st;
    if ((rc = mstore_prepare_scoped(db, sql, u, a, &st, err)))
        return rc;
    store_bind_text(st, ":model", filter ? filter->model : NULL);
    store_bind_text(st, ":asof", filter ? filter->as_of : NULL);
    store_bind_text(st, ":from", filter ? filter->from : NULL);
    store_bind_text(st, ":to", filter ? filter->to : NULL);
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":now", now);
    *out = st;
    return 0;
}

int mstore_item_detail(store *db, const char *u, const char *a, int64_t item_id,
                       const mstore_detail_filter *filter, mstore_row_fn fn, void *ctx,
                       dbmcp_error *err)
{
    store_stmt *st;
    int rc = prepare_detail(db, u, a, filter, &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", item_id);
    int rows = 0;
    if ((rc = mstore_each(st, fn, ctx, &rows, err)))
        return rc;
    return rows ? 0 : DBMCP_ENOTFOUND;
}

int mstore_item_details(store *db, const char *u, const char *a, const int64_t *ids, size_t n,
                        const mstore_detail_filter *filter, mstore_detail_fn fn, void *ctx,
                        dbmcp_error *err)
{
    store_stmt *st;
    int rc = prepare_detail(db, u, a, filter, &st, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && rc == 0; i++) {
        store_reset(st);
        store_bind_int(st, ":id", ids[i]);
        rc = store_step(st, err);
        if (rc == STORE_ROW)
            rc = fn(ctx, i, st);
        else if (rc == STORE_DONE)
            rc = 0;
    }
    store_finalize(st);
    return rc;
}

/* --- embedding jobs ----------------------------------------------------------------- */

int mstore_jobs_claim(store *db, const char *claimer, const char *now, const char *until, int limit,
                      mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    char sql[1024], skip[64];
    int rc = dialect_format(db, DIALECT_SKIP_LOCKED, skip, sizeof skip, err);
    if (rc)
        return rc;
    int n = snprintf(sql, sizeof sql,
                     "UPDATE dbmcp_mem_jobs SET claimed_by = :c, claimed_until = :until"
                     " WHERE item_id IN (SELECT item_id FROM dbmcp_mem_jobs"
                     " WHERE next_attempt_at <= :now"
                     " AND (claimed_until IS NULL OR claimed_until < :now)"
                     " ORDER BY next_attempt_at, item_id LIMIT :lim%s)"
                     " RETURNING item_id, user_id, agent_id,"
                     " (SELECT i.text FROM dbmcp_mem_items i WHERE i.id = item_id), attempts",
                     skip);
    if (n < 0 || (size_t)n >= sizeof sql)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "job claim: statement too long");
    if ((rc = store_begin(db, err)))
        return rc;
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)) == 0) {
        store_bind_text(st, ":c", claimer);
        store_bind_text(st, ":until", until);
        store_bind_text(st, ":now", now);
        store_bind_int(st, ":lim", limit);
        rc = mstore_each(st, fn, ctx, NULL, err);
    }
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

int mstore_job_complete(store *db, int64_t item_id, const char *claimer, const char *u,
                        const char *a, const char *model, int dim, const float *vec,
                        const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_mem_jobs WHERE item_id = :id AND claimed_by = :c",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", item_id);
    store_bind_text(st, ":c", claimer);
    if ((rc = mstore_run(st, err)))
        return rc;
    if (store_changes(db) == 0)
        return DBMCP_ENOTFOUND;
    /* The item may have been dropped meanwhile (compaction): then the
     * INSERT … SELECT adds nothing. */
    rc = mstore_prepare_scoped(db,
                               "INSERT INTO dbmcp_mem_vectors (item_id, user_id, agent_id,"
                               " model, dim, vec, created_at) SELECT id, user_id, agent_id,"
                               " :model, :dim, :vec, :now FROM dbmcp_mem_items WHERE"
                               " id = :id AND user_id = :u AND agent_id = :a"
                               " ON CONFLICT (item_id, model) DO UPDATE SET"
                               " user_id = excluded.user_id, agent_id = excluded.agent_id,"
                               " dim = excluded.dim, vec = excluded.vec,"
                               " created_at = excluded.created_at",
                               u, a, &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", item_id);
    store_bind_text(st, ":model", model);
    store_bind_int(st, ":dim", dim);
    store_bind_blob(st, ":vec", vec, (size_t)dim * sizeof(float));
    store_bind_text(st, ":now", now);
    return mstore_run(st, err);
}

int mstore_vectors_changed(store *db, dbmcp_error *err)
{
    return search_index_bump(db, MSTORE_VERSION_KEY, err);
}

int mstore_job_fail(store *db, int64_t item_id, const char *claimer, int attempts,
                    const char *next_at, const char *error, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_mem_jobs SET attempts = :n, next_attempt_at = :next,"
                           " last_error = substr(:e, 1, 500), claimed_by = NULL,"
                           " claimed_until = NULL WHERE item_id = :id AND claimed_by = :c",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":n", attempts);
    store_bind_text(st, ":next", next_at);
    store_bind_text(st, ":e", error);
    store_bind_int(st, ":id", item_id);
    store_bind_text(st, ":c", claimer);
    return mstore_run(st, err);
}

int mstore_jobs_stats(store *db, const char *u, const char *a, int64_t *pending, int64_t *retrying,
                      int64_t *vectors, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "SELECT (SELECT count(*) FROM dbmcp_mem_jobs WHERE CAST(:u AS TEXT) IS NULL OR"
        " (user_id = :u AND"
        " agent_id = :a)), (SELECT count(*) FROM dbmcp_mem_jobs WHERE attempts > 0 AND (:u IS"
        " NULL OR (user_id = :u AND agent_id = :a))), (SELECT count(*) FROM dbmcp_mem_vectors"
        " WHERE :u IS NULL OR (user_id = :u AND agent_id = :a))",
        u, a, &st, err);
    if (rc)
        return rc;
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *pending = store_column_int(st, 0);
        *retrying = store_column_int(st, 1);
        *vectors = store_column_int(st, 2);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int mstore_jobs_list_all_scopes(store *db, int limit, mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT j.item_id, j.user_id, j.agent_id, j.attempts,"
                           " j.next_attempt_at, j.last_error, i.tier, j.claimed_by,"
                           " j.claimed_until FROM dbmcp_mem_jobs j JOIN"
                           " dbmcp_mem_items i ON i.id = j.item_id ORDER BY j.next_attempt_at,"
                           " j.item_id LIMIT :lim",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":lim", limit);
    return mstore_each(st, fn, ctx, NULL, err);
}

/* --- compaction ------------------------------------------------------------------------ */

int mstore_sessions_expired_all_scopes(store *db, const char *before, int limit, mstore_row_fn fn,
                                       void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT id, user_id, agent_id, created_at, last_active_at,"
                           " message_count FROM dbmcp_mem_sessions WHERE state = 'active' AND"
                           " last_active_at < :before ORDER BY last_active_at, id LIMIT :lim",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":before", before);
    store_bind_int(st, ":lim", limit);
    return mstore_each(st, fn, ctx, NULL, err);
}

int mstore_session_mark_compacted(store *db, const char *u, const char *a, const char *id,
                                  int64_t episode_id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "UPDATE dbmcp_mem_sessions SET state = 'compacted', episode_id ="
                                   " :e WHERE id = :id AND user_id = :u AND agent_id = :a",
                                   u, a, &st, err);
    if (rc)
        return rc;
    if (episode_id > 0)
        store_bind_int(st, ":e", episode_id);
    else
        store_bind_null(st, ":e");
    store_bind_text(st, ":id", id);
    return mstore_run(st, err);
}

int mstore_episodes_past_retention_all_scopes(store *db, const char *before, int limit,
                                              mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT e.id, e.user_id, e.agent_id, e.session_id FROM"
                           " dbmcp_mem_episodes e WHERE e.ended_at < :before AND"
                           " e.compacted_at IS NULL AND e.session_id IS NOT NULL AND EXISTS"
                           " (SELECT 1 FROM dbmcp_mem_messages m WHERE m.session_id ="
                           " e.session_id AND m.user_id = e.user_id AND m.agent_id = e.agent_id)"
                           " ORDER BY e.ended_at, e.id LIMIT :lim",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":before", before);
    store_bind_int(st, ":lim", limit);
    return mstore_each(st, fn, ctx, NULL, err);
}

int mstore_episode_drop_messages(store *db, const char *u, const char *a, int64_t episode_id,
                                 const char *session_id, const char *now, int64_t *dropped,
                                 dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        mstore_prepare_scoped(db,
                              "DELETE FROM dbmcp_mem_links WHERE user_id = :u AND agent_id = :a"
                              " AND ((src_kind = 'message' AND src_id IN (SELECT CAST(id AS"
                              " TEXT) FROM dbmcp_mem_messages WHERE session_id = :s AND"
                              " user_id = :u AND agent_id = :a)) OR (dst_kind = 'message' AND"
                              " dst_id IN (SELECT CAST(id AS TEXT) FROM dbmcp_mem_messages"
                              " WHERE session_id = :s AND user_id = :u AND agent_id = :a)))",
                              u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", session_id);
    if ((rc = mstore_run(st, err)))
        return rc;
    if ((rc = mstore_prepare_scoped(db,
                                    "DELETE FROM dbmcp_mem_messages WHERE session_id = :s AND"
                                    " user_id = :u AND agent_id = :a",
                                    u, a, &st, err)))
        return rc;
    store_bind_text(st, ":s", session_id);
    if ((rc = mstore_run(st, err)))
        return rc;
    *dropped = store_changes(db);
    if ((rc = mstore_prepare_scoped(db,
                                    "UPDATE dbmcp_mem_episodes SET compacted_at = :now WHERE id ="
                                    " :e AND user_id = :u AND agent_id = :a",
                                    u, a, &st, err)))
        return rc;
    store_bind_text(st, ":now", now);
    store_bind_int(st, ":e", episode_id);
    if ((rc = mstore_run(st, err)))
        return rc;
    return mstore_items_drop_orphans(db, u, a, NULL, err);
}

int mstore_knowledge_prune_all_scopes(store *db, int keep, const char *before, int64_t *pruned,
                                      dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "DELETE FROM dbmcp_mem_knowledge WHERE id IN (SELECT id FROM (SELECT id, effective_to,"
        " row_number() OVER (PARTITION BY user_id, agent_id, category, key ORDER BY"
        " effective_to DESC, id DESC) AS n FROM dbmcp_mem_knowledge WHERE effective_to IS NOT"
        " NULL) AS versions WHERE n > :keep"
        " OR (CAST(:before AS TEXT) IS NOT NULL AND effective_to < :before))",
        &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":keep", keep);
    store_bind_text(st, ":before", before);
    if ((rc = mstore_run(st, err)))
        return rc;
    *pruned = store_changes(db);
    if (*pruned == 0)
        return 0;
    if ((rc = store_prepare(db,
                            "DELETE FROM dbmcp_mem_links WHERE (src_kind = 'knowledge' AND"
                            " CAST(src_id AS BIGINT) NOT IN (SELECT id FROM dbmcp_mem_knowledge))"
                            " OR (dst_kind = 'knowledge' AND CAST(dst_id AS BIGINT) NOT IN"
                            " (SELECT id FROM dbmcp_mem_knowledge))",
                            &st, err)) ||
        (rc = mstore_run(st, err)))
        return rc;
    return mstore_items_drop_orphans(db, NULL, NULL, NULL, err);
}

/* --- monitoring ------------------------------------------------------------------------ */

int mstore_jobs_backlog(store *db, const char *now, int64_t *pending, int64_t *due,
                        int64_t *failing, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT count(*), count(CASE WHEN next_attempt_at <= :now THEN 1 END),"
                           " count(CASE WHEN attempts > 0 THEN 1 END) FROM dbmcp_mem_jobs",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *pending = store_column_int(st, 0);
        *due = store_column_int(st, 1);
        *failing = store_column_int(st, 2);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}
