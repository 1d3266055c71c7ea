/*
 * embed_hook.c — the process-wide hook behind the SQL function embed()
 * (contract in embed_hook.h). The hook and its context are read as a pair
 * under a mutex, then called outside it: an embedding may take seconds (an
 * HTTP service) and must not serialise statements.
 */
#include "store/embed_hook.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static store_embed_fn hook_fn; /* NULL: embed() refuses */
static void *hook_ctx;         /* passed to hook_fn */

void store_set_embed_hook(store_embed_fn fn, void *ctx)
{
    pthread_mutex_lock(&hook_lock);
    hook_fn = fn;
    hook_ctx = fn ? ctx : NULL;
    pthread_mutex_unlock(&hook_lock);
}

int store_embed_hook_call(const char *text, float **vec, int *dim, dbmcp_error *err)
{
    *vec = NULL;
    *dim = 0;
    pthread_mutex_lock(&hook_lock);
    store_embed_fn fn = hook_fn;
    void *ctx = hook_ctx;
    pthread_mutex_unlock(&hook_lock);
    if (!fn)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "no embedder is registered in this process (the program did not "
                               "install the embed() hook at startup)");
    int rc = fn(ctx, text, vec, dim, err);
    if (rc == 0 && (!*vec || *dim <= 0)) {
        free(*vec);
        *vec = NULL;
        *dim = 0;
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "the embed hook returned no vector");
    }
    return rc;
}
