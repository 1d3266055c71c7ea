/*
 * store/thesaurus.c — SQL of the thesaurus: the import writer, lookups,
 * expansion rows, label prefixes for text matching, recursive walks and
 * shortest paths; see store/thesaurus.h. The statements are ones SQLite
 * and PostgreSQL both accept; only LIMIT inside a recursion differs
 * (DIALECT_RECURSIVE_LIMIT).
 *
 * Graph walks are recursive CTEs whose rows carry the visited path as
 * text ("/12/40/7/"), so a row never extends to a node already on its own
 * path: cycles end, and LIMIT bounds the work on dense graphs (inside the
 * recursion where the engine allows it: DIALECT_RECURSIVE_LIMIT). SQLite's
 * recursive queue is FIFO, so rows come out breadth first.
 */
#include "store/thesaurus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "store/dialect.h"
#include "store/registry_internal.h"

/* The display label of concept <idcol> in :lang: pref labels first, then
 * the language asked for, then untagged, then by language and id. */
#define PREF_LABEL_SQL(idcol)                                                                      \
    "(SELECT pl.label FROM dbmcp_thesaurus_labels pl WHERE pl.concept_id = " idcol                 \
    " ORDER BY pl.kind <> 'pref', pl.lang <> coalesce(:lang, pl.lang), pl.lang <> '',"             \
    " pl.lang, pl.id LIMIT 1)"

static const char *kind_names[] = {"broader", "narrower", "related"};

static int step_done(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err);
    store_reset(st);
    return rc < 0 ? rc : 0;
}

static thesaurus_relation relation_from_text(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, kind_names[i]) == 0)
            return (thesaurus_relation)i;
    return THESAURUS_RELATED;
}

static thesaurus_label_kind label_kind_from_text(const char *s)
{
    if (s && strcmp(s, "pref") == 0)
        return THESAURUS_PREF;
    if (s && strcmp(s, "alt") == 0)
        return THESAURUS_ALT;
    return THESAURUS_HIDDEN;
}

static char *col_dup(store_stmt *st, int i)
{
    char *s = registry_col_strdup(st, i);
    return s ? s : strdup("");
}

/* The last segment of a URI (after '#', '/' or ':'), as a fallback name. */
static char *uri_tail(const char *uri)
{
    const char *p = uri + strlen(uri);
    while (p > uri && p[-1] != '#' && p[-1] != '/' && p[-1] != ':')
        p--;
    return strdup(*p ? p : uri);
}

/* Fill ref from columns (id, uri, pref label) starting at column c. */
static void fill_ref(store_stmt *st, int c, thesaurus_ref *ref)
{
    ref->id = store_column_int(st, c);
    ref->uri = col_dup(st, c + 1);
    const char *pref = store_column_text(st, c + 2);
    ref->pref_label = pref ? strdup(pref) : uri_tail(ref->uri);
}

/* --- writer ------------------------------------------------------------------- */

struct thesaurus_writer {
    store *db;
    int64_t scheme;
    store_stmt *find_concept, *insert_concept, *move_concept;
    store_stmt *label, *note, *relation, *inverse, *find_label;
};

void thesaurus_writer_close(thesaurus_writer *w)
{
    if (!w)
        return;
    store_finalize(w->find_concept);
    store_finalize(w->insert_concept);
    store_finalize(w->move_concept);
    store_finalize(w->label);
    store_finalize(w->note);
    store_finalize(w->relation);
    store_finalize(w->inverse);
    store_finalize(w->find_label);
    free(w);
}

static int writer_prepare(thesaurus_writer *w, dbmcp_error *err)
{
    struct {
        store_stmt **slot;
        const char *sql;
    } stmts[] = {
        {&w->find_concept, "SELECT id, scheme_id FROM dbmcp_thesaurus_concepts WHERE uri = :uri"},
        {&w->insert_concept, "INSERT INTO dbmcp_thesaurus_concepts (scheme_id, uri)"
                             " VALUES (:scheme, :uri) RETURNING id"},
        {&w->move_concept,
         "UPDATE dbmcp_thesaurus_concepts SET scheme_id = :scheme WHERE id = :id"},
        {&w->label, "INSERT INTO dbmcp_thesaurus_labels (concept_id, lang, kind, label, norm,"
                    " ntokens) VALUES (:c, :lang, :kind, :label, :norm, :n)"
                    " ON CONFLICT (concept_id, lang, kind, label) DO NOTHING"},
        {&w->note, "INSERT INTO dbmcp_thesaurus_notes (concept_id, kind, lang, text)"
                   " VALUES (:c, :kind, :lang, :text) ON CONFLICT DO NOTHING"},
        {&w->relation, "INSERT INTO dbmcp_thesaurus_relations (from_id, kind, to_id, asserted)"
                       " VALUES (:f, :k, :t, 1) ON CONFLICT (from_id, kind, to_id)"
                       " DO UPDATE SET asserted = 1"
                       " WHERE dbmcp_thesaurus_relations.asserted = 0"},
        {&w->inverse, "INSERT INTO dbmcp_thesaurus_relations (from_id, kind, to_id, asserted)"
                      " VALUES (:f, :k, :t, 0) ON CONFLICT DO NOTHING"},
        {&w->find_label, "SELECT l.concept_id FROM dbmcp_thesaurus_labels l"
                         " JOIN dbmcp_thesaurus_concepts c ON c.id = l.concept_id"
                         " WHERE l.norm = :norm AND c.scheme_id = :scheme"
                         " ORDER BY l.kind <> 'pref', l.concept_id LIMIT 1"},
    };
    for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++) {
        int rc = store_prepare(w->db, stmts[i].sql, stmts[i].slot, err);
        if (rc)
            return rc;
    }
    return 0;
}

int thesaurus_writer_open(store *db, const char *name, const char *uri, const char *title,
                          const char *source, const char *format, thesaurus_writer **out,
                          dbmcp_error *err)
{
    *out = NULL;
    thesaurus_writer *w = calloc(1, sizeof *w);
    if (!w)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    w->db = db;
    store_stmt *st = NULL;
    int rc = store_prepare(db, "DELETE FROM dbmcp_thesaurus_schemes WHERE name = :name", &st, err);
    if (!rc) {
        store_bind_text(st, ":name", name);
        rc = step_done(st, err);
        store_finalize(st);
    }
    if (!rc)
        rc = store_prepare(db,
                           "INSERT INTO dbmcp_thesaurus_schemes (name, uri, title, source, format,"
                           " imported_at) VALUES (:name, :uri, :title, :source, :format, :now)"
                           " RETURNING id",
                           &st, err);
    if (!rc) {
        store_bind_text(st, ":name", name);
        store_bind_text(st, ":uri", uri ? uri : "");
        store_bind_text(st, ":title", title ? title : "");
        store_bind_text(st, ":source", source ? source : "");
        store_bind_text(st, ":format", format);
        char now[32];
        ids_now_iso(now);
        store_bind_text(st, ":now", now);
        rc = store_step(st, err);
        if (rc == STORE_ROW) {
            w->scheme = store_column_int(st, 0);
            rc = 0;
        } else if (rc == STORE_DONE) {
            rc = dbmcp_error_set(err, DBMCP_EINTERNAL, "scheme insert returned no id");
        }
        store_finalize(st);
    }
    if (!rc)
        rc = writer_prepare(w, err);
    if (rc) {
        thesaurus_writer_close(w);
        return rc;
    }
    *out = w;
    return 0;
}

int thesaurus_writer_scheme_meta(thesaurus_writer *w, const char *uri, const char *title,
                                 dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(w->db,
                           "UPDATE dbmcp_thesaurus_schemes SET uri = coalesce(:uri, uri),"
                           " title = coalesce(:title, title) WHERE id = :id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":uri", uri);
    store_bind_text(st, ":title", title);
    store_bind_int(st, ":id", w->scheme);
    rc = step_done(st, err);
    store_finalize(st);
    return rc;
}

int thesaurus_writer_concept(thesaurus_writer *w, const char *uri, int64_t *id, int *created,
                             dbmcp_error *err)
{
    if (created)
        *created = 0;
    store_bind_text(w->find_concept, ":uri", uri);
    int rc = store_step(w->find_concept, err);
    if (rc == STORE_ROW) {
        *id = store_column_int(w->find_concept, 0);
        int64_t scheme = store_column_int(w->find_concept, 1);
        store_reset(w->find_concept);
        if (scheme == w->scheme)
            return 0;
        store_bind_int(w->move_concept, ":scheme", w->scheme);
        store_bind_int(w->move_concept, ":id", *id);
        int moved = step_done(w->move_concept, err);
        if (!moved && created)
            *created = 1;
        return moved;
    }
    store_reset(w->find_concept);
    if (rc < 0)
        return rc;
    store_bind_int(w->insert_concept, ":scheme", w->scheme);
    store_bind_text(w->insert_concept, ":uri", uri);
    rc = store_step(w->insert_concept, err);
    if (rc == STORE_ROW)
        *id = store_column_int(w->insert_concept, 0);
    store_reset(w->insert_concept);
    if (rc < 0)
        return rc;
    if (rc != STORE_ROW)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "concept insert returned no id");
    if (created)
        *created = 1;
    return 0;
}

int thesaurus_writer_label(thesaurus_writer *w, int64_t concept, const char *lang,
                           thesaurus_label_kind kind, const char *label, const char *norm,
                           int ntokens, int *added, dbmcp_error *err)
{
    store_stmt *st = w->label;
    store_bind_int(st, ":c", concept);
    store_bind_text(st, ":lang", lang ? lang : "");
    store_bind_text(st, ":kind", thesaurus_label_kind_name(kind));
    store_bind_text(st, ":label", label);
    store_bind_text(st, ":norm", norm);
    store_bind_int(st, ":n", ntokens);
    int rc = step_done(st, err);
    if (added)
        *added = !rc && store_changes(w->db) > 0;
    return rc;
}

int thesaurus_writer_note(thesaurus_writer *w, int64_t concept, const char *kind, const char *lang,
                          const char *text, dbmcp_error *err)
{
    store_stmt *st = w->note;
    store_bind_int(st, ":c", concept);
    store_bind_text(st, ":kind", kind);
    store_bind_text(st, ":lang", lang ? lang : "");
    store_bind_text(st, ":text", text);
    return step_done(st, err);
}

int thesaurus_writer_relation(thesaurus_writer *w, int64_t from, thesaurus_relation kind,
                              int64_t to, int *added, dbmcp_error *err)
{
    if (added)
        *added = 0;
    if (from == to || kind < THESAURUS_BROADER || kind > THESAURUS_RELATED)
        return 0;
    static const thesaurus_relation inverse[] = {THESAURUS_NARROWER, THESAURUS_BROADER,
                                                 THESAURUS_RELATED};
    store_bind_int(w->relation, ":f", from);
    store_bind_text(w->relation, ":k", kind_names[kind]);
    store_bind_int(w->relation, ":t", to);
    int rc = step_done(w->relation, err);
    if (rc)
        return rc;
    if (added)
        *added = store_changes(w->db) > 0;
    store_bind_int(w->inverse, ":f", to);
    store_bind_text(w->inverse, ":k", kind_names[inverse[kind]]);
    store_bind_int(w->inverse, ":t", from);
    return step_done(w->inverse, err);
}

int thesaurus_writer_find(thesaurus_writer *w, const char *norm, int64_t *id, dbmcp_error *err)
{
    *id = 0;
    store_bind_text(w->find_label, ":norm", norm);
    store_bind_int(w->find_label, ":scheme", w->scheme);
    int rc = store_step(w->find_label, err);
    if (rc == STORE_ROW)
        *id = store_column_int(w->find_label, 0);
    store_reset(w->find_label);
    return rc < 0 ? rc : 0;
}

/* --- reads ------------------------------------------------------------------------ */

static int refs_push(thesaurus_refs *out, size_t *cap, store_stmt *st, dbmcp_error *err)
{
    thesaurus_ref *r = registry_grow((void **)&out->items, &out->count, cap, sizeof *r);
    if (!r)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    fill_ref(st, 0, r);
    r->exact = (int)store_column_int(st, 3);
    return 0;
}

int thesaurus_db_resolve(store *db, const char *term, const char *norm, const char *lang, int max,
                         thesaurus_refs *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(
        db,
        "SELECT * FROM (SELECT c.id, c.uri, " PREF_LABEL_SQL(
            "c.id") ","
                    " CASE WHEN c.uri = :term OR EXISTS (SELECT 1 FROM dbmcp_thesaurus_labels x"
                    " WHERE x.concept_id = c.id AND x.norm = :norm AND x.kind = 'pref') THEN 1 "
                    "ELSE 0 END"
                    " AS exact FROM dbmcp_thesaurus_concepts c"
                    " WHERE c.uri = :term OR (NOT EXISTS (SELECT 1 FROM dbmcp_thesaurus_concepts u"
                    " WHERE u.uri = :term) AND c.id IN (SELECT concept_id FROM "
                    "dbmcp_thesaurus_labels"
                    " WHERE norm = :norm))) AS found ORDER BY exact DESC, id LIMIT :max",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":term", term);
    store_bind_text(st, ":norm", norm ? norm : "");
    store_bind_text(st, ":lang", lang);
    store_bind_int(st, ":max", max);
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW)
        if ((rc = refs_push(out, &cap, st, err)) != 0)
            break;
    store_finalize(st);
    if (rc < 0) {
        thesaurus_refs_free(out);
        return rc;
    }
    return 0;
}

int thesaurus_db_ref(store *db, int64_t id, const char *lang, thesaurus_ref *ref, dbmcp_error *err)
{
    memset(ref, 0, sizeof *ref);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT c.id, c.uri, " PREF_LABEL_SQL(
                               "c.id") " FROM dbmcp_thesaurus_concepts c WHERE c.id = :id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", id);
    store_bind_text(st, ":lang", lang);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        fill_ref(st, 0, ref);
    store_finalize(st);
    if (rc == STORE_DONE)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "concept %lld not found", (long long)id);
    return rc < 0 ? rc : 0;
}

/* Run sql with :id and :lang bound, filling one new slot of *arr per row. */
static int collect_rows(store *db, const char *sql, int64_t id, const char *lang,
                        registry_row_fill_fn fill, size_t elem_size, void **arr, size_t *n,
                        dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", id);
    store_bind_text(st, ":lang", lang);
    return registry_collect_stmt(st, fill, elem_size, arr, n, err);
}

static void fill_label(store_stmt *st, void *slot)
{
    thesaurus_label *l = slot;
    l->label = col_dup(st, 0);
    l->lang = col_dup(st, 1);
    l->kind = label_kind_from_text(store_column_text(st, 2));
}

static void fill_note(store_stmt *st, void *slot)
{
    thesaurus_note *n = slot;
    n->kind = col_dup(st, 0);
    n->lang = col_dup(st, 1);
    n->text = col_dup(st, 2);
}

static void fill_edge(store_stmt *st, void *slot)
{
    thesaurus_edge_ref *e = slot;
    e->kind = relation_from_text(store_column_text(st, 0));
    fill_ref(st, 1, &e->target);
}

static int concept_details(store *db, int64_t id, const char *lang, thesaurus_concept *c,
                           dbmcp_error *err)
{
    int rc = collect_rows(db,
                          "SELECT label, lang, kind FROM dbmcp_thesaurus_labels"
                          " WHERE concept_id = :id"
                          " AND (CAST(:lang AS TEXT) IS NULL OR lang = :lang OR lang = '')"
                          " ORDER BY CASE kind WHEN 'pref' THEN 0 WHEN 'alt' THEN 1 ELSE 2 END,"
                          " lang, id",
                          id, lang, fill_label, sizeof *c->labels, (void **)&c->labels, &c->nlabels,
                          err);
    if (!rc)
        rc = collect_rows(
            db,
            "SELECT kind, lang, text FROM dbmcp_thesaurus_notes WHERE concept_id = :id"
            " AND (CAST(:lang AS TEXT) IS NULL OR lang = :lang OR lang = '')"
            " ORDER BY kind, lang, text",
            id, lang, fill_note, sizeof *c->notes, (void **)&c->notes, &c->nnotes, err);
    if (!rc)
        rc = collect_rows(db,
                          "SELECT r.kind, t.id, t.uri, " PREF_LABEL_SQL(
                              "t.id") " FROM dbmcp_thesaurus_relations r"
                                      " JOIN dbmcp_thesaurus_concepts t ON t.id = r.to_id"
                                      " WHERE r.from_id = :id ORDER BY"
                                      " CASE r.kind WHEN 'broader' THEN 0 WHEN 'narrower'"
                                      " THEN 1 ELSE 2 END, t.id LIMIT 1000",
                          id, lang, fill_edge, sizeof *c->edges, (void **)&c->edges, &c->nedges,
                          err);
    return rc;
}

int thesaurus_db_concept(store *db, int64_t id, const char *lang, thesaurus_concept *out,
                         dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT c.id, c.uri, " PREF_LABEL_SQL(
                               "c.id") ", s.name FROM dbmcp_thesaurus_concepts c"
                                       " JOIN dbmcp_thesaurus_schemes s ON s.id = c.scheme_id"
                                       " WHERE c.id = :id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", id);
    store_bind_text(st, ":lang", lang);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        fill_ref(st, 0, &out->ref);
        out->scheme = col_dup(st, 3);
    }
    store_finalize(st);
    if (rc == STORE_DONE)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "concept %lld not found", (long long)id);
    if (rc < 0)
        return rc;
    rc = concept_details(db, id, lang, out, err);
    if (rc)
        thesaurus_concept_free(out);
    return rc;
}

static int strings_push(thesaurus_strings *s, size_t *cap, const char *v)
{
    char **slot = registry_grow((void **)&s->items, &s->count, cap, sizeof *slot);
    if (!slot)
        return DBMCP_ENOMEM;
    *slot = strdup(v ? v : "");
    return *slot ? 0 : DBMCP_ENOMEM;
}

int thesaurus_db_expand(store *db, const char *norm, const char *lang, int max,
                        thesaurus_strings *labels, thesaurus_strings *norms, dbmcp_error *err)
{
    memset(labels, 0, sizeof *labels);
    memset(norms, 0, sizeof *norms);
    store_stmt *st;
    int rc = store_prepare(
        db,
        "WITH RECURSIVE down(id, depth) AS ("
        " SELECT DISTINCT concept_id, 0 FROM dbmcp_thesaurus_labels WHERE norm = :norm"
        " UNION"
        " SELECT r.to_id, d.depth + 1 FROM down d JOIN dbmcp_thesaurus_relations r"
        " ON r.from_id = d.id AND r.kind = 'narrower' WHERE d.depth < 2)"
        " SELECT l.label, l.norm FROM (SELECT id, min(depth) AS depth FROM down GROUP BY id) d"
        " JOIN dbmcp_thesaurus_labels l ON l.concept_id = d.id"
        " WHERE CAST(:lang AS TEXT) IS NULL OR l.lang = :lang OR l.lang = ''"
        " ORDER BY d.depth, CASE l.kind WHEN 'pref' THEN 0 WHEN 'alt' THEN 1 ELSE 2 END,"
        " d.id, l.id LIMIT :max",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":norm", norm);
    store_bind_text(st, ":lang", lang);
    store_bind_int(st, ":max", max);
    size_t cap1 = 0, cap2 = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (strings_push(labels, &cap1, store_column_text(st, 0)) ||
            strings_push(norms, &cap2, store_column_text(st, 1))) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
    }
    store_finalize(st);
    if (rc < 0) {
        thesaurus_strings_free(labels);
        thesaurus_strings_free(norms);
        return rc;
    }
    return 0;
}

struct thesaurus_probe {
    store_stmt *exact, *longer, *labels;
};

void thesaurus_probe_close(thesaurus_probe *p)
{
    if (!p)
        return;
    store_finalize(p->exact);
    store_finalize(p->longer);
    store_finalize(p->labels);
    free(p);
}

int thesaurus_probe_open(store *db, thesaurus_probe **out, dbmcp_error *err)
{
    *out = NULL;
    thesaurus_probe *p = calloc(1, sizeof *p);
    if (!p)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = store_prepare(db, "SELECT 1 FROM dbmcp_thesaurus_labels WHERE norm = :k LIMIT 1",
                           &p->exact, err);
    /* Keys hold no bytes below ' ', and '!' sorts right after ' ': the
     * range [key " ", key "!") is every key continuing key by a word. */
    if (!rc)
        rc = store_prepare(db,
                           "SELECT 1 FROM dbmcp_thesaurus_labels WHERE norm >= :k || ' '"
                           " AND norm < :k || '!' LIMIT 1",
                           &p->longer, err);
    if (!rc)
        rc = store_prepare(
            db,
            "SELECT l.concept_id, c.uri, l.label, l.lang,"
            " coalesce((SELECT pl.label FROM dbmcp_thesaurus_labels pl"
            "  WHERE pl.concept_id = l.concept_id AND pl.kind = 'pref' AND pl.lang = l.lang"
            "  ORDER BY pl.label LIMIT 1),"
            "  (SELECT pl.label FROM dbmcp_thesaurus_labels pl WHERE pl.concept_id = l.concept_id"
            "  AND pl.kind = 'pref' ORDER BY pl.lang, pl.id LIMIT 1), l.label)"
            " FROM dbmcp_thesaurus_labels l JOIN dbmcp_thesaurus_concepts c ON c.id = l.concept_id"
            " WHERE l.norm = :k ORDER BY l.concept_id, l.kind <> 'pref', l.id",
            &p->labels, err);
    if (rc) {
        thesaurus_probe_close(p);
        return rc;
    }
    *out = p;
    return 0;
}

static int probe_exists(store_stmt *st, const char *key, int *out, dbmcp_error *err)
{
    store_bind_text(st, ":k", key);
    int rc = store_step(st, err);
    store_reset(st);
    *out = rc == STORE_ROW;
    return rc < 0 ? rc : 0;
}

int thesaurus_probe_key(thesaurus_probe *p, const char *key, int *exact, int *longer,
                        dbmcp_error *err)
{
    int rc = probe_exists(p->exact, key, exact, err);
    return rc ? rc : probe_exists(p->longer, key, longer, err);
}

int thesaurus_probe_labels(thesaurus_probe *p, const char *key, thesaurus_probe_fn fn, void *ctx,
                           dbmcp_error *err)
{
    store_stmt *st = p->labels;
    store_bind_text(st, ":k", key);
    int rc;
    while ((rc = store_step(st, err)) == STORE_ROW)
        if (fn(ctx, store_column_int(st, 0), store_column_text(st, 1), store_column_text(st, 2),
               store_column_text(st, 3), store_column_text(st, 4))) {
            rc = 0;
            break;
        }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

/* The concept an edge r leads to from w.id, walked in direction dir (in
 * both directions: the end that is not w.id, as edges never join a
 * concept to itself). */
#define WALK_NEXT_OUT "r.to_id"
#define WALK_NEXT_IN "r.from_id"
#define WALK_NEXT_BOTH "(CASE WHEN r.from_id = w.id THEN r.to_id ELSE r.from_id END)"

/* The recursive term following edges out of, into or both ways from the
 * walk's frontier: one term, as PostgreSQL allows only one recursive
 * reference. cyc is 1 when the row reached a concept already on its path
 * (the path holds only digits and '/', so LIKE sees no wildcard in it). */
#define WALK_TERM(next, join)                                                                      \
    " SELECT " next ", w.id, r.from_id, r.kind, r.to_id, w.depth + 1,"                             \
    " w.path || CAST(" next " AS TEXT) || '/',"                                                    \
    " CASE WHEN w.path LIKE ('%/' || CAST(" next " AS TEXT) || '/%') THEN 1 ELSE 0 END"            \
    " FROM walk w JOIN dbmcp_thesaurus_relations r ON " join                                       \
    " WHERE w.depth < :depth AND w.cyc = 0 AND (CAST(:kind AS TEXT) IS NULL OR r.kind = :kind)"

static const char *walk_term(thesaurus_direction dir)
{
    switch (dir) {
    case THESAURUS_IN: return WALK_TERM(WALK_NEXT_IN, "r.to_id = w.id");
    case THESAURUS_BOTH: return WALK_TERM(WALK_NEXT_BOTH, "(r.from_id = w.id OR r.to_id = w.id)");
    case THESAURUS_OUT:
    default: return WALK_TERM(WALK_NEXT_OUT, "r.from_id = w.id");
    }
}

int thesaurus_db_walk(store *db, int64_t start, thesaurus_relation rel, thesaurus_direction dir,
                      int depth, int cap, thesaurus_walk_row **rows, size_t *n, int *capped,
                      dbmcp_error *err)
{
    *rows = NULL;
    *n = 0;
    *capped = 0;
    /* The anchor's columns are typed for engines that type a recursive CTE
     * by its first SELECT. */
    char limit[64], sql[3072];
    int rc = dialect_format(db, DIALECT_RECURSIVE_LIMIT, limit, sizeof limit, err, ":cap");
    if (rc)
        return rc;
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE walk(id, parent, f, k, t, depth, path, cyc) AS ("
             " SELECT CAST(:start AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS BIGINT),"
             " CAST(NULL AS TEXT), CAST(NULL AS BIGINT), 0, '/' || CAST(:start AS TEXT) || '/', 0"
             " UNION ALL%s%s)"
             " SELECT id, coalesce(parent, 0), coalesce(f, 0), coalesce(k, ''), coalesce(t, 0),"
             " depth FROM walk LIMIT :cap",
             walk_term(dir), limit);
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":start", start);
    store_bind_int(st, ":depth", depth);
    store_bind_int(st, ":cap", cap);
    if (rel == THESAURUS_ANY)
        store_bind_null(st, ":kind");
    else
        store_bind_text(st, ":kind", kind_names[rel]);
    size_t alloc = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        thesaurus_walk_row *r = registry_grow((void **)rows, n, &alloc, sizeof *r);
        if (!r) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        r->id = store_column_int(st, 0);
        r->parent = store_column_int(st, 1);
        r->from = store_column_int(st, 2);
        r->kind = relation_from_text(store_column_text(st, 3));
        r->to = store_column_int(st, 4);
        r->depth = (int)store_column_int(st, 5);
    }
    store_finalize(st);
    if (rc < 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
        return rc;
    }
    *capped = (int)*n >= cap;
    return 0;
}

int thesaurus_db_meet(store *db, int64_t from, int64_t to, int fwd_depth, int bwd_depth, int exact,
                      int cap, int64_t *mid, int *len, int *capped, dbmcp_error *err)
{
    *mid = 0;
    *len = -1;
    *capped = 0;
    /* UNION keeps one row per (concept, depth): at most depth rows per
     * concept, so the work is bounded by the edges within the radius. */
    char limit[64], sql[1536];
    int rc = dialect_format(db, DIALECT_RECURSIVE_LIMIT, limit, sizeof limit, err, ":cap");
    if (rc)
        return rc;
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE"
             " fwd(id, depth) AS (SELECT CAST(:from AS BIGINT), 0 UNION"
             "  SELECT r.to_id, f.depth + 1 FROM fwd f JOIN dbmcp_thesaurus_relations r"
             "  ON r.from_id = f.id WHERE f.depth < :fd%s),"
             " bwd(id, depth) AS (SELECT CAST(:to AS BIGINT), 0 UNION"
             "  SELECT r.from_id, b.depth + 1 FROM bwd b JOIN dbmcp_thesaurus_relations r"
             "  ON r.to_id = b.id WHERE b.depth < :bd%s)"
             " SELECT f.id, f.depth + b.depth AS len,"
             "  CASE WHEN (SELECT count(*) FROM fwd) >= :cap OR (SELECT count(*) FROM bwd) >= :cap"
             "  THEN 1 ELSE 0 END"
             " FROM fwd f JOIN bwd b ON b.id = f.id"
             " WHERE :exact = 0 OR (f.depth = :fd AND b.depth = :bd)"
             " ORDER BY len, f.depth DESC, f.id LIMIT 1",
             limit, limit);
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":from", from);
    store_bind_int(st, ":to", to);
    store_bind_int(st, ":fd", fwd_depth);
    store_bind_int(st, ":bd", bwd_depth);
    store_bind_int(st, ":cap", cap);
    store_bind_int(st, ":exact", exact);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *mid = store_column_int(st, 0);
        *len = (int)store_column_int(st, 1);
        *capped = (int)store_column_int(st, 2);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int thesaurus_db_edge(store *db, int64_t from, int64_t to, thesaurus_relation *kind,
                      dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT kind FROM dbmcp_thesaurus_relations WHERE from_id = :f"
                           " AND to_id = :t ORDER BY asserted DESC, kind LIMIT 1",
                           &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":f", from);
    store_bind_int(st, ":t", to);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        *kind = relation_from_text(store_column_text(st, 0));
    store_finalize(st);
    if (rc == STORE_DONE)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no edge %lld -> %lld", (long long)from,
                               (long long)to);
    return rc < 0 ? rc : 0;
}

int thesaurus_db_stats(store *db, thesaurus_stats *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(
        db,
        "SELECT s.name, s.uri, s.source, s.format, s.imported_at,"
        " (SELECT count(*) FROM dbmcp_thesaurus_concepts c WHERE c.scheme_id = s.id),"
        " (SELECT count(*) FROM dbmcp_thesaurus_labels l JOIN dbmcp_thesaurus_concepts c"
        "  ON c.id = l.concept_id WHERE c.scheme_id = s.id),"
        " (SELECT count(*) FROM dbmcp_thesaurus_relations r JOIN dbmcp_thesaurus_concepts c"
        "  ON c.id = r.from_id WHERE c.scheme_id = s.id AND r.asserted = 1)"
        " FROM dbmcp_thesaurus_schemes s ORDER BY s.name",
        &st, err);
    if (rc)
        return rc;
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        thesaurus_scheme_stats *s =
            registry_grow((void **)&out->schemes, &out->nschemes, &cap, sizeof *s);
        if (!s) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        s->name = col_dup(st, 0);
        s->uri = col_dup(st, 1);
        s->source = col_dup(st, 2);
        s->format = col_dup(st, 3);
        s->imported_at = col_dup(st, 4);
        s->concepts = (long)store_column_int(st, 5);
        s->labels = (long)store_column_int(st, 6);
        s->relations = (long)store_column_int(st, 7);
    }
    store_finalize(st);
    if (rc < 0) {
        thesaurus_stats_free(out);
        return rc;
    }
    return 0;
}

int thesaurus_db_resource_text(store *db, const char *uri, char **text, char **mime, char **name,
                               dbmcp_error *err)
{
    *text = *mime = *name = NULL;
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT content_text, mime_type, name FROM dbmcp_resources"
                           " WHERE uri = :uri AND content_text IS NOT NULL",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":uri", uri);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *text = col_dup(st, 0);
        *mime = col_dup(st, 1);
        *name = col_dup(st, 2);
        rc = *text && *mime && *name ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no text resource %s", uri);
    }
    store_finalize(st);
    if (rc) {
        free(*text);
        free(*mime);
        free(*name);
        *text = *mime = *name = NULL;
    }
    return rc;
}
