/*
 * fuse.h — reciprocal-rank fusion of ranked result lists.
 *
 * score(id) = sum over lists l of weight_l / (k0 + rank_l(id)), rank
 * 1-based; ids missing from a list contribute nothing there. Each fused
 * hit keeps its rank and raw score in every list, so a tool can say why
 * it ranked.
 */
#ifndef DBMCP_SEARCH_FUSE_H
#define DBMCP_SEARCH_FUSE_H

#include <stddef.h>
#include <stdint.h>

#define FUSE_MAX_LISTS 4

typedef struct fuse_list {
    const int64_t *ids;   /* best first */
    const double *scores; /* raw scores parallel to ids (may be NULL) */
    size_t count;
    double weight; /* > 0; 0 (or less) means 1 */
} fuse_list;

typedef struct fuse_hit {
    int64_t id;
    double score;               /* fused */
    int rank[FUSE_MAX_LISTS];   /* 1-based, 0 = absent */
    double raw[FUSE_MAX_LISTS]; /* the list's raw score, 0 when absent */
} fuse_hit;

/* Fuse nlists (<= FUSE_MAX_LISTS) lists with constant k0 (60 when <= 0).
 * *out (caller frees) receives every distinct id, best first (ties by
 * ascending id); returns the count or a negative dbmcp_code. An id
 * repeated within one list counts once, at its first rank. */
int fuse_rrf(const fuse_list *lists, int nlists, double k0, fuse_hit **out);

#endif
