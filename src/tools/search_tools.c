/*
 * search_tools.c — search_documents and the chunk resource reader. See
 * search_tools.h; the ranking itself is search/engine.h.
 *
 * Output: a numbered list, one passage per hit (header line with URI,
 * title › heading, byte offsets and the component scores; then the
 * passage as one escaped line, cut to search.snippet_chars characters by
 * render_cell, so no passage can fake list structure), then a metadata
 * line. The whole text is capped at query.byte_cap like every query
 * result: whole hits are dropped from the end and the metadata line says
 * so. structuredContent holds the same hits with unescaped snippet text.
 */
#include "tools/search_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "search/ann.h"
#include "search/engine.h"
#include "search/fts_query.h"
#include "store/documents.h"
#include "thesaurus/thesaurus.h"
#include "tools/builtins.h"
#include "tools/render.h"

#define SEARCH_K_DEFAULT 8
#define SEARCH_K_MAX 50
#define SEARCH_EXPANSIONS_MAX 32
#define SNIPPET_CHARS_DEFAULT 400
#define BYTE_CAP_DEFAULT 262144
/* The relevance floor when neither the argument nor search.min_relevance
 * sets one: on the tuning halves of bench/retrieval (XQuAD en/de/zh,
 * JSQuAD) the largest floor in steps of 0.05 that cost at most 0.015 of
 * keyword recall@10 on every set. */
#define SEARCH_MIN_RELEVANCE_DEFAULT 0.1

/* --- the set of chunk ids a caller may see --------------------------------------- */

typedef struct id_set {
    int64_t *ids;
    size_t n, cap;
    int oom;
} id_set;

static void id_set_add(void *ctx, int64_t id)
{
    id_set *s = ctx;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        int64_t *p = realloc(s->ids, cap * sizeof *p);
        if (!p) {
            s->oom = 1;
            return;
        }
        s->ids = p;
        s->cap = cap;
    }
    s->ids[s->n++] = id;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int id_set_has(void *ctx, int64_t id)
{
    const id_set *s = ctx;
    return bsearch(&id, s->ids, s->n, sizeof id, cmp_id) != NULL;
}

/* --- arguments ------------------------------------------------------------------- */

typedef struct search_args {
    const char *query;
    doc_filter filter;
    doc_meta_filter meta[8];
    int k;
    search_mode mode;
    int expand;
    double min_relevance; /* the argument, or -1 when absent (the setting applies) */
} search_args;

static int parse_args(tool_env *env, const json_t *args, search_args *a, dbmcp_error *err)
{
    memset(a, 0, sizeof *a);
    a->query = json_get_str(args, "query");
    if (!a->query || !*a->query)
        return dbmcp_error_set(err, DBMCP_EINVAL, "query: required, a non-empty string");
    a->filter.iface = env->interface;
    const json_t *f = json_object_get(args, "filters");
    a->filter.collection = json_get_str(f, "collection");
    a->filter.language = json_get_str(f, "language");
    const json_t *meta = json_object_get(f, "metadata");
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)meta, key, v) {
        if (a->filter.n_meta == sizeof a->meta / sizeof a->meta[0])
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "filters.metadata: at most 8 key/value pairs");
        if (!json_is_string(v))
            return dbmcp_error_set(err, DBMCP_EINVAL, "filters.metadata.%s: must be a string", key);
        a->meta[a->filter.n_meta++] = (doc_meta_filter){key, json_string_value(v)};
    }
    a->filter.meta = a->meta;
    const json_t *k = json_object_get(args, "k");
    a->k = k ? (int)json_integer_value(k) : SEARCH_K_DEFAULT;
    if (a->k < 1 || a->k > SEARCH_K_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "k: must be an integer from 1 to %d",
                               SEARCH_K_MAX);
    int mode = search_mode_parse(json_get_str(args, "mode"));
    if (mode < 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "mode: must be hybrid, vector or keyword");
    a->mode = (search_mode)mode;
    a->expand = json_is_true(json_object_get(args, "expand"));
    const json_t *floor = json_object_get(args, "min_relevance");
    a->min_relevance = floor ? json_number_value(floor) : -1;
    if (floor && !(a->min_relevance >= 0 && a->min_relevance <= 1))
        return dbmcp_error_set(err, DBMCP_EINVAL, "min_relevance: must be a number from 0 to 1");
    return 0;
}

static double setting_double(tool_env *env, const char *key, double def)
{
    char buf[64];
    if (!env->setting_str || !env->setting_str(env, key, buf, sizeof buf))
        return def;
    char *end = NULL;
    double v = strtod(buf, &end);
    return end != buf && *end == '\0' && v >= 0 && v < 1e6 ? v : def;
}

static int setting_on(tool_env *env, const char *key)
{
    char buf[16];
    if (!env->setting_str || !env->setting_str(env, key, buf, sizeof buf))
        return 0;
    return strcmp(buf, "on") == 0 || strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0;
}

/* --- thesaurus expansion ------------------------------------------------------------ */

/* Synonyms and narrower terms of every searched term of the query (excluded
 * terms are not expanded), deduplicated, at most SEARCH_EXPANSIONS_MAX. */
static int expand_query(store *db, const char *query, thesaurus_strings *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    fts_query q;
    int rc = fts_query_parse(query, strlen(query), 0, &q, err);
    if (rc)
        return rc;
    out->items = calloc(SEARCH_EXPANSIONS_MAX, sizeof *out->items);
    if (!out->items) {
        fts_query_free(&q);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; !rc && i < q.count; i++) {
        if (q.terms[i].kind == FTS_TERM_EXCLUDED)
            continue;
        thesaurus_strings t = {0};
        rc = thesaurus_expand(db, q.terms[i].text, NULL, &t, err);
        for (size_t j = 0; !rc && j < t.count && out->count < SEARCH_EXPANSIONS_MAX; j++) {
            int dup = 0;
            for (size_t m = 0; m < out->count && !dup; m++)
                dup = strcmp(out->items[m], t.items[j]) == 0;
            if (!dup && (out->items[out->count] = strdup(t.items[j])))
                out->count++;
        }
        thesaurus_strings_free(&t);
    }
    fts_query_free(&q);
    if (rc)
        thesaurus_strings_free(out);
    return rc;
}

/* --- rendering -------------------------------------------------------------------- */

typedef struct hit_ctx {
    const search_hit *hit;
    int rank;
    size_t snippet_chars;
    json_t *item; /* out: structured hit */
    char *text;   /* out: rendered lines (malloc'd) */
} hit_ctx;

/* One cell of untrusted text, escaped and cut by render_cell. Caller frees. */
static char *cell(const char *s, size_t max_chars)
{
    size_t size = max_chars * 8 + 32;
    char *out = malloc(size);
    if (out)
        render_cell(s ? STORE_TEXT : STORE_NULL, STORE_KIND_PLAIN, s, s ? strlen(s) : 0, max_chars,
                    out, size);
    return out;
}

/* The first max_chars characters of s (at a character boundary), with …
 * when cut. Caller frees. */
static char *snippet(const char *s, size_t max_chars)
{
    size_t i = 0, chars = 0;
    while (s[i] && chars < max_chars) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
        chars++;
    }
    int cut = s[i] != '\0';
    char *out = malloc(i + 4);
    if (!out)
        return NULL;
    memcpy(out, s, i);
    memcpy(out + i, cut ? "…" : "", cut ? 4 : 1);
    return out;
}

static void render_hit(void *ctx, const doc_chunk_row *r)
{
    hit_ctx *h = ctx;
    const search_hit *s = h->hit;
    char uri[400];
    snprintf(uri, sizeof uri, "%s/chunks/%d", r->uri, r->seq);
    char *text = snippet(r->text, h->snippet_chars);
    json_t *scores = json_pack("{s:f, s:f}", "fused", s->score, "relevance", s->relevance);
    if (s->keyword_rank)
        json_object_set_new(scores, "keyword",
                            json_pack("{s:i, s:f, s:f}", "rank", s->keyword_rank, "bm25", s->bm25,
                                      "coverage", s->coverage));
    if (s->vector_rank)
        json_object_set_new(
            scores, "vector",
            json_pack("{s:i, s:f}", "rank", s->vector_rank, "distance", s->distance));
    h->item = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:s, s:o, s:s, s:o}", "rank",
                        h->rank, "uri", uri, "document", r->uri, "title", r->title, "collection",
                        r->collection, "chunk", r->seq, "chunks", r->chunks, "start_byte",
                        (json_int_t)r->start, "end_byte", (json_int_t)r->end, "language",
                        r->language, "metadata", json_parse_text(r->metadata), "text",
                        text ? text : "", "scores", scores);
    if (r->heading)
        json_object_set_new(h->item, "heading", json_string(r->heading));
    char *title = cell(r->title, 120), *heading = cell(r->heading, 120),
         *body = cell(r->text, h->snippet_chars);
    char kw[96] = "", vec[64] = "";
    if (s->keyword_rank)
        snprintf(kw, sizeof kw, ", keyword #%d bm25 %.3f coverage %.2f", s->keyword_rank, s->bm25,
                 s->coverage);
    if (s->vector_rank)
        snprintf(vec, sizeof vec, ", vector #%d distance %.3f", s->vector_rank, s->distance);
    if (title && heading && body &&
        asprintf(&h->text,
                 "%d. %s — %s%s%s (bytes %lld–%lld; score %.4f, relevance %.2f%s%s)\n   %s\n",
                 h->rank, uri, title, r->heading ? " › " : "", r->heading ? heading : "",
                 (long long)r->start, (long long)r->end, s->score, s->relevance, kw, vec, body) < 0)
        h->text = NULL;
    free(title);
    free(heading);
    free(body);
    free(text);
}

typedef struct rendered {
    char *text;
    size_t len, cap;
    json_t *results;
    int shown, dropped;
    int oom;
} rendered;

static void append(rendered *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->len + n + 1) * 2;
        char *p = realloc(o->text, cap);
        if (!p) {
            o->oom = 1;
            return;
        }
        o->text = p;
        o->cap = cap;
    }
    memcpy(o->text + o->len, s, n + 1);
    o->len += n;
}

static int render_hits(tool_env *env, const search_result *res, rendered *o, dbmcp_error *err)
{
    size_t snippet_chars =
        (size_t)(env->setting_long
                     ? env->setting_long(env, "search.snippet_chars", SNIPPET_CHARS_DEFAULT)
                     : SNIPPET_CHARS_DEFAULT);
    if (snippet_chars < 20 || snippet_chars > 100000)
        snippet_chars = SNIPPET_CHARS_DEFAULT;
    long cap = env->setting_long ? env->setting_long(env, "query.byte_cap", BYTE_CAP_DEFAULT)
                                 : BYTE_CAP_DEFAULT;
    if (cap < 256)
        cap = BYTE_CAP_DEFAULT;
    o->results = json_array();
    for (size_t i = 0; i < res->count; i++) {
        hit_ctx h = {&res->hits[i], (int)i + 1, snippet_chars, NULL, NULL};
        int rc = docs_chunk_get(env->internal_db, res->hits[i].id, render_hit, &h, err);
        if (rc) {
            json_decref(h.item);
            free(h.text);
            return rc;
        }
        if (!h.item || !h.text) { /* the chunk vanished since the search, or out of memory */
            json_decref(h.item);
            free(h.text);
            continue;
        }
        /* Once a hit is dropped for bytes every later one is too. */
        if (o->dropped || o->len + strlen(h.text) > (size_t)cap) {
            o->dropped++;
        } else {
            append(o, h.text);
            json_array_append(o->results, h.item);
            o->shown++;
        }
        json_decref(h.item);
        free(h.text);
    }
    return o->oom ? dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory") : 0;
}

/* --- the tool ------------------------------------------------------------------------- */

/* How the search ran, beyond its arguments: for the metadata line and
 * structuredContent. */
typedef struct search_run_info {
    double min_relevance; /* the floor applied */
    double weight_vector; /* RRF weight of the vector list (hybrid) */
    const char *kind;     /* embedder kind, NULL in keyword mode */
    int vector_off;       /* hybrid ran the keyword side alone: weight_vector 0 */
    int keyword_rows_max; /* matching chunks the keyword side reads at most */
} search_run_info;

static void metadata_line(rendered *o, const search_result *res, const search_args *a,
                          const search_run_info *info, double ms, long cap)
{
    char line[900], floor[128] = "", off[160] = "", capped[128] = "";
    if (info->min_relevance > 0)
        snprintf(floor, sizeof floor, " · relevance ≥ %.2f: %zu below it left out",
                 info->min_relevance, res->below_floor);
    if (res->keyword_capped)
        snprintf(capped, sizeof capped,
                 " · keyword: only the newest %d matches ranked (search.keyword_rows_max)",
                 info->keyword_rows_max);
    if (info->vector_off)
        snprintf(off, sizeof off,
                 " (vector side off: weight 0 for the %s embedder, setting "
                 "search.weight_vector.%s)",
                 info->kind, info->kind);
    if (o->dropped)
        snprintf(line, sizeof line,
                 "\n%d passage%s shown, %d dropped to stay under %ld bytes · %s%s%s%s · %.1f ms",
                 o->shown, o->shown == 1 ? "" : "s", o->dropped, cap, search_mode_name(a->mode),
                 off, floor, capped, ms);
    else
        snprintf(line, sizeof line,
                 "\n%d passage%s · %s%s · %zu keyword and %zu vector%s candidates%s%s "
                 "· %.1f ms",
                 o->shown, o->shown == 1 ? "" : "s", search_mode_name(a->mode), off,
                 res->keyword_count, res->vector_count, res->approximate ? " (approximate)" : "",
                 floor, capped, ms);
    append(o, o->len ? line : line + 1);
}

/* The fusion weight of the vector list for the configured embedder: the
 * setting search.weight_vector.<kind>, else the kind's default. */
static double vector_weight(tool_env *env, const char *kind)
{
    char key[64];
    snprintf(key, sizeof key, "search.weight_vector.%s", kind);
    return setting_double(env, key, search_vector_weight_default(kind));
}

static int run_search(tool_env *env, const search_args *a, const id_set *allowed,
                      const thesaurus_strings *expansions, search_result *res,
                      search_run_info *info, dbmcp_error *err)
{
    embedder *emb = NULL;
    int rc =
        a->mode == SEARCH_KEYWORD ? 0 : embedder_open_from_settings(env->internal_db, &emb, err);
    if (rc)
        return rc;
    search_request req = {0};
    req.query = a->query;
    req.expansions = (const char *const *)expansions->items;
    req.n_expansions = expansions->count;
    req.mode = a->mode;
    req.k = a->k;
    req.candidates = (int)(env->setting_long ? env->setting_long(env, "search.candidates", 0) : 0);
    if (req.candidates < 0 || req.candidates > SEARCH_MAX_CANDIDATES)
        req.candidates = 0;
    req.weight_keyword = setting_double(env, "search.weight_keyword", 1.0);
    if (emb) {
        info->kind = embedder_kind(emb);
        info->weight_vector = req.weight_vector = vector_weight(env, info->kind);
    }
    if (a->mode == SEARCH_HYBRID && emb && req.weight_vector <= 0) {
        req.mode = SEARCH_KEYWORD; /* nothing to fuse: don't embed the query */
        info->vector_off = 1;
    }
    req.rrf_k = setting_double(env, "search.rrf_k", 60);
    req.int8 = setting_on(env, "search.int8");
    req.min_relevance = info->min_relevance;
    req.filter = id_set_has;
    req.filter_ctx = (void *)allowed;
    req.filter_ids = allowed->ids; /* ascending: sorted by the caller */
    req.filter_count = allowed->n;
    req.ann_min_vectors =
        env->setting_long ? env->setting_long(env, "search.ann_min_vectors", 0) : 0;
    req.ann_ef = (int)(env->setting_long ? env->setting_long(env, "search.ann_ef", 0) : 0);
    if (req.ann_ef < 0 || req.ann_ef > SEARCH_ANN_EF_MAX)
        req.ann_ef = 0;
    /* BM25's statistics come from every chunk the interface may read,
     * whatever the filters; the filters only pick which are ranked. */
    search_index_scope readable;
    docs_search_scope(env->interface, &readable);
    req.scope = &readable;
    long rows_max = env->setting_long ? env->setting_long(env, "search.keyword_rows_max",
                                                          SEARCH_KEYWORD_ROWS_DEFAULT)
                                      : SEARCH_KEYWORD_ROWS_DEFAULT;
    if (rows_max < 100 || rows_max > SEARCH_KEYWORD_ROWS_MAX)
        rows_max = SEARCH_KEYWORD_ROWS_DEFAULT;
    info->keyword_rows_max = req.keyword_rows_max = (int)rows_max;
    req.emb = emb;
    req.cancelled = env->cancelled;
    rc = search_run(env->internal_db,
                    &(search_corpus){DOCS_FTS_TABLE, DOCS_VEC_TABLE, DOCS_VERSION_KEY}, &req, res,
                    err);
    embedder_free(emb);
    return rc;
}

static int search_documents(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    double start = ids_monotonic_ms();
    search_args a;
    int rc = parse_args(env, args, &a, err);
    if (rc)
        return rc;
    if (!env->internal_db)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the search is not available",
                                       "search_documents without internal_db");
    id_set allowed = {0};
    rc = docs_filter_chunks(env->internal_db, &a.filter, id_set_add, &allowed, err);
    if (!rc && allowed.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc && allowed.n > 1) /* qsort(NULL, 0) is undefined */
        qsort(allowed.ids, allowed.n, sizeof *allowed.ids, cmp_id);
    thesaurus_strings expansions = {0};
    if (!rc && a.expand)
        rc = expand_query(env->internal_db, a.query, &expansions, err);
    search_result res = {0};
    search_run_info info = {0};
    info.min_relevance = a.min_relevance >= 0 ? a.min_relevance
                                              : setting_double(env, "search.min_relevance",
                                                               SEARCH_MIN_RELEVANCE_DEFAULT);
    if (info.min_relevance > 1)
        info.min_relevance = SEARCH_MIN_RELEVANCE_DEFAULT;
    if (!rc && allowed.n)
        rc = run_search(env, &a, &allowed, &expansions, &res, &info, err);
    rendered o = {0};
    if (!rc)
        rc = render_hits(env, &res, &o, err);
    if (!rc) {
        long cap = env->setting_long ? env->setting_long(env, "query.byte_cap", BYTE_CAP_DEFAULT)
                                     : BYTE_CAP_DEFAULT;
        if (!allowed.n)
            append(&o, "No documents to search: no document this interface exposes matches the "
                       "filters.\n");
        /* Vectors of another model are never compared: say so instead of
         * silently finding nothing by vector. Judged by the documents
         * searched, not the whole index: whether other collections have
         * vectors is none of this caller's business. */
        if (allowed.n && a.mode != SEARCH_KEYWORD && !info.vector_off && res.vector_count == 0) {
            char note[384];
            snprintf(note, sizeof note,
                     "Note: no stored vectors of the embedder model %s in the documents searched; "
                     "the vector side found nothing (the operator runs `dbmcp reembed`).\n",
                     res.model);
            append(&o, note);
        }
        metadata_line(&o, &res, &a, &info, ids_monotonic_ms() - start, cap);
        json_t *expanded = json_array();
        for (size_t i = 0; i < expansions.count; i++)
            json_array_append_new(expanded, json_string(expansions.items[i]));
        out->structured =
            json_pack("{s:s, s:s, s:s, s:o, s:O, s:i, s:i, s:f, s:I}", "query", a.query, "mode",
                      search_mode_name(a.mode), "model", res.model, "expanded", expanded, "results",
                      o.results, "shown", o.shown, "dropped", o.dropped, "min_relevance",
                      info.min_relevance, "below_floor", (json_int_t)res.below_floor);
        if (info.kind && a.mode == SEARCH_HYBRID)
            json_object_set_new(out->structured, "weight_vector", json_real(info.weight_vector));
        if (res.keyword_capped)
            json_object_set_new(out->structured, "keyword_capped", json_true());
        if (res.approximate) /* the vector candidates came from the HNSW graph */
            json_object_set_new(out->structured, "vector_approximate", json_true());
        tool_output_text(out, o.oom || !o.text ? "" : o.text);
        env->rows = o.shown;
    } else if (err->code == DBMCP_EINVAL && strncmp(err->message, "query", 5) != 0) {
        dbmcp_error_prefix(err, "query");
    }
    json_decref(o.results);
    free(o.text);
    search_result_free(&res);
    thesaurus_strings_free(&expansions);
    free(allowed.ids);
    return rc;
}

const builtin_entry tools_search_builtins[] = {
    {"search_documents", search_documents, BUILTIN_INTERNAL},
    {NULL, NULL, 0},
};

/* --- chunk resources -------------------------------------------------------------------- */

typedef struct chunk_text_ctx {
    char *text;
    char *doc_uri;
} chunk_text_ctx;

static void chunk_text(void *ctx, const doc_chunk_row *r)
{
    chunk_text_ctx *c = ctx;
    free(c->text);
    free(c->doc_uri);
    c->doc_uri = strdup(r->uri);
    if (asprintf(&c->text, "Passage %d of %d of %s (%s%s%s), bytes %lld–%lld\n\n%s\n", r->seq,
                 r->chunks, r->uri, r->title, r->heading ? " › " : "", r->heading ? r->heading : "",
                 (long long)r->start, (long long)r->end, r->text) < 0)
        c->text = NULL;
}

int tools_document_chunk_read(store *db, const char *iface, const json_t *vars, char **text,
                              dbmcp_error *err)
{
    *text = NULL;
    const char *collection = json_get_str(vars, "collection");
    const char *slug = json_get_str(vars, "slug");
    const char *n = json_get_str(vars, "n");
    char *end = NULL;
    long long seq = n ? strtoll(n, &end, 10) : 0;
    if (!collection || !slug || !n || end == n || *end || seq < 1)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "Resource not found");
    chunk_text_ctx c = {0};
    int rc = docs_chunk_get_by_seq(db, collection, slug, seq, chunk_text, &c, err);
    if (!rc && (!c.text || !c.doc_uri))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc && !docs_uri_exposed(db, iface, c.doc_uri, err))
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "Resource not found");
    free(c.doc_uri);
    if (rc) {
        free(c.text);
        return rc;
    }
    *text = c.text;
    return 0;
}
