/*
 * hnsw.h — approximate nearest neighbours by cosine distance: a
 * hierarchical navigable small-world graph (Malkov & Yashunin, 2016), the
 * accelerator the search engine puts beside its exact vec_index once a
 * corpus is large (docs/search.md, "Approximate search").
 *
 * Why our own and not FAISS or hnswlib: Debian 12's libfaiss-dev ships the
 * headers of FAISS's C API but not its implementation (libfaiss.a holds
 * only the C++ symbols), and hnswlib is a C++ template library; dbmcp is
 * C11. bench/ann.sh measures this graph against both, driven through
 * their Python bindings, on the same vectors (bench/README.md, "ANN").
 *
 * Each node holds a copy of its vector, L2-normalised, so a distance is
 * 1 - dot product (the same kernels as vector.h). Nodes are only ever
 * appended; hnsw_remove marks a node removed: it still routes searches
 * (the graph stays connected) but is never returned. A changed vector is
 * a removal plus an add. Ids are the caller's (item ids); one id may
 * belong to several nodes over time, at most one of them live.
 *
 * Thread-safety: any number of hnsw_search calls may run at once while no
 * hnsw_add or hnsw_remove runs (the owner holds a read/write lock).
 * Deterministic: the same adds in the same order give the same graph.
 *
 * Ownership: hnsw_free releases the graph and every vector copy.
 */
#ifndef DBMCP_CORE_HNSW_H
#define DBMCP_CORE_HNSW_H

#include <stddef.h>
#include <stdint.h>

#include "core/vector.h"

typedef struct hnsw hnsw;

typedef struct hnsw_params {
    int m;               /* links per node above layer 0 (layer 0: 2m); 0 = HNSW_DEFAULT_M */
    int ef_construction; /* candidates kept while linking a new node; 0 = default */
    uint64_t seed;       /* level draws; 0 = a fixed default */
} hnsw_params;

#define HNSW_DEFAULT_M 16
#define HNSW_DEFAULT_EF_CONSTRUCTION 100
#define HNSW_MAX_M 64 /* largest m accepted */

/* --- building ------------------------------------------------------------ */

/* New empty graph for vectors of dim floats; NULL when out of memory or the
 * parameters are out of range (dim < 1, m > HNSW_MAX_M). p may be NULL. */
hnsw *hnsw_new(int dim, const hnsw_params *p);
void hnsw_free(hnsw *g);
/* Add a vector (copied, normalised) with the caller's id: 0, DBMCP_EINVAL
 * when v fails vec_check, DBMCP_ENOMEM. A zero vector is added (at cosine
 * distance 1 from everything), as the exact index does. */
int hnsw_add(hnsw *g, int64_t id, const float *v);
/* Mark the live node of id removed: 1 when there was one, else 0. */
int hnsw_remove(hnsw *g, int64_t id);

/* --- reading ----------------------------------------------------------------- */

size_t hnsw_count(const hnsw *g); /* live nodes */
size_t hnsw_nodes(const hnsw *g); /* nodes ever added (removed ones too) */
int hnsw_dim(const hnsw *g);
/* Nonzero when id has a live node. */
int hnsw_contains(const hnsw *g, int64_t id);

/* Up to k nearest live nodes passing filter (may be NULL) into out,
 * ascending by cosine distance (ties by id); ef (>= k, raised to k when
 * smaller) is how many candidates the bottom layer keeps: larger is slower
 * and closer to exact. Returns the number found or a negative dbmcp_code
 * (DBMCP_EINVAL: k < 1 or q fails vec_check; DBMCP_ENOMEM). Nodes failing
 * the filter still route the search, so a filter passing a small share of
 * the nodes lowers recall: callers search such sets exactly. */
int hnsw_search(const hnsw *g, const float *q, int k, int ef, vec_filter_fn filter,
                void *filter_ctx, vec_hit *out);

#endif
