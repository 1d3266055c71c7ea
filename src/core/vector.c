/*
 * vector.c — exact top-k over contiguous float32 rows, and its int8
 * quantised variant (see vector.h for the contract).
 *
 * The hot loop is one kernel call per row plus a comparison against the
 * worst hit kept so far (a bounded max-heap of k entries), so a search is
 * a single streaming pass over the rows: its speed is bounded by memory
 * bandwidth, which is why rows are contiguous and 64-byte aligned.
 *
 * Kernels come in two sets chosen once per process: AVX2+FMA (compiled
 * with a target attribute, so the rest of the program keeps the baseline
 * instruction set) when the CPU has them, else portable C written with
 * independent accumulators so the compiler can vectorise it.
 * DBMCP_VEC_KERNEL=portable in the environment forces the portable set
 * (tests compare both).
 *
 * Cosine keeps one inverse norm per row, so a cosine search costs a dot
 * product per row. Euclidean ranks by the squared distance and takes the
 * square root only of the hits returned. vec_distance() uses the same
 * arithmetic, in the same order, as the index: a brute-force loop over
 * vec_distance gives bit-identical distances.
 */
#include "core/vector.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VEC_X86 1
#endif

#define VEC_ALIGN 64

struct vec_index {
    int dim;          /* floats per row, >= 1 */
    size_t count;     /* rows held */
    size_t cap;       /* rows allocated */
    float *data;      /* cap * dim floats, row i at data + i * dim; owned, 64-byte aligned */
    int64_t *ids;     /* cap ids; owned */
    float *inv_norms; /* cap: 1 / L2 norm of each row, 0 for a zero row; owned */
    float *sq_norms;  /* cap: squared L2 norm of each row; owned */
    int8_t *q8;       /* qcap * dim int8 copy (NULL before quantize); owned, aligned */
    float *scales;    /* qcap: per-row scale, v ≈ q8 * scale; owned */
    size_t quantized; /* rows [0, quantized) have an int8 copy */
    size_t qcap;      /* rows allocated in q8/scales */
    int unsorted;     /* a row was added with an id not above the previous one */
};

/* --- kernels --------------------------------------------------------------- */

typedef struct vec_kernels {
    float (*dot)(const float *a, const float *b, int n);
    float (*l2sq)(const float *a, const float *b, int n);
    /* sum a[i] * b[i] over int8 values in [-127, 127] */
    int32_t (*dot_i8)(const int8_t *a, const int8_t *b, int n);
    const char *name;
} vec_kernels;

static float dot_portable(const float *a, const float *b, int n)
{
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            acc[j] += a[i + j] * b[i + j];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static float l2sq_portable(const float *a, const float *b, int n)
{
    float acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) {
            float d = a[i + j] - b[i + j];
            acc[j] += d * d;
        }
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; i < n; i++) {
        float d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

static int32_t dot_i8_portable(const int8_t *a, const int8_t *b, int n)
{
    int32_t acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            acc[j] += (int32_t)a[i + j] * b[i + j];
    int32_t s = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
    for (; i < n; i++)
        s += (int32_t)a[i] * b[i];
    return s;
}

#ifdef VEC_X86
__attribute__((target("avx2,fma"))) static float hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Four independent accumulators hide the FMA latency. */
__attribute__((target("avx2,fma"))) static float dot_avx2(const float *a, const float *b, int n)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8)
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

__attribute__((target("avx2,fma"))) static float l2sq_avx2(const float *a, const float *b, int n)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    int i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
        __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
        __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
        s0 = _mm256_fmadd_ps(d0, d0, s0);
        s1 = _mm256_fmadd_ps(d1, d1, s1);
        s2 = _mm256_fmadd_ps(d2, d2, s2);
        s3 = _mm256_fmadd_ps(d3, d3, s3);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        s0 = _mm256_fmadd_ps(d, d, s0);
    }
    float s = hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < n; i++) {
        float d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

/* maddubs multiplies unsigned by signed bytes: feed it |a| and b with a's
 * sign moved onto it. Values are within [-127, 127], so a pair sum
 * (at most 2 * 127 * 127) never saturates int16. */
__attribute__((target("avx2,fma"))) static int32_t dot_i8_avx2(const int8_t *a, const int8_t *b,
                                                               int n)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    int i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i va0 = _mm256_loadu_si256((const __m256i *)(a + i));
        __m256i vb0 = _mm256_loadu_si256((const __m256i *)(b + i));
        __m256i va1 = _mm256_loadu_si256((const __m256i *)(a + i + 32));
        __m256i vb1 = _mm256_loadu_si256((const __m256i *)(b + i + 32));
        __m256i p0 = _mm256_maddubs_epi16(_mm256_sign_epi8(va0, va0), _mm256_sign_epi8(vb0, va0));
        __m256i p1 = _mm256_maddubs_epi16(_mm256_sign_epi8(va1, va1), _mm256_sign_epi8(vb1, va1));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
        acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(p1, ones));
    }
    for (; i + 32 <= n; i += 32) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
        __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(va, va), _mm256_sign_epi8(vb, va));
        acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p, ones));
    }
    __m256i acc = _mm256_add_epi32(acc0, acc1);
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    int32_t r = _mm_cvtsi128_si32(s);
    for (; i < n; i++)
        r += (int32_t)a[i] * b[i];
    return r;
}
#endif

static vec_kernels kernels_in_use;
static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;

static void kernels_pick(void)
{
    kernels_in_use = (vec_kernels){dot_portable, l2sq_portable, dot_i8_portable, "portable"};
#ifdef VEC_X86
    const char *force = getenv("DBMCP_VEC_KERNEL");
    if (force && strcmp(force, "portable") == 0)
        return;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        kernels_in_use = (vec_kernels){dot_avx2, l2sq_avx2, dot_i8_avx2, "avx2+fma"};
#endif
}

static const vec_kernels *kernels(void)
{
    pthread_once(&kernels_once, kernels_pick);
    return &kernels_in_use;
}

const char *vec_kernel_name(void)
{
    return kernels()->name;
}

/* --- metrics ---------------------------------------------------------------- */

static const char *const metric_names[] = {"cosine", "dot", "euclidean"};

int vec_metric_parse(const char *s)
{
    for (int i = 0; s && i < 3; i++)
        if (strcasecmp(s, metric_names[i]) == 0)
            return i;
    return -1;
}

const char *vec_metric_name(vec_metric m)
{
    return (unsigned)m < 3 ? metric_names[m] : "unknown";
}

static float inverse_norm(float sq)
{
    return sq > 0 ? 1.0f / sqrtf(sq) : 0.0f;
}

float vec_distance(const float *a, const float *b, int dim, vec_metric m)
{
    const vec_kernels *k = kernels();
    if (dim < 1)
        return 0;
    switch (m) {
    case VEC_DOT: return -k->dot(a, b, dim);
    case VEC_EUCLIDEAN: return sqrtf(k->l2sq(a, b, dim));
    case VEC_COSINE:
    default: {
        float ia = inverse_norm(k->dot(a, a, dim)), ib = inverse_norm(k->dot(b, b, dim));
        return 1.0f - k->dot(a, b, dim) * (ia * ib);
    }
    }
}

float vec_dot(const float *a, const float *b, int dim)
{
    return dim > 0 ? kernels()->dot(a, b, dim) : 0.0f;
}

/* The squared L2 norm of v in double, or VEC_NOT_FINITE with *at set to
 * the first NaN or infinite element. */
static vec_fault squared_norm(const float *v, int dim, double *sq, int *at)
{
    *sq = 0;
    if (at)
        *at = -1;
    for (int i = 0; i < dim; i++) {
        if (!isfinite(v[i])) {
            if (at)
                *at = i;
            return VEC_NOT_FINITE;
        }
        *sq += (double)v[i] * v[i];
    }
    return VEC_OK;
}

vec_fault vec_check(const float *v, int dim, int *at)
{
    double sq;
    vec_fault f = squared_norm(v, dim, &sq, at);
    if (f != VEC_OK)
        return f;
    return sq <= VEC_MAX_SQ_NORM ? VEC_OK : VEC_TOO_LARGE;
}

vec_fault vec_normalize(float *v, int dim, int *at)
{
    double sq;
    vec_fault f = squared_norm(v, dim, &sq, at);
    if (f != VEC_OK)
        return f;
    /* From float32 inputs sq is finite (< dim * 1.2e77) and is 0 only when
     * every element is 0: the smallest subnormal squared is about 2e-90. */
    if (sq == 0)
        return VEC_ZERO;
    double norm = sqrt(sq);
    for (int i = 0; i < dim; i++)
        v[i] = (float)((double)v[i] / norm);
    return VEC_OK;
}

const char *vec_fault_text(vec_fault f)
{
    switch (f) {
    case VEC_OK: return "is a valid vector";
    case VEC_NOT_FINITE: return "holds a NaN or infinite value";
    case VEC_TOO_LARGE: return "has values so large that distances would overflow float32";
    case VEC_ZERO: return "is all zeros (or below float32 range), so it has no direction";
    }
    return "is not a valid vector";
}

/* --- building ---------------------------------------------------------------- */

static void *aligned_grow(void *old, size_t old_bytes, size_t new_bytes)
{
    void *p = NULL;
    size_t rounded = (new_bytes + VEC_ALIGN - 1) / VEC_ALIGN * VEC_ALIGN;
    if (posix_memalign(&p, VEC_ALIGN, rounded ? rounded : VEC_ALIGN))
        return NULL;
    if (old && old_bytes)
        memcpy(p, old, old_bytes);
    free(old);
    return p;
}

vec_index *vec_index_new(int dim)
{
    if (dim < 1)
        return NULL;
    vec_index *ix = calloc(1, sizeof *ix);
    if (ix)
        ix->dim = dim;
    return ix;
}

void vec_index_free(vec_index *ix)
{
    if (!ix)
        return;
    free(ix->data);
    free(ix->ids);
    free(ix->inv_norms);
    free(ix->sq_norms);
    free(ix->q8);
    free(ix->scales);
    free(ix);
}

int vec_index_reserve(vec_index *ix, size_t n)
{
    if (n <= ix->cap)
        return 0;
    size_t dim = (size_t)ix->dim;
    if (n > SIZE_MAX / sizeof(float) / dim)
        return DBMCP_ENOMEM;
    float *data = aligned_grow(ix->data, ix->count * dim * sizeof(float), n * dim * sizeof(float));
    if (!data)
        return DBMCP_ENOMEM;
    ix->data = data;
    int64_t *ids = realloc(ix->ids, n * sizeof *ids);
    if (ids)
        ix->ids = ids;
    float *inv = ids ? realloc(ix->inv_norms, n * sizeof *inv) : NULL;
    if (inv)
        ix->inv_norms = inv;
    float *sq = inv ? realloc(ix->sq_norms, n * sizeof *sq) : NULL;
    if (!sq)
        return DBMCP_ENOMEM; /* the arrays that did grow stay valid */
    ix->sq_norms = sq;
    ix->cap = n;
    return 0;
}

int vec_index_add(vec_index *ix, int64_t id, const float *v)
{
    if (vec_check(v, ix->dim, NULL) != VEC_OK)
        return DBMCP_EINVAL;
    if (ix->count == ix->cap) {
        int rc = vec_index_reserve(ix, ix->cap < 64 ? 64 : ix->cap + ix->cap / 2);
        if (rc)
            return rc;
    }
    float *row = ix->data + ix->count * (size_t)ix->dim;
    memcpy(row, v, (size_t)ix->dim * sizeof(float));
    float sq = kernels()->dot(row, row, ix->dim);
    if (ix->count && id <= ix->ids[ix->count - 1])
        ix->unsorted = 1;
    ix->ids[ix->count] = id;
    ix->sq_norms[ix->count] = sq;
    ix->inv_norms[ix->count] = inverse_norm(sq);
    ix->count++;
    return 0;
}

/* v ≈ out * scale with out in [-127, 127]; scale = max |v_i| / 127.
 * The reciprocal is taken in double: 127 / maxabs overflows float32 once
 * maxabs is subnormal, and inf * 0 would be NaN. v must be finite. */
static float quantize_row(const float *v, int dim, int8_t *out)
{
    float maxabs = 0;
    for (int i = 0; i < dim; i++)
        maxabs = fmaxf(maxabs, fabsf(v[i]));
    if (maxabs == 0) {
        memset(out, 0, (size_t)dim);
        return 0;
    }
    double inv = 127.0 / (double)maxabs;
    for (int i = 0; i < dim; i++) {
        long q = lrint((double)v[i] * inv);
        assert(q >= -127 && q <= 127);
        out[i] = (int8_t)q;
    }
    return maxabs / 127.0f;
}

int vec_index_quantize(vec_index *ix)
{
    size_t dim = (size_t)ix->dim;
    if (ix->quantized == ix->count)
        return 0;
    if (ix->qcap < ix->count) {
        int8_t *q8 = aligned_grow(ix->q8, ix->quantized * dim, ix->count * dim);
        if (!q8)
            return DBMCP_ENOMEM;
        ix->q8 = q8;
        float *scales = realloc(ix->scales, ix->count * sizeof *scales);
        if (!scales)
            return DBMCP_ENOMEM;
        ix->scales = scales;
        ix->qcap = ix->count;
    }
    for (size_t r = ix->quantized; r < ix->count; r++)
        ix->scales[r] = quantize_row(ix->data + r * dim, ix->dim, ix->q8 + r * dim);
    ix->quantized = ix->count;
    return 0;
}

size_t vec_index_count(const vec_index *ix)
{
    return ix->count;
}

int vec_index_dim(const vec_index *ix)
{
    return ix->dim;
}

int64_t vec_index_id(const vec_index *ix, size_t row)
{
    assert(row < ix->count);
    return ix->ids[row];
}

const float *vec_index_row(const vec_index *ix, size_t row)
{
    assert(row < ix->count);
    return ix->data + row * (size_t)ix->dim;
}

long vec_index_find(const vec_index *ix, int64_t id)
{
    if (ix->unsorted) {
        for (size_t r = 0; r < ix->count; r++)
            if (ix->ids[r] == id)
                return (long)r;
        return -1;
    }
    size_t lo = 0, hi = ix->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->count && ix->ids[lo] == id ? (long)lo : -1;
}

/* --- bounded heap ---------------------------------------------------------------- */

/* A max-heap of the best `cap` entries seen: the root is the worst kept,
 * so a row is compared with one entry and usually rejected there. */
typedef struct heap_entry {
    float d;
    int64_t id;
    size_t row;
} heap_entry;

typedef struct heap {
    heap_entry *e;
    size_t n, cap;
} heap;

/* Order by distance, then id: a "worse" b. */
static int worse(const heap_entry *a, const heap_entry *b)
{
    return a->d > b->d || (a->d == b->d && a->id > b->id);
}

static void sift_down(heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && worse(&h->e[l], &h->e[m]))
            m = l;
        if (r < h->n && worse(&h->e[r], &h->e[m]))
            m = r;
        if (m == i)
            return;
        heap_entry t = h->e[i];
        h->e[i] = h->e[m];
        h->e[m] = t;
        i = m;
    }
}

static inline void heap_offer(heap *h, float d, int64_t id, size_t row)
{
    heap_entry x = {d, id, row};
    if (h->n < h->cap) {
        size_t i = h->n++;
        while (i > 0) {
            size_t p = (i - 1) / 2;
            if (!worse(&x, &h->e[p]))
                break;
            h->e[i] = h->e[p];
            i = p;
        }
        h->e[i] = x;
    } else if (worse(&h->e[0], &x)) {
        h->e[0] = x;
        sift_down(h, 0);
    }
}

static int entry_cmp(const void *pa, const void *pb)
{
    const heap_entry *a = pa, *b = pb;
    return worse(a, b) ? 1 : worse(b, a) ? -1 : 0;
}

/* --- search ------------------------------------------------------------------------ */

typedef struct scan {
    const vec_index *ix;
    const vec_query *q;
    const vec_kernels *k;
    float q_inv_norm; /* 1 / |q|, 0 for a zero query */
    float q_sq_norm;  /* |q|^2 */
} scan;

/* The ranking value of row r in float32 (euclidean: squared). */
static inline float exact_rank(const scan *s, size_t r)
{
    const float *row = s->ix->data + r * (size_t)s->ix->dim;
    switch (s->q->metric) {
    case VEC_DOT: return -s->k->dot(s->q->q, row, s->ix->dim);
    case VEC_EUCLIDEAN: return s->k->l2sq(s->q->q, row, s->ix->dim);
    default:
        return 1.0f - s->k->dot(s->q->q, row, s->ix->dim) * (s->q_inv_norm * s->ix->inv_norms[r]);
    }
}

/* The rows a search visits: all, or the query's list. */
static size_t scan_rows(const scan *s)
{
    return s->q->rows ? s->q->n_rows : s->ix->count;
}

static inline size_t scan_row(const scan *s, size_t i)
{
    return s->q->rows ? s->q->rows[i] : i;
}

static void scan_float(const scan *s, heap *h)
{
    const vec_index *ix = s->ix;
    const vec_query *q = s->q;
    for (size_t i = 0, n = scan_rows(s); i < n; i++) {
        size_t r = scan_row(s, i);
        if (q->filter && !q->filter(q->filter_ctx, ix->ids[r]))
            continue;
        heap_offer(h, exact_rank(s, r), ix->ids[r], r);
    }
}

/* The int8 pass: approximate ranking values from the int8 dot product
 * (euclidean from |q|^2 + |r|^2 - 2 q.r with the exact norms). */
static void scan_int8(const scan *s, const int8_t *q8, float q_scale, heap *h)
{
    const vec_index *ix = s->ix;
    const vec_query *q = s->q;
    size_t dim = (size_t)ix->dim;
    for (size_t i = 0, n = scan_rows(s); i < n; i++) {
        size_t r = scan_row(s, i);
        if (q->filter && !q->filter(q->filter_ctx, ix->ids[r]))
            continue;
        float dot = (float)s->k->dot_i8(q8, ix->q8 + r * dim, ix->dim) * (q_scale * ix->scales[r]);
        float d;
        if (q->metric == VEC_DOT)
            d = -dot;
        else if (q->metric == VEC_EUCLIDEAN)
            d = s->q_sq_norm + ix->sq_norms[r] - 2.0f * dot;
        else
            d = 1.0f - dot * (s->q_inv_norm * ix->inv_norms[r]);
        heap_offer(h, d, ix->ids[r], r);
    }
}

static float public_distance(vec_metric m, float rank)
{
    return m == VEC_EUCLIDEAN ? sqrtf(rank) : rank;
}

int vec_index_search(const vec_index *ix, const vec_query *q, vec_hit *out)
{
    if (!ix || !q || !q->q || q->k < 1 || (unsigned)q->metric > VEC_EUCLIDEAN)
        return DBMCP_EINVAL;
    if (vec_check(q->q, ix->dim, NULL) != VEC_OK)
        return DBMCP_EINVAL;
    if (q->int8 && ix->quantized != ix->count)
        return DBMCP_EINVAL;
    for (size_t i = 0; q->rows && i < q->n_rows; i++)
        if (q->rows[i] >= ix->count)
            return DBMCP_EINVAL;
    if (ix->count == 0)
        return 0;
    scan s = {ix, q, kernels(), 0, 0};
    s.q_sq_norm = s.k->dot(q->q, q->q, ix->dim);
    s.q_inv_norm = inverse_norm(s.q_sq_norm);

    size_t k = (size_t)q->k < ix->count ? (size_t)q->k : ix->count;
    size_t cap = k;
    if (q->int8) {
        size_t factor = q->rescore > 0 ? (size_t)q->rescore : 4;
        cap = k > ix->count / factor ? ix->count : k * factor;
    }
    heap h = {malloc(cap * sizeof(heap_entry)), 0, cap};
    int8_t *q8 = q->int8 ? malloc((size_t)ix->dim) : NULL;
    if (!h.e || (q->int8 && !q8)) {
        free(h.e);
        free(q8);
        return DBMCP_ENOMEM;
    }
    if (q->int8) {
        float q_scale = quantize_row(q->q, ix->dim, q8);
        scan_int8(&s, q8, q_scale, &h);
        /* Rescore the candidates exactly; they were chosen by the filter
         * already. */
        for (size_t i = 0; i < h.n; i++)
            h.e[i].d = exact_rank(&s, h.e[i].row);
    } else {
        scan_float(&s, &h);
    }
    qsort(h.e, h.n, sizeof *h.e, entry_cmp);
    size_t found = h.n < k ? h.n : k;
    for (size_t i = 0; i < found; i++)
        out[i] = (vec_hit){h.e[i].id, public_distance(q->metric, h.e[i].d)};
    free(h.e);
    free(q8);
    return (int)found;
}
