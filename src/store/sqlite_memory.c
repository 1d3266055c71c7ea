/*
 * sqlite_memory.c — SQLite's allocator with per-thread counting and
 * budgets (why: sqlite_memory.h).
 *
 * Each block carries a 16-byte header holding its usable size, so xSize
 * and the accounting of frees need no malloc_usable_size. The counters
 * are thread-local and signed: a block freed on another thread than the
 * one that allocated it lowers the freeing thread's count.
 */
#include "store/sqlite_memory.h"

#include <assert.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 16 /* keeps the 8-byte alignment SQLite needs, and 16 for long double */

static _Thread_local int64_t t_count; /* bytes allocated minus freed by this thread */
static _Thread_local int64_t t_base;  /* t_count at budget_begin */
static _Thread_local int64_t t_limit; /* budget in bytes; 0 = none */
static _Thread_local int64_t t_peak;  /* highest t_count - t_base since begin */
static _Thread_local int t_hit;       /* an allocation was refused since begin */
static int installed;                 /* the counting allocator is in use */
static int install_rc = SQLITE_OK;    /* what sqlite3_config answered */
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static int64_t block_size(void *p)
{
    int64_t n;
    memcpy(&n, (char *)p - HEADER, sizeof n);
    return n;
}

/* May this thread take `more` bytes now? Records a refusal. */
static int admit(int64_t more)
{
    if (t_limit <= 0 || more <= 0)
        return 1;
    if (t_count - t_base + more > t_limit) {
        t_hit = 1;
        return 0;
    }
    return 1;
}

static void account(int64_t delta)
{
    t_count += delta;
    if (t_limit > 0 && t_count - t_base > t_peak)
        t_peak = t_count - t_base;
}

static void *mem_malloc(int n)
{
    if (n <= 0 || !admit(n))
        return NULL;
    char *raw = malloc((size_t)n + HEADER);
    if (!raw)
        return NULL;
    int64_t size = n;
    memcpy(raw, &size, sizeof size);
    account(n);
    return raw + HEADER;
}

static void mem_free(void *p)
{
    if (!p)
        return;
    account(-block_size(p));
    free((char *)p - HEADER);
}

static void *mem_realloc(void *p, int n)
{
    assert(p && n > 0); /* SQLite's contract for xRealloc */
    int64_t old = block_size(p);
    if (!admit(n - old))
        return NULL;
    char *raw = realloc((char *)p - HEADER, (size_t)n + HEADER);
    if (!raw)
        return NULL;
    int64_t size = n;
    memcpy(raw, &size, sizeof size);
    account(n - old);
    return raw + HEADER;
}

static int mem_size(void *p)
{
    return p ? (int)block_size(p) : 0;
}

static int mem_roundup(int n)
{
    return (n + 7) & ~7;
}

static int mem_init(void *arg)
{
    (void)arg;
    return SQLITE_OK;
}

static void mem_shutdown(void *arg)
{
    (void)arg;
}

static void install(void)
{
    static const sqlite3_mem_methods methods = {
        mem_malloc, mem_free, mem_realloc, mem_size, mem_roundup, mem_init, mem_shutdown, NULL,
    };
    install_rc = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
    installed = install_rc == SQLITE_OK;
}

int sqlite_memory_install(void)
{
    pthread_once(&install_once, install);
    return install_rc;
}

int sqlite_memory_enforced(void)
{
    pthread_once(&install_once, install);
    return installed;
}

void sqlite_memory_budget_begin(size_t bytes)
{
    t_base = t_count;
    t_limit = bytes > (size_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
    t_peak = 0;
    t_hit = 0;
}

int sqlite_memory_budget_end(void)
{
    int hit = t_hit;
    t_limit = 0;
    t_hit = 0;
    return hit;
}

int sqlite_memory_budget_hit(void)
{
    return t_hit;
}

size_t sqlite_memory_budget_peak(void)
{
    return (size_t)t_peak;
}
