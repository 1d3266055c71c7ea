/*
 * compact.h — forgetting by policy, transactionally (`dbmcp memory
 * compact` and the schedule in `dbmcp serve`).
 *
 * Three steps, each made of small transactions so that a crash at any
 * point loses nothing and a rerun finishes the work:
 *
 *   1. expired sessions (active, idle longer than memory.session_idle_s)
 *      become episodes (task_type "session", status "partial": the outcome
 *      is unknown) with an extractive summary — the most informative
 *      sentences of the session by term weight, in their order — linked
 *      derived_from to the session, which is marked compacted. One
 *      transaction per session. Sessions without messages are marked
 *      compacted without an episode.
 *   2. episodes that ended longer than memory.episode_retention_s ago keep
 *      their description and summary; the raw messages of their session
 *      are dropped (with items no longer referenced). One transaction per
 *      episode.
 *   3. closed knowledge versions beyond the newest
 *      memory.knowledge_keep_versions per key (and, when
 *      memory.knowledge_retention_s > 0, closed longer than that ago) are
 *      deleted. One transaction.
 *
 * The environment variable DBMCP_TEST_COMPACT_ABORT=N (tests only) aborts
 * the process inside the transaction of the N-th session of step 1, to
 * prove crash safety.
 */
#ifndef DBMCP_MEMORY_COMPACT_H
#define DBMCP_MEMORY_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "memory/memory.h"
#include "store/store.h"

typedef struct mem_compact_stats {
    int64_t sessions_expired;   /* sessions turned into episodes */
    int64_t sessions_empty;     /* expired sessions without messages */
    int64_t episodes_compacted; /* episodes whose raw messages were dropped */
    int64_t messages_dropped;
    int64_t knowledge_pruned; /* closed versions deleted */
} mem_compact_stats;

int mem_compact(store *db, const mem_config *cfg, mem_compact_stats *stats, dbmcp_error *err);

/* The extractive summary of a session's messages (texts[i] by roles[i]):
 * at most max_sentences sentences, at most max_bytes bytes. New string. */
char *mem_summarize(const char *const *roles, const char *const *texts, size_t n, int max_sentences,
                    size_t max_bytes);

#endif
