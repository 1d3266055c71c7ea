/*
 * query_caps.c — counters of running agent queries; see query_caps.h.
 *
 * Only callers with a query running have an entry, and the total cap
 * bounds how many run, so a linear scan of a short array is enough.
 */
#include "mcp/query_caps.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct caller_count {
    char *caller; /* owned */
    int running;  /* >= 1 while the entry exists */
} caller_count;

struct query_caps {
    pthread_mutex_t lock;  /* guards everything below */
    caller_count *callers; /* callers with queries running */
    size_t n, cap;
    int total; /* queries running */
};

query_caps *query_caps_create(void)
{
    query_caps *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

void query_caps_free(query_caps *c)
{
    if (!c)
        return;
    assert(c->total == 0);
    for (size_t i = 0; i < c->n; i++)
        free(c->callers[i].caller);
    free(c->callers);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static caller_count *find_locked(query_caps *c, const char *caller)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->callers[i].caller, caller) == 0)
            return &c->callers[i];
    return NULL;
}

/* A new entry with running = 0, or NULL when out of memory. */
static caller_count *add_locked(query_caps *c, const char *caller)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        caller_count *p = realloc(c->callers, cap * sizeof *p);
        if (!p)
            return NULL;
        c->callers = p;
        c->cap = cap;
    }
    char *copy = strdup(caller);
    if (!copy)
        return NULL;
    c->callers[c->n] = (caller_count){copy, 0};
    return &c->callers[c->n++];
}

query_caps_verdict query_caps_enter(query_caps *c, const char *caller, long max_total,
                                    long max_per_key)
{
    if (!caller)
        caller = "";
    pthread_mutex_lock(&c->lock);
    caller_count *e = find_locked(c, caller);
    query_caps_verdict v = QUERY_CAPS_OK;
    if (e && e->running >= (max_per_key < 1 ? 1 : max_per_key))
        v = QUERY_CAPS_KEY_FULL;
    else if (c->total >= (max_total < 1 ? 1 : max_total))
        v = QUERY_CAPS_TOTAL_FULL;
    else if (!e && !(e = add_locked(c, caller)))
        v = QUERY_CAPS_TOTAL_FULL; /* out of memory: refuse rather than count nothing */
    if (v == QUERY_CAPS_OK) {
        e->running++;
        c->total++;
    }
    pthread_mutex_unlock(&c->lock);
    return v;
}

void query_caps_leave(query_caps *c, const char *caller)
{
    if (!caller)
        caller = "";
    pthread_mutex_lock(&c->lock);
    caller_count *e = find_locked(c, caller);
    assert(e && e->running > 0 && c->total > 0);
    if (e && --e->running == 0) {
        free(e->caller);
        *e = c->callers[--c->n];
    }
    c->total--;
    pthread_mutex_unlock(&c->lock);
}

int query_caps_running(query_caps *c, const char *caller)
{
    pthread_mutex_lock(&c->lock);
    int n = c->total;
    if (caller) {
        caller_count *e = find_locked(c, caller);
        n = e ? e->running : 0;
    }
    pthread_mutex_unlock(&c->lock);
    return n;
}
