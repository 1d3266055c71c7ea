/*
 * ann.h — the approximate accelerator beside one cached exact vector index
 * (engine.c): an HNSW graph (core/hnsw.h) kept in step with the exact
 * index of each data version by a background thread, so a search over a
 * large corpus visits a few thousand vectors instead of all of them.
 *
 * The exact index stays the truth. search_ann_sync hands the accelerator
 * the exact index of a new version; a background thread brings the graph
 * to hold exactly its rows — the first time by adding every row (minutes
 * for a million vectors), afterwards by the difference from the index it
 * last matched (rows gone are removed, new or changed rows added) — and
 * only then answers searches of that version. Until it has caught up,
 * search_ann_search answers DBMCP_ENOTFOUND and the engine searches
 * exactly: a row deleted or forgotten in the database is never returned,
 * because the graph is only used at the version whose rows it holds.
 *
 * The exact index handed over is kept alive by a reference the caller
 * lends (hold/release callbacks); the accelerator releases it when a newer
 * one has been synced or when it is freed.
 *
 * Thread-safety: every function may be called from any thread; searches
 * share a read lock, the sync thread takes the write lock in batches so
 * searches of the old version (answered exactly meanwhile) never wait
 * long. Ownership: reference-counted; search_ann_unref frees at zero,
 * stopping and joining the sync thread first.
 */
#ifndef DBMCP_SEARCH_ANN_H
#define DBMCP_SEARCH_ANN_H

#include <stddef.h>
#include <stdint.h>

#include "core/vector.h"

/* Vectors from which a corpus gets a graph, when the request names no
 * threshold (setting search.ann_min_vectors): below about 100,000 an exact
 * scan takes a few milliseconds (bench/README.md, "ANN benchmark"). */
#define SEARCH_ANN_MIN_VECTORS_DEFAULT 100000
/* Candidates the graph's bottom layer keeps per search when the request
 * names none (setting search.ann_ef): recall@10 >= 0.95 at 1M x 384 in the
 * benchmark; never below the candidates a search asks for. */
#define SEARCH_ANN_EF_DEFAULT 64
#define SEARCH_ANN_EF_MAX 4096 /* largest ef a setting may ask for */

typedef struct search_ann search_ann;

/* Called to keep (hold) and let go of (release) an exact index handed to
 * search_ann_sync; owner is passed back unchanged. */
typedef void (*search_ann_release_fn)(void *owner);

/* A new accelerator for vectors of dim floats, with one reference; NULL
 * when out of memory. */
search_ann *search_ann_new(int dim);
void search_ann_ref(search_ann *a);
/* Drop a reference; the last one stops the sync thread and frees all. */
void search_ann_unref(search_ann *a);

/* Bring the graph to ix's rows (ids ascending), data version `version`, in
 * the background. The accelerator owns one reference to ix from now on and
 * gives it back through release(owner). Returns 0, or DBMCP_ENOMEM (then
 * release has already been called). */
int search_ann_sync(search_ann *a, const vec_index *ix, int64_t version,
                    search_ann_release_fn release, void *owner);

/* Top k of the graph at `version` (search_ann_sync'ed and caught up) for
 * cosine query q, with the filter (may be NULL) and ef candidates: the
 * number found, DBMCP_ENOTFOUND when the graph does not hold that
 * version's rows (search exactly), or another negative dbmcp_code. */
int search_ann_search(search_ann *a, int64_t version, const float *q, int k, int ef,
                      vec_filter_fn filter, void *filter_ctx, vec_hit *out);

/* The version the graph holds now, -1 while it holds none. */
int64_t search_ann_version(search_ann *a);

#endif
