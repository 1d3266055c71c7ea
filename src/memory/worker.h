/*
 * worker.h — memory upkeep in the background: the embedding worker and the
 * compaction schedule of `dbmcp serve`.
 *
 * Embedding jobs live in dbmcp_mem_jobs (one row per item still to embed),
 * written in the same transaction as the item, so a job survives a crash
 * or restart. mem_jobs_run claims due jobs (next_attempt_at <= now) of every
 * scope in batches for this replica (core/replica.h) for memory.job_lease_s,
 * embeds their texts with the shared embedder (recall.h: mem_embedder) and
 * stores the vectors while deleting their jobs, one transaction per batch.
 * Replicas sharing the database never take the same job while a claim
 * lasts; a job whose claimer died is claimed again when the claim ran out,
 * and a job is completed (and logged as "embed" in dbmcp_memory_log) only
 * by the replica still holding its claim, so exactly once. A failed batch
 * is retried with exponential backoff
 * (memory.job_backoff_s doubling per attempt, at most one hour); after
 * memory.job_max_attempts the job stays, with its last error, for
 * `dbmcp memory jobs` to show, and is no longer retried automatically.
 *
 * The worker thread runs mem_jobs_run whenever jobs are due and
 * mem_compact every memory.compact_interval_s seconds (0 = never). It uses
 * its own connection. Idle, it sleeps without using CPU until woken: by
 * mem_jobs_posted (a memory write of this process committed a job), on
 * PostgreSQL also by a NOTIFY dbmcp_mem_jobs (every job insert sends one,
 * delivered at commit, so writes of other processes and replicas wake it
 * too, on a LISTEN connection of its own), and at the latest after 2 s
 * (jobs written by another process on SQLite, retries whose backoff ran
 * out, claims of a dead replica that expired). mem_worker_stop wakes
 * it, waits for the batch in progress, joins it and frees the shared
 * embedder (call it once no tool call runs any more).
 */
#ifndef DBMCP_MEMORY_WORKER_H
#define DBMCP_MEMORY_WORKER_H

#include "core/error.h"
#include "memory/memory.h"
#include "store/store.h"

typedef struct mem_worker mem_worker;

/* Process at most `limit` due jobs. *done / *failed (may be NULL) receive
 * the counts. Errors other than embedding failures (store errors) are
 * returned. */
int mem_jobs_run(store *db, const mem_config *cfg, int limit, int *done, int *failed,
                 dbmcp_error *err);

/* Make the vectors stored so far visible to searches: bump the memory
 * corpus version, so the next search rebuilds its cached vector index. The
 * worker does it at most every memory.vector_refresh_s seconds (a rebuild
 * reads every vector of the model); `dbmcp memory jobs --run` after its
 * run. Until then new items are found by keyword. */
int mem_jobs_publish(store *db, dbmcp_error *err);

/* Wake the worker of this process (if any) after a commit that queued
 * embedding jobs. Cheap, never blocks; safe from any thread. */
void mem_jobs_posted(void);

/* Start the worker on a connection of its own to db_url. */
int mem_worker_start(const char *db_url, mem_worker **out, dbmcp_error *err);
/* Stop and free (NULL is a no-op). */
void mem_worker_stop(mem_worker *w);

#endif
