/*
 * vector.h — exact nearest-neighbour search over contiguous vectors.
 *
 * Kernels: dot product and squared-euclidean sums over float32, with
 * AVX2+FMA versions chosen at run time (__builtin_cpu_supports) and a
 * portable fallback the compiler vectorises as it can. Quantised search:
 * every vector also stored as int8 with a per-vector scale
 * (max |v_i| / 127); a query scans the int8 copy for the best
 * k * rescore candidates, then rescores them exactly in float32.
 *
 * A vec_index holds rows of one model and dimension, contiguous in
 * memory (row i at data + i * dim), each with an int64 id. It is built
 * once and then read-only: several threads may search one index at once.
 * Refreshing = building a new index and swapping it in (the owner's job).
 *
 * Distances: smaller is closer for every metric (cosine distance =
 * 1 - cos, with cos = 0 when either vector is all zeros; dot "distance"
 * = -dot; euclidean = the L2 distance, sqrt of the sum of squares).
 *
 * Finite by construction: a vector enters an index, a query or a distance
 * only after vec_check, which refuses NaN, infinity and a squared L2 norm
 * above VEC_MAX_SQ_NORM. Between two checked vectors every dot product,
 * squared distance and norm is finite in float32 (|a.b| <= |a||b| and
 * |a-b|^2 <= 2|a|^2 + 2|b|^2), so no distance is NaN or infinite.
 * Normalising and quantising compute their scale factors in double, so
 * subnormal values neither overflow a reciprocal nor vanish.
 *
 * Pure code in core/: the store's SQL function vector_distance()
 * (store/sqlite_vecfn.c) uses it as well as the embedders and search/engine.c.
 */
#ifndef DBMCP_CORE_VECTOR_H
#define DBMCP_CORE_VECTOR_H

#include <stddef.h>
#include <stdint.h>

typedef enum vec_metric { VEC_COSINE = 0, VEC_DOT, VEC_EUCLIDEAN } vec_metric;

/* Parse "cosine" | "dot" | "euclidean"; -1 when unknown. */
int vec_metric_parse(const char *s);
/* The metric's name ("cosine", …). */
const char *vec_metric_name(vec_metric m);
/* Distance between two float32 vectors of dim elements (any alignment of
 * float). Finite when both passed vec_check. */
float vec_distance(const float *a, const float *b, int dim, vec_metric m);
/* The dot product of two float32 vectors with the kernels of this process
 * (the arithmetic of vec_distance and the index; core/hnsw.c uses it). */
float vec_dot(const float *a, const float *b, int dim);
/* The largest squared L2 norm vec_check accepts: FLT_MAX / 4. */
#define VEC_MAX_SQ_NORM 8.5e37

/* Why vec_check or vec_normalize refused a vector. */
typedef enum vec_fault {
    VEC_OK = 0,
    VEC_NOT_FINITE, /* an element is NaN or infinite */
    VEC_TOO_LARGE,  /* squared L2 norm above VEC_MAX_SQ_NORM */
    VEC_ZERO        /* every element is 0 (vec_normalize only) */
} vec_fault;

/* VEC_OK when v may take part in distances; otherwise the fault, with
 * *at (when not NULL) set to the first bad element (-1 for a norm fault). */
vec_fault vec_check(const float *v, int dim, int *at);
/* Scale v in place to L2 norm 1, in double precision (a vector of
 * subnormal values normalises like any other). VEC_OK, or VEC_NOT_FINITE
 * (with *at) or VEC_ZERO, leaving v unchanged. */
vec_fault vec_normalize(float *v, int dim, int *at);
/* A short English description of a fault ("holds a NaN or infinite
 * value", …), static. */
const char *vec_fault_text(vec_fault f);
/* "avx2+fma" or "portable": the kernels this process runs. */
const char *vec_kernel_name(void);

typedef struct vec_index vec_index;

typedef struct vec_hit {
    int64_t id;
    float distance;
} vec_hit;

/* Filter: return nonzero to keep the row with this id. */
typedef int (*vec_filter_fn)(void *ctx, int64_t id);

/* New empty index; NULL when out of memory or dim < 1. */
vec_index *vec_index_new(int dim);
void vec_index_free(vec_index *ix);
/* Append a row (copied). 0, DBMCP_ENOMEM, or DBMCP_EINVAL when v fails
 * vec_check. Not while other threads search. */
int vec_index_add(vec_index *ix, int64_t id, const float *v);
/* Reserve room for n rows in total (optional; saves regrowth). */
int vec_index_reserve(vec_index *ix, size_t n);
/* Build the int8 copy (call after the last add; idempotent; rows added
 * later are quantised by the next call). 0 or DBMCP_ENOMEM. */
int vec_index_quantize(vec_index *ix);
size_t vec_index_count(const vec_index *ix);
int vec_index_dim(const vec_index *ix);
/* The id and the vector (dim floats, valid while the index lives) of row
 * row < vec_index_count. */
int64_t vec_index_id(const vec_index *ix, size_t row);
const float *vec_index_row(const vec_index *ix, size_t row);
/* The row holding id, or -1: a binary search when every row was added in
 * ascending id order (as the engine builds it), else a scan. */
long vec_index_find(const vec_index *ix, int64_t id);

typedef struct vec_query {
    const float *q; /* dim floats */
    int k;          /* results wanted (>= 1) */
    vec_metric metric;
    int int8;             /* nonzero: int8 scan + float32 rescoring (needs quantize) */
    int rescore;          /* int8: candidates = k * rescore (default 4 when 0) */
    vec_filter_fn filter; /* optional pre-filter */
    void *filter_ctx;
    const size_t
        *rows;     /* optional: scan only these rows (ascending reads in order), a small scope */
    size_t n_rows; /* entries in rows */
} vec_query;

/* Top-k by ascending distance into out[k]; returns the number found
 * (<= k: fewer when fewer rows pass the filter), or a negative
 * dbmcp_code: DBMCP_EINVAL for k < 1, a query failing vec_check, an
 * unknown metric, or int8 without vec_index_quantize. Ties break by
 * ascending id. Exact unless int8 (then approximate recall, exact
 * distances for what it returns). Safe from several threads at once. */
int vec_index_search(const vec_index *ix, const vec_query *q, vec_hit *out);

#endif
