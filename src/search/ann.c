/*
 * ann.c — the HNSW accelerator of ann.h and its sync thread.
 *
 * State: the graph (under the read/write lock, with the version whose
 * rows it holds, -1 while it is being changed), the exact index it last
 * matched (held) and the newest one asked for (wanted). The thread runs
 * while there is a wanted index: it diffs wanted against held — both
 * ascending by id, so one merge walk — applies the removals and adds in
 * batches under the write lock, publishes the version, swaps held for
 * wanted, and looks again. It exits when nothing is wanted; the next
 * search_ann_sync starts a new one.
 */
#include "search/ann.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/hnsw.h"
#include "core/log.h"

#define SYNC_BATCH 256 /* graph changes per hold of the write lock */

typedef struct ann_target {
    const vec_index *ix; /* NULL: none */
    int64_t version;
    search_ann_release_fn release;
    void *owner;
} ann_target;

struct search_ann {
    pthread_mutex_t mu;  /* guards everything below but g and version */
    pthread_rwlock_t rw; /* guards g and version */
    hnsw *g;             /* the graph; owned */
    int64_t version;     /* data version g holds, -1 while none */
    int dim;             /* floats per vector */
    int refs;            /* references */
    ann_target held;     /* the exact index g matches */
    ann_target wanted;   /* the newest index asked for */
    pthread_t thread;    /* the sync thread, when thread_alive */
    int thread_alive;    /* created and not yet joined */
    int running;         /* the thread is still working (not about to exit) */
    int stop;            /* the last reference is gone: stop at the next batch */
};

static void target_release(ann_target *t)
{
    if (t->ix && t->release)
        t->release(t->owner);
    memset(t, 0, sizeof *t);
}

search_ann *search_ann_new(int dim)
{
    search_ann *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (!(a->g = hnsw_new(dim, NULL))) {
        free(a);
        return NULL;
    }
    pthread_mutex_init(&a->mu, NULL);
    /* Writer-preferring: a steady stream of searches must not keep the
     * sync thread from ever taking the write lock. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&a->rw, &attr);
    pthread_rwlockattr_destroy(&attr);
    a->version = -1;
    a->dim = dim;
    a->refs = 1;
    return a;
}

void search_ann_ref(search_ann *a)
{
    pthread_mutex_lock(&a->mu);
    a->refs++;
    pthread_mutex_unlock(&a->mu);
}

void search_ann_unref(search_ann *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    int last = --a->refs == 0;
    if (last)
        a->stop = 1;
    int join = last && a->thread_alive;
    pthread_mutex_unlock(&a->mu);
    if (!last)
        return;
    if (join)
        pthread_join(a->thread, NULL);
    target_release(&a->held);
    target_release(&a->wanted);
    hnsw_free(a->g);
    pthread_rwlock_destroy(&a->rw);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

int64_t search_ann_version(search_ann *a)
{
    pthread_rwlock_rdlock(&a->rw);
    int64_t v = a->version;
    pthread_rwlock_unlock(&a->rw);
    return v;
}

/* --- the sync thread ------------------------------------------------------------ */

/* One change: remove id (v NULL) or add (id, v). */
typedef struct change {
    int64_t id;
    const float *v;
} change;

static int stopped(search_ann *a)
{
    pthread_mutex_lock(&a->mu);
    int s = a->stop;
    pthread_mutex_unlock(&a->mu);
    return s;
}

/* Apply n changes under the write lock. 0, DBMCP_ENOMEM or DBMCP_EINVAL. */
static int apply(search_ann *a, const change *c, size_t n)
{
    int rc = 0;
    pthread_rwlock_wrlock(&a->rw);
    a->version = -1; /* from here until published, g matches no version */
    if (!a->g)
        rc = DBMCP_ENOMEM;
    for (size_t i = 0; a->g && i < n && (!rc || rc == DBMCP_EINVAL); i++)
        rc = c[i].v ? hnsw_add(a->g, c[i].id, c[i].v) : (hnsw_remove(a->g, c[i].id), 0);
    pthread_rwlock_unlock(&a->rw);
    /* A vector vec_check refuses was skipped by the exact index too. */
    return rc == DBMCP_EINVAL ? 0 : rc;
}

/* Bring g from old's rows (NULL: none) to new's. 0, DBMCP_ENOMEM or
 * DBMCP_ETIMEOUT (stopped). */
static int diff_apply(search_ann *a, const vec_index *old, const vec_index *nw)
{
    change batch[SYNC_BATCH];
    size_t n = 0, i = 0, j = 0;
    size_t no = old ? vec_index_count(old) : 0, nn = vec_index_count(nw);
    size_t row_bytes = (size_t)a->dim * sizeof(float);
    int rc = 0;
    while (!rc && (i < no || j < nn)) {
        int64_t io = i < no ? vec_index_id(old, i) : INT64_MAX;
        int64_t in = j < nn ? vec_index_id(nw, j) : INT64_MAX;
        if (i < no && (j >= nn || io < in)) {
            batch[n++] = (change){io, NULL};
            i++;
        } else if (i < no && io == in) {
            if (memcmp(vec_index_row(old, i), vec_index_row(nw, j), row_bytes) != 0)
                batch[n++] = (change){in, vec_index_row(nw, j)};
            i++;
            j++;
        } else {
            batch[n++] = (change){in, vec_index_row(nw, j)};
            j++;
        }
        if (n == SYNC_BATCH || (i >= no && j >= nn)) {
            rc = apply(a, batch, n);
            n = 0;
            if (!rc && stopped(a))
                rc = DBMCP_ETIMEOUT;
        }
    }
    return rc;
}

static void *sync_main(void *arg)
{
    search_ann *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        if (a->stop || !a->wanted.ix) {
            a->running = 0;
            pthread_mutex_unlock(&a->mu);
            return NULL;
        }
        ann_target t = a->wanted, old = a->held;
        memset(&a->wanted, 0, sizeof a->wanted);
        pthread_mutex_unlock(&a->mu);

        int rc = diff_apply(a, old.ix, t.ix);
        if (rc) {
            /* The graph is half changed and matches no index: searches stay
             * exact; a later sync starts from an empty graph. */
            if (rc == DBMCP_ENOMEM)
                log_msg(LOG_WARN, "search",
                        "out of memory building the approximate index; searches stay exact");
            target_release(&t);
            hnsw *fresh = hnsw_new(a->dim, NULL);
            pthread_rwlock_wrlock(&a->rw);
            hnsw_free(a->g);
            a->g = fresh;
            pthread_rwlock_unlock(&a->rw);
            pthread_mutex_lock(&a->mu);
            memset(&a->held, 0, sizeof a->held);
            a->running = 0;
            pthread_mutex_unlock(&a->mu);
            target_release(&old);
            return NULL;
        }
        pthread_rwlock_wrlock(&a->rw);
        a->version = t.version;
        pthread_rwlock_unlock(&a->rw);
        pthread_mutex_lock(&a->mu);
        a->held = t;
        pthread_mutex_unlock(&a->mu);
        target_release(&old);
    }
}

int search_ann_sync(search_ann *a, const vec_index *ix, int64_t version,
                    search_ann_release_fn release, void *owner)
{
    ann_target t = {ix, version, release, owner}, dropped = {0};
    int join = 0, rc = 0;
    pthread_t finished;
    pthread_mutex_lock(&a->mu);
    dropped = a->wanted; /* an older version never synced: superseded */
    a->wanted = t;
    if (!a->running && !a->stop) {
        if (a->thread_alive) { /* it has exited or is about to */
            finished = a->thread;
            join = 1;
        }
        a->running = 1;
        a->thread_alive = 0;
        if (pthread_create(&a->thread, NULL, sync_main, a) == 0) {
            a->thread_alive = 1;
        } else {
            a->running = 0;
            t = a->wanted;
            memset(&a->wanted, 0, sizeof a->wanted);
            rc = DBMCP_ENOMEM;
        }
    }
    pthread_mutex_unlock(&a->mu);
    if (join)
        pthread_join(finished, NULL);
    target_release(&dropped);
    if (rc)
        target_release(&t);
    return rc;
}

int search_ann_search(search_ann *a, int64_t version, const float *q, int k, int ef,
                      vec_filter_fn filter, void *filter_ctx, vec_hit *out)
{
    pthread_rwlock_rdlock(&a->rw);
    int rc = a->g && a->version == version && version >= 0
                 ? hnsw_search(a->g, q, k, ef, filter, filter_ctx, out)
                 : DBMCP_ENOTFOUND;
    pthread_rwlock_unlock(&a->rw);
    return rc;
}
