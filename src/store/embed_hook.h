/*
 * embed_hook.h — how the SQL function embed() gets an embedder without the
 * store depending on search/.
 *
 * Every store handle offers embed(text) in SQL (store/sqlite_vecfn.h), but
 * embedders live in search/, a layer above the store. So the store knows
 * only this hook's type: the layer that owns the embedder registers a
 * function at startup (search/embed.h, embedder_install_sql_hook, called
 * by main), and the drivers call it through store_embed_hook_call. Without
 * a registered hook embed() fails with an error that says so.
 *
 * The hook is process-wide. Registering and calling are thread-safe; the
 * hook itself must be callable from several threads at once (statements
 * run on many handles in parallel).
 */
#ifndef DBMCP_STORE_EMBED_HOOK_H
#define DBMCP_STORE_EMBED_HOOK_H

#include "core/error.h"

/* Embed NUL-terminated UTF-8 text into a new float32 vector: on success
 * *vec (malloc'd, the caller frees it with free()) holds *dim > 0
 * elements and 0 is returned; otherwise a negative dbmcp_code with err
 * filled (err->public_message is what a statement's error may show),
 * *vec NULL and *dim 0. ctx is the pointer given at registration. */
typedef int (*store_embed_fn)(void *ctx, const char *text, float **vec, int *dim, dbmcp_error *err);

/* Make fn (with ctx) what embed() in SQL calls, replacing any earlier
 * hook; NULL fn removes it. */
void store_set_embed_hook(store_embed_fn fn, void *ctx);

/* For the drivers: call the registered hook (same contract as
 * store_embed_fn). DBMCP_EINVAL when no hook is registered. */
int store_embed_hook_call(const char *text, float **vec, int *dim, dbmcp_error *err);

#endif
