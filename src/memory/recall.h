/*
 * recall.h — one hybrid query over agent memory (memory_search and the
 * tier-specific search tools).
 *
 * Candidates come from the generic search engine (search/engine.h) over
 * the memory corpus — dbmcp_mem_fts (BM25 from the statistics of the
 * caller's own items, any term: nothing another user saved moves a score
 * or a rank) and dbmcp_mem_vectors (cosine over the configured embedder's
 * model), fused by reciprocal rank — pre-filtered to the caller's scope
 * and tiers and, when the request has attribute filters (role, status,
 * task type, category, session, metadata), to the items with an
 * occurrence that passes them, so that a narrow filter still fills k when
 * enough items match. Each candidate is then resolved to the row it came
 * from (the newest message holding that text, the episode, the knowledge
 * version in force — or in force `as_of`), filtered by time range, role,
 * status, task type, category, session and metadata, and weighted by
 * status, recency and use frequency (rank.h). The vector list's weight
 * depends on the embedder's kind (settings
 * memory.vector_weight.builtin / .http; 0 runs the keyword side alone);
 * candidates below the relevance floor (memory.min_relevance, or the
 * request's) are left out before ranking, so fewer hits come back rather
 * than unrelated ones. Items not yet
 * embedded are still found by keyword. Every call is logged and the
 * returned items' use counters bumped.
 *
 * Ownership: mem_hit_list_free releases a result. The embedder returned by
 * mem_embedder is shared by the process (never freed by callers).
 */
#ifndef DBMCP_MEMORY_RECALL_H
#define DBMCP_MEMORY_RECALL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "memory/memory.h"
#include "memory/rank.h"
#include "search/embed.h"
#include "store/store.h"

/* Tier bits (same values as store/memory_store.h). */
#define MEM_TIER_MESSAGE 0x1
#define MEM_TIER_EPISODE 0x2
#define MEM_TIER_KNOWLEDGE 0x4
#define MEM_TIER_ALL 0x7

/* "message"/"messages"/"working" → MEM_TIER_MESSAGE, "episode"/"episodes"/
 * "episodic" → EPISODE, "knowledge"/"semantic" → KNOWLEDGE; 0 when unknown. */
int mem_tier_parse(const char *s);

typedef struct mem_search_req {
    const char *query;      /* required: free text (fts_query syntax) */
    int tiers;              /* MEM_TIER_* bits; 0 = all */
    const char *mode;       /* "hybrid" (default), "keyword" or "vector" */
    const char *from, *to;  /* normalised ISO times or NULL: the row's time in range */
    const char *as_of;      /* normalised ISO or NULL: memory as it stood then */
    const char *role;       /* messages: only this role */
    const char *status;     /* episodes: only this status */
    const char *task_type;  /* episodes: only this task type */
    const char *category;   /* knowledge: only this category */
    const char *session_id; /* messages/episodes of this session */
    const json_t *metadata; /* borrowed object: every key must equal (top level) */
    int k;                  /* results wanted; capped by memory.max_results */
    int no_weights;         /* nonzero: rank by the fused score alone (benchmarks) */
    double min_relevance;   /* relevance floor 0..1; < 0: the setting memory.min_relevance */
} mem_search_req;

typedef struct mem_hit {
    char tier[12];   /* "message" | "episode" | "knowledge" */
    int64_t item_id; /* the searchable item */
    char *ref_id;    /* message/episode/knowledge id */
    char *text;
    char *time; /* the row's time (message created, episode ended, version from) */
    char *session_id, *role, *tool_name, *status, *task_type, *category, *key;
    char *effective_from, *effective_to, *metadata; /* may be NULL */
    int embedded;     /* 1 when the item has a vector of the searched model */
    int keyword_rank; /* 0 = not a keyword candidate */
    double bm25;
    int vector_rank;  /* 0 = not a vector candidate */
    double cosine;    /* 1 - distance when vector_rank */
    double coverage;  /* share of the query's idf weight the text holds, when keyword_rank */
    double relevance; /* what the floor compares (search/engine.h) */
    double age_s;
    int64_t uses;
    mem_rank_parts score;
} mem_hit;

typedef struct mem_hit_list {
    mem_hit *items;
    size_t count;
    size_t keyword_candidates, vector_candidates, vectors_total;
    char mode[16];        /* the mode that ran ("keyword" when no vectors could be used) */
    char model[128];      /* embedder model searched, "" for keyword */
    char note[160];       /* why the mode fell back, or "" */
    double min_relevance; /* the floor applied */
    size_t below_floor;   /* candidates left out under it */
    double weight_vector; /* RRF weight of the vector list (hybrid), by embedder kind */
    int keyword_capped;   /* more items matched than memory.keyword_rows_max: the oldest
                             were not ranked */
    int approximate;      /* the vector side's candidates came from the HNSW graph */
} mem_hit_list;

/* The process-wide embedder configured by the settings embed.* (opened on
 * first use); NULL with err when it cannot be opened. Thread-safe. */
embedder *mem_embedder(store *db, dbmcp_error *err);
/* Forget the shared embedder (process exit, tests). */
void mem_embedder_reset(void);
/* Forget the scopes' item ids recall keeps per data version for its vector
 * side (tests, process exit). */
void mem_scope_ids_cache_clear(void);

/* Run one search (see above). DBMCP_EINVAL for a query without searchable
 * words, a bad mode; err names the field. */
int mem_search(store *db, const mem_scope *scope, const mem_config *cfg, const mem_search_req *req,
               mem_hit_list *out, dbmcp_error *err);
void mem_hit_list_free(mem_hit_list *l);

/* A hit as a JSON object (new reference) with its component scores. */
json_t *mem_hit_json(const mem_hit *h);

#endif
