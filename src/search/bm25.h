/*
 * bm25.h — Okapi BM25 and keyword coverage, computed by dbmcp from
 * statistics it is given, so that they can be restricted to the rows a
 * caller may read (store/search_index.h) instead of every row of an index.
 *
 * The formulas are SQLite FTS5's bm25() to the last bit, so a search whose
 * scope is the whole table ranks and scores exactly as FTS5 would
 * (checked in tests/unit/test_bm25.c):
 *
 *   idf(p)    = ln((N - n(p) + 0.5) / (n(p) + 0.5)), at least 1e-6
 *   score(r)  = -Σ_p idf(p) · tf(p,r)·(k1 + 1) / (tf(p,r) + k1·(1 - b + b·|r| / avgdl))
 *
 * with k1 = 1.2, b = 0.75, N the rows of the scope, avgdl the mean of their
 * lengths, n(p) the rows of the scope holding phrase p, tf(p,r) how often
 * p occurs in row r, |r| the row's length in token positions. Smaller
 * (more negative) is better, as with bm25(); every phrase of the
 * expression counts, in the expression's order.
 *
 * Coverage, 0..1: the share of the query's idf weight a row holds — Σ idf
 * of the first `positive` phrases it holds over Σ idf of all of them
 * (search/engine.h's relevance floor; docs/text.md).
 *
 * Pure code: no allocation, no global state, thread-safe.
 */
#ifndef DBMCP_SEARCH_BM25_H
#define DBMCP_SEARCH_BM25_H

#include <stddef.h>
#include <stdint.h>

#include "store/search_index.h"

#define BM25_K1 1.2       /* term frequency saturation (FTS5's) */
#define BM25_B 0.75       /* length normalisation (FTS5's) */
#define BM25_IDF_MIN 1e-6 /* idf of a phrase in half the rows or more */

/* The statistics of one query over one scope. */
typedef struct bm25_stats {
    int64_t rows;      /* N: rows in the scope */
    double avgdl;      /* mean length of those rows (0 when rows is 0) */
    const double *idf; /* idf of each phrase of the expression (bm25_idf) */
    size_t phrases;    /* entries in idf */
} bm25_stats;

/* The idf of a phrase held by `hits` of `rows` rows. */
double bm25_idf(int64_t rows, int64_t hits);
/* The mean length of `rows` rows whose lengths sum to `length`; 0 for none. */
double bm25_avgdl(int64_t rows, int64_t length);
/* The score of a row of `length` token positions holding the phrases of
 * hits (ascending by phrase, indexes below s->phrases). */
double bm25_score(const bm25_stats *s, const search_index_hit *hits, size_t n, int64_t length);
/* The coverage of that row over the first `positive` phrases, 0..1. */
double bm25_coverage(const bm25_stats *s, int positive, const search_index_hit *hits, size_t n);

#endif
