/*
 * engine.c — hybrid search: keyword candidates (full-text matches ranked
 * by BM25 over the caller's scope, bm25.h), vector
 * candidates (a cached in-memory vec_index per database, table, model and
 * dimension), reciprocal-rank fusion. See engine.h.
 *
 * The vector cache: a process-wide list of entries, each holding the
 * current snapshot (index + the data version it was built at). A search
 * takes a reference to the snapshot under the cache mutex and searches it
 * without any lock; a stale snapshot is replaced by building a new index
 * under the build mutex (one builder at a time, so concurrent searches do
 * not all rebuild) and swapping it in; the replaced snapshot is freed by
 * whoever drops its last reference.
 */
#include "search/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vector.h"
#include "search/ann.h"
#include "search/bm25.h"
#include "search/fts_query.h"
#include "search/fuse.h"
#include "store/search_index.h"

/* --- the vector index cache -------------------------------------------------- */

typedef struct vec_snapshot {
    vec_index *ix;
    int64_t version; /* data version the index was built at */
    int refs;        /* the cache's reference + one per running search */
} vec_snapshot;

typedef struct cache_entry {
    char *key; /* db name \x1f table \x1f model \x1f dim \x1f int8 */
    vec_snapshot *cur;
    search_ann *ann; /* the approximate accelerator, once the index passed the threshold; owned */
    struct cache_entry *next;
} cache_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *cache_head;

/* Under cache_lock. */
static void snapshot_unref_locked(vec_snapshot *s)
{
    if (s && --s->refs == 0) {
        vec_index_free(s->ix);
        free(s);
    }
}

static void snapshot_release(vec_snapshot *s)
{
    pthread_mutex_lock(&cache_lock);
    snapshot_unref_locked(s);
    pthread_mutex_unlock(&cache_lock);
}

/* Under cache_lock: the entry for key, created when missing (NULL on OOM). */
static cache_entry *entry_find_locked(const char *key, int create)
{
    for (cache_entry *e = cache_head; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    if (!create)
        return NULL;
    cache_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->key = strdup(key))) {
        free(e);
        return NULL;
    }
    e->next = cache_head;
    cache_head = e;
    return e;
}

/* A current snapshot for key at version, with a reference for the caller,
 * and the entry's accelerator (with a reference) into *ann when it has one. */
static vec_snapshot *snapshot_take(const char *key, int64_t version, search_ann **ann)
{
    vec_snapshot *s = NULL;
    pthread_mutex_lock(&cache_lock);
    cache_entry *e = entry_find_locked(key, 0);
    if (e && e->cur && e->cur->version == version) {
        s = e->cur;
        s->refs++;
        if (e->ann) {
            search_ann_ref(e->ann);
            *ann = e->ann;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return s;
}

/* The accelerator lets go of a snapshot it held. */
static void snapshot_release_cb(void *owner)
{
    snapshot_release(owner);
}

typedef struct build_ctx {
    vec_index *ix;
    int rc;
} build_ctx;

static int build_add(void *ctx, int64_t id, const float *vec)
{
    build_ctx *b = ctx;
    int rc = vec_index_add(b->ix, id, vec);
    /* A stored vector holding NaN is skipped, not fatal to every search. */
    if (rc == DBMCP_ENOMEM) {
        b->rc = rc;
        return 1;
    }
    return 0;
}

static int snapshot_build(store *db, const char *table, const char *model, int dim, int int8,
                          int64_t version, vec_snapshot **out, dbmcp_error *err)
{
    *out = NULL;
    size_t rows = 0;
    int rc = search_index_vectors_count(db, table, model, dim, &rows, err);
    if (rc)
        return rc;
    build_ctx b = {vec_index_new(dim), 0};
    vec_snapshot *s = calloc(1, sizeof *s);
    if (!b.ix || !s || (rows && vec_index_reserve(b.ix, rows) != 0)) {
        vec_index_free(b.ix);
        free(s);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory building the vector index");
    }
    rc = search_index_vectors_each(db, table, model, dim, build_add, &b, err);
    if (rc == 1 || b.rc)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory building the vector index");
    if (!rc && int8 && vec_index_quantize(b.ix) != 0)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory quantizing the vector index");
    if (rc) {
        vec_index_free(b.ix);
        free(s);
        return rc;
    }
    s->ix = b.ix;
    s->version = version;
    s->refs = 1;
    *out = s;
    return 0;
}

/* Hand snapshot s to the entry's accelerator, made the first time the
 * index has at least min_vectors rows: a new snapshot always, a cached one
 * only when the accelerator is made here; a reference to the accelerator
 * comes back in *ann. */
static void snapshot_accelerate(const char *key, vec_snapshot *s, int dim, long min_vectors,
                                int is_new, search_ann **ann)
{
    int wanted = min_vectors >= 0 && vec_index_count(s->ix) >= (size_t)min_vectors;
    pthread_mutex_lock(&cache_lock);
    cache_entry *e = entry_find_locked(key, 0);
    if (e && e->cur != s)
        e = NULL; /* replaced meanwhile: the newer snapshot is synced by its builder */
    /* An accelerator, once made, follows every version (it is then used or
     * not by each request's threshold). */
    if (e && !e->ann && wanted) {
        e->ann = search_ann_new(dim);
        is_new = 1;
    }
    search_ann *a = e && is_new ? e->ann : NULL;
    if (a) {
        search_ann_ref(a); /* the caller's */
        s->refs++;         /* the accelerator's */
    }
    pthread_mutex_unlock(&cache_lock);
    if (a && search_ann_sync(a, s->ix, s->version, snapshot_release_cb, s) == 0)
        *ann = a;
    else if (a)
        search_ann_unref(a);
}

/* The snapshot of (db, table, model, dim) at the database's current data
 * version, built when missing or stale, and the accelerator of the entry
 * (NULL when it has none); the caller releases both. */
static int snapshot_acquire(store *db, const search_corpus *c, const char *model, int dim, int int8,
                            long min_vectors, vec_snapshot **out, search_ann **ann,
                            dbmcp_error *err)
{
    *out = NULL;
    *ann = NULL;
    int64_t version = 0;
    int rc = search_index_version(db, c->version_key, &version, err);
    if (rc)
        return rc;
    char key[1024];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%d\x1f%d", store_identity(db), c->vec_table, model,
             dim, int8 ? 1 : 0);
    if ((*out = snapshot_take(key, version, ann))) {
        if (!*ann) /* built below the threshold of an earlier request */
            snapshot_accelerate(key, *out, dim, min_vectors, 0, ann);
        return 0;
    }
    pthread_mutex_lock(&build_lock);
    /* Another thread may have built it while this one waited. */
    if ((*out = snapshot_take(key, version, ann))) {
        pthread_mutex_unlock(&build_lock);
        return 0;
    }
    vec_snapshot *s = NULL;
    rc = snapshot_build(db, c->vec_table, model, dim, int8, version, &s, err);
    if (!rc) {
        pthread_mutex_lock(&cache_lock);
        cache_entry *e = entry_find_locked(key, 1);
        if (e) {
            vec_snapshot *old = e->cur;
            e->cur = s;
            s->refs++; /* the cache's reference + the caller's */
            snapshot_unref_locked(old);
        }
        pthread_mutex_unlock(&cache_lock);
        /* Without an entry (out of memory) the caller still gets its index. */
        *out = s;
        snapshot_accelerate(key, s, dim, min_vectors, 1, ann);
    }
    pthread_mutex_unlock(&build_lock);
    return rc;
}

/* --- the scope statistics cache ----------------------------------------------- */

/* A scope's row count and total length, reused while the scope's version
 * (search_index_scope.version) stays the same: counting every chunk an
 * interface may read costs milliseconds per thousand documents, on every
 * search. Process-wide, a ring of entries: the oldest makes room. */
#define STATS_CACHE_SIZE 32

typedef struct stats_entry {
    char *key; /* database, scope and version (scope_key) */
    int64_t rows, length;
} stats_entry;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static stats_entry stats_cache[STATS_CACHE_SIZE];
static size_t stats_next; /* the entry replaced next */

/* The cache key of scope at version: every part with its length, so no
 * two scopes share a key whatever bytes their values hold. Caller frees. */
static char *scope_key(store *db, const search_index_scope *s, const char *version)
{
    const char *parts[4 + SEARCH_INDEX_SCOPE_PARAMS] = {store_identity(db), s->rows, s->condition,
                                                        version};
    for (size_t i = 0; i < SEARCH_INDEX_SCOPE_PARAMS; i++)
        parts[4 + i] = s->values[i] ? s->values[i] : "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        n += strlen(parts[i]) + 24;
    char *key = malloc(n + 1);
    size_t len = 0;
    for (size_t i = 0; key && i < sizeof parts / sizeof parts[0]; i++)
        len += (size_t)snprintf(key + len, n + 1 - len, "%zu:%s", strlen(parts[i]), parts[i]);
    return key;
}

/* The scope's row count and total length, from the cache when its version
 * has not moved since they were counted. The version is read first, so
 * figures counted after a concurrent write are never filed under the
 * version before it. */
static int scope_stats(store *db, const search_index_scope *s, int64_t *rows, int64_t *length,
                       dbmcp_error *err)
{
    char version[128];
    int rc = search_index_scope_version(db, s, version, sizeof version, err);
    if (rc || !version[0])
        return rc ? rc : search_index_scope_stats(db, s, rows, length, err);
    char *key = scope_key(db, s, version);
    if (!key)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int found = 0;
    pthread_mutex_lock(&stats_lock);
    for (size_t i = 0; i < STATS_CACHE_SIZE && !found; i++)
        if (stats_cache[i].key && strcmp(stats_cache[i].key, key) == 0) {
            *rows = stats_cache[i].rows;
            *length = stats_cache[i].length;
            found = 1;
        }
    pthread_mutex_unlock(&stats_lock);
    if (found || (rc = search_index_scope_stats(db, s, rows, length, err))) {
        free(key);
        return rc;
    }
    pthread_mutex_lock(&stats_lock);
    stats_entry *e = &stats_cache[stats_next];
    stats_next = (stats_next + 1) % STATS_CACHE_SIZE;
    free(e->key);
    *e = (stats_entry){key, *rows, *length};
    pthread_mutex_unlock(&stats_lock);
    return 0;
}

void search_cache_clear(void)
{
    pthread_mutex_lock(&cache_lock);
    cache_entry *e = cache_head;
    cache_head = NULL;
    pthread_mutex_unlock(&cache_lock);
    /* Accelerators first, outside the lock: stopping one joins its sync
     * thread, which releases snapshots under cache_lock. */
    for (cache_entry *x = e; x; x = x->next)
        search_ann_unref(x->ann);
    pthread_mutex_lock(&cache_lock);
    while (e) {
        cache_entry *next = e->next;
        snapshot_unref_locked(e->cur);
        free(e->key);
        free(e);
        e = next;
    }
    pthread_mutex_unlock(&cache_lock);
    pthread_mutex_lock(&stats_lock);
    for (size_t i = 0; i < STATS_CACHE_SIZE; i++) {
        free(stats_cache[i].key);
        stats_cache[i].key = NULL;
    }
    stats_next = 0;
    pthread_mutex_unlock(&stats_lock);
}

/* --- modes ------------------------------------------------------------------- */

int search_mode_parse(const char *s)
{
    if (!s || strcmp(s, "hybrid") == 0)
        return SEARCH_HYBRID;
    if (strcmp(s, "vector") == 0)
        return SEARCH_VECTOR;
    if (strcmp(s, "keyword") == 0)
        return SEARCH_KEYWORD;
    return -1;
}

double search_vector_weight_default(const char *kind)
{
    return kind && strcmp(kind, "http") == 0 ? SEARCH_WEIGHT_VECTOR_HTTP
                                             : SEARCH_WEIGHT_VECTOR_BUILTIN;
}

const char *search_mode_name(search_mode m)
{
    return m == SEARCH_VECTOR ? "vector" : m == SEARCH_KEYWORD ? "keyword" : "hybrid";
}

/* --- one side each ----------------------------------------------------------- */

typedef struct ranked {
    int64_t *ids;
    double *scores;   /* bm25 (keyword) or cosine distance (vector) */
    double *coverage; /* keyword side: coverage of each row (bm25.h) */
    size_t count;
} ranked;

static void ranked_free(ranked *r)
{
    free(r->ids);
    free(r->scores);
    free(r->coverage);
    memset(r, 0, sizeof *r);
}

static int ranked_alloc(ranked *r, size_t n)
{
    r->ids = malloc((n ? n : 1) * sizeof *r->ids);
    r->scores = malloc((n ? n : 1) * sizeof *r->scores);
    r->coverage = malloc((n ? n : 1) * sizeof *r->coverage);
    r->count = 0;
    return r->ids && r->scores && r->coverage ? 0 : DBMCP_ENOMEM;
}

/* The query text with the expansion terms appended as optional phrases
 * (their quotes dropped), as long as it stays within the fts_query limit. */
static char *query_with_expansions(const search_request *req)
{
    size_t cap = FTS_QUERY_MAX_BYTES + 1;
    char *q = malloc(cap);
    if (!q)
        return NULL;
    size_t len = strlen(req->query);
    if (len >= cap)
        len = cap - 1; /* fts_query reports the real length: use the original then */
    memcpy(q, req->query, len);
    q[len] = '\0';
    for (size_t i = 0; req->expansions && i < req->n_expansions; i++) {
        const char *x = req->expansions[i];
        size_t xl = x ? strlen(x) : 0;
        if (xl == 0 || len + xl + 3 >= cap)
            continue;
        q[len++] = ' ';
        q[len++] = '"';
        for (size_t j = 0; j < xl; j++)
            if (x[j] != '"')
                q[len++] = x[j];
        q[len++] = '"';
        q[len] = '\0';
    }
    return q;
}

/* The rows the keyword side read: each with its length and the phrases it
 * holds (a slice of hits), and per phrase how many of them hold it. */
typedef struct kw_row {
    int64_t id;
    int64_t length;
    size_t first, n; /* hits[first .. first + n) */
    int eligible;    /* passes the scope's eligible condition: may be ranked */
} kw_row;

typedef struct kw_scan {
    kw_row *rows;
    size_t n, cap;
    search_index_hit *hits;
    size_t n_hits, hits_cap;
    int64_t *holding; /* per phrase: rows read that hold it */
    int oom;
} kw_scan;

static int kw_scan_add(void *ctx, int64_t id, int64_t length, const search_index_hit *hits,
                       size_t n, int eligible)
{
    kw_scan *s = ctx;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        kw_row *g = realloc(s->rows, cap * sizeof *g);
        if (!g)
            return s->oom = 1;
        s->rows = g;
        s->cap = cap;
    }
    if (s->n_hits + n > s->hits_cap) {
        size_t cap = s->hits_cap ? s->hits_cap * 2 : 1024;
        while (cap < s->n_hits + n)
            cap *= 2;
        search_index_hit *g = realloc(s->hits, cap * sizeof *g);
        if (!g)
            return s->oom = 1;
        s->hits = g;
        s->hits_cap = cap;
    }
    memcpy(s->hits + s->n_hits, hits, n * sizeof *hits);
    s->rows[s->n++] = (kw_row){id, length, s->n_hits, n, eligible};
    s->n_hits += n;
    for (size_t i = 0; i < n; i++)
        s->holding[hits[i].phrase]++;
    return 0;
}

static void kw_scan_free(kw_scan *s)
{
    free(s->rows);
    free(s->hits);
    free(s->holding);
    memset(s, 0, sizeof *s);
}

/* The rows of the scope holding each phrase, into df. When every phrase
 * is optional the expression is their OR, so every row holding one was
 * read: the scan counted them, unless it stopped at its bound. Otherwise
 * (required or excluded phrases narrow the matches) each phrase is
 * counted by the store; a phrase written twice is counted once, an
 * excluded one never (no matching row holds it: it weighs nothing). */
static int phrase_rows(store *db, const search_corpus *c, const search_request *req,
                       const fts_match *m, const kw_scan *scan, int capped, int64_t *df,
                       dbmcp_error *err)
{
    int any_only = 1;
    for (size_t i = 0; i < m->count; i++)
        any_only &= m->kinds[i] == FTS_TERM_ANY;
    for (size_t i = 0; i < m->count; i++) {
        df[i] = 0;
        if (any_only && !capped) {
            df[i] = scan->holding[i];
            continue;
        }
        if (m->kinds[i] == FTS_TERM_EXCLUDED)
            continue;
        size_t same = 0;
        while (same < i && strcmp(m->phrases[same], m->phrases[i]) != 0)
            same++;
        if (same < i) {
            df[i] = df[same];
            continue;
        }
        int rc = search_index_phrase_rows(db, c->fts_table, req->scope, m->phrases[i], &df[i], err);
        if (rc)
            return rc;
    }
    return 0;
}

/* A keyword candidate before the cut to the list's length. */
typedef struct kw_ranked {
    int64_t id;
    double score, coverage;
} kw_ranked;

static int by_bm25(const void *pa, const void *pb)
{
    const kw_ranked *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score < b->score ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Score the rows read that pass the filter, best first, into out (at most
 * candidates). */
static int rank_rows(const search_request *req, const fts_match *m, const kw_scan *scan,
                     const bm25_stats *st, size_t candidates, ranked *out, dbmcp_error *err)
{
    kw_ranked *r = malloc((scan->n ? scan->n : 1) * sizeof *r);
    if (!r || ranked_alloc(out, candidates)) {
        free(r);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < scan->n; i++) {
        const kw_row *row = &scan->rows[i];
        if (!row->eligible || (req->filter && !req->filter(req->filter_ctx, row->id)))
            continue;
        const search_index_hit *h = scan->hits + row->first;
        r[n++] = (kw_ranked){row->id, bm25_score(st, h, row->n, row->length),
                             bm25_coverage(st, m->positive, h, row->n)};
    }
    qsort(r, n, sizeof *r, by_bm25);
    for (size_t i = 0; i < n && i < candidates; i++) {
        out->ids[i] = r[i].id;
        out->scores[i] = r[i].score;
        out->coverage[i] = r[i].coverage;
        out->count++;
    }
    free(r);
    return 0;
}

/* Read the rows of the scope matching m (at most max) into scan. */
static int scan_matches(store *db, const search_corpus *c, const search_request *req,
                        const fts_match *m, size_t max, kw_scan *scan, int *capped,
                        dbmcp_error *err)
{
    search_index_phrase_kind *kinds = malloc((m->count ? m->count : 1) * sizeof *kinds);
    if (!kinds)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->count; i++)
        kinds[i] = m->kinds[i] == FTS_TERM_REQUIRED   ? SEARCH_PHRASE_REQUIRED
                   : m->kinds[i] == FTS_TERM_EXCLUDED ? SEARCH_PHRASE_EXCLUDED
                                                      : SEARCH_PHRASE_OPTIONAL;
    search_index_query q = {m->expression, (const char *const *)m->phrases, kinds, m->count};
    int rc = search_index_matches(db, c->fts_table, req->scope, &q, max, kw_scan_add, scan, capped,
                                  req->cancelled, err);
    free(kinds);
    if (rc == 1 || scan->oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return rc;
}

/* Keyword candidates ranked by BM25 over the caller's scope alone: its
 * row count, mean length and phrase counts (store/search_index.h), never
 * those of rows the caller cannot read. */
static int keyword_side(store *db, const search_corpus *c, const search_request *req,
                        size_t candidates, ranked *out, search_result *res, dbmcp_error *err)
{
    if (!req->scope)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "keyword search without a scope");
    char *text = NULL;
    if (strlen(req->query) <= FTS_QUERY_MAX_BYTES && req->n_expansions)
        text = query_with_expansions(req);
    const char *q = text ? text : req->query;
    fts_match m;
    int rc = fts_match_build(q, strlen(q), req->fts_flags, &m, err);
    free(text);
    if (rc)
        return rc;
    int64_t rows = 0, length = 0;
    kw_scan scan = {0};
    int64_t *df = calloc(m.count ? m.count : 1, sizeof *df);
    double *idf = calloc(m.count ? m.count : 1, sizeof *idf);
    if (!(scan.holding = calloc(m.count ? m.count : 1, sizeof *scan.holding)) || !df || !idf)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = scope_stats(db, req->scope, &rows, &length, err);
    size_t max =
        req->keyword_rows_max > 0 ? (size_t)req->keyword_rows_max : SEARCH_KEYWORD_ROWS_DEFAULT;
    if (!rc && rows > 0)
        rc = scan_matches(db, c, req, &m, max, &scan, &res->keyword_capped, err);
    if (!rc && scan.n)
        rc = phrase_rows(db, c, req, &m, &scan, res->keyword_capped, df, err);
    if (!rc) {
        for (size_t i = 0; i < m.count; i++)
            idf[i] = bm25_idf(rows, df[i]);
        bm25_stats st = {rows, bm25_avgdl(rows, length), idf, m.count};
        rc = rank_rows(req, &m, &scan, &st, candidates, out, err);
    }
    kw_scan_free(&scan);
    free(df);
    free(idf);
    fts_match_free(&m);
    return rc;
}

/* The rows of ix holding the filter's ids (ascending), into *rows; NULL
 * when out of memory. */
static size_t *scope_rows(const vec_index *ix, const int64_t *ids, size_t n, size_t *count)
{
    size_t *rows = malloc((n ? n : 1) * sizeof *rows);
    *count = 0;
    for (size_t i = 0; rows && i < n; i++) {
        long r = vec_index_find(ix, ids[i]);
        if (r >= 0)
            rows[(*count)++] = (size_t)r;
    }
    return rows;
}

static int hit_order(const void *pa, const void *pb)
{
    const vec_hit *a = pa, *b = pb;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* The graph's candidates, kept only when the exact index of the same
 * version holds them, with the exact index's distance, re-sorted. */
static int ann_verify(const vec_index *ix, const float *q, vec_hit *hits, int n)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        long r = vec_index_find(ix, hits[i].id);
        if (r < 0)
            continue;
        hits[kept].id = hits[i].id;
        hits[kept].distance =
            vec_distance(q, vec_index_row(ix, (size_t)r), vec_index_dim(ix), VEC_COSINE);
        kept++;
    }
    qsort(hits, (size_t)kept, sizeof *hits, hit_order);
    return kept;
}

/* Top candidates of one snapshot: from the graph when it may answer
 * (engine.h), else exactly over the scope's rows or every row. */
static int vector_candidates(const search_request *req, const vec_snapshot *snap, search_ann *ann,
                             const float *qv, size_t candidates, vec_hit *hits, search_result *res)
{
    const vec_index *ix = snap->ix;
    size_t total = vec_index_count(ix);
    long min = req->ann_min_vectors ? req->ann_min_vectors : SEARCH_ANN_MIN_VECTORS_DEFAULT;
    size_t passing = req->filter_ids ? req->filter_count : total;
    if (ann && min >= 0 && total >= (size_t)min && passing >= (size_t)min) {
        int ef = req->ann_ef > 0 ? req->ann_ef : SEARCH_ANN_EF_DEFAULT;
        /* A filter keeping 1/f of the rows leaves about ef/f candidates
         * standing: widen by f, up to 8 (below 1/8 the scope is small). */
        size_t widen = passing ? total / passing : 1;
        ef *= widen < 1 ? 1 : widen > 8 ? 8 : (int)widen;
        int n = search_ann_search(ann, snap->version, qv, (int)candidates, ef, req->filter,
                                  req->filter_ctx, hits);
        if (n >= 0) {
            res->approximate = 1;
            return ann_verify(ix, qv, hits, n);
        }
        if (n != DBMCP_ENOTFOUND)
            return n;
    }
    vec_query vq = {qv,          (int)candidates, VEC_COSINE, req->int8, 0,
                    req->filter, req->filter_ctx, NULL,       0};
    size_t *rows = NULL;
    if (req->filter_ids && req->filter_count < total / 2) {
        if (!(rows = scope_rows(ix, req->filter_ids, req->filter_count, &vq.n_rows)))
            return DBMCP_ENOMEM;
        vq.rows = rows;
    }
    int n = total ? vec_index_search(ix, &vq, hits) : 0;
    free(rows);
    return n;
}

static int vector_side(store *db, const search_corpus *c, const search_request *req,
                       size_t candidates, ranked *out, search_result *res, dbmcp_error *err)
{
    if (!req->emb)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "vector search without an embedder");
    int rc = embedder_dim(req->emb) > 0 ? 0 : embedder_probe(req->emb, err);
    if (rc)
        return rc;
    int dim = embedder_dim(req->emb);
    const char *model = embedder_model(req->emb);
    snprintf(res->model, sizeof res->model, "%s", model);
    float *qv = malloc((size_t)dim * sizeof *qv);
    vec_hit *hits = malloc(candidates * sizeof *hits);
    if (!qv || !hits || ranked_alloc(out, candidates)) {
        free(qv);
        free(hits);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    const char *texts[1] = {req->vector_query ? req->vector_query : req->query};
    rc = embedder_embed(req->emb, texts, 1, qv, err);
    vec_snapshot *snap = NULL;
    search_ann *ann = NULL;
    long min = req->ann_min_vectors ? req->ann_min_vectors : SEARCH_ANN_MIN_VECTORS_DEFAULT;
    if (!rc)
        rc = snapshot_acquire(db, c, model, dim, req->int8, min, &snap, &ann, err);
    if (!rc) {
        res->vectors_total = vec_index_count(snap->ix);
        int n = vector_candidates(req, snap, ann, qv, candidates, hits, res);
        if (n < 0)
            rc = dbmcp_error_set_private(err, n, "the vector search failed",
                                         "vector search failed (%s)", dbmcp_code_name(n));
        for (int i = 0; i < n; i++) {
            out->ids[i] = hits[i].id;
            out->scores[i] = hits[i].distance;
        }
        out->count = n > 0 ? (size_t)n : 0;
        snapshot_release(snap);
        search_ann_unref(ann);
    }
    free(qv);
    free(hits);
    return rc;
}

/* --- fusion ------------------------------------------------------------------ */

/* How much of the question a fused hit answers, 0..1: the larger of its
 * keyword coverage and its cosine similarity, over the lists that ran. */
static double hit_relevance(const search_hit *h, int keyword, int vector)
{
    double r = 0;
    if (keyword && h->keyword_rank)
        r = h->coverage;
    if (vector && h->vector_rank && 1.0 - h->distance > r)
        r = 1.0 - h->distance;
    return r;
}

static int fuse_sides(const search_request *req, const ranked *kw, const ranked *vec,
                      search_result *out, dbmcp_error *err)
{
    fuse_list lists[2];
    int nl = 0, kw_list = -1, vec_list = -1;
    if (kw) {
        kw_list = nl;
        lists[nl++] = (fuse_list){kw->ids, kw->scores, kw->count,
                                  req->weight_keyword > 0 ? req->weight_keyword : 1};
    }
    if (vec) {
        vec_list = nl;
        lists[nl++] = (fuse_list){vec->ids, vec->scores, vec->count,
                                  req->weight_vector > 0 ? req->weight_vector : 1};
    }
    fuse_hit *fused = NULL;
    int n = fuse_rrf(lists, nl, req->rrf_k > 0 ? req->rrf_k : 60, &fused);
    if (n < 0)
        return dbmcp_error_set(err, n, "fusing the result lists failed");
    size_t cap = (size_t)n < (size_t)req->k ? (size_t)n : (size_t)req->k;
    out->hits = calloc(cap ? cap : 1, sizeof *out->hits);
    if (!out->hits) {
        free(fused);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    size_t keep = 0;
    for (int i = 0; i < n && keep < cap; i++) {
        search_hit h = {.id = fused[i].id, .score = fused[i].score};
        if (kw_list >= 0 && fused[i].rank[kw_list]) {
            h.keyword_rank = fused[i].rank[kw_list];
            h.bm25 = fused[i].raw[kw_list];
            h.coverage = kw->coverage[h.keyword_rank - 1];
        }
        if (vec_list >= 0 && fused[i].rank[vec_list]) {
            h.vector_rank = fused[i].rank[vec_list];
            h.distance = fused[i].raw[vec_list];
        }
        h.relevance = hit_relevance(&h, kw != NULL, vec != NULL);
        /* Below the floor: not shown, and the next hit above it moves up. */
        if (h.relevance < req->min_relevance) {
            out->below_floor++;
            continue;
        }
        out->hits[keep++] = h;
    }
    out->count = keep;
    free(fused);
    return 0;
}

int search_run(store *db, const search_corpus *corpus, const search_request *req,
               search_result *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!req->query)
        return dbmcp_error_set(err, DBMCP_EINVAL, "query is required");
    if (req->k < 1 || req->k > SEARCH_MAX_K)
        return dbmcp_error_set(err, DBMCP_EINVAL, "k must be between 1 and %d", SEARCH_MAX_K);
    int want_kw = req->mode != SEARCH_VECTOR && corpus->fts_table;
    int want_vec = req->mode != SEARCH_KEYWORD && corpus->vec_table;
    if (!want_kw && !want_vec)
        return dbmcp_error_set(err, DBMCP_EINVAL, "mode %s is not available for this corpus",
                               search_mode_name(req->mode));
    size_t candidates =
        req->candidates > 0 ? (size_t)req->candidates : (size_t)(req->k * 4 > 50 ? req->k * 4 : 50);
    if (candidates < (size_t)req->k)
        candidates = (size_t)req->k;
    if (candidates > SEARCH_MAX_CANDIDATES)
        candidates = SEARCH_MAX_CANDIDATES;
    ranked kw = {0}, vec = {0};
    int rc = 0;
    if (want_kw)
        rc = keyword_side(db, corpus, req, candidates, &kw, out, err);
    if (!rc && want_vec) {
        rc = vector_side(db, corpus, req, candidates, &vec, out, err);
        if (rc && req->vector_optional && want_kw) { /* degrade to the keyword side */
            out->vector_failed = 1;
            snprintf(out->vector_error, sizeof out->vector_error, "%.240s", err->message);
            out->model[0] = '\0';
            out->vectors_total = 0;
            ranked_free(&vec);
            want_vec = 0;
            rc = 0;
        }
    }
    if (!rc) {
        out->keyword_count = kw.count;
        out->vector_count = vec.count;
        rc = fuse_sides(req, want_kw ? &kw : NULL, want_vec ? &vec : NULL, out, err);
    }
    ranked_free(&kw);
    ranked_free(&vec);
    if (rc)
        search_result_free(out);
    return rc;
}

void search_result_free(search_result *r)
{
    free(r->hits);
    memset(r, 0, sizeof *r);
}
