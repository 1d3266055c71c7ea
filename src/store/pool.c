/*
 * pool.c — a fixed-size pool of store handles for servers.
 *
 * Handles are opened on first use and kept for the life of the pool: a
 * long-lived server pays the open cost once, not per request. Acquire blocks
 * on a condition variable while every handle is busy.
 */
#include "store/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct store_pool {
    char *url;            /* owned copy of the database URL */
    int flags;            /* STORE_* for every handle */
    int size;             /* number of slots */
    store **slots;        /* size entries; NULL = not opened yet */
    unsigned char *busy;  /* size entries; 1 while checked out */
    pthread_mutex_t lock; /* guards slots and busy */
    pthread_cond_t freed; /* signalled on release */
};

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

store *store_pool_acquire(store_pool *p, dbmcp_error *err)
{
    pthread_mutex_lock(&p->lock);
    int slot = -1;
    while (slot < 0) {
        for (int i = 0; i < p->size; i++) {
            if (!p->busy[i]) {
                slot = i;
                break;
            }
        }
        if (slot < 0)
            pthread_cond_wait(&p->freed, &p->lock);
    }
    p->busy[slot] = 1;
    pthread_mutex_unlock(&p->lock);

    if (!p->slots[slot] && store_open(p->url, p->flags, &p->slots[slot], err) != 0) {
        pthread_mutex_lock(&p->lock);
        p->busy[slot] = 0;
        pthread_cond_signal(&p->freed);
        pthread_mutex_unlock(&p->lock);
        return NULL;
    }
    return p->slots[slot];
}

void store_pool_release(store_pool *p, store *db)
{
    if (!db)
        return;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->size; i++) {
        if (p->slots[i] == db) {
            store_rollback(db);
            p->busy[i] = 0;
            break;
        }
    }
    pthread_cond_signal(&p->freed);
    pthread_mutex_unlock(&p->lock);
}
