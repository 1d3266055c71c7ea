/*
 * thesaurus_types.h — the thesaurus vocabulary and the value types that
 * both the store's thesaurus SQL (store/thesaurus.h) and the thesaurus
 * domain (thesaurus/thesaurus.h, which includes this header) speak: label
 * and relation kinds, lists of strings, concept references, concepts with
 * their labels, notes and edges, and scheme statistics.
 *
 * They live in store/ so that the store fills them without depending on
 * the thesaurus layer above it; thesaurus/thesaurus.h is the API over
 * them and docs/thesaurus.md the data model.
 *
 * Ownership: every struct's char * and array members are owned by it and
 * released with the matching _free function (safe on a zeroed struct and
 * callable twice). Strings are UTF-8 and NUL-terminated.
 */
#ifndef DBMCP_STORE_THESAURUS_TYPES_H
#define DBMCP_STORE_THESAURUS_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* --- vocabulary ------------------------------------------------------------- */

typedef enum thesaurus_label_kind {
    THESAURUS_PREF = 0, /* skos:prefLabel: at most one per language */
    THESAURUS_ALT,      /* skos:altLabel: synonyms, abbreviations */
    THESAURUS_HIDDEN    /* skos:hiddenLabel: misspellings, for matching only */
} thesaurus_label_kind;

typedef enum thesaurus_relation {
    THESAURUS_BROADER = 0, /* from is narrower than to */
    THESAURUS_NARROWER,    /* from is broader than to (the materialised inverse) */
    THESAURUS_RELATED,     /* symmetric */
    THESAURUS_ANY = -1     /* graph walks: every kind */
} thesaurus_relation;

typedef enum thesaurus_direction {
    THESAURUS_OUT = 0, /* follow edges from the node */
    THESAURUS_IN,      /* follow edges into the node */
    THESAURUS_BOTH
} thesaurus_direction;

/* "pref"/"alt"/"hidden" and "broader"/"narrower"/"related"/"any". */
const char *thesaurus_label_kind_name(thesaurus_label_kind k);
const char *thesaurus_relation_name(thesaurus_relation r);
/* Parse a relation name; returns 0 and sets *out, or DBMCP_EINVAL. */
int thesaurus_relation_parse(const char *name, thesaurus_relation *out);

/* --- lists of strings --------------------------------------------------------- */

typedef struct thesaurus_strings {
    char **items; /* owned strings */
    size_t count;
} thesaurus_strings;

void thesaurus_strings_free(thesaurus_strings *s);

/* --- concepts ------------------------------------------------------------------ */

/* A concept named briefly: what graph nodes, candidates and neighbours are. */
typedef struct thesaurus_ref {
    int64_t id;
    char *uri;        /* owned */
    char *pref_label; /* owned: in the requested language, else the first available;
                         the URI's last segment when the concept has no label */
    int exact;        /* thesaurus_resolve only: the term is the URI or a pref label */
} thesaurus_ref;

typedef struct thesaurus_refs {
    thesaurus_ref *items;
    size_t count;
} thesaurus_refs;

/* Free one ref's members (not the struct itself). */
void thesaurus_ref_free(thesaurus_ref *r);
void thesaurus_refs_free(thesaurus_refs *r);

typedef struct thesaurus_label {
    char *label; /* owned */
    char *lang;  /* owned; "" when none */
    thesaurus_label_kind kind;
} thesaurus_label;

typedef struct thesaurus_note {
    char *kind; /* owned: "definition", "scopeNote", … */
    char *lang; /* owned */
    char *text; /* owned */
} thesaurus_note;

typedef struct thesaurus_edge_ref {
    thesaurus_relation kind;
    thesaurus_ref target; /* owned members */
} thesaurus_edge_ref;

typedef struct thesaurus_concept {
    thesaurus_ref ref;
    char *scheme;            /* owned: scheme name */
    thesaurus_label *labels; /* pref first, then alt, hidden; by language */
    size_t nlabels;
    thesaurus_note *notes;
    size_t nnotes;
    thesaurus_edge_ref *edges; /* outgoing edges (inverses included) */
    size_t nedges;
} thesaurus_concept;

void thesaurus_concept_free(thesaurus_concept *c);

/* --- statistics ------------------------------------------------------------------ */

typedef struct thesaurus_scheme_stats {
    char *name;        /* owned */
    char *uri;         /* owned; "" when none */
    char *source;      /* owned: imported file name */
    char *format;      /* owned */
    char *imported_at; /* owned */
    long concepts, labels, relations;
} thesaurus_scheme_stats;

typedef struct thesaurus_stats {
    thesaurus_scheme_stats *schemes;
    size_t nschemes;
} thesaurus_stats;

void thesaurus_stats_free(thesaurus_stats *s);

#endif
