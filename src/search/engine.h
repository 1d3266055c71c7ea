/*
 * engine.h — hybrid search over one corpus: keyword candidates from a
 * full-text index, vector candidates from an in-memory index of a vectors
 * table, fused by reciprocal rank. Used by search_documents (documents
 * and chunks) and by the memory tiers; the engine knows nothing about
 * either, only the two tables and the version counter of a corpus, and
 * the scope of the caller (which rows it may read) that their store
 * modules describe.
 *
 * A corpus is three names (trusted compile-time identifiers, [a-z0-9_]):
 *
 *   fts_table    a full-text index whose rowid is the item id; NULL when
 *                the corpus has no full text.
 *   vec_table    a table with the columns
 *                  item_id INTEGER, model TEXT, dim INTEGER, vec BLOB
 *                (vec: dim little-endian float32, L2-normalised by the
 *                embedder); NULL when the corpus has no vectors.
 *   version_key  a row of dbmcp_data_versions (0002_search.sql) that every
 *                writer of the two tables bumps in the same transaction
 *                (search_index_bump in store/search_index.h).
 *
 * Keyword side: the query goes through fts_match_build (any term matches
 * by default, "phrases", +required, -excluded; docs/text.md); expansion
 * terms are added as optional phrases. The rows of the request's scope
 * that match are read (store/search_index.h), newest first, at most
 * keyword_rows_max of them, and ranked by BM25 computed here (bm25.h) from
 * statistics of the scope alone — its row count, mean row length and the
 * rows holding each phrase — so no score or ranking depends on rows the
 * caller may not read (docs/security.md, "Nothing learned across users").
 * With the scope the whole table, scores equal FTS5's bm25() exactly. The
 * pre-filter then picks which of the rows read are ranked (it narrows the
 * search, not the statistics), best first, up to `candidates`. Past the
 * bound, older matches are neither read nor ranked (keyword_capped says
 * so); the statistics stay exact (phrases are then counted by the store).
 *
 * Vector side: the query (or vector_query when given: e.g. the query
 * without function words) is embedded with the caller's embedder; only
 * vectors of that embedder's model name and dimension are searched (a
 * search never mixes models). The vectors of one (database, table, model)
 * are held in memory as a vec_index; each search reads the corpus's data
 * version (one indexed SELECT) and rebuilds the index when it changed.
 * The cache is process-wide and thread-safe: searches hold a reference to
 * the index they started with, a refresh swaps in a new one, the old one is
 * freed when its last reader lets go.
 *
 * Approximate side (search/ann.h): once an index holds ann_min_vectors
 * rows an HNSW graph is kept in step with it in the background. A search
 * uses the graph when it holds exactly the version searched and the
 * filter keeps at least ann_min_vectors ids (filter_count; unknown counts
 * as all): candidates come from the graph, each is checked against the
 * exact index of that version and gets its exact distance. Smaller scopes
 * are searched exactly over their own rows (filter_ids looked up in the
 * index, not a scan of every row), and so is everything while the graph
 * catches up. A filter is applied to every candidate either way, so no
 * search ever returns an id its filter refuses.
 *
 * Fusion: fuse_rrf over the lists that ran (weights weight_keyword,
 * weight_vector, constant rrf_k). Single-mode searches score 1/(rrf_k+rank)
 * with the same formula, so scores read alike in every mode. Which weight
 * an embedder deserves is the caller's choice (search_vector_weight).
 *
 * Relevance floor: every fused hit gets a relevance, 0..1 — the larger of
 * its keyword coverage (the idf-weighted share of the query's words it
 * holds, with the scope's idf; bm25.h) and its cosine similarity
 * to the query, over the sides that ran. Hits below min_relevance are
 * skipped (counted in below_floor) and the next hits above it move up, so
 * a search returns fewer hits rather than ones that share only a common
 * word with the question.
 *
 * A hybrid search with vector_optional set whose vector side fails
 * (embedding service down) returns the keyword side alone, scored the same
 * way, with vector_failed and vector_error set instead of failing.
 *
 * Errors: query syntax errors of fts_query (DBMCP_EINVAL/ETOOBIG, messages
 * fit for the agent), embedder errors, store errors. Thread-safety: any
 * thread with its own store handle may call search_run at any time.
 * Ownership: search_result_free releases a result.
 */
#ifndef DBMCP_SEARCH_ENGINE_H
#define DBMCP_SEARCH_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "search/embed.h"
#include "store/search_index.h"
#include "store/store.h"

#define SEARCH_MAX_K 200           /* largest k search_run accepts */
#define SEARCH_MAX_CANDIDATES 2000 /* largest candidate list per side */
/* Matching rows the keyword side reads and ranks when the request names no
 * bound: every match of every scope measured (bench/retrieval, and the
 * 100,000-item memory of bench/memory.sh) is read, so rankings stay exact
 * there; past it a search costs at most some 300 ms on the benchmark
 * machine, about 3 µs per row (docs/search.md, "Cost and the bound"). */
#define SEARCH_KEYWORD_ROWS_DEFAULT 100000
#define SEARCH_KEYWORD_ROWS_MAX 1000000 /* largest bound a setting may ask for */

typedef enum search_mode { SEARCH_HYBRID = 0, SEARCH_VECTOR, SEARCH_KEYWORD } search_mode;

typedef struct search_corpus {
    const char *fts_table;   /* FTS5 table, rowid = item id; NULL: no keyword side */
    const char *vec_table;   /* (item_id, model, dim, vec) table; NULL: no vector side */
    const char *version_key; /* dbmcp_data_versions.name bumped by every writer */
} search_corpus;

/* Return nonzero to keep the item. Called from the searching thread only. */
typedef int (*search_filter_fn)(void *ctx, int64_t id);

typedef struct search_request {
    const char *query;               /* the text asked for (fts_query syntax) */
    const char *vector_query;        /* text embedded for the vector side; NULL = query */
    const char *const *expansions;   /* extra optional keyword terms (thesaurus); may be NULL */
    size_t n_expansions;             /* entries in expansions */
    search_mode mode;                /* hybrid (default), vector or keyword */
    int k;                           /* results wanted, 1..SEARCH_MAX_K */
    int candidates;                  /* per side before fusion; 0 = max(4k, 50) */
    double weight_keyword;           /* RRF weight of the keyword list; 0 = 1 */
    double weight_vector;            /* RRF weight of the vector list; 0 = 1 */
    double rrf_k;                    /* RRF constant; 0 = 60 */
    int int8;                        /* vector side: int8 scan + float rescoring */
    int fts_flags;                   /* FTS_QUERY_* flags (fts_query.h) */
    search_filter_fn filter;         /* pre-filter by item id; NULL keeps all */
    void *filter_ctx;                /* passed to filter */
    embedder *emb;                   /* required unless mode == SEARCH_KEYWORD */
    int vector_optional;             /* hybrid: a failing vector side degrades to keyword */
    atomic_int *cancelled;           /* stop early when it becomes nonzero; may be NULL */
    double min_relevance;            /* relevance floor 0..1; 0 = none */
    const search_index_scope *scope; /* rows the caller may read (required for the keyword side) */
    int keyword_rows_max;      /* matching rows read and ranked; 0 = SEARCH_KEYWORD_ROWS_DEFAULT */
    const int64_t *filter_ids; /* optional: every id filter keeps, ascending (the scope's ids) */
    size_t filter_count;       /* entries in filter_ids */
    long ann_min_vectors;      /* vectors from which the graph is used; 0 = default, < 0 = never */
    int ann_ef;                /* graph candidates per search; 0 = SEARCH_ANN_EF_DEFAULT */
} search_request;

typedef struct search_hit {
    int64_t id;       /* item id (FTS rowid / vectors item_id) */
    double score;     /* fused score, larger is better */
    int keyword_rank; /* 1-based rank among keyword candidates; 0 = absent */
    double bm25;      /* BM25 over the scope (bm25.h; smaller is better) when keyword_rank */
    int vector_rank;  /* 1-based rank among vector candidates; 0 = absent */
    double distance;  /* cosine distance (0..2) when vector_rank */
    double coverage;  /* share of the query's idf weight the item holds, when keyword_rank */
    double relevance; /* what the floor compares: max(coverage, 1 - distance), 0..1 */
} search_hit;

typedef struct search_result {
    search_hit *hits;       /* best first; owned */
    size_t count;           /* <= k */
    size_t keyword_count;   /* keyword candidates found (after the filter) */
    size_t vector_count;    /* vector candidates found (after the filter) */
    size_t vectors_total;   /* rows in the vector index searched (model + dim) */
    int approximate;        /* the vector side came from the HNSW graph, not an exact scan */
    size_t below_floor;     /* hits skipped under min_relevance before k were found */
    int keyword_capped;     /* more rows matched than keyword_rows_max: the oldest were not read */
    char model[128];        /* embedder model searched ("" for keyword mode) */
    int vector_failed;      /* vector_optional: the vector side failed, keyword only */
    char vector_error[256]; /* why (operator message), when vector_failed */
} search_result;

/* Run one search. Returns 0 (out filled; count may be 0) or a negative
 * dbmcp_code with err filled; out is empty on failure. */
int search_run(store *db, const search_corpus *corpus, const search_request *req,
               search_result *out, dbmcp_error *err);
void search_result_free(search_result *r);

/* The RRF weight of the vector list for an embedder of this kind
 * (embedder_kind) when no setting names one: the builtin lexical
 * embedder knows only words and word parts, what BM25 already ranks
 * better, so it gets SEARCH_WEIGHT_VECTOR_BUILTIN (measured on the tuning
 * half of bench/retrieval); an http embedder (a semantic model) gets 1.0,
 * the keyword list's weight. 0 means a hybrid search runs the keyword side
 * alone. */
#define SEARCH_WEIGHT_VECTOR_BUILTIN 0.0
#define SEARCH_WEIGHT_VECTOR_HTTP 1.0
double search_vector_weight_default(const char *kind);

/* "hybrid" | "vector" | "keyword" → mode; -1 when unknown. */
int search_mode_parse(const char *s);
const char *search_mode_name(search_mode m);

/* Drop every cached vector index and scope statistics (tests; process exit
 * for leak checkers). Indexes still held by running searches are freed
 * when they finish. */
void search_cache_clear(void);

#endif
