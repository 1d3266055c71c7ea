/*
 * memory_store.c — the SQL of agent memory's items, sessions, messages,
 * episodes, knowledge versions, links, log and settings (see
 * memory_store.h). Every statement binds :u and :a, the scope. The
 * full-text index (FTS5, external-content, on SQLite; statements from
 * dialect.h) gets its rows inserted and deleted in the same transaction as
 * the items it mirrors.
 */
#include "store/memory_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "store/dialect.h"
#include "store/memory_store_internal.h"
#include "store/pg_fts.h"
#include "store/search_index.h"

/* LIMIT for "no limit": SQLite's -1 is refused by PostgreSQL. */
#define NO_LIMIT INT64_MAX

int mstore_prepare_scoped(store *db, const char *sql, const char *u, const char *a, store_stmt **st,
                          dbmcp_error *err)
{
    int rc = store_prepare_cached(db, sql, st, err);
    if (rc)
        return rc;
    store_bind_text(*st, ":u", u);
    store_bind_text(*st, ":a", a);
    return 0;
}

int mstore_run(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int mstore_each(store_stmt *st, mstore_row_fn fn, void *ctx, int *rows, dbmcp_error *err)
{
    int rc, n = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        n++;
        if (fn && fn(ctx, st)) {
            rc = STORE_DONE;
            break;
        }
    }
    store_finalize(st);
    if (rows)
        *rows = n;
    return rc < 0 ? rc : 0;
}

int mstore_one_int(store_stmt *st, int64_t *out, dbmcp_error *err)
{
    int rc = store_step(st, err);
    if (rc == STORE_ROW)
        *out = store_column_int(st, 0);
    store_finalize(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

/* --- items ----------------------------------------------------------------- */

/* Add item id with text to the full-text index (PostgreSQL: its tokens
 * computed in C, store/pg_fts.h). */
static int index_item(store *db, int64_t id, const char *text, dbmcp_error *err)
{
    if (pg_fts_applies(db))
        return pg_fts_index_memory(db, id, text, err);
    char sql[256];
    store_stmt *st;
    int rc = dialect_format(db, DIALECT_MEMORY_FTS_INDEX, sql, sizeof sql, err);
    if (rc || (rc = store_prepare_cached(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":id", id);
    store_bind_text(st, ":text", text);
    return mstore_run(st, err);
}

int mstore_item_put(store *db, const char *u, const char *a, const char *tier, const char *hash,
                    const char *text, const char *now, int64_t *item_id, int *existed,
                    dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "SELECT id FROM dbmcp_mem_items WHERE user_id = :u AND"
                                   " agent_id = :a AND tier = :tier AND content_hash = :h",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":tier", tier);
    store_bind_text(st, ":h", hash);
    rc = mstore_one_int(st, item_id, err);
    if (rc == 0) {
        *existed = 1;
        if ((rc = mstore_prepare_scoped(db,
                                        "UPDATE dbmcp_mem_items SET seen_count = seen_count + 1,"
                                        " last_seen_at = :now WHERE id = :id AND user_id = :u"
                                        " AND agent_id = :a",
                                        u, a, &st, err)))
            return rc;
        store_bind_text(st, ":now", now);
        store_bind_int(st, ":id", *item_id);
        return mstore_run(st, err);
    }
    if (rc != DBMCP_ENOTFOUND)
        return rc;
    *existed = 0;
    /* The length BM25 sees: the token positions the index holds for text. */
    int64_t length = text_token_count(text, strlen(text));
    if (length < 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if ((rc = mstore_prepare_scoped(db,
                                    "INSERT INTO dbmcp_mem_items (user_id, agent_id, tier,"
                                    " content_hash, text, created_at, last_seen_at, fts_length)"
                                    " VALUES (:u, :a, :tier, :h, :text, :now, :now, :len)"
                                    " RETURNING id",
                                    u, a, &st, err)))
        return rc;
    store_bind_text(st, ":tier", tier);
    store_bind_text(st, ":h", hash);
    store_bind_text(st, ":text", text);
    store_bind_text(st, ":now", now);
    store_bind_int(st, ":len", length);
    if ((rc = mstore_one_int(st, item_id, err)))
        return rc == DBMCP_ENOTFOUND ? DBMCP_ESTORE : rc;
    if ((rc = index_item(db, *item_id, text, err)))
        return rc;
    if ((rc =
             mstore_prepare_scoped(db,
                                   "INSERT INTO dbmcp_mem_jobs (item_id, user_id, agent_id,"
                                   " next_attempt_at, created_at) VALUES (:id, :u, :a, :now, :now)",
                                   u, a, &st, err)))
        return rc;
    store_bind_int(st, ":id", *item_id);
    store_bind_text(st, ":now", now);
    if ((rc = mstore_run(st, err)))
        return rc;
    /* PostgreSQL: wake every embedding worker LISTENing (memory/worker.h);
     * delivered at commit, once per transaction however many jobs. */
    if (strcmp(store_dialect(db), "postgres") == 0)
        return store_exec(db, "NOTIFY dbmcp_mem_jobs", err);
    return 0;
}

#define ORPHAN_WHERE                                                                               \
    " (CAST(:u AS TEXT) IS NULL OR (i.user_id = :u AND i.agent_id = :a))"                          \
    " AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_messages m WHERE m.item_id = i.id)"                  \
    " AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_episodes e WHERE e.item_id = i.id)"                  \
    " AND NOT EXISTS (SELECT 1 FROM dbmcp_mem_knowledge k WHERE k.item_id = i.id)"

int mstore_items_drop_orphans(store *db, const char *u, const char *a, int64_t *dropped,
                              dbmcp_error *err)
{
    char sql[1024];
    store_stmt *st;
    int rc = dialect_format(db, DIALECT_MEMORY_FTS_UNINDEX, sql, sizeof sql, err, ORPHAN_WHERE);
    if (rc || (rc = mstore_prepare_scoped(db, sql, u, a, &st, err)) || (rc = mstore_run(st, err)))
        return rc;
    if ((rc = mstore_prepare_scoped(db, "DELETE FROM dbmcp_mem_items AS i WHERE" ORPHAN_WHERE, u, a,
                                    &st, err)) ||
        (rc = mstore_run(st, err)))
        return rc;
    int64_t n = store_changes(db);
    if (dropped)
        *dropped = n;
    /* Their vectors went with them (ON DELETE CASCADE): cached indexes are stale. */
    return n > 0 ? search_index_bump(db, MSTORE_VERSION_KEY, err) : 0;
}

int mstore_items_mark_used(store *db, const char *u, const char *a, const int64_t *ids, size_t n,
                           const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "UPDATE dbmcp_mem_items SET use_count = use_count + 1,"
                                   " last_used_at = :now WHERE id = :id AND user_id = :u AND"
                                   " agent_id = :a",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    for (size_t i = 0; i < n && rc == 0; i++) {
        store_bind_int(st, ":id", ids[i]);
        rc = store_step(st, err);
        rc = rc < 0 ? rc : 0;
        store_reset(st);
    }
    store_finalize(st);
    return rc;
}

/* --- sessions and messages ---------------------------------------------------- */

int mstore_session_insert(store *db, const char *u, const char *a, const char *id, const char *now,
                          dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "INSERT INTO dbmcp_mem_sessions (id, user_id, agent_id,"
                                   " created_at, last_active_at) VALUES (:id, :u, :a, :now, :now)",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":now", now);
    return mstore_run(st, err);
}

int mstore_session_get(store *db, const char *u, const char *a, const char *id, mstore_row_fn fn,
                       void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        mstore_prepare_scoped(db,
                              "SELECT id, created_at, last_active_at, state, message_count,"
                              " episode_id, context_hash FROM dbmcp_mem_sessions WHERE id = :id"
                              " AND user_id = :u AND agent_id = :a",
                              u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    int rows = 0;
    if ((rc = mstore_each(st, fn, ctx, &rows, err)))
        return rc;
    return rows ? 0 : DBMCP_ENOTFOUND;
}

int mstore_session_latest(store *db, const char *u, const char *a, const char *since, char out[37],
                          dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        mstore_prepare_scoped(db,
                              "SELECT id FROM dbmcp_mem_sessions WHERE user_id = :u AND"
                              " agent_id = :a AND state = 'active' AND last_active_at >= :since"
                              " ORDER BY last_active_at DESC LIMIT 1",
                              u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":since", since);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        snprintf(out, 37, "%s", store_column_text(st, 0));
    store_finalize(st);
    return rc < 0 ? rc : rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int mstore_session_touch(store *db, const char *u, const char *a, const char *id, const char *now,
                         const char *context_hash, int counted, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "UPDATE dbmcp_mem_sessions SET last_active_at = :now, state = 'active',"
        " message_count = message_count + :n, context_hash = coalesce(:h, context_hash)"
        " WHERE id = :id AND user_id = :u AND agent_id = :a",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    store_bind_int(st, ":n", counted ? 1 : 0);
    store_bind_text(st, ":h", context_hash);
    store_bind_text(st, ":id", id);
    return mstore_run(st, err);
}

int mstore_message_last(store *db, const char *u, const char *a, const char *session,
                        mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "SELECT id, role, item_id, tool_call_id, tool_calls FROM dbmcp_mem_messages"
        " WHERE session_id = :s AND user_id = :u AND agent_id = :a"
        " ORDER BY seq DESC LIMIT 1",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", session);
    int rows = 0;
    if ((rc = mstore_each(st, fn, ctx, &rows, err)))
        return rc;
    return rows ? 0 : DBMCP_ENOTFOUND;
}

int mstore_message_insert(store *db, const char *u, const char *a, const char *session,
                          const char *role, int64_t item_id, const char *tool_call_id,
                          const char *tool_name, const char *tool_calls, const char *metadata,
                          const char *now, int64_t *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "INSERT INTO dbmcp_mem_messages (user_id, agent_id, session_id, seq, role, item_id,"
        " tool_call_id, tool_name, tool_calls, metadata, created_at) VALUES (:u, :a, :s,"
        " (SELECT coalesce(max(seq), 0) + 1 FROM dbmcp_mem_messages WHERE session_id = :s),"
        " :role, :item, :tcid, :tool, :calls, :meta, :now) RETURNING id",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", session);
    store_bind_text(st, ":role", role);
    if (item_id > 0)
        store_bind_int(st, ":item", item_id);
    else
        store_bind_null(st, ":item");
    store_bind_text(st, ":tcid", tool_call_id);
    store_bind_text(st, ":tool", tool_name);
    store_bind_text(st, ":calls", tool_calls);
    store_bind_text(st, ":meta", metadata);
    store_bind_text(st, ":now", now);
    rc = mstore_one_int(st, id, err);
    return rc == DBMCP_ENOTFOUND ? DBMCP_ESTORE : rc;
}

int mstore_history(store *db, const char *u, const char *a, const char *session, int limit,
                   mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "SELECT * FROM (SELECT m.id, m.role, coalesce(i.text, ''), m.tool_call_id, m.tool_name,"
        " m.metadata, m.created_at, m.tool_calls FROM dbmcp_mem_messages m LEFT JOIN"
        " dbmcp_mem_items i"
        " ON i.id = m.item_id WHERE m.session_id = :s AND m.user_id = :u AND m.agent_id = :a"
        " ORDER BY m.seq DESC LIMIT :lim) AS latest ORDER BY 1",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", session);
    store_bind_int(st, ":lim", limit > 0 ? limit : NO_LIMIT);
    return mstore_each(st, fn, ctx, NULL, err);
}

/* --- episodes ------------------------------------------------------------------- */

int mstore_episode_by_item(store *db, const char *u, const char *a, int64_t item_id, int64_t *id,
                           dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "SELECT id FROM dbmcp_mem_episodes WHERE item_id = :i AND"
                                   " user_id = :u AND agent_id = :a ORDER BY id LIMIT 1",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":i", item_id);
    return mstore_one_int(st, id, err);
}

int mstore_episode_insert(store *db, const char *u, const char *a, const mstore_episode *e,
                          int64_t item_id, const char *now, int64_t *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "INSERT INTO dbmcp_mem_episodes (user_id, agent_id, session_id, task_type, description,"
        " status, summary, item_id, started_at, ended_at, metadata, created_at) VALUES (:u, :a,"
        " :s, :tt, :d, :st, :sum, :i, :sa, :ea, :meta, :now) RETURNING id",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", e->session_id);
    store_bind_text(st, ":tt", e->task_type);
    store_bind_text(st, ":d", e->description);
    store_bind_text(st, ":st", e->status);
    store_bind_text(st, ":sum", e->summary);
    store_bind_int(st, ":i", item_id);
    store_bind_text(st, ":sa", e->started_at);
    store_bind_text(st, ":ea", e->ended_at);
    store_bind_text(st, ":meta", e->metadata);
    store_bind_text(st, ":now", now);
    rc = mstore_one_int(st, id, err);
    return rc == DBMCP_ENOTFOUND ? DBMCP_ESTORE : rc;
}

int mstore_episode_list(store *db, const char *u, const char *a, const char *status,
                        const char *task_type, const char *from, const char *to, int limit,
                        mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "SELECT id, session_id, task_type, description, status, summary, started_at, ended_at,"
        " metadata, compacted_at, item_id FROM dbmcp_mem_episodes WHERE user_id = :u AND"
        " agent_id = :a AND (CAST(:st AS TEXT) IS NULL OR status = :st)"
        " AND (CAST(:tt AS TEXT) IS NULL OR task_type = :tt)"
        " AND (CAST(:from AS TEXT) IS NULL OR ended_at >= :from)"
        " AND (CAST(:to AS TEXT) IS NULL OR ended_at <= :to)"
        " ORDER BY ended_at DESC, id DESC LIMIT :lim",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":st", status);
    store_bind_text(st, ":tt", task_type);
    store_bind_text(st, ":from", from);
    store_bind_text(st, ":to", to);
    store_bind_int(st, ":lim", limit > 0 ? limit : NO_LIMIT);
    return mstore_each(st, fn, ctx, NULL, err);
}

int mstore_session_started(store *db, const char *u, const char *a, const char *session,
                           char out[32], dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "SELECT created_at FROM dbmcp_mem_sessions WHERE id = :s AND"
                                   " user_id = :u AND agent_id = :a",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", session);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        snprintf(out, 32, "%s", store_column_text(st, 0));
    store_finalize(st);
    return rc < 0 ? rc : rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

/* --- knowledge ---------------------------------------------------------------------- */

int mstore_knowledge_current(store *db, const char *u, const char *a, const char *category,
                             const char *key, int64_t *id, int64_t *item_id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "SELECT id, item_id FROM dbmcp_mem_knowledge WHERE user_id = :u"
                                   " AND agent_id = :a AND category = :c AND key = :k AND"
                                   " effective_to IS NULL",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", category);
    store_bind_text(st, ":k", key);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *id = store_column_int(st, 0);
        *item_id = store_column_int(st, 1);
    }
    store_finalize(st);
    return rc < 0 ? rc : rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int mstore_knowledge_close(store *db, const char *u, const char *a, int64_t id, const char *now,
                           const char *reason, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "UPDATE dbmcp_mem_knowledge SET effective_to = :now,"
                                   " closed_by = :r WHERE id = :id AND user_id = :u AND"
                                   " agent_id = :a AND effective_to IS NULL",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":r", reason);
    store_bind_int(st, ":id", id);
    return mstore_run(st, err);
}

int mstore_knowledge_insert(store *db, const char *u, const char *a, const char *category,
                            const char *key, const char *value, int64_t item_id,
                            int64_t source_episode, const char *metadata, const char *now,
                            int64_t *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "INSERT INTO dbmcp_mem_knowledge (user_id, agent_id, category, key, value, item_id,"
        " effective_from, source_episode, metadata) VALUES (:u, :a, :c, :k, :v, :i, :now, :src,"
        " :meta) RETURNING id",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", category);
    store_bind_text(st, ":k", key);
    store_bind_text(st, ":v", value);
    store_bind_int(st, ":i", item_id);
    store_bind_text(st, ":now", now);
    if (source_episode > 0)
        store_bind_int(st, ":src", source_episode);
    else
        store_bind_null(st, ":src");
    store_bind_text(st, ":meta", metadata);
    rc = mstore_one_int(st, id, err);
    return rc == DBMCP_ENOTFOUND ? DBMCP_ESTORE : rc;
}

int mstore_knowledge_read(store *db, const char *u, const char *a, const char *category,
                          const char *key, const char *as_of, int history, mstore_row_fn fn,
                          void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "SELECT id, category, key, value, effective_from, effective_to, closed_by,"
        " source_episode, metadata, item_id FROM dbmcp_mem_knowledge WHERE user_id = :u AND"
        " agent_id = :a AND key = :k AND (CAST(:c AS TEXT) IS NULL OR category = :c)"
        " AND (:hist = 1 OR (CAST(:asof AS TEXT) IS NULL AND effective_to IS NULL)"
        " OR (:asof IS NOT NULL AND effective_from <= :asof"
        " AND (effective_to IS NULL OR effective_to > :asof)))"
        " ORDER BY effective_from, id",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key);
    store_bind_text(st, ":c", category);
    store_bind_text(st, ":asof", as_of);
    store_bind_int(st, ":hist", history ? 1 : 0);
    return mstore_each(st, fn, ctx, NULL, err);
}

int mstore_knowledge_erase(store *db, const char *u, const char *a, const char *category,
                           const char *key, int64_t *count, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "DELETE FROM dbmcp_mem_links WHERE user_id = :u AND agent_id = :a AND"
        " ((src_kind = 'knowledge' AND src_id IN (SELECT CAST(id AS TEXT) FROM"
        " dbmcp_mem_knowledge WHERE user_id = :u AND agent_id = :a AND key = :k AND"
        " (CAST(:c AS TEXT) IS NULL OR category = :c))) OR (dst_kind = 'knowledge' AND dst_id IN "
        "(SELECT"
        " CAST(id AS TEXT) FROM dbmcp_mem_knowledge WHERE user_id = :u AND agent_id = :a AND"
        " key = :k AND (:c IS NULL OR category = :c))))",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key);
    store_bind_text(st, ":c", category);
    if ((rc = mstore_run(st, err)))
        return rc;
    if ((rc = mstore_prepare_scoped(db,
                                    "DELETE FROM dbmcp_mem_knowledge WHERE user_id = :u AND"
                                    " agent_id = :a AND key = :k"
                                    " AND (CAST(:c AS TEXT) IS NULL OR category = :c)",
                                    u, a, &st, err)))
        return rc;
    store_bind_text(st, ":k", key);
    store_bind_text(st, ":c", category);
    if ((rc = mstore_run(st, err)))
        return rc;
    *count = store_changes(db);
    return mstore_items_drop_orphans(db, u, a, NULL, err);
}

/* --- links ------------------------------------------------------------------------------ */

/* The statement checking that (kind, id) exists in the scope. */
static const char *node_sql(const char *kind)
{
    if (strcmp(kind, "session") == 0)
        return "SELECT 1 FROM dbmcp_mem_sessions WHERE id = :id AND user_id = :u AND agent_id = :a";
    if (strcmp(kind, "message") == 0)
        return "SELECT 1 FROM dbmcp_mem_messages WHERE id = CAST(:id AS BIGINT) AND"
               " user_id = :u AND agent_id = :a";
    if (strcmp(kind, "episode") == 0)
        return "SELECT 1 FROM dbmcp_mem_episodes WHERE id = CAST(:id AS BIGINT) AND"
               " user_id = :u AND agent_id = :a";
    if (strcmp(kind, "knowledge") == 0)
        return "SELECT 1 FROM dbmcp_mem_knowledge WHERE id = CAST(:id AS BIGINT) AND"
               " user_id = :u AND agent_id = :a";
    return NULL;
}

int mstore_node_exists(store *db, const char *u, const char *a, const char *kind, const char *id,
                       dbmcp_error *err)
{
    const char *sql = node_sql(kind);
    if (!sql)
        return dbmcp_error_set(err, DBMCP_EINVAL, "unknown node kind '%.32s'", kind);
    store_stmt *st;
    int rc = mstore_prepare_scoped(db, sql, u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    int64_t one;
    return mstore_one_int(st, &one, err);
}

int mstore_link_insert(store *db, const char *u, const char *a, const char *src_kind,
                       const char *src_id, const char *dst_kind, const char *dst_id,
                       const char *relation, const char *now, int64_t *id, int *existed,
                       dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(
        db,
        "INSERT INTO dbmcp_mem_links (user_id, agent_id, src_kind, src_id, dst_kind, dst_id,"
        " relation, created_at) VALUES (:u, :a, :sk, :si, :dk, :di, :r, :now)"
        " ON CONFLICT DO NOTHING RETURNING id",
        u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":sk", src_kind);
    store_bind_text(st, ":si", src_id);
    store_bind_text(st, ":dk", dst_kind);
    store_bind_text(st, ":di", dst_id);
    store_bind_text(st, ":r", relation);
    store_bind_text(st, ":now", now);
    rc = mstore_one_int(st, id, err);
    *existed = rc == DBMCP_ENOTFOUND;
    if (rc != DBMCP_ENOTFOUND)
        return rc;
    if ((rc = mstore_prepare_scoped(db,
                                    "SELECT id FROM dbmcp_mem_links WHERE user_id = :u AND"
                                    " agent_id = :a AND src_kind = :sk AND src_id = :si AND"
                                    " dst_kind = :dk AND dst_id = :di AND relation = :r",
                                    u, a, &st, err)))
        return rc;
    store_bind_text(st, ":sk", src_kind);
    store_bind_text(st, ":si", src_id);
    store_bind_text(st, ":dk", dst_kind);
    store_bind_text(st, ":di", dst_id);
    store_bind_text(st, ":r", relation);
    return mstore_one_int(st, id, err);
}

int mstore_link_edges(store *db, const char *u, const char *a, const char *kind, const char *id,
                      mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "SELECT src_kind, src_id, dst_kind, dst_id, relation, created_at"
                                   " FROM dbmcp_mem_links WHERE user_id = :u AND agent_id = :a AND"
                                   " ((src_kind = :k AND src_id = :id) OR (dst_kind = :k AND"
                                   " dst_id = :id)) ORDER BY id LIMIT 200",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", kind);
    store_bind_text(st, ":id", id);
    return mstore_each(st, fn, ctx, NULL, err);
}

int mstore_node_label(store *db, const char *u, const char *a, const char *kind, const char *id,
                      char *out, size_t size, dbmcp_error *err)
{
    const char *sql = NULL;
    if (strcmp(kind, "session") == 0)
        sql = "SELECT 'session of ' || created_at || ', ' || CAST(message_count AS TEXT) ||"
              " ' messages, ' || state FROM dbmcp_mem_sessions WHERE id = :id AND user_id = :u AND "
              "agent_id = :a";
    else if (strcmp(kind, "message") == 0)
        sql = "SELECT m.role || ': ' || substr(coalesce(i.text, ''), 1, 120) FROM"
              " dbmcp_mem_messages m LEFT JOIN dbmcp_mem_items i ON i.id = m.item_id WHERE"
              " m.id = CAST(:id AS BIGINT) AND m.user_id = :u AND m.agent_id = :a";
    else if (strcmp(kind, "episode") == 0)
        sql = "SELECT status || ': ' || substr(description, 1, 120) FROM dbmcp_mem_episodes"
              " WHERE id = CAST(:id AS BIGINT) AND user_id = :u AND agent_id = :a";
    else if (strcmp(kind, "knowledge") == 0)
        sql = "SELECT category || '/' || key || ' = ' || substr(value, 1, 120) ||"
              " CASE WHEN effective_to IS NULL THEN '' ELSE ' (until ' || effective_to || ')' END"
              " FROM dbmcp_mem_knowledge WHERE id = CAST(:id AS BIGINT) AND user_id = :u AND"
              " agent_id = :a";
    if (!sql)
        return dbmcp_error_set(err, DBMCP_EINVAL, "unknown node kind '%.32s'", kind);
    store_stmt *st;
    int rc = mstore_prepare_scoped(db, sql, u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        snprintf(out, size, "%s", store_column_text(st, 0) ? store_column_text(st, 0) : "");
    store_finalize(st);
    return rc < 0 ? rc : rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

/* --- log and settings ---------------------------------------------------------------- */

int mstore_log_insert(store *db, const char *u, const char *a, const char *operation,
                      const char *target, int64_t results, double ms, const char *now,
                      dbmcp_error *err)
{
    store_stmt *st;
    int rc = mstore_prepare_scoped(db,
                                   "INSERT INTO dbmcp_memory_log (ts, user_id, agent_id, operation,"
                                   " target, results, duration_ms) VALUES (:now, :u, :a, :op,"
                                   " substr(:t, 1, 200), :n, :ms)",
                                   u, a, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":op", operation);
    store_bind_text(st, ":t", target);
    store_bind_int(st, ":n", results);
    store_bind_double(st, ":ms", ms);
    return mstore_run(st, err);
}

int mstore_settings(store *db, mstore_row_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare_cached(
        db, "SELECT key, value FROM dbmcp_settings WHERE key LIKE 'memory.%'", &st, err);
    if (rc)
        return rc;
    return mstore_each(st, fn, ctx, NULL, err);
}
