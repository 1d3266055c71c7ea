/*
 * bm25.c — BM25 and coverage from given statistics (contract in bm25.h).
 *
 * The arithmetic follows SQLite's fts5Bm25Function operation by operation
 * (same operand order, doubles throughout), so that with whole-table
 * statistics the results are bit-identical to bm25(): rankings that tie
 * there tie here, and the order of hits does not change.
 */
#include "search/bm25.h"

#include <math.h>

double bm25_idf(int64_t rows, int64_t hits)
{
    double idf = log(((double)(rows - hits) + 0.5) / ((double)hits + 0.5));
    return idf <= 0.0 ? BM25_IDF_MIN : idf;
}

double bm25_avgdl(int64_t rows, int64_t length)
{
    return rows > 0 ? (double)length / (double)rows : 0;
}

double bm25_score(const bm25_stats *s, const search_index_hit *hits, size_t n, int64_t length)
{
    const double k1 = BM25_K1, b = BM25_B;
    double D = (double)length, score = 0.0;
    /* FTS5 adds a term for every phrase; the ones a row lacks add +0.0,
     * which changes nothing, so only the phrases held are visited — in
     * phrase order, as FTS5 sums. */
    for (size_t i = 0; i < n; i++) {
        if (hits[i].phrase < 0 || (size_t)hits[i].phrase >= s->phrases)
            continue;
        double f = (double)hits[i].count;
        score +=
            s->idf[hits[i].phrase] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / s->avgdl)));
    }
    return -1.0 * score;
}

double bm25_coverage(const bm25_stats *s, int positive, const search_index_hit *hits, size_t n)
{
    if (positive < 1 || (size_t)positive > s->phrases)
        positive = (int)s->phrases;
    double total = 0, got = 0;
    for (int p = 0; p < positive; p++)
        total += s->idf[p];
    for (size_t i = 0; i < n; i++)
        if (hits[i].phrase >= 0 && hits[i].phrase < positive)
            got += s->idf[hits[i].phrase];
    return total > 0 ? got / total : 0;
}
