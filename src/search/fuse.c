/*
 * fuse.c — reciprocal-rank fusion (see fuse.h).
 *
 * The lists are short (a search asks each retriever for tens of hits), so
 * distinct ids are gathered by sorting all (id, list, rank) triples by id
 * and merging equal ids: O(n log n) with one allocation per call. An id
 * repeated within one list counts at its best (first) rank only.
 */
#include "search/fuse.h"

#include <stdlib.h>

#include "core/error.h"

typedef struct fuse_entry {
    int64_t id;
    int list;   /* index of the list */
    int rank;   /* 1-based rank in that list */
    double raw; /* the list's raw score */
} fuse_entry;

static int entry_by_id(const void *pa, const void *pb)
{
    const fuse_entry *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->list != b->list)
        return a->list - b->list;
    return a->rank - b->rank;
}

static int hit_best_first(const void *pa, const void *pb)
{
    const fuse_hit *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

int fuse_rrf(const fuse_list *lists, int nlists, double k0, fuse_hit **out)
{
    *out = NULL;
    if (nlists < 0 || nlists > FUSE_MAX_LISTS || (nlists > 0 && !lists))
        return DBMCP_EINVAL;
    if (k0 <= 0)
        k0 = 60;
    size_t total = 0;
    for (int l = 0; l < nlists; l++) {
        if (lists[l].count && !lists[l].ids)
            return DBMCP_EINVAL;
        if (lists[l].count > (size_t)INT32_MAX ||
            total > SIZE_MAX / sizeof(fuse_entry) - lists[l].count)
            return DBMCP_ETOOBIG;
        total += lists[l].count;
    }
    fuse_entry *e = malloc((total ? total : 1) * sizeof *e);
    fuse_hit *hits = calloc(total ? total : 1, sizeof *hits);
    if (!e || !hits) {
        free(e);
        free(hits);
        return DBMCP_ENOMEM;
    }
    size_t n = 0;
    for (int l = 0; l < nlists; l++)
        for (size_t i = 0; i < lists[l].count; i++)
            e[n++] = (fuse_entry){lists[l].ids[i], l, (int)i + 1,
                                  lists[l].scores ? lists[l].scores[i] : 0};
    qsort(e, n, sizeof *e, entry_by_id);
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        if (nh == 0 || hits[nh - 1].id != e[i].id)
            hits[nh++].id = e[i].id;
        fuse_hit *h = &hits[nh - 1];
        if (h->rank[e[i].list])
            continue; /* a repeat within one list: its best rank counted already */
        double w = lists[e[i].list].weight > 0 ? lists[e[i].list].weight : 1;
        h->rank[e[i].list] = e[i].rank;
        h->raw[e[i].list] = e[i].raw;
        h->score += w / (k0 + e[i].rank);
    }
    free(e);
    qsort(hits, nh, sizeof *hits, hit_best_first);
    *out = hits;
    return (int)(nh > (size_t)INT32_MAX ? INT32_MAX : nh);
}
