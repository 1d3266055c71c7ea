/*
 * pool.c — a fixed-size pool of store handles for servers.
 *
 * Handles are opened on first use and kept for the life of the pool: a
 * long-lived server pays the open cost once, not per request. Acquire blocks
 * on a condition variable while every handle is busy.
 *
 * Threading: `slots` and `busy` are read and written only under `lock`. A
 * handle is opened outside the lock by the thread that marked its slot
 * busy, and published under the lock afterwards. The usage counters are
 * kept under the same lock, which acquire and release take anyway; the
 * clock is read only when an acquirer has to wait.
 */
#include "store/store.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct store_pool {
    char *url;            /* owned copy of the database URL */
    int flags;            /* STORE_* for every handle */
    int size;             /* number of slots */
    store **slots;        /* size entries; NULL = not opened yet */
    unsigned char *busy;  /* size entries; 1 while checked out */
    pthread_mutex_t lock; /* guards slots, busy and the counters below */
    pthread_cond_t freed; /* signalled on release */
    int waiting;          /* threads blocked in acquire */
    uint64_t acquires;    /* handles checked out */
    uint64_t waits;       /* acquires that found every slot busy */
    double wait_seconds;  /* time those spent blocked */
};

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int store_pool_create(const char *url, int flags, int size, store_pool **out, dbmcp_error *err)
{
    *out = NULL;
    if (size < 1)
        size = 1;
    store_pool *p = calloc(1, sizeof *p);
    if (!p)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    p->url = strdup(url);
    p->flags = flags;
    p->size = size;
    p->slots = calloc((size_t)size, sizeof *p->slots);
    p->busy = calloc((size_t)size, 1);
    if (!p->url || !p->slots || !p->busy) {
        store_pool_free(p);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->freed, NULL);
    *out = p;
    return 0;
}

void store_pool_free(store_pool *p)
{
    if (!p)
        return;
    for (int i = 0; p->slots && i < p->size; i++)
        store_close(p->slots[i]);
    if (p->slots) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->freed);
    }
    free(p->slots);
    free(p->busy);
    free(p->url);
    free(p);
}

/* The first free slot, preferring one whose handle is open already (so a
 * pool larger than the load opens no more handles than the load needs);
 * -1 when every slot is busy. Called with the lock held. */
static int free_slot_locked(const store_pool *p)
{
    int unopened = -1;
    for (int i = 0; i < p->size; i++) {
        if (p->busy[i])
            continue;
        if (p->slots[i])
            return i;
        if (unopened < 0)
            unopened = i;
    }
    return unopened;
}

store *store_pool_acquire(store_pool *p, dbmcp_error *err)
{
    pthread_mutex_lock(&p->lock);
    int slot = free_slot_locked(p);
    if (slot < 0) {
        double since = monotonic_seconds();
        p->waits++;
        p->waiting++;
        while ((slot = free_slot_locked(p)) < 0)
            pthread_cond_wait(&p->freed, &p->lock);
        p->waiting--;
        p->wait_seconds += monotonic_seconds() - since;
    }
    p->busy[slot] = 1;
    p->acquires++;
    store *db = p->slots[slot];
    pthread_mutex_unlock(&p->lock);
    if (db)
        return db;

    /* Open without the lock (opening may wait on the file, or on a server):
     * the slot is marked busy, so no other thread opens or hands it out,
     * and the handle is published under the lock, where release and other
     * acquirers read slots. */
    if (store_open(p->url, p->flags, &db, err) != 0)
        db = NULL;
    pthread_mutex_lock(&p->lock);
    if (db)
        p->slots[slot] = db;
    else {
        p->busy[slot] = 0;
        p->acquires--; /* nothing was checked out */
        pthread_cond_signal(&p->freed);
    }
    pthread_mutex_unlock(&p->lock);
    return db;
}

void store_pool_release(store_pool *p, store *db)
{
    if (!db)
        return;
    /* Still checked out to this thread: end its transaction before another
     * thread can get it, without holding the pool's lock meanwhile. A
     * handle whose call could not be ended is closed instead; its slot
     * opens a new one when next needed. */
    int unfit = store_call_unfit(db);
    if (unfit)
        store_close(db);
    else
        store_rollback(db);
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->size; i++) {
        if (p->slots[i] == db) {
            assert(p->busy[i]);
            p->busy[i] = 0;
            if (unfit)
                p->slots[i] = NULL;
            break;
        }
    }
    pthread_cond_signal(&p->freed);
    pthread_mutex_unlock(&p->lock);
}

void store_pool_stats(store_pool *p, store_pool_usage *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&p->lock);
    out->size = p->size;
    for (int i = 0; i < p->size; i++) {
        out->open += p->slots[i] != NULL;
        out->in_use += p->busy[i];
    }
    out->waiting = p->waiting;
    out->acquires = p->acquires;
    out->waits = p->waits;
    out->wait_seconds = p->wait_seconds;
    pthread_mutex_unlock(&p->lock);
}
