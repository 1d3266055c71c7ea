/*
 * embed.h — one interface for text embeddings, two implementations:
 *
 *   "builtin"  lexical, offline: hashed word unigrams and bigrams and
 *              character trigrams of the textnorm.h tokens, signed
 *              feature hashing into `dim` buckets, sublinear tf, L2
 *              normalised. Deterministic; no external service. It finds
 *              shared words and word parts, not meaning.
 *   "http"     any OpenAI-compatible POST {url}/embeddings (Ollama,
 *              llama.cpp server, vLLM, Mistral, OpenAI): JSON
 *              {"model", "input": [...]}, batched, retried with backoff
 *              on connection errors, 429 and 5xx (honouring Retry-After),
 *              never on 400/401/403. The key comes from an environment
 *              variable named in the config, never from the database.
 *
 * Every vector is float32, dim long, L2-normalised by the embedder (the
 * http one normalises what the service returns). embedder_model() names
 * the model as stored beside every vector ("builtin-lexical-v1@384",
 * "http:mistral-embed@1024"); searches never compare vectors of
 * different model names.
 *
 * Thread-safety: an embedder may be used by several threads at once.
 * Ownership: embedder_open returns a handle freed with embedder_free.
 */
#ifndef DBMCP_SEARCH_EMBED_H
#define DBMCP_SEARCH_EMBED_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

typedef struct embedder embedder;

/* Limits of every embedder: longest text in bytes (longer ones are
 * refused, DBMCP_ETOOBIG: chunk documents first) and highest dimension. */
#define EMBED_MAX_TEXT_BYTES (1024 * 1024)
#define EMBED_MAX_DIM 8192
/* Default dimension of the builtin embedder. */
#define EMBED_BUILTIN_DIM 384

typedef struct embedder_config {
    const char *kind;        /* "builtin" (default when NULL) or "http" */
    const char *url;         /* http: base URL, e.g. "http://127.0.0.1:11434/v1" */
    const char *model;       /* http: model name sent to the service */
    const char *api_key_env; /* http: name of the env var holding the key; NULL = none */
    int dim;                 /* builtin: dimension (default 384, 16..EMBED_MAX_DIM);
                                http: 0 = learn from the first reply, else what
                                every reply must have */
    int batch;               /* http: inputs per request (default 32, at most 2048) */
    int timeout_ms;          /* http: total per request attempt (default 30000) */
    int retries;             /* http: extra attempts: 0 = default (3), -1 = none, at most 10 */
} embedder_config;

int embedder_open(const embedder_config *cfg, embedder **out, dbmcp_error *err);
/* The configured embedder from settings embed.kind, embed.url,
 * embed.model, embed.api_key_env, embed.dim, embed.batch,
 * embed.timeout_ms, embed.retries (builtin when embed.kind is unset or
 * empty). Errors name the setting at fault. */
int embedder_open_from_settings(store *db, embedder **out, dbmcp_error *err);
void embedder_free(embedder *e);

/* Stored model name (see above). Valid while e lives. */
const char *embedder_model(const embedder *e);
/* "builtin" or "http": what kind of ranking the vectors give (lexical or
 * semantic), for the fusion weights (search_vector_weight, engine.h). */
const char *embedder_kind(const embedder *e);
/* Dimension; for http with dim 0 it is known after the first call (0 before). */
int embedder_dim(const embedder *e);

/* Embed n texts into out[n * dim] (caller allocates n * embedder_dim()
 * floats; for an http embedder of unknown dim call embedder_probe first).
 * All-or-nothing: on error out is unspecified and err says why
 * (err->public_message never contains the service's body). */
int embedder_embed(embedder *e, const char *const *texts, size_t n, float *out, dbmcp_error *err);
/* Learn the dimension by embedding one short text (http); no-op for builtin. */
int embedder_probe(embedder *e, dbmcp_error *err);

/* --- the process-wide default (what the SQL function embed() uses) -------- */

/* The default embedder: the one given to embedder_set_default, else a
 * builtin one of EMBED_BUILTIN_DIM created on first use. NULL only when
 * out of memory. Borrowed: valid until embedder_default_release(). */
embedder *embedder_default(void);
/* Make e (owned from now on) the default; servers call this at startup
 * with embedder_open_from_settings' result. The previous default is not
 * freed (another thread may be using it) but kept until
 * embedder_default_release(). */
void embedder_set_default(embedder *e);
/* Free the default and every previous one. Only when no other thread can
 * be using them (process exit, tests). */
void embedder_default_release(void);
/* Register the default embedder as the store's embed hook
 * (store/embed_hook.h), so the SQL function embed() uses
 * embedder_default(). Programs call it once at startup; idempotent. */
void embedder_install_sql_hook(void);

#endif
