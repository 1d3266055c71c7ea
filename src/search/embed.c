/*
 * embed.c — the embedder interface of embed.h: opening by kind, settings,
 * argument checks shared by both implementations, the model name beside
 * every vector, and the process-wide default the SQL function embed()
 * uses. The implementations are embed_builtin.c and embed_http.c.
 */
#include "search/embed.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/embed_internal.h"
#include "store/embed_hook.h"
#include "store/registry.h"

/* --- model name and dimension --------------------------------------------- */

/* Write "<base>@<dim>" into e->model; caller holds e->learn or owns e alone. */
static void model_name_set(embedder *e, int dim)
{
    snprintf(e->model, sizeof e->model, "%s@%d", e->model_base, dim);
}

int embedder_learn_dim(embedder *e, int dim, dbmcp_error *err)
{
    int known = atomic_load_explicit(&e->dim, memory_order_acquire);
    if (known == 0) {
        pthread_mutex_lock(&e->learn);
        known = atomic_load_explicit(&e->dim, memory_order_relaxed);
        if (known == 0) {
            model_name_set(e, dim);
            atomic_store_explicit(&e->dim, dim, memory_order_release);
            known = dim;
        }
        pthread_mutex_unlock(&e->learn);
    }
    if (known != dim)
        return dbmcp_error_set_private(
            err, DBMCP_EINVAL, "the embedding service returned vectors of the wrong dimension",
            "embedding service %s returned %d-dimensional vectors; this embedder's dimension is "
            "%d (embed.dim, or the first reply)",
            e->model_base, dim, known);
    return 0;
}

const char *embedder_model(const embedder *e)
{
    return atomic_load_explicit(&((embedder *)e)->dim, memory_order_acquire) ? e->model
                                                                             : e->model_unknown;
}

const char *embedder_kind(const embedder *e)
{
    return strncmp(e->model_base, "http:", 5) == 0 ? "http" : "builtin";
}

int embedder_dim(const embedder *e)
{
    return atomic_load_explicit(&((embedder *)e)->dim, memory_order_acquire);
}

/* --- open / free ----------------------------------------------------------- */

int embedder_open(const embedder_config *cfg, embedder **out, dbmcp_error *err)
{
    *out = NULL;
    embedder_config none = {0};
    if (!cfg)
        cfg = &none;
    const char *kind = cfg->kind && *cfg->kind ? cfg->kind : "builtin";
    embedder *e = calloc(1, sizeof *e);
    if (!e)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    pthread_mutex_init(&e->learn, NULL);
    int rc;
    if (strcmp(kind, "builtin") == 0)
        rc = embedder_builtin_init(e, cfg, err);
    else if (strcmp(kind, "http") == 0)
        rc = embedder_http_init(e, cfg, err);
    else
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "embed.kind is '%.40s'; it must be 'builtin' or 'http'", kind);
    if (rc) {
        embedder_free(e);
        return rc;
    }
    snprintf(e->model_unknown, sizeof e->model_unknown, "%s@?", e->model_base);
    int dim = atomic_load(&e->dim);
    if (dim)
        model_name_set(e, dim);
    *out = e;
    return 0;
}

void embedder_free(embedder *e)
{
    if (!e)
        return;
    if (e->ops && e->ops->free_impl)
        e->ops->free_impl(e->impl);
    pthread_mutex_destroy(&e->learn);
    free(e);
}

/* An integer setting within [lo, hi]; unset or empty leaves *out as is. */
static int setting_int(store *db, const char *key, int lo, int hi, int *out, dbmcp_error *err)
{
    char *v = reg_setting_get(db, key);
    if (!v || !*v) {
        free(v);
        return 0;
    }
    char *end;
    long n = strtol(v, &end, 10);
    int bad = *end != '\0' || n < lo || n > hi;
    free(v);
    if (bad)
        return dbmcp_error_set(err, DBMCP_EINVAL, "setting %s must be an integer from %d to %d",
                               key, lo, hi);
    *out = (int)n;
    return 0;
}

int embedder_open_from_settings(store *db, embedder **out, dbmcp_error *err)
{
    *out = NULL;
    char *kind = reg_setting_get(db, "embed.kind");
    char *url = reg_setting_get(db, "embed.url");
    char *model = reg_setting_get(db, "embed.model");
    char *key_env = reg_setting_get(db, "embed.api_key_env");
    embedder_config cfg = {kind, url, model, key_env && *key_env ? key_env : NULL, 0, 0, 0, 0};
    int rc = setting_int(db, "embed.dim", 0, EMBED_MAX_DIM, &cfg.dim, err);
    if (!rc)
        rc = setting_int(db, "embed.batch", 1, 2048, &cfg.batch, err);
    if (!rc)
        rc = setting_int(db, "embed.timeout_ms", 100, 600000, &cfg.timeout_ms, err);
    cfg.retries = 3;
    if (!rc)
        rc = setting_int(db, "embed.retries", 0, 10, &cfg.retries, err);
    if (cfg.retries == 0)
        cfg.retries = -1; /* the setting's 0 means none; the struct's 0 means default */
    if (!rc)
        rc = embedder_open(&cfg, out, err);
    free(kind);
    free(url);
    free(model);
    free(key_env);
    return rc;
}

/* --- embedding --------------------------------------------------------------- */

int embedder_embed(embedder *e, const char *const *texts, size_t n, float *out, dbmcp_error *err)
{
    if (n == 0)
        return 0;
    if (!texts || !out)
        return dbmcp_error_set(err, DBMCP_EINVAL, "no texts or no output buffer to embed into");
    for (size_t i = 0; i < n; i++) {
        if (!texts[i])
            return dbmcp_error_set(err, DBMCP_EINVAL, "text %zu to embed is NULL", i);
        size_t len = strlen(texts[i]);
        if (len > EMBED_MAX_TEXT_BYTES)
            return dbmcp_error_set(err, DBMCP_ETOOBIG,
                                   "text %zu to embed is %zu bytes; the limit is %d bytes (split "
                                   "it into chunks)",
                                   i, len, EMBED_MAX_TEXT_BYTES);
    }
    if (embedder_dim(e) == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "the embedder's dimension is not known yet: call embedder_probe "
                               "before embedding");
    return e->ops->embed(e, texts, n, out, err);
}

int embedder_probe(embedder *e, dbmcp_error *err)
{
    if (embedder_dim(e) > 0 || !e->ops->probe)
        return 0;
    return e->ops->probe(e, err);
}

/* --- process-wide default ---------------------------------------------------- */

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static embedder *default_embedder; /* owned */
static embedder **retired;         /* earlier defaults, owned, freed at release */
static size_t n_retired;

embedder *embedder_default(void)
{
    pthread_mutex_lock(&default_lock);
    if (!default_embedder) {
        embedder_config cfg = {.kind = "builtin", .dim = EMBED_BUILTIN_DIM};
        dbmcp_error err;
        if (embedder_open(&cfg, &default_embedder, &err))
            default_embedder = NULL;
    }
    embedder *e = default_embedder;
    pthread_mutex_unlock(&default_lock);
    return e;
}

void embedder_set_default(embedder *e)
{
    pthread_mutex_lock(&default_lock);
    if (default_embedder && default_embedder != e) {
        embedder **grown = realloc(retired, (n_retired + 1) * sizeof *grown);
        if (grown) {
            retired = grown;
            retired[n_retired++] = default_embedder;
        }
        /* Out of memory: the old default leaks rather than risk freeing it
         * under a running statement. */
    }
    default_embedder = e;
    pthread_mutex_unlock(&default_lock);
}

void embedder_default_release(void)
{
    pthread_mutex_lock(&default_lock);
    embedder_free(default_embedder);
    default_embedder = NULL;
    for (size_t i = 0; i < n_retired; i++)
        embedder_free(retired[i]);
    free(retired);
    retired = NULL;
    n_retired = 0;
    pthread_mutex_unlock(&default_lock);
}

/* The store's embed hook: one text through the default embedder. */
static int default_embed_hook(void *ctx, const char *text, float **vec, int *dim, dbmcp_error *err)
{
    (void)ctx;
    embedder *e = embedder_default();
    if (!e)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = embedder_probe(e, err);
    int d = rc ? 0 : embedder_dim(e);
    float *v = d > 0 ? malloc((size_t)d * sizeof *v) : NULL;
    if (!rc && !v)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = embedder_embed(e, &text, 1, v, err);
    if (rc) {
        free(v);
        return rc;
    }
    *vec = v;
    *dim = d;
    return 0;
}

void embedder_install_sql_hook(void)
{
    store_set_embed_hook(default_embed_hook, NULL);
}
