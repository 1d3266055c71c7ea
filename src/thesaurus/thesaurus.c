/*
 * thesaurus.c — the thesaurus API over store/thesaurus.c: match keys,
 * resolving terms, query expansion, concept lookup, graph walks, shortest
 * paths and statistics. Text matching is in match.c, imports in import.c,
 * skos.c and mythes.c; the vocabulary's names and the _free functions of
 * the value types the store fills are in store/thesaurus_types.c.
 */
#include "thesaurus/thesaurus.h"

#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "thesaurus/internal.h"

/* Rows a graph walk may produce per requested node (paths, not nodes, are
 * enumerated; dense graphs need headroom), and the absolute bound. */
#define WALK_ROWS_PER_NODE 50
#define WALK_ROWS_MAX 50000
#define PATH_ROWS_MAX 200000

/* --- free functions ---------------------------------------------------------------- */

void thesaurus_graph_free(thesaurus_graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nnodes; i++)
        thesaurus_ref_free(&g->nodes[i].ref);
    free(g->nodes);
    free(g->edges);
    memset(g, 0, sizeof *g);
}

/* --- match keys -------------------------------------------------------------------- */

typedef struct key_builder {
    char *buf;
    size_t len, cap;
    int tokens;
    int oom;
} key_builder;

static int key_token(void *ctx, const char *token, size_t len, size_t start, size_t end,
                     int colocated)
{
    (void)start;
    (void)end;
    key_builder *k = ctx;
    if (colocated || len == 0)
        return 0;
    if (k->len + len + 2 > k->cap) {
        size_t ncap = (k->cap + len + 2) * 2;
        char *p = realloc(k->buf, ncap);
        if (!p) {
            k->oom = 1;
            return 1;
        }
        k->buf = p;
        k->cap = ncap;
    }
    if (k->len)
        k->buf[k->len++] = ' ';
    memcpy(k->buf + k->len, token, len);
    k->len += len;
    k->buf[k->len] = '\0';
    k->tokens++;
    return 0;
}

int thesaurus_key(const char *s, size_t n, char **key, int *ntokens)
{
    key_builder k = {0};
    text_tokenize(s, n, TEXT_LANG_NONE, key_token, &k);
    if (k.oom) {
        free(k.buf);
        return DBMCP_ENOMEM;
    }
    *key = k.buf ? k.buf : strdup("");
    if (!*key)
        return DBMCP_ENOMEM;
    if (ntokens)
        *ntokens = k.tokens;
    return 0;
}

int thesaurus_add_label(thesaurus_writer *w, int64_t concept, const char *lang,
                        thesaurus_label_kind kind, const char *label, thesaurus_import_stats *stats,
                        dbmcp_error *err)
{
    char *key;
    int ntokens = 0;
    if (thesaurus_key(label, strlen(label), &key, &ntokens))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = 0, added = 0;
    if (ntokens > 0 && strlen(label) <= THESAURUS_TERM_MAX)
        rc = thesaurus_writer_label(w, concept, lang, kind, label, key, ntokens, &added, err);
    else if (stats)
        stats->skipped++;
    free(key);
    if (!rc && added && stats)
        stats->labels++;
    return rc;
}

/* Check a term argument and compute its key; fills err naming `field`. */
static int term_key(const char *term, const char *field, char **key, dbmcp_error *err)
{
    *key = NULL;
    if (!term || !*term)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: must be a non-empty string", field);
    size_t n = strlen(term);
    if (n > THESAURUS_TERM_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "%s: longer than %d bytes", field,
                               THESAURUS_TERM_MAX);
    if (thesaurus_key(term, n, key, NULL))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return 0;
}

/* --- lookups ------------------------------------------------------------------------- */

int thesaurus_resolve(store *db, const char *term, const char *lang, int max, thesaurus_refs *out,
                      dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    char *key;
    int rc = term_key(term, "term", &key, err);
    if (rc)
        return rc;
    rc = thesaurus_db_resolve(db, term, key, lang, max > 0 ? max : 50, out, err);
    free(key);
    return rc;
}

int thesaurus_concept_get(store *db, int64_t id, const char *lang, thesaurus_concept *out,
                          dbmcp_error *err)
{
    return thesaurus_db_concept(db, id, lang, out, err);
}

int thesaurus_expand(store *db, const char *term, const char *lang, thesaurus_strings *out,
                     dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    char *key;
    int rc = term_key(term, "term", &key, err);
    if (rc)
        return rc;
    thesaurus_strings labels, norms;
    rc = *key ? thesaurus_db_expand(db, key, lang, THESAURUS_EXPAND_MAX * 8, &labels, &norms, err)
              : 0;
    if (rc || !*key) {
        free(key);
        return rc;
    }
    size_t cap = 0;
    for (size_t i = 0; i < labels.count && out->count < THESAURUS_EXPAND_MAX; i++) {
        int seen = strcmp(norms.items[i], key) == 0;
        for (size_t j = 0; !seen && j < i; j++)
            seen = strcmp(norms.items[j], norms.items[i]) == 0;
        if (seen)
            continue;
        if (out->count == cap) {
            cap = cap ? cap * 2 : 16;
            char **p = realloc(out->items, cap * sizeof *p);
            if (!p) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            out->items = p;
        }
        out->items[out->count++] = labels.items[i];
        labels.items[i] = NULL;
    }
    thesaurus_strings_free(&labels);
    thesaurus_strings_free(&norms);
    free(key);
    if (rc)
        thesaurus_strings_free(out);
    return rc;
}

/* --- graph ---------------------------------------------------------------------------- */

static int node_cmp(const void *a, const void *b)
{
    const thesaurus_graph_node *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return (x->ref.id > y->ref.id) - (x->ref.id < y->ref.id);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Walk rows by concept, then depth, then order of appearance. */
static int row_by_id_cmp(const void *a, const void *b)
{
    const thesaurus_walk_row *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

static int graph_nodes_from_rows(thesaurus_graph *g, const thesaurus_walk_row *rows, size_t n,
                                 int limit)
{
    thesaurus_walk_row *sorted = malloc((n ? n : 1) * sizeof *sorted);
    g->nodes = calloc(n ? n : 1, sizeof *g->nodes);
    if (!sorted || !g->nodes) {
        free(sorted);
        return DBMCP_ENOMEM;
    }
    memcpy(sorted, rows, n * sizeof *rows);
    qsort(sorted, n, sizeof *sorted, row_by_id_cmp);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || sorted[i].id != sorted[i - 1].id) {
            g->nodes[g->nnodes].ref.id = sorted[i].id;
            g->nodes[g->nnodes++].depth = sorted[i].depth; /* the smallest */
        }
    free(sorted);
    qsort(g->nodes, g->nnodes, sizeof *g->nodes, node_cmp);
    if (g->nnodes > (size_t)limit) {
        g->nnodes = (size_t)limit;
        g->truncated = 1;
    }
    return 0;
}

static const thesaurus_relation inverse_of[] = {THESAURUS_NARROWER, THESAURUS_BROADER,
                                                THESAURUS_RELATED};

/* An edge candidate: the edge as walked and a key shared with its
 * materialised inverse twin (narrower as reversed broader, related
 * ordered), so both collapse into one. */
typedef struct edge_candidate {
    int64_t a, b;
    int kind;
    size_t row; /* first appearance wins */
    thesaurus_graph_edge edge;
} edge_candidate;

static int edge_candidate_cmp(const void *x, const void *y)
{
    const edge_candidate *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    if (p->kind != q->kind)
        return p->kind - q->kind;
    return (p->row > q->row) - (p->row < q->row);
}

static int edge_output_cmp(const void *x, const void *y)
{
    const thesaurus_graph_edge *p = x, *q = y;
    if (p->depth != q->depth)
        return p->depth - q->depth;
    if (p->from != q->from)
        return p->from < q->from ? -1 : 1;
    return (p->to > q->to) - (p->to < q->to);
}

static edge_candidate edge_key(const thesaurus_walk_row *r, size_t row)
{
    edge_candidate c = {r->from, r->to, r->kind, row, {r->from, r->to, r->kind, r->depth}};
    if (r->kind == THESAURUS_NARROWER || (r->kind == THESAURUS_RELATED && r->from > r->to)) {
        c.a = r->to;
        c.b = r->from;
        c.kind = inverse_of[r->kind];
    }
    return c;
}

static int graph_edges_from_rows(thesaurus_graph *g, const thesaurus_walk_row *rows, size_t n)
{
    int64_t *ids = malloc((g->nnodes ? g->nnodes : 1) * sizeof *ids);
    edge_candidate *c = malloc((n ? n : 1) * sizeof *c);
    g->edges = calloc(n ? n : 1, sizeof *g->edges);
    if (!ids || !c || !g->edges) {
        free(ids);
        free(c);
        return DBMCP_ENOMEM;
    }
    for (size_t i = 0; i < g->nnodes; i++)
        ids[i] = g->nodes[i].ref.id;
    qsort(ids, g->nnodes, sizeof *ids, cmp_id);
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        const thesaurus_walk_row *r = &rows[i];
        if (r->depth == 0 || !bsearch(&r->id, ids, g->nnodes, sizeof *ids, cmp_id) ||
            !bsearch(&r->parent, ids, g->nnodes, sizeof *ids, cmp_id))
            continue;
        c[nc++] = edge_key(r, i);
    }
    qsort(c, nc, sizeof *c, edge_candidate_cmp);
    for (size_t i = 0; i < nc; i++)
        if (i == 0 || c[i].a != c[i - 1].a || c[i].b != c[i - 1].b || c[i].kind != c[i - 1].kind)
            g->edges[g->nedges++] = c[i].edge;
    qsort(g->edges, g->nedges, sizeof *g->edges, edge_output_cmp);
    free(ids);
    free(c);
    return 0;
}

static int graph_fill_refs(store *db, thesaurus_graph *g, const char *lang, dbmcp_error *err)
{
    for (size_t i = 0; i < g->nnodes; i++) {
        int64_t id = g->nodes[i].ref.id;
        int rc = thesaurus_db_ref(db, id, lang, &g->nodes[i].ref, err);
        if (rc) {
            g->nodes[i].ref.id = id;
            return rc;
        }
    }
    return 0;
}

int thesaurus_graph_walk(store *db, const thesaurus_graph_query *q, thesaurus_graph *out,
                         dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (q->depth < 1 || q->depth > THESAURUS_GRAPH_DEPTH_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "depth: must be between 1 and %d",
                               THESAURUS_GRAPH_DEPTH_MAX);
    if (q->limit < 1 || q->limit > THESAURUS_GRAPH_LIMIT_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "limit: must be between 1 and %d",
                               THESAURUS_GRAPH_LIMIT_MAX);
    if (q->relation < THESAURUS_ANY || q->relation > THESAURUS_RELATED)
        return dbmcp_error_set(err, DBMCP_EINVAL, "relation: unknown relation");
    thesaurus_ref probe;
    int rc = thesaurus_db_ref(db, q->start, q->lang, &probe, err);
    if (rc)
        return rc;
    thesaurus_ref_free(&probe);
    int cap = q->limit * WALK_ROWS_PER_NODE;
    if (cap > WALK_ROWS_MAX)
        cap = WALK_ROWS_MAX;
    thesaurus_walk_row *rows;
    size_t n;
    int capped;
    rc = thesaurus_db_walk(db, q->start, q->relation, q->direction, q->depth, cap, &rows, &n,
                           &capped, err);
    if (rc)
        return rc;
    rc = graph_nodes_from_rows(out, rows, n, q->limit);
    if (!rc)
        rc = graph_edges_from_rows(out, rows, n);
    free(rows);
    if (rc) {
        thesaurus_graph_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    out->truncated |= capped;
    rc = graph_fill_refs(db, out, q->lang, err);
    if (rc)
        thesaurus_graph_free(out);
    return rc;
}

/* Fill ids[0..len] with a shortest path from -> to of exactly len steps
 * (known to exist): split at the middle concept, recursively. */
static int path_fill(store *db, int64_t from, int64_t to, int len, int64_t *ids,
                     thesaurus_relation *kinds, dbmcp_error *err)
{
    ids[0] = from;
    ids[len] = to;
    if (len == 0)
        return 0;
    if (len == 1)
        return thesaurus_db_edge(db, from, to, &kinds[0], err);
    int half = (len + 1) / 2;
    int64_t mid;
    int found, capped;
    int rc = thesaurus_db_meet(db, from, to, half, len - half, 1, PATH_ROWS_MAX, &mid, &found,
                               &capped, err);
    if (!rc && found != len)
        rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "path of %d steps lost its middle", len);
    if (!rc)
        rc = path_fill(db, from, mid, half, ids, kinds, err);
    if (!rc)
        rc = path_fill(db, mid, to, len - half, ids + half, kinds + half, err);
    return rc;
}

int thesaurus_path(store *db, int64_t from, int64_t to, int max_depth, const char *lang,
                   thesaurus_graph *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (max_depth < 1 || max_depth > THESAURUS_PATH_DEPTH_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "max_depth: must be between 1 and %d",
                               THESAURUS_PATH_DEPTH_MAX);
    int64_t mid;
    int len, capped;
    int half = (max_depth + 1) / 2;
    int rc = thesaurus_db_meet(db, from, to, half, max_depth - half, 0, PATH_ROWS_MAX, &mid, &len,
                               &capped, err);
    if (rc)
        return rc;
    if (len < 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no path of at most %d steps%s", max_depth,
                               capped ? " (the search reached its size limit)" : "");
    int64_t ids[THESAURUS_PATH_DEPTH_MAX + 1];
    thesaurus_relation kinds[THESAURUS_PATH_DEPTH_MAX];
    rc = path_fill(db, from, to, len, ids, kinds, err);
    if (rc)
        return rc;
    size_t n = (size_t)len + 1;
    out->nodes = calloc(n, sizeof *out->nodes);
    out->edges = calloc(n, sizeof *out->edges);
    if (!out->nodes || !out->edges) {
        thesaurus_graph_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        out->nodes[i].ref.id = ids[i];
        out->nodes[i].depth = (int)i;
        if (i + 1 < n)
            out->edges[i] = (thesaurus_graph_edge){ids[i], ids[i + 1], kinds[i], (int)i + 1};
    }
    out->nnodes = n;
    out->nedges = n - 1;
    rc = graph_fill_refs(db, out, lang, err);
    if (rc)
        thesaurus_graph_free(out);
    return rc;
}

int thesaurus_stats_get(store *db, thesaurus_stats *out, dbmcp_error *err)
{
    return thesaurus_db_stats(db, out, err);
}
