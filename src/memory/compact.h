/*
 * compact.h — forgetting by policy, transactionally (`dbmcp memory
 * compact` and the schedule in `dbmcp serve`).
 *
 * Three steps, each made of small transactions so that a crash at any
 * point loses nothing and a rerun finishes the work:
 *
 *   1. expired sessions (active, idle longer than memory.session_idle_s)
 *      become episodes (task_type "session", status "partial": the outcome
 *      is unknown) with a summary, linked derived_from to the session,
 *      which is marked compacted. The summary comes from the summariser
 *      set with mem_compact_set_summarizer (the LLM one when a provider is
 *      configured) and otherwise, or when it fails (logged), is extractive:
 *      the most informative sentences of the session by term weight, in
 *      their order. The episode's metadata says which ("summary": "llm" or
 *      "extractive"). The summariser runs before the session's transaction,
 *      never inside it; the transaction checks that the session still has
 *      the messages summarised (one that got more is left for a later run).
 *      One transaction per session. Sessions without
 *      messages are marked compacted without an episode.
 *   2. episodes that ended longer than memory.episode_retention_s ago keep
 *      their description and summary; the raw messages of their session
 *      are dropped (with items no longer referenced). One transaction per
 *      episode.
 *   3. closed knowledge versions beyond the newest
 *      memory.knowledge_keep_versions per key (and, when
 *      memory.knowledge_retention_s > 0, closed longer than that ago) are
 *      deleted. One transaction.
 *
 * Replicas sharing a database compact one at a time: mem_compact holds the
 * lease "memory.compact" (store/lease.h) while it works, renewing it before
 * every session and episode, and does nothing when another replica holds
 * it (stats->busy_with names that one). A holder on this machine that
 * crashed does not block the next run.
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
    char busy_with[128];      /* not "": nothing done, this replica is compacting */
} mem_compact_stats;

/* An abstractive summariser of a session's messages (texts[i] by
 * roles[i], in order), on the compaction's connection db (for settings and
 * prompts); called outside any transaction. Returns 0 with *out a new
 * non-empty string; DBMCP_ENOTFOUND when it is not configured (the
 * extractive summary is used, nothing logged); any other code with err set
 * (logged as a warning, the extractive summary is used). */
typedef int (*mem_summary_fn)(store *db, const char *const *roles, const char *const *texts,
                              size_t n, char **out, dbmcp_error *err);

/* Set the process-wide summariser of mem_compact (NULL: extractive only).
 * Call at startup, before any compaction or mem_worker_start. memory/ does
 * not call the LLM itself: the CLI sets agent_memory_summary
 * (agent/memory_summary.h). */
void mem_compact_set_summarizer(mem_summary_fn fn);

int mem_compact(store *db, const mem_config *cfg, mem_compact_stats *stats, dbmcp_error *err);

/* The extractive summary of a session's messages (texts[i] by roles[i]):
 * at most max_sentences sentences, at most max_bytes bytes. New string. */
char *mem_summarize(const char *const *roles, const char *const *texts, size_t n, int max_sentences,
                    size_t max_bytes);

#endif
