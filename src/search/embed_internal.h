/*
 * embed_internal.h — what embed.c shares with the two embedder
 * implementations (embed_builtin.c, embed_http.c). Not for other modules:
 * they use embed.h.
 */
#ifndef DBMCP_SEARCH_EMBED_INTERNAL_H
#define DBMCP_SEARCH_EMBED_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "search/embed.h"

typedef struct embedder_ops {
    /* Fill out[n * dim]; dim is known (> 0) when called. */
    int (*embed)(embedder *e, const char *const *texts, size_t n, float *out, dbmcp_error *err);
    /* Learn the dimension (http); NULL when there is nothing to learn. */
    int (*probe)(embedder *e, dbmcp_error *err);
    /* Free e->impl. */
    void (*free_impl)(void *impl);
} embedder_ops;

struct embedder {
    const embedder_ops *ops; /* the implementation */
    void *impl;              /* its state; owned */
    atomic_int dim;          /* 0 until known (http with embed.dim unset) */
    pthread_mutex_t learn;   /* serialises embedder_learn_dim */
    char model_base[200];    /* "builtin-lexical-v1" or "http:<model>" */
    char model[224];         /* model_base "@" dim, written once before dim is published */
    char model_unknown[224]; /* model_base "@?" while dim is 0 */
};

/* Publish the dimension learned from a service (first writer wins).
 * Returns 0, or DBMCP_EINVAL when it differs from the known one. */
int embedder_learn_dim(embedder *e, int dim, dbmcp_error *err);

/* Constructors: fill e->ops, e->impl, e->model_base and (builtin) the
 * dimension. Validate cfg with messages naming the embed.* setting. */
int embedder_builtin_init(embedder *e, const embedder_config *cfg, dbmcp_error *err);
int embedder_http_init(embedder *e, const embedder_config *cfg, dbmcp_error *err);

/* Parse an OpenAI-style embeddings reply body[0..len) for n inputs:
 * *vecs (malloc'd, caller frees) gets n * *dim L2-normalised floats,
 * placed by data[i].index when every item has one. DBMCP_EINVAL with
 * "invalid reply: …" (operator) for anything else, including a vector
 * that vec_normalize refuses (all zeros, or values below float32 range). (embed_http.c; also
 * the fuzz target's entry point.) */
int embed_http_parse_reply(const char *body, size_t len, size_t n, float **vecs, int *dim,
                           dbmcp_error *err);

#endif
