/*
 * store/thesaurus.h — the SQL behind src/thesaurus/: writes of an import
 * and the reads of lookup, expansion, text matching and graph walks over
 * the dbmcp_thesaurus_* tables (migration 0003_thesaurus.sql).
 *
 * This layer knows no text normalisation: callers pass match keys
 * (labels.norm) already computed with src/core/textnorm.h. Read
 * functions fill the types of store/thesaurus_types.h (the thesaurus
 * layer's public types, kept here so the store does not depend on it);
 * the caller releases them with that header's _free functions.
 *
 * Writes: open a thesaurus_writer inside a transaction the caller began
 * (store_begin), add rows, close it, commit or roll back.
 */
#ifndef DBMCP_STORE_THESAURUS_H
#define DBMCP_STORE_THESAURUS_H

#include <stdint.h>

#include "core/error.h"
#include "store/store.h"
#include "store/thesaurus_types.h"

/* --- writes (import) ------------------------------------------------------ */

typedef struct thesaurus_writer thesaurus_writer;

/* Replace the scheme called name (its concepts, labels, notes and relations
 * are deleted) by a new empty one, and prepare the insert statements.
 * format: "skos-turtle", "skos-rdfxml" or "mythes". *out is freed with
 * thesaurus_writer_close. */
int thesaurus_writer_open(store *db, const char *name, const char *uri, const char *title,
                          const char *source, const char *format, thesaurus_writer **out,
                          dbmcp_error *err);
void thesaurus_writer_close(thesaurus_writer *w);
/* Update the scheme's URI and title (known only once SKOS triples are read). */
int thesaurus_writer_scheme_meta(thesaurus_writer *w, const char *uri, const char *title,
                                 dbmcp_error *err);
/* The id of the concept with this URI, created in this scheme when missing
 * (an existing concept of another scheme moves to this one, labels and
 * all). *created (may be NULL) is set when the concept is new to this
 * scheme: inserted or moved. */
int thesaurus_writer_concept(thesaurus_writer *w, const char *uri, int64_t *id, int *created,
                             dbmcp_error *err);
/* Add a label (duplicates are ignored; *added tells, may be NULL). */
int thesaurus_writer_label(thesaurus_writer *w, int64_t concept, const char *lang,
                           thesaurus_label_kind kind, const char *label, const char *norm,
                           int ntokens, int *added, dbmcp_error *err);
int thesaurus_writer_note(thesaurus_writer *w, int64_t concept, const char *kind, const char *lang,
                          const char *text, dbmcp_error *err);
/* Add from <kind> to and its inverse (broader↔narrower, related↔related);
 * self-loops are ignored. *added is set when the asserted edge is new. */
int thesaurus_writer_relation(thesaurus_writer *w, int64_t from, thesaurus_relation kind,
                              int64_t to, int *added, dbmcp_error *err);
/* The smallest concept id of this scheme having a label with match key
 * norm (pref labels first), or 0 when none. */
int thesaurus_writer_find(thesaurus_writer *w, const char *norm, int64_t *id, dbmcp_error *err);

/* --- reads ------------------------------------------------------------------ */

/* Concepts whose URI equals term, else whose labels have match key norm;
 * pref labels chosen in lang (NULL: any). */
int thesaurus_db_resolve(store *db, const char *term, const char *norm, const char *lang, int max,
                         thesaurus_refs *out, dbmcp_error *err);
/* Fill ref (uri, pref_label in lang) for concept id; DBMCP_ENOTFOUND. */
int thesaurus_db_ref(store *db, int64_t id, const char *lang, thesaurus_ref *ref, dbmcp_error *err);
int thesaurus_db_concept(store *db, int64_t id, const char *lang, thesaurus_concept *out,
                         dbmcp_error *err);

/* Expansion candidates for concepts labelled norm, in output order: the
 * concepts' own labels (pref, alt, hidden), then labels of narrower
 * concepts at depth 1, then 2. Each row gives (label, label norm). lang
 * filters labels (NULL: all). At most max rows. */
int thesaurus_db_expand(store *db, const char *norm, const char *lang, int max,
                        thesaurus_strings *labels, thesaurus_strings *norms, dbmcp_error *err);

/* Text matching: a prober holds the prepared statements of one
 * thesaurus_match_text call. */
typedef struct thesaurus_probe thesaurus_probe;

int thesaurus_probe_open(store *db, thesaurus_probe **out, dbmcp_error *err);
void thesaurus_probe_close(thesaurus_probe *p);
/* Whether some label has exactly match key `key` (*exact) and whether some
 * label's key continues it ("key …", *longer). */
int thesaurus_probe_key(thesaurus_probe *p, const char *key, int *exact, int *longer,
                        dbmcp_error *err);
/* Call fn(ctx, concept_id, uri, label, lang, pref label in the label's
 * language) for every label with match key `key`, pref labels first, by
 * concept; fn returns nonzero to stop. */
typedef int (*thesaurus_probe_fn)(void *ctx, int64_t concept, const char *uri, const char *label,
                                  const char *lang, const char *pref);
int thesaurus_probe_labels(thesaurus_probe *p, const char *key, thesaurus_probe_fn fn, void *ctx,
                           dbmcp_error *err);

/* One row of a walk: node id reached at depth from parent over an edge
 * stored as (from, kind, to). */
typedef struct thesaurus_walk_row {
    int64_t id, parent;
    int64_t from, to;
    thesaurus_relation kind;
    int depth;
} thesaurus_walk_row;

/* Recursive-CTE walk (visited path carried per row, so cycles end),
 * breadth first, at most cap rows (*capped set when the cap was hit). A
 * step onto a concept already on the row's path is reported (so the edge
 * closing a cycle is seen) but never extended. */
int thesaurus_db_walk(store *db, int64_t start, thesaurus_relation rel, thesaurus_direction dir,
                      int depth, int cap, thesaurus_walk_row **rows, size_t *n, int *capped,
                      dbmcp_error *err);
/* Meet in the middle: concepts reached from `from` within fwd_depth steps
 * and from which `to` is reached within bwd_depth steps (recursive CTEs,
 * one row per concept and depth, each side at most cap rows). Sets *mid
 * and *len to the meeting concept of the shortest such path and its
 * length (-1 when none); with exact, only meetings at exactly fwd_depth
 * and bwd_depth count. *capped is set when a side hit the cap. */
int thesaurus_db_meet(store *db, int64_t from, int64_t to, int fwd_depth, int bwd_depth, int exact,
                      int cap, int64_t *mid, int *len, int *capped, dbmcp_error *err);
/* The kind of a stored edge from -> to (asserted first); DBMCP_ENOTFOUND. */
int thesaurus_db_edge(store *db, int64_t from, int64_t to, thesaurus_relation *kind,
                      dbmcp_error *err);

/* The text content, mime type and name of resource uri (owned, free());
 * DBMCP_ENOTFOUND when there is no such resource with text content. */
int thesaurus_db_resource_text(store *db, const char *uri, char **text, char **mime, char **name,
                               dbmcp_error *err);

int thesaurus_db_stats(store *db, thesaurus_stats *out, dbmcp_error *err);

#endif
