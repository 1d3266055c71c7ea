/*
 * test_vector.c — core/vector (kernels, exact and int8 top-k) and
 * search/fuse (reciprocal-rank fusion).
 *
 * Top-k is checked against brute force over vec_distance on random data
 * for every metric: vec_distance uses the same arithmetic as the index,
 * so ids and distances must match exactly (ties by ascending id). The
 * kernels are checked against a double-precision reference, with both
 * kernel sets (a forked child runs with DBMCP_VEC_KERNEL=portable).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/vector.h"
#include "search/fuse.h"

/* xorshift: the same data on every run. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static float rnd(void)
{
    return (float)((double)(rng() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static float *random_rows(size_t n, int dim)
{
    float *v = malloc(n * (size_t)dim * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n * (size_t)dim; i++)
        v[i] = rnd();
    return v;
}

static vec_index *index_of(const float *rows, size_t n, int dim, const int64_t *ids)
{
    vec_index *ix = vec_index_new(dim);
    assert_non_null(ix);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(vec_index_add(ix, ids ? ids[i] : (int64_t)i, rows + i * (size_t)dim), 0);
    return ix;
}

static int hit_cmp(const void *pa, const void *pb)
{
    const vec_hit *a = pa, *b = pb;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

typedef struct keep_ctx {
    int modulo; /* keep ids divisible by this */
    size_t calls;
} keep_ctx;

static int keep_multiples(void *ctx, int64_t id)
{
    keep_ctx *k = ctx;
    k->calls++;
    return id % k->modulo == 0;
}

/* Brute force: every row (passing the filter) by vec_distance, sorted. */
static size_t brute_force(const float *rows, size_t n, int dim, const int64_t *ids, const float *q,
                          vec_metric m, vec_filter_fn filter, void *fctx, vec_hit *out)
{
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t id = ids ? ids[i] : (int64_t)i;
        if (filter && !filter(fctx, id))
            continue;
        out[found++] = (vec_hit){id, vec_distance(q, rows + i * (size_t)dim, dim, m)};
    }
    qsort(out, found, sizeof *out, hit_cmp);
    return found;
}

/* The exact search equals brute force for dim d, n rows, each metric. */
static void check_exact(size_t n, int dim, int k)
{
    float *rows = random_rows(n, dim);
    vec_index *ix = index_of(rows, n, dim, NULL);
    vec_hit *want = malloc((n + 1) * sizeof *want);
    vec_hit *got = malloc((size_t)k * sizeof *got);
    for (int m = VEC_COSINE; m <= VEC_EUCLIDEAN; m++)
        for (int t = 0; t < 5; t++) {
            float *q = random_rows(1, dim);
            size_t w = brute_force(rows, n, dim, NULL, q, (vec_metric)m, NULL, NULL, want);
            vec_query query = {q, k, (vec_metric)m, 0, 0, NULL, NULL, NULL, 0};
            int found = vec_index_search(ix, &query, got);
            assert_int_equal(found, (int)(w < (size_t)k ? w : (size_t)k));
            for (int i = 0; i < found; i++) {
                assert_int_equal(got[i].id, want[i].id);
                assert_true(got[i].distance == want[i].distance);
            }
            free(q);
        }
    free(got);
    free(want);
    vec_index_free(ix);
    free(rows);
}

static void test_exact_matches_brute_force(void **state)
{
    (void)state;
    check_exact(2000, 384, 10);
    check_exact(500, 7, 25);  /* no full SIMD block at all */
    check_exact(300, 33, 1);  /* one SIMD block and a tail */
    check_exact(100, 1, 5);   /* one dimension: many ties */
    check_exact(40, 65, 100); /* k > count: every row, sorted */
}

/* Distances against a double-precision reference. */
static void check_kernels(void)
{
    int dims[] = {1, 3, 8, 31, 32, 33, 64, 100, 384, 1000};
    for (size_t di = 0; di < sizeof dims / sizeof *dims; di++) {
        int d = dims[di];
        float *a = random_rows(1, d), *b = random_rows(1, d);
        double dot = 0, na = 0, nb = 0, l2 = 0;
        for (int i = 0; i < d; i++) {
            dot += (double)a[i] * b[i];
            na += (double)a[i] * a[i];
            nb += (double)b[i] * b[i];
            l2 += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        }
        double tol = 1e-4 * (1 + sqrt(na * nb));
        assert_true(fabs(vec_distance(a, b, d, VEC_DOT) - -dot) < tol);
        assert_true(fabs(vec_distance(a, b, d, VEC_EUCLIDEAN) - sqrt(l2)) < 1e-4 * (1 + sqrt(l2)));
        assert_true(fabs(vec_distance(a, b, d, VEC_COSINE) - (1 - dot / sqrt(na * nb))) < 1e-5);
        /* a vector is at distance 0 from itself */
        assert_true(fabs(vec_distance(a, a, d, VEC_COSINE)) < 1e-5);
        assert_true(vec_distance(a, a, d, VEC_EUCLIDEAN) == 0);
        free(a);
        free(b);
    }
    float zero[4] = {0}, one[4] = {1, 0, 0, 0};
    assert_true(vec_distance(zero, one, 4, VEC_COSINE) == 1.0f); /* cos of a zero vector is 0 */
    float u[2] = {1, 0}, v[2] = {0, 1}, w[2] = {-1, 0};
    assert_true(fabsf(vec_distance(u, v, 2, VEC_COSINE) - 1.0f) < 1e-6);
    assert_true(fabsf(vec_distance(u, w, 2, VEC_COSINE) - 2.0f) < 1e-6);
    assert_true(fabsf(vec_distance(u, v, 2, VEC_EUCLIDEAN) - sqrtf(2)) < 1e-6);
}

static void test_kernels(void **state)
{
    (void)state;
    check_kernels();
}

/* The portable kernels: this binary again, in a fresh process that
 * picks its kernels at first use with DBMCP_VEC_KERNEL=portable. */
static int portable_child(void)
{
    if (strcmp(vec_kernel_name(), "portable") != 0)
        return 3;
    check_kernels();
    check_exact(1000, 384, 10);
    check_exact(200, 13, 7);
    return 0;
}

static void test_portable_kernels(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("DBMCP_VEC_KERNEL", "portable", 1);
        execl("/proc/self/exe", "test_vector", "--portable-child", (char *)NULL);
        _exit(4);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_filter(void **state)
{
    (void)state;
    size_t n = 1000;
    int dim = 48;
    float *rows = random_rows(n, dim);
    int64_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = (int64_t)(n - i) * 3; /* ids not in row order */
    vec_index *ix = index_of(rows, n, dim, ids);
    assert_int_equal(vec_index_quantize(ix), 0);
    float *q = random_rows(1, dim);
    vec_hit want[1000], got[20];
    keep_ctx kc = {7, 0};
    size_t w = brute_force(rows, n, dim, ids, q, VEC_COSINE, keep_multiples, &kc, want);
    kc.calls = 0;
    vec_query query = {q, 20, VEC_COSINE, 0, 0, keep_multiples, &kc, NULL, 0};
    assert_int_equal(vec_index_search(ix, &query, got), 20);
    assert_int_equal(kc.calls, n); /* called once per row */
    for (int i = 0; i < 20; i++) {
        assert_int_equal(got[i].id % 7, 0);
        assert_int_equal(got[i].id, want[i].id);
    }
    /* int8 with a filter: only kept rows, exact distances */
    query.int8 = 1;
    query.rescore = 50;
    int found = vec_index_search(ix, &query, got);
    assert_int_equal(found, 20);
    for (int i = 0; i < found; i++) {
        assert_int_equal(got[i].id % 7, 0);
        assert_true(got[i].distance == want[i].distance);
    }
    /* The same search over only the rows the filter keeps (what the engine
     * does for a small scope, finding them with vec_index_find): the same
     * hits, and the filter is asked about those rows alone. */
    size_t *subset = malloc(n * sizeof *subset), ns = 0;
    for (size_t i = 0; i < n; i++) {
        long r = vec_index_find(ix, ids[n - 1 - i]); /* ascending ids, unsorted rows: a scan */
        assert_true(r >= 0);
        assert_int_equal(vec_index_id(ix, (size_t)r), ids[n - 1 - i]);
        if (ids[n - 1 - i] % 7 == 0)
            subset[ns++] = (size_t)r;
    }
    assert_int_equal(vec_index_find(ix, 1), -1);
    kc.calls = 0;
    query.rows = subset;
    query.n_rows = ns;
    query.int8 = 0;
    assert_int_equal(vec_index_search(ix, &query, got), 20);
    assert_int_equal(kc.calls, ns);
    for (int i = 0; i < 20; i++)
        assert_int_equal(got[i].id, want[i].id);
    subset[0] = n; /* a row past the end is refused */
    assert_int_equal(vec_index_search(ix, &query, got), DBMCP_EINVAL);
    query.rows = NULL;
    query.n_rows = 0;
    free(subset);
    /* a filter keeping fewer rows than k */
    keep_ctx rare = {1000, 0};
    query.filter_ctx = &rare;
    query.int8 = 0;
    w = brute_force(rows, n, dim, ids, q, VEC_COSINE, keep_multiples, &rare, want);
    assert_int_equal(vec_index_search(ix, &query, got), (int)w);
    assert_true(w < 20);
    (void)w;
    free(q);
    vec_index_free(ix);
    free(ids);
    free(rows);
}

static void test_ties_by_id(void **state)
{
    (void)state;
    int dim = 16;
    vec_index *ix = vec_index_new(dim);
    float row[16];
    for (int i = 0; i < dim; i++)
        row[i] = (float)(i % 3) - 1;
    int64_t ids[] = {50, 7, 42, 3, 99, 8};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(vec_index_add(ix, ids[i], row), 0);
    assert_int_equal(vec_index_quantize(ix), 0);
    vec_hit got[6];
    for (int m = VEC_COSINE; m <= VEC_EUCLIDEAN; m++)
        for (int int8 = 0; int8 <= 1; int8++) {
            vec_query q = {row, 4, (vec_metric)m, int8, 0, NULL, NULL, NULL, 0};
            assert_int_equal(vec_index_search(ix, &q, got), 4);
            int64_t want[] = {3, 7, 8, 42};
            for (int i = 0; i < 4; i++) {
                assert_int_equal(got[i].id, want[i]);
                assert_true(got[i].distance == got[0].distance);
            }
        }
    vec_index_free(ix);
}

static void test_edges_and_errors(void **state)
{
    (void)state;
    assert_null(vec_index_new(0));
    assert_null(vec_index_new(-3));
    vec_index *ix = vec_index_new(4);
    float q[4] = {1, 2, 3, 4};
    vec_hit out[3];
    vec_query query = {q, 3, VEC_DOT, 0, 0, NULL, NULL, NULL, 0};
    assert_int_equal(vec_index_search(ix, &query, out), 0); /* empty index */
    float bad[4] = {1, NAN, 0, 0}, inf[4] = {INFINITY, 0, 0, 0};
    assert_int_equal(vec_index_add(ix, 1, bad), DBMCP_EINVAL);
    assert_int_equal(vec_index_add(ix, 1, inf), DBMCP_EINVAL);
    assert_int_equal(vec_index_count(ix), 0);
    assert_int_equal(vec_index_add(ix, 1, q), 0);
    assert_int_equal(vec_index_dim(ix), 4);
    query.k = 0;
    assert_int_equal(vec_index_search(ix, &query, out), DBMCP_EINVAL);
    query.k = 3;
    query.metric = (vec_metric)7;
    assert_int_equal(vec_index_search(ix, &query, out), DBMCP_EINVAL);
    query.metric = VEC_DOT;
    query.q = bad;
    assert_int_equal(vec_index_search(ix, &query, out), DBMCP_EINVAL);
    query.q = q;
    query.int8 = 1; /* not quantised yet */
    assert_int_equal(vec_index_search(ix, &query, out), DBMCP_EINVAL);
    assert_int_equal(vec_index_quantize(ix), 0);
    assert_int_equal(vec_index_quantize(ix), 0); /* idempotent */
    assert_int_equal(vec_index_search(ix, &query, out), 1);
    assert_int_equal(out[0].id, 1);
    assert_true(fabsf(out[0].distance + 30.0f) < 1e-5);
    /* a row added after quantising needs quantising again */
    assert_int_equal(vec_index_add(ix, 2, q), 0);
    assert_int_equal(vec_index_search(ix, &query, out), DBMCP_EINVAL);
    assert_int_equal(vec_index_quantize(ix), 0);
    assert_int_equal(vec_index_search(ix, &query, out), 2);
    /* a zero row and a zero query under cosine: distance 1 */
    float zero[4] = {0};
    assert_int_equal(vec_index_add(ix, 3, zero), 0);
    query.int8 = 0;
    query.metric = VEC_COSINE;
    query.q = zero;
    assert_int_equal(vec_index_search(ix, &query, out), 3);
    for (int i = 0; i < 3; i++)
        assert_true(out[i].distance == 1.0f);
    assert_int_equal(vec_index_reserve(ix, 1000), 0);
    assert_int_equal(vec_index_count(ix), 3);
    vec_index_free(ix);
    vec_index_free(NULL);
    assert_int_equal(vec_metric_parse("cosine"), VEC_COSINE);
    assert_int_equal(vec_metric_parse("DOT"), VEC_DOT);
    assert_int_equal(vec_metric_parse("euclidean"), VEC_EUCLIDEAN);
    assert_int_equal(vec_metric_parse("l2"), -1);
    assert_int_equal(vec_metric_parse(NULL), -1);
    assert_string_equal(vec_metric_name(VEC_EUCLIDEAN), "euclidean");
}

/* Issue 18: every vector that normalises, quantises or enters a distance
 * comes out finite, or is refused with the reason. */
static void test_finite_by_construction(void **state)
{
    (void)state;
    int at = 7;
    float sub[1] = {2e-39f}; /* the fuzz reproducer's value */
    assert_int_equal(vec_normalize(sub, 1, &at), VEC_OK);
    assert_true(sub[0] == 1.0f);
    /* subnormal (exact multiples of 2^-140): 1/norm overflows float32 */
    float tiny[2] = {ldexpf(3, -140), -ldexpf(4, -140)};
    assert_int_equal(vec_normalize(tiny, 2, NULL), VEC_OK);
    assert_true(fabsf(tiny[0] - 0.6f) < 1e-6f && fabsf(tiny[1] + 0.8f) < 1e-6f);
    float huge[2] = {3e38f, 3e38f}; /* the squared norm overflows float32 */
    assert_int_equal(vec_normalize(huge, 2, NULL), VEC_OK);
    assert_true(fabsf(huge[0] - 0.70710678f) < 1e-6f);
    float zero[3] = {0, 0, 0};
    assert_int_equal(vec_normalize(zero, 3, &at), VEC_ZERO);
    assert_int_equal(at, -1);
    assert_true(zero[0] == 0 && zero[2] == 0);
    float nan[3] = {1, 2, NAN};
    assert_int_equal(vec_normalize(nan, 3, &at), VEC_NOT_FINITE);
    assert_int_equal(at, 2);
    assert_true(nan[0] == 1); /* unchanged */
    float inf[2] = {-INFINITY, 0};
    assert_int_equal(vec_check(inf, 2, &at), VEC_NOT_FINITE);
    assert_int_equal(at, 0);
    float big[3] = {1e19f, 1e19f, 1e19f}; /* finite, but |v|^2 = 3e38 */
    assert_int_equal(vec_check(big, 3, &at), VEC_TOO_LARGE);
    assert_int_equal(at, -1);
    assert_non_null(strstr(vec_fault_text(VEC_TOO_LARGE), "overflow"));

    /* The extremes vec_check accepts give finite distances in every
     * metric, exact and int8: the largest norm, opposite signs, and
     * subnormal rows (their int8 reciprocal is taken in double). */
    vec_index *ix = vec_index_new(2);
    float lim[2] = {9.2e18f, 0}, neg[2] = {-9.2e18f, 0}, subrow[2] = {2e-39f, -1e-45f};
    assert_int_equal(vec_check(lim, 2, NULL), VEC_OK);
    assert_int_equal(vec_index_add(ix, 1, lim), 0);
    assert_int_equal(vec_index_add(ix, 2, neg), 0);
    assert_int_equal(vec_index_add(ix, 3, subrow), 0);
    assert_int_equal(vec_index_add(ix, 4, big), DBMCP_EINVAL);
    assert_int_equal(vec_index_quantize(ix), 0);
    const float *queries[] = {lim, neg, subrow};
    for (int m = 0; m < 3; m++)
        for (int qi = 0; qi < 3; qi++)
            for (int int8 = 0; int8 < 2; int8++) {
                vec_hit out[3];
                vec_query q = {queries[qi], 3, (vec_metric)m, int8, 0, NULL, NULL, NULL, 0};
                assert_int_equal(vec_index_search(ix, &q, out), 3);
                for (int i = 0; i < 3; i++)
                    assert_true(isfinite(out[i].distance));
                assert_true(isfinite(vec_distance(queries[qi], neg, 2, (vec_metric)m)));
            }
    vec_query refused = {big, 1, VEC_DOT, 0, 0, NULL, NULL, NULL, 0};
    vec_hit one[1];
    assert_int_equal(vec_index_search(ix, &refused, one), DBMCP_EINVAL);
    vec_index_free(ix);
}

/* int8 + rescoring finds at least 95% of the exact top 10 on random
 * data, and the distances it returns are exact. */
static void test_int8_recall(void **state)
{
    (void)state;
    size_t n = 20000;
    int dim = 384;
    float *rows = random_rows(n, dim);
    vec_index *ix = index_of(rows, n, dim, NULL);
    assert_int_equal(vec_index_quantize(ix), 0);
    for (int m = VEC_COSINE; m <= VEC_EUCLIDEAN; m++) {
        int hits = 0, total = 0;
        for (int t = 0; t < 30; t++) {
            float *q = random_rows(1, dim);
            vec_hit exact[10], approx[10];
            vec_query query = {q, 10, (vec_metric)m, 0, 0, NULL, NULL, NULL, 0};
            assert_int_equal(vec_index_search(ix, &query, exact), 10);
            query.int8 = 1;
            assert_int_equal(vec_index_search(ix, &query, approx), 10);
            for (int i = 0; i < 10; i++) {
                for (int j = 0; j < 10; j++)
                    if (approx[i].id == exact[j].id) {
                        hits++;
                        assert_true(approx[i].distance == exact[j].distance);
                    }
                if (i > 0)
                    assert_true(approx[i - 1].distance <= approx[i].distance);
            }
            total += 10;
            free(q);
        }
        print_message("int8 recall@10 (%s): %.3f\n", vec_metric_name((vec_metric)m),
                      (double)hits / total);
        assert_true(hits >= total * 95 / 100);
    }
    vec_index_free(ix);
    free(rows);
}

/* Several threads search one index at once and get what one thread gets. */
typedef struct search_job {
    const vec_index *ix;
    const float *queries;
    int nq, dim;
    const vec_hit *want; /* nq * 10 */
    int mismatches;
} search_job;

static void *search_many(void *arg)
{
    search_job *j = arg;
    for (int round = 0; round < 5; round++)
        for (int i = 0; i < j->nq; i++) {
            vec_hit got[10];
            vec_query q = {j->queries + (size_t)i * (size_t)j->dim,
                           10,
                           VEC_COSINE,
                           round & 1,
                           0,
                           NULL,
                           NULL,
                           NULL,
                           0};
            int n = vec_index_search(j->ix, &q, got);
            for (int h = 0; h < 10; h++)
                if (n != 10 || (!(round & 1) && got[h].id != j->want[i * 10 + h].id))
                    j->mismatches++;
        }
    return NULL;
}

static void test_concurrent_search(void **state)
{
    (void)state;
    int dim = 64, nq = 20;
    size_t n = 3000;
    float *rows = random_rows(n, dim), *queries = random_rows((size_t)nq, dim);
    vec_index *ix = index_of(rows, n, dim, NULL);
    assert_int_equal(vec_index_quantize(ix), 0);
    vec_hit *want = malloc((size_t)nq * 10 * sizeof *want);
    for (int i = 0; i < nq; i++) {
        vec_query q = {
            queries + (size_t)i * (size_t)dim, 10, VEC_COSINE, 0, 0, NULL, NULL, NULL, 0};
        assert_int_equal(vec_index_search(ix, &q, want + i * 10), 10);
    }
    pthread_t t[4];
    search_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (search_job){ix, queries, nq, dim, want, 0};
        assert_int_equal(pthread_create(&t[i], NULL, search_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(jobs[i].mismatches, 0);
    }
    free(want);
    vec_index_free(ix);
    free(queries);
    free(rows);
}

/* --- fusion --------------------------------------------------------------------- */

static void test_fuse_ranks(void **state)
{
    (void)state;
    int64_t a[] = {1, 2, 3, 4};
    double as[] = {9.0, 8.0, 7.0, 6.0};
    int64_t b[] = {3, 1, 5};
    double bs[] = {0.9, 0.8, 0.7};
    fuse_list lists[2] = {{a, as, 4, 0}, {b, bs, 3, 1}};
    fuse_hit *out;
    int n = fuse_rrf(lists, 2, 60, &out);
    assert_int_equal(n, 5);
    /* 1: 1/61 + 1/62; 3: 1/63 + 1/61; 2: 1/62; 4: 1/64; 5: 1/63 */
    int64_t want[] = {1, 3, 2, 5, 4};
    for (int i = 0; i < 5; i++)
        assert_int_equal(out[i].id, want[i]);
    assert_true(fabs(out[0].score - (1.0 / 61 + 1.0 / 62)) < 1e-12);
    assert_int_equal(out[0].rank[0], 1);
    assert_int_equal(out[0].rank[1], 2);
    assert_true(out[0].raw[0] == 9.0 && out[0].raw[1] == 0.8);
    assert_int_equal(out[3].rank[0], 0); /* 5 is absent from list a */
    assert_true(out[3].raw[0] == 0);
    assert_int_equal(out[3].rank[1], 3);
    free(out);

    /* weights shift the order; k0 <= 0 means 60 */
    lists[1].weight = 3;
    n = fuse_rrf(lists, 2, 0, &out);
    assert_int_equal(n, 5);
    assert_int_equal(out[0].id, 3); /* 1/63 + 3/61 beats 1/61 + 3/62 */
    assert_int_equal(out[1].id, 1);
    assert_int_equal(out[2].id, 5);
    free(out);
}

static void test_fuse_ties_and_edges(void **state)
{
    (void)state;
    /* mirror lists: ids 10 and 20 score the same; ties by ascending id */
    int64_t a[] = {20, 10}, b[] = {10, 20};
    fuse_list lists[2] = {{a, NULL, 2, 1}, {b, NULL, 2, 1}};
    fuse_hit *out;
    assert_int_equal(fuse_rrf(lists, 2, 60, &out), 2);
    assert_int_equal(out[0].id, 10);
    assert_int_equal(out[1].id, 20);
    assert_true(out[0].score == out[1].score);
    free(out);
    /* a repeated id within one list counts once, at its first rank */
    int64_t rep[] = {5, 6, 5};
    fuse_list one = {rep, NULL, 3, 1};
    assert_int_equal(fuse_rrf(&one, 1, 60, &out), 2);
    assert_int_equal(out[0].id, 5);
    assert_int_equal(out[0].rank[0], 1);
    assert_true(fabs(out[0].score - 1.0 / 61) < 1e-12);
    free(out);
    /* no lists, empty lists */
    assert_int_equal(fuse_rrf(NULL, 0, 60, &out), 0);
    free(out);
    fuse_list empty = {NULL, NULL, 0, 1};
    assert_int_equal(fuse_rrf(&empty, 1, 60, &out), 0);
    free(out);
    /* too many lists */
    fuse_list many[FUSE_MAX_LISTS + 1] = {{0}};
    assert_int_equal(fuse_rrf(many, FUSE_MAX_LISTS + 1, 60, &out), DBMCP_EINVAL);
    assert_null(out);
    fuse_list bad = {NULL, NULL, 2, 1};
    assert_int_equal(fuse_rrf(&bad, 1, 60, &out), DBMCP_EINVAL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--portable-child") == 0)
        return portable_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_portable_kernels),
        cmocka_unit_test(test_exact_matches_brute_force),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_ties_by_id),
        cmocka_unit_test(test_edges_and_errors),
        cmocka_unit_test(test_finite_by_construction),
        cmocka_unit_test(test_int8_recall),
        cmocka_unit_test(test_concurrent_search),
        cmocka_unit_test(test_fuse_ranks),
        cmocka_unit_test(test_fuse_ties_and_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
