/*
 * recall.c — hybrid recall over agent memory (contract in recall.h): the
 * scope pre-filter for the shared search engine, resolution of each
 * candidate item to the row it came from, filters, weighting and logging.
 */
#include "memory/recall.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "search/content_words.h"
#include "search/engine.h"
#include "store/memory_store.h"
#include "store/search_index.h"

static const search_corpus memory_corpus = {"dbmcp_mem_fts", "dbmcp_mem_vectors",
                                            MSTORE_VERSION_KEY};

int mem_tier_parse(const char *s)
{
    static const struct {
        const char *name;
        int bit;
    } names[] = {
        {"message", MEM_TIER_MESSAGE},     {"messages", MEM_TIER_MESSAGE},
        {"working", MEM_TIER_MESSAGE},     {"episode", MEM_TIER_EPISODE},
        {"episodes", MEM_TIER_EPISODE},    {"episodic", MEM_TIER_EPISODE},
        {"knowledge", MEM_TIER_KNOWLEDGE}, {"semantic", MEM_TIER_KNOWLEDGE},
    };
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].bit;
    return 0;
}

/* --- the shared embedder --------------------------------------------------------- */

static pthread_mutex_t emb_lock = PTHREAD_MUTEX_INITIALIZER;
static embedder *shared_emb;

embedder *mem_embedder(store *db, dbmcp_error *err)
{
    pthread_mutex_lock(&emb_lock);
    if (!shared_emb && embedder_open_from_settings(db, &shared_emb, err) != 0)
        shared_emb = NULL;
    embedder *e = shared_emb;
    pthread_mutex_unlock(&emb_lock);
    return e;
}

void mem_embedder_reset(void)
{
    pthread_mutex_lock(&emb_lock);
    embedder_free(shared_emb);
    shared_emb = NULL;
    pthread_mutex_unlock(&emb_lock);
}

/* --- scope pre-filter --------------------------------------------------------------- */

typedef struct id_set {
    int64_t *ids; /* ascending */
    size_t n;
} id_set;

static int in_scope(void *ctx, int64_t id)
{
    const id_set *s = ctx;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->ids[lo] == id;
}

/* --- the scope's ids, cached per data version ------------------------------------------- *
 *
 * The vector side filters the shared index by the scope's item ids. Reading
 * them is a query over the whole scope (100 ms and more at 100k items), so
 * the ids of an unfiltered request are kept per database, scope, tiers and
 * memory data version (MSTORE_VERSION_KEY: bumped whenever vectors are
 * published or items dropped). The version is read before the ids, so ids
 * are never filed under a version older than they are. An item saved after
 * the ids were read has no vector in a snapshot of that version either;
 * every hit is resolved again within the scope (collect). A small ring,
 * the oldest entry makes room; entries are shared by reference. */
#define SCOPE_IDS_CACHE_SIZE 8

typedef struct scope_ids_entry {
    char *key;   /* database, user, agent, tiers, version */
    id_set *set; /* shared; freed by the last reference */
    int *refs;   /* references to set: the cache's and each search's */
} scope_ids_entry;

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static scope_ids_entry ids_cache[SCOPE_IDS_CACHE_SIZE];
static size_t ids_next;

/* Under ids_lock. */
static void ids_unref_locked(id_set *set, int *refs)
{
    if (set && --*refs == 0) {
        free(set->ids);
        free(set);
        free(refs);
    }
}

static void ids_release(id_set *set, int *refs)
{
    pthread_mutex_lock(&ids_lock);
    ids_unref_locked(set, refs);
    pthread_mutex_unlock(&ids_lock);
}

/* The scope's ids for tiers (no attribute filter) into *set with a
 * reference in *refs for the caller (ids_release), from the cache when the
 * data version has not moved. */
static int scope_ids_cached(store *db, const mem_scope *scope, int tiers, id_set **set, int **refs,
                            dbmcp_error *err)
{
    *set = NULL;
    *refs = NULL;
    int64_t version = 0;
    int rc = search_index_version(db, MSTORE_VERSION_KEY, &version, err);
    if (rc)
        return rc;
    char *key = NULL;
    if (asprintf(&key, "%s\x1f%s\x1f%s\x1f%d\x1f%lld", store_identity(db), scope->user_id,
                 scope->agent_id, tiers, (long long)version) < 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    pthread_mutex_lock(&ids_lock);
    for (size_t i = 0; i < SCOPE_IDS_CACHE_SIZE && !*set; i++)
        if (ids_cache[i].key && strcmp(ids_cache[i].key, key) == 0) {
            *set = ids_cache[i].set;
            *refs = ids_cache[i].refs;
            ++**refs;
        }
    pthread_mutex_unlock(&ids_lock);
    if (*set) {
        free(key);
        return 0;
    }
    id_set *s = calloc(1, sizeof *s);
    int *r = malloc(sizeof *r);
    if (!s || !r) {
        free(s);
        free(r);
        free(key);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    rc = mstore_scope_item_ids_filtered(db, scope->user_id, scope->agent_id, tiers, NULL, &s->ids,
                                        &s->n, err);
    if (rc) {
        free(s);
        free(r);
        free(key);
        return rc;
    }
    *r = 2; /* the cache's and the caller's */
    pthread_mutex_lock(&ids_lock);
    scope_ids_entry *e = &ids_cache[ids_next];
    ids_next = (ids_next + 1) % SCOPE_IDS_CACHE_SIZE;
    free(e->key);
    ids_unref_locked(e->set, e->refs);
    *e = (scope_ids_entry){key, s, r};
    pthread_mutex_unlock(&ids_lock);
    *set = s;
    *refs = r;
    return 0;
}

void mem_scope_ids_cache_clear(void)
{
    pthread_mutex_lock(&ids_lock);
    for (size_t i = 0; i < SCOPE_IDS_CACHE_SIZE; i++) {
        free(ids_cache[i].key);
        ids_unref_locked(ids_cache[i].set, ids_cache[i].refs);
        memset(&ids_cache[i], 0, sizeof ids_cache[i]);
    }
    ids_next = 0;
    pthread_mutex_unlock(&ids_lock);
}

/* --- resolving a candidate -------------------------------------------------------------- */

static char *dup_col(store_stmt *row, int i)
{
    const char *s = store_column_text(row, i);
    return s ? strdup(s) : NULL;
}

static int read_detail(void *ctx, store_stmt *row)
{
    mem_hit *h = ctx;
    snprintf(h->tier, sizeof h->tier, "%s", store_column_text(row, 0));
    h->text = dup_col(row, 1);
    h->uses = store_column_int(row, 4); /* explicit uses; repeats of boilerplate are no signal */
    h->ref_id = dup_col(row, 5);
    h->session_id = dup_col(row, 6);
    h->role = dup_col(row, 7);
    h->status = dup_col(row, 8);
    h->category = dup_col(row, 9);
    h->key = dup_col(row, 10);
    h->effective_from = dup_col(row, 11);
    h->effective_to = dup_col(row, 12);
    h->time = dup_col(row, 13);
    h->metadata = dup_col(row, 14);
    h->tool_name = dup_col(row, 15);
    h->age_s = store_column_double(row, 16);
    h->embedded = (int)store_column_int(row, 17);
    h->task_type = dup_col(row, 18);
    return 0;
}

static void hit_clear(mem_hit *h)
{
    free(h->ref_id);
    free(h->text);
    free(h->time);
    free(h->session_id);
    free(h->role);
    free(h->tool_name);
    free(h->status);
    free(h->task_type);
    free(h->category);
    free(h->key);
    free(h->effective_from);
    free(h->effective_to);
    free(h->metadata);
    memset(h, 0, sizeof *h);
}

static int eq_or_null(const char *want, const char *have)
{
    return !want || (have && strcmp(want, have) == 0);
}

/* Every top-level key of want equals the hit's metadata value. */
static int metadata_matches(const json_t *want, const char *have_text)
{
    if (!want || json_object_size(want) == 0)
        return 1;
    json_t *have = json_parse_text(have_text);
    int ok = json_is_object(have);
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)want, k, v) {
        if (!ok)
            break;
        ok = json_equal(json_object_get(have, k), v);
    }
    json_decref(have);
    return ok;
}

static int passes(const mem_search_req *req, const mem_hit *h)
{
    int is_msg = strcmp(h->tier, "message") == 0, is_ep = strcmp(h->tier, "episode") == 0;
    if (req->role && (!is_msg || !eq_or_null(req->role, h->role)))
        return 0;
    if (req->status && (!is_ep || !eq_or_null(req->status, h->status)))
        return 0;
    if (req->task_type && (!is_ep || !eq_or_null(req->task_type, h->task_type)))
        return 0;
    if (req->category &&
        (strcmp(h->tier, "knowledge") != 0 || !eq_or_null(req->category, h->category)))
        return 0;
    if (req->session_id && !eq_or_null(req->session_id, h->session_id))
        return 0;
    return metadata_matches(req->metadata, h->metadata);
}

static int by_final_desc(const void *pa, const void *pb)
{
    const mem_hit *a = pa, *b = pb;
    if (a->score.final != b->score.final)
        return a->score.final > b->score.final ? -1 : 1;
    return a->item_id < b->item_id ? -1 : a->item_id > b->item_id;
}

/* The candidate-stage filter of req into *f (nonzero when req has any).
 * Metadata keys with '"', '\\' or control characters and object or array
 * values are left to the exact filter (passes). f->metadata is a new
 * string or NULL. */
static int item_filter(const mem_search_req *req, mstore_item_filter *f)
{
    memset(f, 0, sizeof *f);
    f->role = req->role;
    f->status = req->status;
    f->task_type = req->task_type;
    f->category = req->category;
    f->session_id = req->session_id;
    json_t *meta = json_object();
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)req->metadata, key, v) {
        int plain = !json_is_object(v) && !json_is_array(v);
        for (const char *c = key; *c && plain; c++)
            plain = (unsigned char)*c >= 0x20 && *c != '"' && *c != '\\';
        if (plain && meta)
            json_object_set(meta, key, v);
    }
    if (meta && json_object_size(meta))
        f->metadata = json_dumps(meta, JSON_COMPACT);
    json_decref(meta);
    return req->role || req->status || req->task_type || req->category || req->session_id ||
           f->metadata;
}

/* Keyword, vector or both fused by the engine, into res. The vector side
 * embeds the query without function words (content_words.h), like the
 * items; the keyword side gets the query as written, where BM25 already
 * discounts common words. Hybrid: each side reads SEARCH_MAX_K candidates,
 * fused with memory.vector_weight and memory.rrf_k; a vector side that
 * fails (embedding service down) degrades to keywords with a note. */
/* The vector list's weight for emb into out->weight_vector; a hybrid
 * search whose vector list would weigh nothing becomes keyword-only
 * (the query is then not embedded), with a note. */
static void vector_weight(const mem_config *cfg, embedder *emb, search_mode *mode,
                          mem_hit_list *out)
{
    int http = emb && strcmp(embedder_kind(emb), "http") == 0;
    double weight = http ? cfg->vector_weight_http : cfg->vector_weight_builtin;
    out->weight_vector = weight;
    if (*mode == SEARCH_HYBRID && weight <= 0) {
        *mode = SEARCH_KEYWORD;
        snprintf(out->note, sizeof out->note,
                 "vector side off: weight 0 for the %s embedder "
                 "(setting memory.vector_weight.%s)",
                 http ? "http" : "builtin", http ? "http" : "builtin");
    }
}

static int run_search(const search_index_scope *readable, store *db, const mem_config *cfg,
                      const mem_search_req *req, search_mode *mode, embedder *emb,
                      id_set *scope_ids, int k, search_result *res, mem_hit_list *out,
                      dbmcp_error *err)
{
    char *note = out->note;
    size_t note_size = sizeof out->note;
    double weight = out->weight_vector;
    char *content = NULL;
    if (*mode != SEARCH_KEYWORD && !(content = content_query(req->query)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    /* BM25's statistics come from every item of the caller's scope (all
     * tiers), whatever the request's filters; the filters only pick which
     * items are ranked: the scope's eligible condition on the keyword
     * side, the item ids (scope_ids) on the vector side, whose index holds
     * every scope's vectors. */
    search_request sr = {0};
    sr.scope = readable;
    sr.keyword_rows_max = (int)cfg->keyword_rows_max;
    sr.query = *mode == SEARCH_VECTOR ? content : req->query;
    sr.vector_query = content;
    sr.mode = *mode;
    sr.k = k;
    sr.candidates = k;
    sr.filter = scope_ids ? in_scope : NULL;
    sr.filter_ctx = scope_ids;
    if (scope_ids) {                    /* read only when the vector side runs */
        sr.filter_ids = scope_ids->ids; /* ascending */
        sr.filter_count = scope_ids->n;
    }
    sr.emb = emb;
    /* 0 is the engine's "default": the setting's -1 (never) and any
     * positive threshold pass through as they are. */
    sr.ann_min_vectors = cfg->ann_min_vectors ? cfg->ann_min_vectors : 1;
    sr.ann_ef = (int)cfg->ann_ef;
    sr.min_relevance = out->min_relevance;
    if (*mode == SEARCH_HYBRID) {
        sr.candidates = SEARCH_MAX_K;
        sr.weight_keyword = 1.0;
        sr.weight_vector = weight;
        sr.rrf_k = cfg->rrf_k;
        sr.vector_optional = 1;
    }
    int rc = search_run(db, &memory_corpus, &sr, res, err);
    free(content);
    out->below_floor = rc == 0 ? res->below_floor : 0;
    if (rc == 0 && res->vector_failed) {
        log_msg(LOG_WARN, "memory", "vector side failed (%s); keyword only", res->vector_error);
        snprintf(note, note_size, "vector search failed: keyword only");
        *mode = SEARCH_KEYWORD;
    }
    return rc;
}

typedef struct collect_ctx {
    const mem_search_req *req;
    const mem_config *cfg;
    const search_result *res;
    mem_hit_list *out;
} collect_ctx;

static int collect_one(void *ctx, size_t i, store_stmt *row);

/* Resolve, filter and weight the engine's hits into out; `model` (may be
 * NULL) is the embedder's, for each hit's `embedded`. */
static int collect(store *db, const mem_scope *scope, const mem_config *cfg,
                   const mem_search_req *req, const search_result *res, const char *model,
                   mem_hit_list *out, dbmcp_error *err)
{
    out->items = calloc(res->count ? res->count : 1, sizeof *out->items);
    if (!out->items)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (res->count == 0)
        return 0;
    mstore_detail_filter f = {model, req->as_of, req->from, req->to};
    int64_t *ids = malloc((res->count ? res->count : 1) * sizeof *ids);
    if (!ids)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; i < res->count; i++)
        ids[i] = res->hits[i].id;
    collect_ctx cc = {req, cfg, res, out};
    int rc = mstore_item_details(db, scope->user_id, scope->agent_id, ids, res->count, &f,
                                 collect_one, &cc, err);
    free(ids);
    if (rc)
        return rc;
    qsort(out->items, out->count, sizeof *out->items, by_final_desc);
    return 0;
}

/* One resolved candidate i of the engine's hits: filtered and weighted
 * into the next slot of out. */
static int collect_one(void *ctx, size_t i, store_stmt *row)
{
    collect_ctx *cc = ctx;
    const mem_search_req *req = cc->req;
    const mem_config *cfg = cc->cfg;
    mem_hit_list *out = cc->out;
    const search_hit *sh = &cc->res->hits[i];
    mem_hit *h = &out->items[out->count];
    mem_rank_params p = {cfg->half_life_s, cfg->recency_weight, cfg->frequency_weight};
    read_detail(h, row);
    {
        if (!passes(req, h)) {
            hit_clear(h);
            return 0;
        }
        h->item_id = sh->id;
        h->keyword_rank = sh->keyword_rank;
        h->bm25 = sh->bm25;
        h->vector_rank = sh->vector_rank;
        h->cosine = sh->vector_rank ? 1.0 - sh->distance : 0;
        h->coverage = sh->coverage;
        h->relevance = sh->relevance;
        if (req->no_weights) {
            h->score = (mem_rank_parts){sh->score, 1, 1, 1, sh->score};
        } else {
            const char *status = strcmp(h->tier, "episode") == 0 ? h->status : NULL;
            mem_rank_score(sh->score, status, h->age_s, h->uses, &p, &h->score);
        }
        out->count++;
    }
    return 0;
}

int mem_search(store *db, const mem_scope *scope, const mem_config *cfg, const mem_search_req *req,
               mem_hit_list *out, dbmcp_error *err)
{
    double t0 = ids_monotonic_ms();
    memset(out, 0, sizeof *out);
    int mode = req->mode ? search_mode_parse(req->mode) : SEARCH_HYBRID;
    if (mode < 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "mode: must be one of hybrid, keyword, vector (got '%.32s')",
                               req->mode);
    if (req->metadata && json_object_size(req->metadata) > 8)
        return dbmcp_error_set(err, DBMCP_EINVAL, "metadata: at most 8 keys to filter by");
    int k = req->k > 0 ? req->k : 10;
    if (k > cfg->max_results)
        k = (int)cfg->max_results;
    embedder *emb = NULL;
    if (mode != SEARCH_KEYWORD) {
        dbmcp_error eerr;
        emb = mem_embedder(db, &eerr);
        if (!emb) {
            if (mode == SEARCH_VECTOR)
                return dbmcp_error_set_private(err, DBMCP_EINVAL,
                                               "mode: vector search is not available (no embedder)",
                                               "embedder: %s", eerr.message);
            mode = SEARCH_KEYWORD;
            snprintf(out->note, sizeof out->note, "no embedder configured: keyword only");
        }
    }
    search_mode smode = (search_mode)mode;
    if (emb)
        vector_weight(cfg, emb, &smode, out);
    /* Which items may be ranked: the keyword side tests each match in SQL
     * (the scope's eligible condition); only the vector side, whose index
     * holds every scope's vectors, needs the scope's item ids. */
    id_set scope_ids = {NULL, 0}, *shared_ids = NULL;
    int *shared_refs = NULL;
    mstore_item_filter f;
    int filtered = item_filter(req, &f);
    int tiers = req->tiers ? req->tiers : MEM_TIER_ALL;
    search_index_scope readable;
    char eligible[4096];
    int rc = mstore_search_scope_filtered(db, scope->user_id, scope->agent_id, tiers,
                                          filtered ? &f : NULL, eligible, sizeof eligible,
                                          &readable, err);
    if (!rc && smode != SEARCH_KEYWORD && filtered)
        rc = mstore_scope_item_ids_filtered(db, scope->user_id, scope->agent_id, tiers, &f,
                                            &scope_ids.ids, &scope_ids.n, err);
    else if (!rc && smode != SEARCH_KEYWORD &&
             !(rc = scope_ids_cached(db, scope, tiers, &shared_ids, &shared_refs, err)))
        scope_ids = *shared_ids; /* borrowed: released below, not freed */
    int ek = k * 4 < 40 ? 40 : k * 4;
    if (ek > SEARCH_MAX_K)
        ek = SEARCH_MAX_K;
    search_result res = {0};
    out->min_relevance = req->min_relevance >= 0 ? req->min_relevance : cfg->min_relevance;
    if (!rc && (smode == SEARCH_KEYWORD || scope_ids.n))
        rc = run_search(&readable, db, cfg, req, &smode, emb,
                        smode == SEARCH_KEYWORD ? NULL : &scope_ids, ek, &res, out, err);
    free((char *)f.metadata);
    mode = (int)smode;
    if (shared_ids)
        ids_release(shared_ids, shared_refs);
    else
        free(scope_ids.ids);
    if (rc) {
        if (rc == DBMCP_EINVAL || rc == DBMCP_ETOOBIG)
            dbmcp_error_prefix(err, "query");
        return rc;
    }
    snprintf(out->mode, sizeof out->mode, "%s", search_mode_name((search_mode)mode));
    snprintf(out->model, sizeof out->model, "%s", res.model);
    out->keyword_candidates = res.keyword_count;
    out->vector_candidates = res.vector_count;
    out->vectors_total = res.vectors_total;
    out->keyword_capped = res.keyword_capped;
    out->approximate = res.approximate;
    /* With the vector side off the items still say whether they have a vector. */
    const char *model = res.model[0] ? res.model : emb ? embedder_model(emb) : NULL;
    rc = collect(db, scope, cfg, req, &res, model, out, err);
    search_result_free(&res);
    if (rc) {
        mem_hit_list_free(out);
        return rc;
    }
    if (out->count > (size_t)k) {
        for (size_t i = (size_t)k; i < out->count; i++)
            hit_clear(&out->items[i]);
        out->count = (size_t)k;
    }
    mem_log(db, scope, "search", req->query, (int64_t)out->count, ids_monotonic_ms() - t0);
    return 0;
}

void mem_hit_list_free(mem_hit_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        hit_clear(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

json_t *mem_hit_json(const mem_hit *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "tier", json_string(h->tier));
    set_str(o, "id", h->ref_id);
    set_str(o, "text", h->text);
    set_str(o, "time", h->time);
    set_str(o, "session_id", h->session_id);
    set_str(o, "role", h->role);
    set_str(o, "tool_name", h->tool_name);
    set_str(o, "status", h->status);
    set_str(o, "task_type", h->task_type);
    set_str(o, "category", h->category);
    set_str(o, "key", h->key);
    set_str(o, "effective_from", h->effective_from);
    set_str(o, "effective_to", h->effective_to);
    json_t *meta = json_parse_text(h->metadata);
    if (meta)
        json_object_set_new(o, "metadata", meta);
    json_t *s = json_object();
    json_object_set_new(s, "final", json_real(h->score.final));
    json_object_set_new(s, "rrf", json_real(h->score.rrf));
    json_object_set_new(s, "relevance", json_real(h->relevance));
    json_object_set_new(s, "keyword_rank", json_integer(h->keyword_rank));
    if (h->keyword_rank) {
        json_object_set_new(s, "bm25", json_real(h->bm25));
        json_object_set_new(s, "coverage", json_real(h->coverage));
    }
    json_object_set_new(s, "vector_rank", json_integer(h->vector_rank));
    if (h->vector_rank)
        json_object_set_new(s, "cosine", json_real(h->cosine));
    json_object_set_new(s, "status_weight", json_real(h->score.status));
    json_object_set_new(s, "recency_weight", json_real(h->score.recency));
    json_object_set_new(s, "frequency_weight", json_real(h->score.frequency));
    json_object_set_new(s, "age_s", json_real(h->age_s));
    json_object_set_new(s, "uses", json_integer(h->uses));
    json_object_set_new(o, "scores", s);
    json_object_set_new(o, "embedded", json_boolean(h->embedded));
    return o;
}
