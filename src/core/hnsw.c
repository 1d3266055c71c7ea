/*
 * hnsw.c — the HNSW graph of hnsw.h: layered neighbour lists over
 * normalised vector copies, greedy descent through the upper layers and a
 * best-first search of ef candidates on layer 0, links chosen by the
 * paper's heuristic (a candidate is linked only when it is closer to the
 * new node than to every neighbour already chosen, which keeps links
 * pointing in different directions).
 *
 * Layout: node i's vector at data + i * dim, its layer-0 list at
 * links0 + i * (m0 + 1) (count, then neighbours), its lists on layers
 * 1..levels[i] in one allocation upper[i] of levels[i] * (m + 1) ints.
 * Ids map to their live node through an open-addressing table.
 */
#include "core/hnsw.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define HNSW_MAX_LEVEL 24 /* levels drawn above this are cut (1 in 16^24) */

/* --- id -> live node ------------------------------------------------------ */

#define SLOT_EMPTY (-1)
#define SLOT_GONE (-2)

typedef struct id_slot {
    int64_t id;
    int32_t node; /* >= 0, SLOT_EMPTY or SLOT_GONE */
} id_slot;

typedef struct id_map {
    id_slot *slots;
    size_t cap;  /* power of two */
    size_t used; /* live and gone slots */
} id_map;

static size_t id_hash(int64_t id, size_t cap)
{
    uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

static id_slot *map_find(const id_map *m, int64_t id)
{
    if (!m->cap)
        return NULL;
    for (size_t i = id_hash(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
        id_slot *s = &m->slots[i];
        if (s->node == SLOT_EMPTY)
            return NULL;
        if (s->node >= 0 && s->id == id)
            return s;
    }
}

static int map_put(id_map *m, int64_t id, int32_t node);

static int map_grow(id_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    id_slot *old = m->slots;
    size_t old_cap = m->cap;
    id_slot *slots = malloc(cap * sizeof *slots);
    if (!slots)
        return DBMCP_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        slots[i].node = SLOT_EMPTY;
    *m = (id_map){slots, cap, 0};
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].node >= 0)
            map_put(m, old[i].id, old[i].node);
    free(old);
    return 0;
}

/* Insert id (not present). */
static int map_put(id_map *m, int64_t id, int32_t node)
{
    if ((m->used + 1) * 2 > m->cap && map_grow(m))
        return DBMCP_ENOMEM;
    size_t i = id_hash(id, m->cap);
    while (m->slots[i].node >= 0)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].node == SLOT_EMPTY)
        m->used++;
    m->slots[i] = (id_slot){id, node};
    return 0;
}

/* --- the graph ---------------------------------------------------------------- */

struct hnsw {
    int dim;             /* floats per vector */
    int m, m0;           /* list sizes: upper layers, layer 0 */
    int ef_construction; /* candidates while linking */
    double level_mult;   /* 1 / ln(m) */
    uint64_t rng;        /* xorshift state for levels */
    size_t n, cap;       /* nodes added, allocated */
    size_t live;         /* nodes not removed */
    float *data;         /* cap * dim normalised copies; owned */
    int64_t *ids;        /* cap; owned */
    uint8_t *removed;    /* cap flags; owned */
    uint8_t *levels;     /* cap: the node's top layer; owned */
    int32_t *links0;     /* cap * (m0 + 1); owned */
    int32_t **upper;     /* cap: NULL or levels[i] * (m + 1) ints; owned */
    int32_t entry;       /* entry node, -1 when empty */
    int max_level;       /* levels[entry] */
    id_map map;          /* id -> live node */
};

hnsw *hnsw_new(int dim, const hnsw_params *p)
{
    int m = p && p->m ? p->m : HNSW_DEFAULT_M;
    int efc = p && p->ef_construction ? p->ef_construction : HNSW_DEFAULT_EF_CONSTRUCTION;
    if (dim < 1 || m < 2 || m > HNSW_MAX_M || efc < 1)
        return NULL;
    hnsw *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->dim = dim;
    g->m = m;
    g->m0 = 2 * m;
    g->ef_construction = efc < m ? m : efc;
    g->level_mult = 1.0 / log((double)m);
    g->rng = p && p->seed ? p->seed : 0x2545F4914F6CDD1DULL;
    g->entry = -1;
    return g;
}

void hnsw_free(hnsw *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        free(g->upper[i]);
    free(g->upper);
    free(g->data);
    free(g->ids);
    free(g->removed);
    free(g->levels);
    free(g->links0);
    free(g->map.slots);
    free(g);
}

size_t hnsw_count(const hnsw *g)
{
    return g->live;
}

size_t hnsw_nodes(const hnsw *g)
{
    return g->n;
}

int hnsw_dim(const hnsw *g)
{
    return g->dim;
}

int hnsw_contains(const hnsw *g, int64_t id)
{
    return map_find(&g->map, id) != NULL;
}

static inline const float *node_vec(const hnsw *g, int32_t i)
{
    return g->data + (size_t)i * (size_t)g->dim;
}

static inline float dist(const hnsw *g, const float *q, int32_t i)
{
    return 1.0f - vec_dot(q, node_vec(g, i), g->dim);
}

/* The list of node i on layer l: [count, neighbours...]. */
static inline int32_t *links(const hnsw *g, int32_t i, int l)
{
    if (l == 0)
        return g->links0 + (size_t)i * (size_t)(g->m0 + 1);
    return g->upper[i] + (size_t)(l - 1) * (size_t)(g->m + 1);
}

static int grow(hnsw *g)
{
    size_t cap = g->cap ? g->cap * 2 : 1024;
    size_t dim = (size_t)g->dim;
    if (cap > (size_t)INT32_MAX || cap > SIZE_MAX / sizeof(float) / dim / 2)
        return DBMCP_ENOMEM;
    float *data = realloc(g->data, cap * dim * sizeof *data);
    if (!data)
        return DBMCP_ENOMEM;
    g->data = data;
    int64_t *ids = realloc(g->ids, cap * sizeof *ids);
    if (!ids)
        return DBMCP_ENOMEM;
    g->ids = ids;
    uint8_t *removed = realloc(g->removed, cap);
    if (!removed)
        return DBMCP_ENOMEM;
    g->removed = removed;
    uint8_t *levels = realloc(g->levels, cap);
    if (!levels)
        return DBMCP_ENOMEM;
    g->levels = levels;
    int32_t *l0 = realloc(g->links0, cap * (size_t)(g->m0 + 1) * sizeof *l0);
    if (!l0)
        return DBMCP_ENOMEM;
    g->links0 = l0;
    int32_t **upper = realloc(g->upper, cap * sizeof *upper);
    if (!upper)
        return DBMCP_ENOMEM;
    g->upper = upper;
    g->cap = cap;
    return 0;
}

/* --- heaps of (distance, node) ------------------------------------------------ */

typedef struct cand {
    float d;
    int32_t node;
} cand;

/* A binary heap; max = 1: the largest distance on top, else the smallest. */
typedef struct cheap {
    cand *e;
    size_t n, cap;
    int max;
} cheap;

static inline int above(const cheap *h, const cand *a, const cand *b)
{
    return h->max ? a->d > b->d : a->d < b->d;
}

static int cheap_push(cheap *h, cand x)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        cand *e = realloc(h->e, cap * sizeof *e);
        if (!e)
            return DBMCP_ENOMEM;
        h->e = e;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!above(h, &x, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
    return 0;
}

static cand cheap_pop(cheap *h)
{
    assert(h->n > 0);
    cand top = h->e[0], x = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, b = i;
        const cand *best = &x;
        if (l < h->n && above(h, &h->e[l], best))
            b = l, best = &h->e[l];
        if (r < h->n && above(h, &h->e[r], best))
            b = r;
        if (b == i)
            break;
        h->e[i] = h->e[b];
        i = b;
    }
    if (h->n)
        h->e[i] = x;
    return top;
}

/* --- search on one layer ---------------------------------------------------------- */

typedef struct visit {
    uint64_t *bits;
} visit;

static inline int visit_test_set(visit *v, int32_t i)
{
    uint64_t bit = UINT64_C(1) << (i & 63);
    uint64_t *w = &v->bits[i >> 6];
    if (*w & bit)
        return 1;
    *w |= bit;
    return 0;
}

/* Which nodes may enter the result set: all (linking), or the live ones
 * passing the caller's filter (queries). */
typedef struct eligible {
    int queries; /* 0: every node */
    vec_filter_fn filter;
    void *ctx;
} eligible;

static inline int is_eligible(const hnsw *g, const eligible *el, int32_t i)
{
    if (!el->queries)
        return 1;
    if (g->removed[i])
        return 0;
    return !el->filter || el->filter(el->ctx, g->ids[i]);
}

/* Greedy walk on layer l from *cur towards q (layers above 0). */
static void greedy(const hnsw *g, const float *q, int l, int32_t *cur, float *curd)
{
    for (int changed = 1; changed;) {
        changed = 0;
        const int32_t *ln = links(g, *cur, l);
        for (int j = 1; j <= ln[0]; j++) {
            float d = dist(g, q, ln[j]);
            if (d < *curd) {
                *curd = d;
                *cur = ln[j];
                changed = 1;
            }
        }
    }
}

/* Best-first search on layer l from ep: the ef nearest eligible nodes into
 * w (a max-heap). Every node reached routes the search, eligible or not. */
static int search_layer(const hnsw *g, const float *q, int32_t ep, int ef, int l,
                        const eligible *el, visit *vis, cheap *w)
{
    cheap c = {NULL, 0, 0, 0};
    int rc = 0;
    float epd = dist(g, q, ep);
    visit_test_set(vis, ep);
    if ((rc = cheap_push(&c, (cand){epd, ep})))
        goto done;
    if (is_eligible(g, el, ep) && (rc = cheap_push(w, (cand){epd, ep})))
        goto done;
    while (c.n) {
        cand x = cheap_pop(&c);
        if (w->n >= (size_t)ef && x.d > w->e[0].d)
            break;
        const int32_t *ln = links(g, x.node, l);
        for (int j = 1; j <= ln[0]; j++) {
            int32_t e = ln[j];
            if (j < ln[0])
                __builtin_prefetch(node_vec(g, ln[j + 1]));
            if (visit_test_set(vis, e))
                continue;
            float d = dist(g, q, e);
            if (w->n >= (size_t)ef && d >= w->e[0].d)
                continue;
            if ((rc = cheap_push(&c, (cand){d, e})))
                goto done;
            if (!is_eligible(g, el, e))
                continue;
            if ((rc = cheap_push(w, (cand){d, e})))
                goto done;
            if (w->n > (size_t)ef)
                cheap_pop(w);
        }
    }
done:
    free(c.e);
    return rc;
}

static int cand_cmp(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

/* The heuristic: from cands (ascending) keep up to max, each closer to the
 * base than to every one kept before it. Writes the list [count, ...]. */
static void select_links(const hnsw *g, const cand *cands, size_t n, int max, int32_t *list)
{
    int kept = 0;
    for (size_t i = 0; i < n && kept < max; i++) {
        const float *v = node_vec(g, cands[i].node);
        int good = 1;
        for (int j = 1; j <= kept && good; j++)
            good = 1.0f - vec_dot(v, node_vec(g, list[j]), g->dim) >= cands[i].d;
        if (good)
            list[++kept] = cands[i].node;
    }
    list[0] = kept;
}

/* Link node nb back to node on layer l, re-selecting nb's list when full. */
static int link_back(hnsw *g, int32_t nb, int32_t node, int l)
{
    int32_t *ln = links(g, nb, l);
    int max = l == 0 ? g->m0 : g->m;
    if (ln[0] < max) {
        ln[++ln[0]] = node;
        return 0;
    }
    cand *cs = malloc((size_t)(max + 1) * sizeof *cs);
    if (!cs)
        return DBMCP_ENOMEM;
    const float *v = node_vec(g, nb);
    for (int j = 1; j <= ln[0]; j++)
        cs[j - 1] = (cand){1.0f - vec_dot(v, node_vec(g, ln[j]), g->dim), ln[j]};
    cs[max] = (cand){1.0f - vec_dot(v, node_vec(g, node), g->dim), node};
    qsort(cs, (size_t)max + 1, sizeof *cs, cand_cmp);
    select_links(g, cs, (size_t)max + 1, max, ln);
    free(cs);
    return 0;
}

/* Link the new node on layer l to the nearest of w (emptied). *next gets
 * the nearest, the entry for the layer below. */
static int link_layer(hnsw *g, int32_t node, int l, cheap *w, int32_t *next)
{
    size_t n = w->n;
    cand *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return DBMCP_ENOMEM;
    memcpy(sorted, w->e, n * sizeof *sorted);
    w->n = 0;
    qsort(sorted, n, sizeof *sorted, cand_cmp);
    if (n)
        *next = sorted[0].node;
    int32_t *ln = links(g, node, l);
    select_links(g, sorted, n, g->m, ln);
    free(sorted);
    for (int j = 1; j <= ln[0]; j++) {
        int rc = link_back(g, ln[j], node, l);
        if (rc)
            return rc;
    }
    return 0;
}

static int draw_level(hnsw *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    double u = ((double)(g->rng >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
    int l = (int)(-log(u) * g->level_mult);
    return l > HNSW_MAX_LEVEL ? HNSW_MAX_LEVEL : l;
}

/* Append the node's vector and empty lists; its index into *out. */
static int node_append(hnsw *g, int64_t id, const float *v, int level, int32_t *out)
{
    if (g->n == g->cap && grow(g))
        return DBMCP_ENOMEM;
    int32_t i = (int32_t)g->n;
    int32_t *up = NULL;
    if (level > 0 && !(up = calloc((size_t)level * (size_t)(g->m + 1), sizeof *up)))
        return DBMCP_ENOMEM;
    float *row = g->data + (size_t)i * (size_t)g->dim;
    memcpy(row, v, (size_t)g->dim * sizeof *row);
    if (vec_normalize(row, g->dim, NULL) != VEC_OK)
        memset(row, 0, (size_t)g->dim * sizeof *row); /* a zero vector stays zero */
    g->ids[i] = id;
    g->removed[i] = 0;
    g->levels[i] = (uint8_t)level;
    g->links0[(size_t)i * (size_t)(g->m0 + 1)] = 0;
    g->upper[i] = up;
    g->n++;
    *out = i;
    return 0;
}

int hnsw_add(hnsw *g, int64_t id, const float *v)
{
    if (vec_check(v, g->dim, NULL) != VEC_OK)
        return DBMCP_EINVAL;
    int level = draw_level(g);
    int32_t node;
    int rc = node_append(g, id, v, level, &node);
    if (rc)
        return rc;
    id_slot *old = map_find(&g->map, id);
    if (old) { /* a new vector for id: the old node is removed */
        g->removed[old->node] = 1;
        old->node = node;
    } else if ((rc = map_put(&g->map, id, node))) {
        g->n--;
        free(g->upper[node]);
        return rc;
    } else {
        g->live++;
    }
    if (g->entry < 0) {
        g->entry = node;
        g->max_level = level;
        return 0;
    }
    const float *q = node_vec(g, node);
    int32_t cur = g->entry;
    float curd = dist(g, q, cur);
    for (int l = g->max_level; l > level; l--)
        greedy(g, q, l, &cur, &curd);
    visit vis = {calloc((g->n + 63) / 64, sizeof(uint64_t))};
    cheap w = {NULL, 0, 0, 1};
    eligible all = {0, NULL, NULL};
    if (!vis.bits)
        rc = DBMCP_ENOMEM;
    int top = level < g->max_level ? level : g->max_level;
    for (int l = top; !rc && l >= 0; l--) {
        if (l < top) /* a fresh visited set per layer */
            memset(vis.bits, 0, (g->n + 63) / 64 * sizeof(uint64_t));
        rc = search_layer(g, q, cur, g->ef_construction, l, &all, &vis, &w);
        if (!rc)
            rc = link_layer(g, node, l, &w, &cur);
    }
    free(vis.bits);
    free(w.e);
    if (!rc && level > g->max_level) {
        g->entry = node;
        g->max_level = level;
    }
    /* On failure the node stays, linked on the layers done: it is still a
     * valid (if less connected) member of the graph. */
    return rc;
}

int hnsw_remove(hnsw *g, int64_t id)
{
    id_slot *s = map_find(&g->map, id);
    if (!s)
        return 0;
    g->removed[s->node] = 1;
    s->node = SLOT_GONE;
    g->live--;
    return 1;
}

static int hit_cmp(const void *pa, const void *pb)
{
    const vec_hit *a = pa, *b = pb;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

int hnsw_search(const hnsw *g, const float *q, int k, int ef, vec_filter_fn filter,
                void *filter_ctx, vec_hit *out)
{
    if (k < 1 || vec_check(q, g->dim, NULL) != VEC_OK)
        return DBMCP_EINVAL;
    if (g->entry < 0 || g->live == 0)
        return 0;
    float *qn = malloc((size_t)g->dim * sizeof *qn);
    visit vis = {calloc((g->n + 63) / 64, sizeof(uint64_t))};
    if (!qn || !vis.bits) {
        free(qn);
        free(vis.bits);
        return DBMCP_ENOMEM;
    }
    memcpy(qn, q, (size_t)g->dim * sizeof *qn);
    if (vec_normalize(qn, g->dim, NULL) != VEC_OK)
        memset(qn, 0, (size_t)g->dim * sizeof *qn);
    int32_t cur = g->entry;
    float curd = dist(g, qn, cur);
    for (int l = g->max_level; l > 0; l--)
        greedy(g, qn, l, &cur, &curd);
    cheap w = {NULL, 0, 0, 1};
    eligible el = {1, filter, filter_ctx};
    int rc = search_layer(g, qn, cur, ef > k ? ef : k, 0, &el, &vis, &w);
    int found = 0;
    if (!rc) {
        while (w.n > (size_t)k)
            cheap_pop(&w);
        for (size_t i = 0; i < w.n; i++)
            out[i] = (vec_hit){g->ids[w.e[i].node], w.e[i].d};
        found = (int)w.n;
        qsort(out, (size_t)found, sizeof *out, hit_cmp);
    }
    free(w.e);
    free(vis.bits);
    free(qn);
    return rc ? rc : found;
}
