/*
 * commit_group.c — concurrent writers share one transaction (contract in
 * commit_group.h).
 *
 * One group per database: a queue of waiting calls, a flag saying whether
 * a leader is running a batch, and a condition variable every waiter
 * sleeps on. A caller queues its call, then either leads (no batch in
 * progress: it takes the queue's head and runs it on its own handle) or
 * waits until its call is settled: done (rc final) or sent back to run
 * alone. The lock is never held while SQL runs.
 */
#include "store/commit_group.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum call_state { CALL_QUEUED = 0, CALL_DONE, CALL_ALONE } call_state;

typedef struct group_call {
    store_group_fn fn;
    void *ctx;
    dbmcp_error *err; /* the caller's */
    int rc;           /* fn's result once CALL_DONE */
    call_state state;
    struct group_call *next; /* queue order */
} group_call;

typedef struct commit_group {
    char *identity;       /* store_identity of the database */
    group_call *head;     /* queued calls, oldest first */
    group_call *tail;     /* last queued call */
    int leading;          /* a batch is running */
    pthread_cond_t moved; /* a batch ended: calls settled, leadership free */
    struct commit_group *next;
} commit_group;

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static commit_group *groups;
static store_group_stats stats;

/* Under groups_lock: the group of identity, created when missing. */
static commit_group *group_for_locked(const char *identity)
{
    for (commit_group *g = groups; g; g = g->next)
        if (strcmp(g->identity, identity) == 0)
            return g;
    commit_group *g = calloc(1, sizeof *g);
    if (!g || !(g->identity = strdup(identity))) {
        free(g);
        return NULL;
    }
    pthread_cond_init(&g->moved, NULL);
    g->next = groups;
    groups = g;
    return g;
}

/* fn alone in a transaction of its own on db. */
static int run_alone(store *db, store_group_fn fn, void *ctx, dbmcp_error *err)
{
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    if ((rc = fn(db, ctx, err)) == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

/* Run batch[0..n) on db in one transaction. Decides each call's outcome
 * into outcome[i] (applied by the caller under the lock, so a waiter never
 * sees its call settled before the leader is done with it): CALL_DONE with
 * the call's rc set, or CALL_ALONE when the transaction as a whole failed
 * and the call's own function had not. Returns the calls committed. */
static size_t run_batch(store *db, group_call **batch, size_t n, call_state *outcome)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int broken = store_begin(db, &err) != 0;
    size_t ran = 0;
    for (; ran < n && !broken; ran++) {
        group_call *c = batch[ran];
        if (store_exec(db, "SAVEPOINT dbmcp_group", &err) != 0) {
            broken = 1;
            break;
        }
        c->rc = c->fn(db, c->ctx, c->err);
        if (c->rc != 0)
            broken = store_exec(db, "ROLLBACK TO SAVEPOINT dbmcp_group", &err) != 0;
        if (!broken)
            broken = store_exec(db, "RELEASE SAVEPOINT dbmcp_group", &err) != 0;
    }
    if (!broken && store_commit(db, &err) != 0)
        broken = 1;
    if (broken)
        store_rollback(db);
    size_t committed = 0;
    for (size_t i = 0; i < n; i++) {
        group_call *c = batch[i];
        /* A call whose function failed was rolled back to its savepoint:
         * its error stands whatever happened to the rest. */
        if (i < ran && c->rc != 0) {
            outcome[i] = CALL_DONE;
        } else if (broken) {
            outcome[i] = CALL_ALONE;
        } else {
            outcome[i] = CALL_DONE;
            committed++;
        }
    }
    return committed;
}

int store_group_run(store *db, store_group_fn fn, void *ctx, dbmcp_error *err)
{
    assert(db && fn && err);
    pthread_mutex_lock(&groups_lock);
    commit_group *g = group_for_locked(store_identity(db));
    if (!g) {
        pthread_mutex_unlock(&groups_lock);
        return run_alone(db, fn, ctx, err);
    }
    group_call me = {fn, ctx, err, 0, CALL_QUEUED, NULL};
    if (g->tail)
        g->tail->next = &me;
    else
        g->head = &me;
    g->tail = &me;
    stats.calls++;
    while (me.state == CALL_QUEUED) {
        if (g->leading) {
            pthread_cond_wait(&g->moved, &groups_lock);
            continue;
        }
        /* Lead: the oldest calls, which include this one unless more than
         * a batch queued before it (then it leads again or waits). */
        group_call *batch[STORE_GROUP_MAX];
        call_state outcome[STORE_GROUP_MAX];
        size_t n = 0;
        while (g->head && n < STORE_GROUP_MAX) {
            batch[n++] = g->head;
            g->head = g->head->next;
        }
        if (!g->head)
            g->tail = NULL;
        g->leading = 1;
        pthread_mutex_unlock(&groups_lock);
        size_t committed = run_batch(db, batch, n, outcome);
        pthread_mutex_lock(&groups_lock);
        g->leading = 0;
        if (committed)
            stats.commits++;
        for (size_t i = 0; i < n; i++) {
            stats.retried += outcome[i] == CALL_ALONE;
            batch[i]->state = outcome[i]; /* the waiter may return from here on */
        }
        pthread_cond_broadcast(&g->moved);
    }
    pthread_mutex_unlock(&groups_lock);
    if (me.state == CALL_ALONE)
        return run_alone(db, fn, ctx, err);
    return me.rc;
}

void store_group_stats_get(store_group_stats *out)
{
    pthread_mutex_lock(&groups_lock);
    *out = stats;
    pthread_mutex_unlock(&groups_lock);
}
