/*
 * thesaurus.h — concepts, labels and relations kept in dbmcp's own tables
 * (dbmcp_thesaurus_*, migration 0003): import, lookup, query expansion,
 * label matching in free text, and graph walks.
 *
 * Data model (docs/thesaurus.md): a scheme holds concepts; a concept has a
 * URI and labels (pref/alt/hidden, each with a language tag, "" when none)
 * and typed relations to other concepts (broader, narrower, related).
 * Inverses are materialised on import: every broader edge A→B has its
 * narrower twin B→A and related edges are stored in both directions, so
 * "the outgoing edges of X" is always a complete answer.
 *
 * Every label also has a match key: its tokens as text_tokenize (TEXT_LANG_NONE,
 * src/core/textnorm.h) produces them — NFKC, case folded (ß → ss), marks
 * kept where meaningful, CJK as character bigrams — joined by single
 * spaces. Lookups, expansion and text matching compare match keys, so
 * "ARBEITSZEIT", "Arbeitszeit" and "arbeitszeit" are the same term.
 *
 * All SQL lives in src/store/thesaurus.c; these functions take the
 * read-write catalog connection (tool_env.internal_db or the CLI's handle).
 *
 * The vocabulary (label kinds, relations, directions) and the value types
 * the store fills too (thesaurus_strings, thesaurus_ref(s), thesaurus_concept,
 * thesaurus_stats) with their _free functions are in store/thesaurus_types.h,
 * included here, so the store does not depend on this layer.
 *
 * Ownership: every function that fills an out-struct allocates its members;
 * the caller releases them with the matching _free function (safe on a
 * zeroed struct and callable twice). Strings are UTF-8 and NUL-terminated.
 * Functions return 0 or a negative dbmcp_code with err filled.
 */
#ifndef DBMCP_THESAURUS_THESAURUS_H
#define DBMCP_THESAURUS_THESAURUS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"
#include "store/thesaurus_types.h"

/* --- limits ---------------------------------------------------------------- */

#define THESAURUS_TERM_MAX 1024                /* bytes of a term or URI argument */
#define THESAURUS_EXPAND_MAX 64                /* strings thesaurus_expand returns at most */
#define THESAURUS_MATCH_TEXT_MAX (1 << 20)     /* bytes of text thesaurus_match_text reads */
#define THESAURUS_MATCH_MAX 256                /* matches thesaurus_match_text returns at most */
#define THESAURUS_LABEL_TOKENS_MAX 12          /* tokens of the longest matchable label */
#define THESAURUS_GRAPH_DEPTH_MAX 6            /* graph walk depth bound */
#define THESAURUS_GRAPH_LIMIT_MAX 1000         /* graph walk node bound */
#define THESAURUS_PATH_DEPTH_MAX 8             /* shortest path length bound */
#define THESAURUS_IMPORT_BYTES_MAX (64L << 20) /* default import file size limit */

/* --- query expansion (search) ------------------------------------------------- */

/* Expand a search term: find every concept with a label whose match key
 * equals the term's, then collect (in this order) their pref, alt and
 * hidden labels, then the labels of narrower concepts at depth 1 and
 * then depth 2. lang (e.g. "de") keeps only labels in that language or
 * without one; NULL keeps all. The result is deduplicated by match key,
 * never contains the term itself and holds at most THESAURUS_EXPAND_MAX
 * strings. An unknown term gives an empty list and 0. */
int thesaurus_expand(store *db, const char *term, const char *lang, thesaurus_strings *out,
                     dbmcp_error *err);

/* --- labels in free text (prompt analysis) ------------------------------------ */

typedef struct thesaurus_match {
    int64_t concept_id;
    char *uri;           /* owned: concept URI */
    char *pref_label;    /* owned: pref label in the matched label's language, else any */
    char *matched_label; /* owned: the label as stored */
    char *lang;          /* owned: the matched label's language ("" when none) */
    size_t start, end;   /* byte offsets [start, end) into the text */
} thesaurus_match;

typedef struct thesaurus_match_list {
    thesaurus_match *items; /* ordered by start, then concept id */
    size_t count;
} thesaurus_match_list;

/* Find every concept label occurring in text (NUL-terminated, at most
 * THESAURUS_MATCH_TEXT_MAX bytes, longer text is refused with
 * DBMCP_ETOOBIG). Matching compares token sequences (see match keys
 * above), so it respects word boundaries in spaced scripts and works on
 * CJK bigrams. Leftmost-longest: at each position the longest matching
 * label wins and matching resumes after it. A span whose label belongs to
 * several concepts yields one match per concept. At most
 * THESAURUS_MATCH_MAX matches. */
int thesaurus_match_text(store *db, const char *text, thesaurus_match_list *out, dbmcp_error *err);
void thesaurus_match_list_free(thesaurus_match_list *l);

/* --- concepts ------------------------------------------------------------------ */

/* Resolve a term to concepts: a concept URI (exact), else every concept
 * with a label whose match key equals the term's. lang picks the language
 * of pref_label in the result (NULL: any). Concepts whose pref label
 * matches come first (ref.exact set), then by id; at most `max` (<= 0:
 * 50). No match: empty list and 0. */
int thesaurus_resolve(store *db, const char *term, const char *lang, int max, thesaurus_refs *out,
                      dbmcp_error *err);

/* Load one concept by id with its labels (lang filters them when not
 * NULL; the pref label in `lang` names the refs), notes and edges. */
int thesaurus_concept_get(store *db, int64_t id, const char *lang, thesaurus_concept *out,
                          dbmcp_error *err);

/* --- graph ----------------------------------------------------------------------- */

typedef struct thesaurus_graph_query {
    int64_t start;               /* concept id */
    thesaurus_relation relation; /* a kind or THESAURUS_ANY */
    thesaurus_direction direction;
    int depth;        /* 1..THESAURUS_GRAPH_DEPTH_MAX */
    int limit;        /* 1..THESAURUS_GRAPH_LIMIT_MAX nodes, start included */
    const char *lang; /* language of node labels; NULL: any */
} thesaurus_graph_query;

typedef struct thesaurus_graph_node {
    thesaurus_ref ref; /* owned members */
    int depth;         /* hops from the start (0 for the start) */
} thesaurus_graph_node;

typedef struct thesaurus_graph_edge {
    int64_t from, to; /* as stored: `from` <kind> `to` */
    thesaurus_relation kind;
    int depth; /* depth of the farther node */
} thesaurus_graph_edge;

typedef struct thesaurus_graph {
    thesaurus_graph_node *nodes; /* by depth, then id; the start first */
    size_t nnodes;
    thesaurus_graph_edge *edges; /* edges between returned nodes that the walk used */
    size_t nedges;
    int truncated; /* nonzero when the limit cut the walk */
} thesaurus_graph;

/* Breadth-first walk with a recursive CTE that carries the visited path,
 * so cycles terminate; each node is reported once at its smallest depth. */
int thesaurus_graph_walk(store *db, const thesaurus_graph_query *q, thesaurus_graph *out,
                         dbmcp_error *err);
/* Shortest path from → to over edges of any kind (stored direction; the
 * inverses make it undirected in effect), at most max_depth hops
 * (1..THESAURUS_PATH_DEPTH_MAX). out->nodes holds the path in order (depth
 * = position), out->edges its hops. DBMCP_ENOTFOUND when there is none. */
int thesaurus_path(store *db, int64_t from, int64_t to, int max_depth, const char *lang,
                   thesaurus_graph *out, dbmcp_error *err);
void thesaurus_graph_free(thesaurus_graph *g);

/* --- import -------------------------------------------------------------------- */

typedef enum thesaurus_format {
    THESAURUS_FORMAT_AUTO = 0, /* from the file name: .ttl, .rdf/.xml/.owl, .dat/.idx */
    THESAURUS_FORMAT_SKOS_TURTLE,
    THESAURUS_FORMAT_SKOS_RDFXML,
    THESAURUS_FORMAT_MYTHES
} thesaurus_format;

/* "skos-turtle", "skos-rdfxml", "mythes" (and "auto"); 0 or DBMCP_EINVAL. */
int thesaurus_format_parse(const char *name, thesaurus_format *out);

typedef struct thesaurus_import_options {
    thesaurus_format format;
    const char *scheme; /* scheme name; NULL: the file's base name (or the buffer name) */
    const char *lang;   /* MyThes: language of the labels (NULL: guessed from the file
                           name, th_de_DE… → "de"); SKOS: for untagged literals */
    long limit;         /* MyThes entries / SKOS concepts to import; <= 0: all */
    size_t max_bytes;   /* input size limit; 0: THESAURUS_IMPORT_BYTES_MAX */
} thesaurus_import_options;

typedef struct thesaurus_import_stats {
    long concepts; /* concepts written (stubs for unresolved targets included) */
    long labels;
    long relations;   /* asserted edges (inverses not counted) */
    long skipped;     /* statements/annotations not understood and ignored */
    char scheme[256]; /* the name of the scheme written */
} thesaurus_import_stats;

/* Import a file as one transaction: a scheme of the same name is replaced,
 * and any error (I/O, size, parse error with line and column, database)
 * leaves the database unchanged. MyThes: pass the .dat file (an .idx path
 * is mapped to the .dat beside it). */
int thesaurus_import_file(store *db, const char *path, const thesaurus_import_options *opt,
                          thesaurus_import_stats *stats, dbmcp_error *err);
/* Same for bytes in memory; name is used for error messages and as the
 * default scheme name; format must not be AUTO. */
int thesaurus_import_buffer(store *db, const char *data, size_t n, const char *name,
                            const thesaurus_import_options *opt, thesaurus_import_stats *stats,
                            dbmcp_error *err);

/* Import a resource stored in dbmcp_resources (e.g. the demo's
 * "thesaurus://tarif/skos"); the format comes from opt, else from its
 * mime type (text/turtle, application/rdf+xml); the scheme name defaults
 * to the resource's name. Same transaction rules as thesaurus_import_file. */
int thesaurus_import_resource(store *db, const char *uri, const thesaurus_import_options *opt,
                              thesaurus_import_stats *stats, dbmcp_error *err);

/* --- statistics ------------------------------------------------------------------ */

int thesaurus_stats_get(store *db, thesaurus_stats *out, dbmcp_error *err);

#endif
