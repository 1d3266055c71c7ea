/*
 * commit_group.h — group commit: concurrent writers to one database share
 * one transaction and one commit.
 *
 * A write that runs in a transaction of its own pays a commit each (on
 * PostgreSQL a WAL flush; on SQLite the write lock taken and released, with
 * every other writer sleeping in the busy handler meanwhile). Through
 * store_group_run the writers of one database queue their work; whichever
 * of them finds no transaction in progress becomes the leader, takes the
 * queue (at most STORE_GROUP_MAX calls) and runs every call's function on
 * its own handle inside one transaction, each call under a savepoint, then
 * commits once. While it runs, the next calls queue up for the next
 * leader, so the batch grows with the load and no call waits for a timer.
 *
 * What a caller can rely on:
 *   - acknowledged only when durable: store_group_run returns 0 only after
 *     the COMMIT of the transaction holding the call's writes succeeded;
 *   - a call that fails fails alone: its function's error rolls back to its
 *     savepoint, so none of its writes stay and the other calls of the
 *     batch commit as if it had never run;
 *   - a batch that fails as a whole (BEGIN, a savepoint or the COMMIT
 *     refused, e.g. a deferred constraint or a lost connection) is rolled
 *     back entirely and every call in it whose function had succeeded runs
 *     again, alone, in its own transaction on its caller's own handle; so
 *     one call that breaks the commit loses nothing of the others.
 *
 * The function may therefore run more than once (its writes of an earlier
 * run were rolled back) and on another thread and handle than the
 * caller's: it must use only its arguments, write its results into ctx
 * (each run overwrites them), and neither begin nor end transactions.
 *
 * Groups are per database (store_identity); they live for the process.
 * Thread-safe; db must not be in a transaction.
 */
#ifndef DBMCP_STORE_COMMIT_GROUP_H
#define DBMCP_STORE_COMMIT_GROUP_H

#include "core/error.h"
#include "store/store.h"

#define STORE_GROUP_MAX 128 /* calls in one transaction at most */

/* One unit of work: its writes on db, 0 or a negative code with err set. */
typedef int (*store_group_fn)(store *db, void *ctx, dbmcp_error *err);

/* Run fn(ctx) in a transaction shared with the concurrent callers on the
 * same database; fn's result, or the error of the transaction that would
 * have held it. */
int store_group_run(store *db, store_group_fn fn, void *ctx, dbmcp_error *err);

/* Counters of one process, for tests and the bench: calls run, transactions
 * committed by groups, calls that ran again alone after their batch failed. */
typedef struct store_group_stats {
    unsigned long calls;
    unsigned long commits;
    unsigned long retried;
} store_group_stats;
void store_group_stats_get(store_group_stats *out);

#endif
