/*
 * memory_store.h — the SQL of agent memory (schema 0004_memory.sql). The
 * memory module (src/memory/) holds the rules — validation, hashing,
 * ranking, summaries — and calls these functions for every read and write.
 *
 * Scope: every function that touches per-user rows takes user `u` and
 * agent `a` and binds both into every statement it runs; no statement
 * here reads or writes a row of another scope. The exceptions are named
 * *_all_scopes: the embedding worker and compaction, which work through
 * every scope and carry each row's own scope into the calls they make.
 *
 * Transactions: write functions do not open one; the caller wraps a
 * logical write (item + FTS row + job + message) in store_begin/commit.
 *
 * Row callbacks receive the statement positioned on a row; the column
 * order is documented per function. Return nonzero to stop early (the
 * function then returns 0). Strings read from a row are valid only during
 * the callback.
 */
#ifndef DBMCP_STORE_MEMORY_STORE_H
#define DBMCP_STORE_MEMORY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/search_index.h"
#include "store/store.h"

typedef int (*mstore_row_fn)(void *ctx, store_stmt *row);

/* Tier bits for searches. */
#define MSTORE_TIER_MESSAGE 0x1
#define MSTORE_TIER_EPISODE 0x2
#define MSTORE_TIER_KNOWLEDGE 0x4
#define MSTORE_TIER_ALL 0x7

/* --- items: distinct searchable texts ----------------------------------- */

/* Insert the item (FTS row and embedding job too) or, when (u, a, tier,
 * hash) exists, bump its seen_count and last_seen_at. *existed = 1 then. */
int mstore_item_put(store *db, const char *u, const char *a, const char *tier, const char *hash,
                    const char *text, const char *now, int64_t *item_id, int *existed,
                    dbmcp_error *err);
/* Delete items of the scope (u NULL: every scope) no message, episode or
 * knowledge row refers to any more, with their FTS rows, vectors and jobs.
 * *dropped (may be NULL) receives the count. */
int mstore_items_drop_orphans(store *db, const char *u, const char *a, int64_t *dropped,
                              dbmcp_error *err);
/* Count an explicit use of these items (use_count, last_used_at): a read
 * by key, not a search hit (search results feeding their own ranking would
 * make whatever ranked high once rank higher for ever). */
int mstore_items_mark_used(store *db, const char *u, const char *a, const int64_t *ids, size_t n,
                           const char *now, dbmcp_error *err);

/* --- sessions and messages ------------------------------------------------- */

int mstore_session_insert(store *db, const char *u, const char *a, const char *id, const char *now,
                          dbmcp_error *err);
/* Columns: 0 id, 1 created_at, 2 last_active_at, 3 state, 4 message_count,
 * 5 episode_id, 6 context_hash. DBMCP_ENOTFOUND when not in the scope. */
int mstore_session_get(store *db, const char *u, const char *a, const char *id, mstore_row_fn fn,
                       void *ctx, dbmcp_error *err);
/* The newest active session whose last activity is >= since into out;
 * DBMCP_ENOTFOUND when none. */
int mstore_session_latest(store *db, const char *u, const char *a, const char *since, char out[37],
                          dbmcp_error *err);
/* After a message: last_active_at = now, message_count + 1 (when counted),
 * context_hash. */
int mstore_session_touch(store *db, const char *u, const char *a, const char *id, const char *now,
                         const char *context_hash, int counted, dbmcp_error *err);
/* The session's last message. Columns: 0 id, 1 role, 2 item_id, 3
 * tool_call_id, 4 tool_calls. DBMCP_ENOTFOUND when it has none. */
int mstore_message_last(store *db, const char *u, const char *a, const char *session,
                        mstore_row_fn fn, void *ctx, dbmcp_error *err);
/* Append a message (seq = last + 1); item_id 0 = no content; tool_calls
 * NULL or a JSON array text. */
int mstore_message_insert(store *db, const char *u, const char *a, const char *session,
                          const char *role, int64_t item_id, const char *tool_call_id,
                          const char *tool_name, const char *tool_calls, const char *metadata,
                          const char *now, int64_t *id, dbmcp_error *err);
/* Messages oldest first (limit > 0: the last `limit`). Columns: 0 id, 1
 * role, 2 content, 3 tool_call_id, 4 tool_name, 5 metadata, 6 created_at,
 * 7 tool_calls. */
int mstore_history(store *db, const char *u, const char *a, const char *session, int limit,
                   mstore_row_fn fn, void *ctx, dbmcp_error *err);

/* --- episodes ----------------------------------------------------------- */

typedef struct mstore_episode {
    const char *session_id, *task_type, *description, *status, *summary;
    const char *started_at, *ended_at, *metadata;
} mstore_episode;

/* The episode of the scope holding this item; DBMCP_ENOTFOUND when none. */
int mstore_episode_by_item(store *db, const char *u, const char *a, int64_t item_id, int64_t *id,
                           dbmcp_error *err);
int mstore_episode_insert(store *db, const char *u, const char *a, const mstore_episode *e,
                          int64_t item_id, const char *now, int64_t *id, dbmcp_error *err);
/* Episodes newest first, filtered (NULL = no filter) by status and
 * task_type, and ended_at within [from, to]. Columns: 0 id, 1 session_id,
 * 2 task_type, 3 description, 4 status, 5 summary, 6 started_at, 7
 * ended_at, 8 metadata, 9 compacted_at, 10 item_id. */
int mstore_episode_list(store *db, const char *u, const char *a, const char *status,
                        const char *task_type, const char *from, const char *to, int limit,
                        mstore_row_fn fn, void *ctx, dbmcp_error *err);
/* Start time of the session (its created_at) into out[32]. */
int mstore_session_started(store *db, const char *u, const char *a, const char *session,
                           char out[32], dbmcp_error *err);

/* --- knowledge ------------------------------------------------------------- */

/* The current version of (category, key): *id and *item_id, or
 * DBMCP_ENOTFOUND. */
int mstore_knowledge_current(store *db, const char *u, const char *a, const char *category,
                             const char *key, int64_t *id, int64_t *item_id, dbmcp_error *err);
/* Close a version: effective_to = now, closed_by = reason. */
int mstore_knowledge_close(store *db, const char *u, const char *a, int64_t id, const char *now,
                           const char *reason, dbmcp_error *err);
int mstore_knowledge_insert(store *db, const char *u, const char *a, const char *category,
                            const char *key, const char *value, int64_t item_id,
                            int64_t source_episode, const char *metadata, const char *now,
                            int64_t *id, dbmcp_error *err);
/* Versions of key (category NULL = any). as_of NULL: the current ones;
 * otherwise the ones effective at as_of (from <= as_of < to). history:
 * every version, oldest first. Columns: 0 id, 1 category, 2 key, 3 value,
 * 4 effective_from, 5 effective_to, 6 closed_by, 7 source_episode, 8
 * metadata, 9 item_id. */
int mstore_knowledge_read(store *db, const char *u, const char *a, const char *category,
                          const char *key, const char *as_of, int history, mstore_row_fn fn,
                          void *ctx, dbmcp_error *err);
/* Delete every version of (category, key) (category NULL = any) and their
 * links; *count receives the versions deleted. */
int mstore_knowledge_erase(store *db, const char *u, const char *a, const char *category,
                           const char *key, int64_t *count, dbmcp_error *err);

/* --- links ------------------------------------------------------------------ */

/* 0 when a session/message/episode/knowledge row with that id exists in
 * the scope, DBMCP_ENOTFOUND otherwise (also for ids of other scopes). */
int mstore_node_exists(store *db, const char *u, const char *a, const char *kind, const char *id,
                       dbmcp_error *err);
/* Insert an edge; *existed = 1 when the same edge was there already. */
int mstore_link_insert(store *db, const char *u, const char *a, const char *src_kind,
                       const char *src_id, const char *dst_kind, const char *dst_id,
                       const char *relation, const char *now, int64_t *id, int *existed,
                       dbmcp_error *err);
/* Edges touching (kind, id) in either direction. Columns: 0 src_kind, 1
 * src_id, 2 dst_kind, 3 dst_id, 4 relation, 5 created_at. */
int mstore_link_edges(store *db, const char *u, const char *a, const char *kind, const char *id,
                      mstore_row_fn fn, void *ctx, dbmcp_error *err);
/* A one-line label of a node for graph output. Columns: 0 label. */
int mstore_node_label(store *db, const char *u, const char *a, const char *kind, const char *id,
                      char *out, size_t size, dbmcp_error *err);

/* --- recall ------------------------------------------------------------------- */

/* The ids of the scope's items in the tiers of tier_mask, ascending, into
 * a new array *ids (caller frees) of *n: the pre-filter of a search over
 * the shared FTS and vector indexes of every scope. */
int mstore_scope_item_ids(store *db, const char *u, const char *a, int tier_mask, int64_t **ids,
                          size_t *n, dbmcp_error *err);

/* Attribute filters of a recall (NULL fields: no filter). role: messages
 * only; status, task_type: episodes only; category: knowledge only;
 * session_id: messages and episodes. metadata: a JSON object of top-level
 * keys (without '"') whose scalar values the row's metadata must hold. */
typedef struct mstore_item_filter {
    const char *role, *status, *task_type, *category, *session_id;
    const char *metadata;
} mstore_item_filter;
/* As mstore_scope_item_ids, keeping only items with at least one
 * occurrence (a message, the episode, any knowledge version) that passes
 * every filter of f: the candidate-stage filter of recall, so that a narrow
 * filter does not starve the top k. A superset of the rows the exact
 * filters of recall then keep (metadata scalars compared after
 * json_extract, so 1 and 1.0 both pass here). */
int mstore_scope_item_ids_filtered(store *db, const char *u, const char *a, int tier_mask,
                                   const mstore_item_filter *f, int64_t **ids, size_t *n,
                                   dbmcp_error *err);
/* The rows user u's agent a may read, as the scope of a keyword search
 * (store/search_index.h): every item of (u, a), all tiers — the statistics
 * of BM25 come from them and nothing else. out borrows u and a. */
void mstore_search_scope(const char *u, const char *a, search_index_scope *out);
/* As mstore_search_scope, and only the items of tier_mask passing f (may
 * be NULL; as in mstore_scope_item_ids_filtered) are ranked: the scope's
 * eligible condition, written into buf (size bytes), which out borrows
 * with u, a and f's strings. The statistics stay those of every item. */
int mstore_search_scope_filtered(store *db, const char *u, const char *a, int tier_mask,
                                 const mstore_item_filter *f, char *buf, size_t size,
                                 search_index_scope *out, dbmcp_error *err);
/* The corpus version key bumped whenever memory vectors change
 * (search_index.h, dbmcp_data_versions). */
#define MSTORE_VERSION_KEY "memory"

/* Which occurrence of an item a hit may show (NULL fields: no filter). */
typedef struct mstore_detail_filter {
    const char *model; /* reports whether the item has a vector of this model */
    const char *as_of; /* rows that existed then; knowledge: the version effective
                          then (as_of NULL: only current knowledge versions) */
    const char *from;  /* ref_time >= from */
    const char *to;    /* ref_time <= to */
} mstore_detail_filter;

/* What a hit shows about an item: one row, or DBMCP_ENOTFOUND when the item
 * is not in the scope or no occurrence passes the filter. Columns: 0 tier,
 * 1 text, 2 last_seen_at, 3 seen_count, 4 use_count, 5 ref_id (message,
 * episode or knowledge id), 6 session_id, 7 role, 8 status (episodes), 9
 * category, 10 key, 11 effective_from, 12 effective_to, 13 ref_time
 * (message created_at, episode ended_at, knowledge effective_from), 14
 * metadata, 15 tool_name, 16 age of ref_time in seconds, 17 has a vector
 * of filter->model (0/1), 18 task_type. Messages: the newest occurrence;
 * knowledge: the newest version passing the filter. */
int mstore_item_detail(store *db, const char *u, const char *a, int64_t item_id,
                       const mstore_detail_filter *filter, mstore_row_fn fn, void *ctx,
                       dbmcp_error *err);
/* mstore_item_detail for each of ids[0..n), with one prepared statement:
 * fn(ctx, i, row) for each item i that has a row (an item without one is
 * skipped). Stops at fn's nonzero return. */
typedef int (*mstore_detail_fn)(void *ctx, size_t i, store_stmt *row);
int mstore_item_details(store *db, const char *u, const char *a, const int64_t *ids, size_t n,
                        const mstore_detail_filter *filter, mstore_detail_fn fn, void *ctx,
                        dbmcp_error *err);

/* --- embedding jobs ------------------------------------------------------------ */

/* Claim at most `limit` due jobs of every scope (next_attempt_at <= now,
 * the oldest first) that no claim holds (claimed_until NULL or before
 * now) for `claimer` (a replica id) until `until`, in one transaction of
 * its own: replicas sharing the database never get the same job while a
 * claim lasts, and the jobs of a claimer that died are claimed again once
 * its claim ran out. fn gets each claimed job, in no particular order.
 * Columns: 0 item_id, 1 user_id, 2 agent_id, 3 text, 4 attempts. */
int mstore_jobs_claim(store *db, const char *claimer, const char *now, const char *until, int limit,
                      mstore_row_fn fn, void *ctx, dbmcp_error *err);
/* Delete the job if `claimer` still holds its claim and store the vector
 * (inside the caller's transaction; call mstore_vectors_changed once in it
 * as well). DBMCP_ENOTFOUND, nothing written, when the claim was lost
 * (it ran out and another replica took the job, or the item is gone):
 * each job is completed exactly once. */
int mstore_job_complete(store *db, int64_t item_id, const char *claimer, const char *u,
                        const char *a, const char *model, int dim, const float *vec,
                        const char *now, dbmcp_error *err);
/* Bump the memory corpus version: cached vector indexes are stale. */
int mstore_vectors_changed(store *db, dbmcp_error *err);
/* Record a failed attempt and release the claim (nothing when `claimer`
 * no longer holds it). */
int mstore_job_fail(store *db, int64_t item_id, const char *claimer, int attempts,
                    const char *next_at, const char *error, dbmcp_error *err);
/* Pending jobs (u NULL: all scopes), those past their first attempt, and
 * vectors stored. */
int mstore_jobs_stats(store *db, const char *u, const char *a, int64_t *pending, int64_t *retrying,
                      int64_t *vectors, dbmcp_error *err);
/* Jobs for `dbmcp memory jobs`. Columns: 0 item_id, 1 user_id, 2 agent_id,
 * 3 attempts, 4 next_attempt_at, 5 last_error, 6 tier, 7 claimed_by, 8
 * claimed_until. */
int mstore_jobs_list_all_scopes(store *db, int limit, mstore_row_fn fn, void *ctx,
                                dbmcp_error *err);

/* --- compaction ------------------------------------------------------------------ */

/* Active sessions idle since before `before`. Columns: 0 id, 1 user_id, 2
 * agent_id, 3 created_at, 4 last_active_at, 5 message_count. */
int mstore_sessions_expired_all_scopes(store *db, const char *before, int limit, mstore_row_fn fn,
                                       void *ctx, dbmcp_error *err);
/* state = 'compacted', episode_id (0 = none). */
int mstore_session_mark_compacted(store *db, const char *u, const char *a, const char *id,
                                  int64_t episode_id, dbmcp_error *err);
/* Episodes ended before `before` whose session still has raw messages.
 * Columns: 0 episode id, 1 user_id, 2 agent_id, 3 session_id. */
int mstore_episodes_past_retention_all_scopes(store *db, const char *before, int limit,
                                              mstore_row_fn fn, void *ctx, dbmcp_error *err);
/* Drop a session's raw messages and stamp its episode compacted_at. */
int mstore_episode_drop_messages(store *db, const char *u, const char *a, int64_t episode_id,
                                 const char *session_id, const char *now, int64_t *dropped,
                                 dbmcp_error *err);
/* Delete closed knowledge versions beyond the newest `keep` closed ones per
 * key, and (before not NULL) closed versions whose effective_to < before.
 * Every scope. */
int mstore_knowledge_prune_all_scopes(store *db, int keep, const char *before, int64_t *pruned,
                                      dbmcp_error *err);

/* --- log and settings --------------------------------------------------------------- */

int mstore_log_insert(store *db, const char *u, const char *a, const char *operation,
                      const char *target, int64_t results, double ms, const char *now,
                      dbmcp_error *err);
/* Rows of dbmcp_settings whose key starts with "memory.". Columns: 0 key, 1
 * value. */
int mstore_settings(store *db, mstore_row_fn fn, void *ctx, dbmcp_error *err);

/* --- monitoring --------------------------------------------------------------------- */

/* The embedding job backlog of every scope, in one pass over the job
 * table only (never the vectors): jobs pending, of them those due at
 * `now` (next_attempt_at <= now), and those that failed at least once
 * (including the ones given up). */
int mstore_jobs_backlog(store *db, const char *now, int64_t *pending, int64_t *due,
                        int64_t *failing, dbmcp_error *err);

#endif
