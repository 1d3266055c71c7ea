/*
 * ann_bench.c — approximate top-10 by cosine: dbmcp's HNSW (core/hnsw.h)
 * against exact search (core/vector.h, the truth and the time to beat),
 * on the same vectors FAISS and hnswlib are then measured on by
 * bench/ann/peers.py. Driven by bench/ann.sh; see bench/README.md, "ANN".
 *
 *   ann_bench --out DIR [--n 1000000] [--dim 384] [--queries 200]
 *             [--m 16] [--efc 100] [--ef 16,32,64,128,256]
 *
 * The vectors are SYNTHETIC (no real embedding set of this size can be
 * fetched here): a 48-dimensional latent mixture of 1,000 Gaussian
 * clusters, projected to dim by a fixed random matrix, plus per-dimension
 * noise, L2-normalised — low intrinsic dimension, as real sentence
 * embeddings have, so the figures measure speed and recall against exact
 * search, not retrieval quality. Queries are drawn from the same mixture
 * and are not in the set. Fixed seeds: the same data on every run.
 *
 * Writes DIR/base.f32 (n * dim floats), DIR/query.f32 and DIR/truth.i32
 * (queries * 10 row numbers, the exact top 10) for the peers, and prints
 * one row per engine and ef: build seconds, median and mean ms per query
 * (one query at a time, one thread), recall@10 against the exact top 10.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hnsw.h"
#include "core/vector.h"

#define K 10
#define LATENT 48
#define CLUSTERS 1000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(2.0 * M_PI * uniform());
}

static void die(const char *what)
{
    fprintf(stderr, "ann_bench: %s\n", what);
    exit(1);
}

typedef struct mixture {
    int dim;
    float *proj;    /* dim * LATENT */
    float *centers; /* CLUSTERS * LATENT */
} mixture;

static void draw(const mixture *mx, float *out)
{
    double z[LATENT];
    const float *c = mx->centers + (size_t)(uniform() * CLUSTERS) % CLUSTERS * LATENT;
    for (int j = 0; j < LATENT; j++)
        z[j] = c[j] + 0.6 * gauss();
    for (int i = 0; i < mx->dim; i++) {
        double s = 0.3 * gauss();
        for (int j = 0; j < LATENT; j++)
            s += mx->proj[(size_t)i * LATENT + j] * z[j];
        out[i] = (float)s;
    }
    vec_normalize(out, mx->dim, NULL);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void write_file(const char *dir, const char *name, const void *p, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f))
        die("cannot write the data files");
}

static void report(const char *engine, const char *params, double build_s, double *ms, int nq,
                   double recall)
{
    double sum = 0;
    for (int i = 0; i < nq; i++)
        sum += ms[i];
    qsort(ms, (size_t)nq, sizeof *ms, cmp_double);
    printf("%-16s %-22s %9.1f %9.3f %9.3f %8.4f\n", engine, params, build_s, ms[nq / 2], sum / nq,
           recall);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int dim = 384, nq = 200, m = 16, efc = 100;
    const char *out = NULL, *efs = "16,32,64,128,256";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--dim"))
            dim = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--queries"))
            nq = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--m"))
            m = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--efc"))
            efc = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ef"))
            efs = argv[i + 1];
        else if (!strcmp(argv[i], "--out"))
            out = argv[i + 1];
        else
            die("usage: ann_bench --out DIR [--n N] [--dim D] [--queries Q] [--m M] [--efc E] "
                "[--ef a,b,...]");
    }
    if (!out || n < 100 || dim < 8 || nq < 1)
        die("--out DIR is required; n >= 100, dim >= 8, queries >= 1");

    mixture mx = {dim, malloc((size_t)dim * LATENT * sizeof(float)),
                  malloc((size_t)CLUSTERS * LATENT * sizeof(float))};
    float *base = malloc(n * (size_t)dim * sizeof(float));
    float *queries = malloc((size_t)nq * (size_t)dim * sizeof(float));
    int32_t *truth = malloc((size_t)nq * K * sizeof(int32_t));
    double *ms = malloc((size_t)nq * sizeof(double));
    vec_hit *hits = malloc(1024 * sizeof(vec_hit));
    if (!mx.proj || !mx.centers || !base || !queries || !truth || !ms || !hits)
        die("out of memory");
    for (size_t i = 0; i < (size_t)dim * LATENT; i++)
        mx.proj[i] = (float)(gauss() / sqrt(LATENT));
    for (size_t i = 0; i < (size_t)CLUSTERS * LATENT; i++)
        mx.centers[i] = (float)gauss();
    for (size_t r = 0; r < n; r++)
        draw(&mx, base + r * (size_t)dim);
    for (int q = 0; q < nq; q++)
        draw(&mx, queries + (size_t)q * dim);
    write_file(out, "base.f32", base, n * (size_t)dim * sizeof(float));
    write_file(out, "query.f32", queries, (size_t)nq * (size_t)dim * sizeof(float));

    printf("# %zu x %d synthetic vectors (48-d latent mixture of %d clusters, projected, noise), "
           "%d queries, k = %d, one thread, kernels %s\n",
           n, dim, CLUSTERS, nq, K, vec_kernel_name());
    printf("%-16s %-22s %9s %9s %9s %8s\n", "engine", "parameters", "build s", "p50 ms", "mean ms",
           "recall");

    /* Exact: the truth, and the time an exact scan takes. */
    double t0 = now_s();
    vec_index *ix = vec_index_new(dim);
    if (!ix || vec_index_reserve(ix, n))
        die("out of memory");
    for (size_t r = 0; r < n; r++)
        if (vec_index_add(ix, (int64_t)r, base + r * (size_t)dim))
            die("vec_index_add failed");
    double build = now_s() - t0;
    for (int q = 0; q < nq; q++) {
        vec_query vq = {queries + (size_t)q * dim, K, VEC_COSINE, 0, 0, NULL, NULL, NULL, 0};
        double t = now_s();
        if (vec_index_search(ix, &vq, hits) != K)
            die("exact search failed");
        ms[q] = (now_s() - t) * 1e3;
        for (int j = 0; j < K; j++)
            truth[q * K + j] = (int32_t)hits[j].id;
    }
    write_file(out, "truth.i32", truth, (size_t)nq * K * sizeof(int32_t));
    report("exact vec_index", "float32 scan", build, ms, nq, 1.0);
    vec_index_free(ix);

    /* dbmcp's HNSW. */
    hnsw_params p = {m, efc, 0};
    hnsw *g = hnsw_new(dim, &p);
    if (!g)
        die("hnsw_new failed");
    t0 = now_s();
    for (size_t r = 0; r < n; r++) {
        if (hnsw_add(g, (int64_t)r, base + r * (size_t)dim))
            die("hnsw_add failed");
        if (r && r % 100000 == 0)
            fprintf(stderr, "ann_bench: hnsw %zu rows, %.0f s\n", r, now_s() - t0);
    }
    build = now_s() - t0;
    for (const char *e = efs; e && *e;) {
        int ef = atoi(e);
        size_t found = 0;
        for (int q = 0; q < nq; q++) {
            double t = now_s();
            int got = hnsw_search(g, queries + (size_t)q * dim, K, ef, NULL, NULL, hits);
            ms[q] = (now_s() - t) * 1e3;
            for (int a = 0; a < got; a++)
                for (int b = 0; b < K; b++)
                    found += hits[a].id == truth[q * K + b];
        }
        char params[64];
        snprintf(params, sizeof params, "M=%d efC=%d ef=%d", m, efc, ef);
        report("dbmcp hnsw", params, build, ms, nq, (double)found / ((double)nq * K));
        e = strchr(e, ',');
        e = e ? e + 1 : NULL;
    }
    hnsw_free(g);
    free(mx.proj);
    free(mx.centers);
    free(base);
    free(queries);
    free(truth);
    free(ms);
    free(hits);
    return 0;
}
