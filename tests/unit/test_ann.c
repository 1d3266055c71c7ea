/*
 * test_ann.c — the approximate index: core/hnsw (recall against exact
 * search on a fixed-seed set, removal, replacement, filters, bad input)
 * and the engine's use of it (search/ann.h through search_run): the graph
 * answers only once it holds the version searched, agrees with exact
 * search, never returns a deleted row or one its scope excludes, and is
 * rebuilt after the cache is dropped (a restart) while exact search
 * answers meanwhile.
 *
 * Database tests use a fresh SQLite file under $TMPDIR with the schema
 * and a vectors table of their own.
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
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/hnsw.h"
#include "core/vector.h"
#include "search/ann.h"
#include "search/embed.h"
#include "search/engine.h"
#include "store/migrate.h"
#include "store/search_index.h"
#include "store/store.h"

/* xorshift + Box-Muller: the same data on every run. */
static uint64_t rng_state;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static float gauss(void)
{
    return (float)(sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform()));
}

#define DIM 32
#define CLUSTERS 40

/* n vectors of a Gaussian mixture (clusters in DIM dimensions). */
static float *mixture(size_t n, uint64_t seed)
{
    rng_state = seed;
    float *centers = malloc(CLUSTERS * DIM * sizeof *centers);
    float *v = malloc(n * DIM * sizeof *v);
    assert_non_null(centers);
    assert_non_null(v);
    for (size_t i = 0; i < CLUSTERS * DIM; i++)
        centers[i] = gauss();
    for (size_t r = 0; r < n; r++) {
        size_t c = (size_t)(uniform() * CLUSTERS) % CLUSTERS;
        for (int j = 0; j < DIM; j++)
            v[r * DIM + j] = centers[c * DIM + j] + 0.5f * gauss();
    }
    free(centers);
    return v;
}

/* --- core/hnsw ----------------------------------------------------------------- */

static void test_hnsw_recall(void **state)
{
    (void)state;
    const size_t n = 4000, nq = 50;
    float *base = mixture(n + nq, 7);
    hnsw *g = hnsw_new(DIM, NULL);
    vec_index *ix = vec_index_new(DIM);
    assert_non_null(g);
    assert_non_null(ix);
    for (size_t r = 0; r < n; r++) {
        assert_int_equal(hnsw_add(g, (int64_t)r + 1, base + r * DIM), 0);
        assert_int_equal(vec_index_add(ix, (int64_t)r + 1, base + r * DIM), 0);
    }
    assert_int_equal(hnsw_count(g), n);
    size_t found = 0;
    for (size_t q = 0; q < nq; q++) {
        const float *qv = base + (n + q) * DIM;
        vec_hit exact[10], approx[10];
        vec_query vq = {qv, 10, VEC_COSINE, 0, 0, NULL, NULL, NULL, 0};
        assert_int_equal(vec_index_search(ix, &vq, exact), 10);
        assert_int_equal(hnsw_search(g, qv, 10, 64, NULL, NULL, approx), 10);
        for (int i = 0; i < 10; i++) {
            if (i)
                assert_true(approx[i - 1].distance <= approx[i].distance);
            for (int j = 0; j < 10; j++)
                if (approx[i].id == exact[j].id) {
                    found++;
                    assert_float_equal(approx[i].distance, exact[j].distance, 1e-5);
                }
        }
    }
    double recall = (double)found / (double)(nq * 10);
    print_message("hnsw recall@10 at ef 64: %.3f\n", recall);
    assert_true(recall >= 0.95);
    hnsw_free(g);
    vec_index_free(ix);
    free(base);
}

static int keep_even(void *ctx, int64_t id)
{
    (void)ctx;
    return id % 2 == 0;
}

static void test_hnsw_remove_replace_filter(void **state)
{
    (void)state;
    const size_t n = 1500;
    float *base = mixture(n, 11);
    hnsw *g = hnsw_new(DIM, &(hnsw_params){8, 40, 3});
    assert_non_null(g);
    for (size_t r = 0; r < n; r++)
        assert_int_equal(hnsw_add(g, (int64_t)r, base + r * DIM), 0);
    /* Remove every third id: never returned again, even with k = all. */
    for (size_t r = 0; r < n; r += 3)
        assert_int_equal(hnsw_remove(g, (int64_t)r), 1);
    assert_int_equal(hnsw_remove(g, 0), 0); /* already gone */
    assert_int_equal(hnsw_count(g), n - 500);
    assert_false(hnsw_contains(g, 3));
    assert_true(hnsw_contains(g, 4));
    vec_hit *hits = malloc(n * sizeof *hits);
    for (size_t q = 0; q < 20; q++) {
        int got = hnsw_search(g, base + q * 7 * DIM, 100, 200, NULL, NULL, hits);
        assert_true(got > 0);
        for (int i = 0; i < got; i++)
            assert_int_not_equal(hits[i].id % 3, 0);
    }
    /* A removed row's own vector finds its neighbours, not itself. */
    assert_true(hnsw_search(g, base + 3 * DIM, 1, 64, NULL, NULL, hits) == 1);
    assert_int_not_equal(hits[0].id, 3);
    /* Replacing id 4's vector with row 100's: one node per id, the new one. */
    assert_int_equal(hnsw_add(g, 4, base + 100 * DIM), 0);
    assert_int_equal(hnsw_count(g), n - 500);
    int got = hnsw_search(g, base + 100 * DIM, 50, 200, NULL, NULL, hits);
    int fours = 0;
    for (int i = 0; i < got; i++)
        fours += hits[i].id == 4;
    assert_int_equal(fours, 1);
    assert_true(hits[0].id == 4 || hits[0].id == 100);
    assert_float_equal(hits[0].distance, 0.0, 1e-5);
    /* A filter: only even ids, and k of them. */
    got = hnsw_search(g, base + 50 * DIM, 20, 100, keep_even, NULL, hits);
    assert_int_equal(got, 20);
    for (int i = 0; i < got; i++)
        assert_int_equal(hits[i].id % 2, 0);
    free(hits);
    hnsw_free(g);
    free(base);
}

static void test_hnsw_bad_input(void **state)
{
    (void)state;
    assert_null(hnsw_new(0, NULL));
    assert_null(hnsw_new(4, &(hnsw_params){HNSW_MAX_M + 1, 0, 0}));
    hnsw *g = hnsw_new(4, NULL);
    float v[4] = {1, 0, 0, 0}, bad[4] = {NAN, 0, 0, 0}, zero[4] = {0};
    vec_hit out[2];
    assert_int_equal(hnsw_search(g, v, 1, 10, NULL, NULL, out), 0); /* empty */
    assert_int_equal(hnsw_add(g, 1, bad), DBMCP_EINVAL);
    assert_int_equal(hnsw_add(g, 1, v), 0);
    assert_int_equal(hnsw_add(g, 2, zero), 0); /* at distance 1 from everything */
    assert_int_equal(hnsw_search(g, bad, 1, 10, NULL, NULL, out), DBMCP_EINVAL);
    assert_int_equal(hnsw_search(g, v, 0, 10, NULL, NULL, out), DBMCP_EINVAL);
    assert_int_equal(hnsw_search(g, v, 2, 1, NULL, NULL, out), 2);
    assert_int_equal(out[0].id, 1);
    assert_float_equal(out[1].distance, 1.0, 1e-6);
    hnsw_free(g);
}

/* --- the engine with the graph --------------------------------------------------- */

#define ROWS 3000
#define MIN_VECTORS 1000
#define VEC_TABLE "ann_test_vectors"
#define VERSION_KEY "ann_test"

typedef struct temp_db {
    char dir[512];
    char path[600];
    store *db;
    embedder *emb;
} temp_db;

static void text_of(int i, char *out, size_t size)
{
    snprintf(out, size, "item w%d w%d w%d topic%d note%d", i % 97, i % 89, i % 83, i % 31, i % 7);
}

static int db_setup(void **state)
{
    temp_db *t = calloc(1, sizeof *t);
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/dbmcp-ann-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(t->dir))
        return -1;
    snprintf(t->path, sizeof t->path, "%s/test.db", t->dir);
    dbmcp_error err;
    if (store_open(t->path, STORE_READWRITE | STORE_CREATE, &t->db, &err) ||
        store_migrate(t->db, NULL, &err) || embedder_open(&(embedder_config){0}, &t->emb, &err) ||
        store_exec(t->db,
                   "CREATE TABLE " VEC_TABLE " (item_id INTEGER PRIMARY KEY, model TEXT, "
                   "dim INTEGER, vec BLOB)",
                   &err)) {
        print_error("setup: %s\n", err.message);
        return -1;
    }
    int dim = embedder_dim(t->emb);
    float *v = malloc((size_t)dim * sizeof *v);
    store_stmt *st;
    if (store_begin(t->db, &err) ||
        store_prepare(
            t->db, "INSERT INTO " VEC_TABLE " (item_id, model, dim, vec) VALUES (:i, :m, :d, :v)",
            &st, &err))
        return -1;
    for (int i = 1; i <= ROWS; i++) {
        char text[128];
        text_of(i, text, sizeof text);
        const char *texts[1] = {text};
        if (embedder_embed(t->emb, texts, 1, v, &err))
            return -1;
        store_reset(st);
        store_bind_int(st, ":i", i);
        store_bind_text(st, ":m", embedder_model(t->emb));
        store_bind_int(st, ":d", dim);
        store_bind_blob(st, ":v", v, (size_t)dim * sizeof *v);
        if (store_step(st, &err) != STORE_DONE)
            return -1;
    }
    store_finalize(st);
    free(v);
    if (search_index_bump(t->db, VERSION_KEY, &err) || store_commit(t->db, &err))
        return -1;
    *state = t;
    return 0;
}

static int db_teardown(void **state)
{
    temp_db *t = *state;
    search_cache_clear();
    embedder_free(t->emb);
    store_close(t->db);
    static const char *suffixes[] = {"", "-wal", "-shm", NULL};
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", t->path, suffixes[i]);
        unlink(file);
    }
    rmdir(t->dir);
    free(t);
    return 0;
}

typedef struct id_list {
    const int64_t *ids; /* ascending */
    size_t n;
} id_list;

static int in_list(void *ctx, int64_t id)
{
    const id_list *l = ctx;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->ids[lo] == id;
}

/* One vector search of query, k 10: ids into out, whether the graph answered. */
static int vsearch(temp_db *t, const char *query, long min_vectors, const id_list *scope,
                   int64_t *out, size_t *n)
{
    search_request req = {0};
    req.query = query;
    req.mode = SEARCH_VECTOR;
    req.k = 10;
    req.candidates = 10;
    req.emb = t->emb;
    req.ann_min_vectors = min_vectors;
    req.ann_ef = 200;
    if (scope) {
        req.filter = in_list;
        req.filter_ctx = (void *)scope;
        req.filter_ids = scope->ids;
        req.filter_count = scope->n;
    }
    search_result res;
    dbmcp_error err;
    int rc = search_run(t->db, &(search_corpus){NULL, VEC_TABLE, VERSION_KEY}, &req, &res, &err);
    if (rc)
        print_message("search: %s\n", err.message);
    assert_int_equal(rc, 0);
    *n = res.count;
    for (size_t i = 0; i < res.count; i++)
        out[i] = res.hits[i].id;
    int approximate = res.approximate;
    search_result_free(&res);
    return approximate;
}

/* Search until the graph answers (it is built in the background); a bound
 * against a hang, not a timing assertion. */
static void until_approximate(temp_db *t, const char *q, long min, const id_list *scope)
{
    int64_t ids[10];
    size_t n;
    for (int i = 0; i < 6000; i++) {
        if (vsearch(t, q, min, scope, ids, &n))
            return;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the graph never caught up");
}

static size_t overlap(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            k += a[i] == b[j];
    return k;
}

static void test_engine_ann(void **state)
{
    temp_db *t = *state;
    char q[128];
    int64_t exact[10], approx[10];
    size_t ne, na;
    /* Below the threshold: never the graph. */
    assert_false(vsearch(t, "item w5 topic3", ROWS + 1, NULL, exact, &ne));
    until_approximate(t, "item w5 topic3", MIN_VECTORS, NULL);
    size_t agree = 0, total = 0;
    for (int i = 0; i < 30; i++) {
        text_of(i * 37 + 5, q, sizeof q);
        assert_false(vsearch(t, q, -1, NULL, exact, &ne)); /* -1: exact */
        assert_true(vsearch(t, q, MIN_VECTORS, NULL, approx, &na));
        assert_int_equal(na, ne);
        agree += overlap(exact, ne, approx, na);
        total += ne;
    }
    print_message("engine: graph agrees with exact on %zu of %zu\n", agree, total);
    assert_true((double)agree >= 0.9 * (double)total);

    /* A scope of the odd ids (1500 >= the threshold): the graph, odd only. */
    int64_t *odd = malloc(ROWS / 2 * sizeof *odd);
    for (int i = 0; i < ROWS / 2; i++)
        odd[i] = 2 * i + 1;
    id_list scope = {odd, ROWS / 2};
    for (int i = 0; i < 10; i++) {
        text_of(i * 11 + 2, q, sizeof q);
        assert_true(vsearch(t, q, MIN_VECTORS, &scope, approx, &na));
        assert_int_equal(na, 10);
        for (size_t j = 0; j < na; j++)
            assert_int_equal(approx[j] % 2, 1);
    }
    /* A small scope (20 ids): exact over its own rows, never another's. */
    id_list small = {odd + 100, 20};
    assert_false(vsearch(t, "item w5 topic3", MIN_VECTORS, &small, approx, &na));
    assert_int_equal(na, 10);
    for (size_t j = 0; j < na; j++)
        assert_true(in_list(&small, approx[j]));
    free(odd);
}

static void test_engine_ann_deletes_and_restart(void **state)
{
    temp_db *t = *state;
    char q[128];
    int64_t ids[10], before[10];
    size_t n, nb;
    until_approximate(t, "item w5 topic3", MIN_VECTORS, NULL);
    /* Delete the rows 1..1000 (a third of the best answers): whether exact
     * (until the graph catches up) or from the graph, none comes back. */
    dbmcp_error err;
    assert_int_equal(store_begin(t->db, &err), 0);
    assert_int_equal(store_exec(t->db, "DELETE FROM " VEC_TABLE " WHERE item_id <= 1000", &err), 0);
    assert_int_equal(search_index_bump(t->db, VERSION_KEY, &err), 0);
    assert_int_equal(store_commit(t->db, &err), 0);
    int saw_exact = 0;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 20; i++) {
            text_of(i * 13 + 1, q, sizeof q);
            saw_exact |= !vsearch(t, q, MIN_VECTORS, NULL, ids, &n);
            assert_int_equal(n, 10);
            for (size_t j = 0; j < n; j++)
                assert_true(ids[j] > 1000);
        }
        until_approximate(t, "item w5 topic3", MIN_VECTORS, NULL);
    }
    (void)saw_exact; /* which side answered first depends on the sync thread */

    /* A restart: the cache is gone; the first search is exact and right,
     * the graph is rebuilt behind it and then answers the same. */
    text_of(42, q, sizeof q);
    vsearch(t, q, -1, NULL, before, &nb);
    search_cache_clear();
    int first = vsearch(t, q, MIN_VECTORS, NULL, ids, &n);
    if (!first) { /* exact: the same list */
        assert_int_equal(n, nb);
        assert_memory_equal(ids, before, n * sizeof *ids);
    }
    until_approximate(t, q, MIN_VECTORS, NULL);
    assert_true(vsearch(t, q, MIN_VECTORS, NULL, ids, &n));
    assert_true(overlap(ids, n, before, nb) >= 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hnsw_recall),
        cmocka_unit_test(test_hnsw_remove_replace_filter),
        cmocka_unit_test(test_hnsw_bad_input),
        cmocka_unit_test_setup_teardown(test_engine_ann, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_engine_ann_deletes_and_restart, db_setup, db_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
