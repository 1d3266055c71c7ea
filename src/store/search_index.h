/*
 * search_index.h — the SQL behind the search engine (search/engine.h):
 * data version counters, keyword matches within the caller's scope with
 * what BM25 needs, and the rows of a vectors table. Table names are
 * compile-time identifiers of the caller (checked: [a-z0-9_], at most 63
 * bytes), never user input; so are scope conditions (made in store/).
 *
 * Version counters live in dbmcp_data_versions (0002_search.sql): one row
 * per corpus, bumped by every writer of that corpus in the same
 * transaction as its change. A new row starts at a random 48-bit value so
 * a database created again at the same path does not repeat the numbers a
 * running process has cached.
 */
#ifndef DBMCP_STORE_SEARCH_INDEX_H
#define DBMCP_STORE_SEARCH_INDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

/* Current version of corpus `key` into *out (0 when the row is missing). */
int search_index_version(store *db, const char *key, int64_t *out, dbmcp_error *err);
/* Increment (or create) the version row of `key`. Call inside the
 * transaction that changes the corpus. */
int search_index_bump(store *db, const char *key, dbmcp_error *err);

/* --- keyword search within a scope ----------------------------------------
 *
 * dbmcp ranks keyword matches with its own BM25 (search/bm25.h), computed
 * from statistics of the rows the caller may read — its scope — never of
 * the whole index: a user's scores and ranking must not move when another
 * user saves memory, nor an interface's when a collection it cannot see
 * changes (docs/security.md, "Nothing learned across users"). What a
 * backend supplies for that is the three queries below, each restricted by
 * the same scope condition:
 *
 *   search_index_scope_stats   rows in the scope and the sum of their lengths
 *   search_index_phrase_rows   rows in the scope holding one phrase
 *   search_index_matches       rows in the scope matching the expression,
 *                              newest first, each with its length and how
 *                              often each phrase occurs in it
 *
 * A row's length is the number of token positions the index holds for it
 * (text_token_count in core/textnorm.h over everything indexed for the
 * row), stored in the column fts_length of the rows table when the row is
 * written. SQLite answers from the FTS5 table (dbmcp_phrase_hits,
 * store/sqlite_fts.h) joined to the rows table by rowid; PostgreSQL, with
 * dbmcp's tokens in a tsvector under a GIN index, from the rows table
 * alone (the fragments DIALECT_FTS_SCOPE_MATCH and _COUNT). The first
 * query is plain SQL both engines run; the engine may reuse its answer
 * while search_index_scope_version stays the same. */

/* Who may read which rows of a corpus: made by the store module that owns
 * the corpus (mstore_search_scope, docs_search_scope), so its SQL stays
 * there; callers only pass it on. Every string is static or outlives the
 * search. */
#define SEARCH_INDEX_SCOPE_PARAMS 8 /* :parameters of a scope at most */

typedef struct search_index_scope {
    const char *rows;      /* table with a row per indexed item: id (= FTS rowid), fts_length */
    const char *condition; /* SQL condition over the alias sr of rows */
    const char *version;   /* SQL expression (no parameters) whose value changes whenever a row
                              may join or leave the scope or change length: the scope's
                              statistics may be reused while it stays; NULL: never reused */
    const char *stats;     /* NULL, or a statement returning the scope's row count and total
                              fts_length as one row (no row: 0 and 0) that is cheaper than
                              counting, e.g. from a table of figures kept by triggers; it uses
                              the parameters below */
    const char *eligible;  /* NULL, or an SQL condition over sr choosing which matching rows are
                              ranked (search_index_match_fn's eligible); every row of the scope
                              still counts in the statistics */
    const char *names[SEARCH_INDEX_SCOPE_PARAMS];  /* the :parameters condition, stats and
                                                      eligible use (NULL when fewer) */
    const char *values[SEARCH_INDEX_SCOPE_PARAMS]; /* their values, bound as text */
} search_index_scope;

/* How a phrase takes part in the expression (fts_query.h's term kinds; the
 * repeat of the first required phrase inside the optional group is
 * optional). A row matches when it holds every required phrase, at least
 * one optional phrase when there are any, and no excluded phrase. */
typedef enum search_index_phrase_kind {
    SEARCH_PHRASE_OPTIONAL = 0,
    SEARCH_PHRASE_REQUIRED,
    SEARCH_PHRASE_EXCLUDED
} search_index_phrase_kind;

/* One keyword query: the expression in FTS5 syntax and, for backends
 * without it, its phrases in the same order (phrase i of the list is
 * phrase i of the expression). */
typedef struct search_index_query {
    const char *match;                    /* FTS5 MATCH expression (search/fts_query.h) */
    const char *const *phrases;           /* text of each phrase, without quotes */
    const search_index_phrase_kind *kind; /* kind of each phrase */
    size_t count;                         /* phrases */
} search_index_query;

/* One occurrence count: phrase (index into the query's phrases) occurs
 * count times in the row. */
typedef struct search_index_hit {
    int phrase;
    int count;
} search_index_hit;

/* Called for each matching row: its id, fts_length, the phrases it holds
 * (n > 0 entries ascending by phrase; valid during the call only) and
 * whether it passes the scope's eligible condition (1 without one).
 * Return nonzero to stop (that value is returned). */
typedef int (*search_index_match_fn)(void *ctx, int64_t id, int64_t length,
                                     const search_index_hit *hits, size_t n, int eligible);

/* *rows gets the number of rows in the scope, *length the sum of their
 * fts_length (from scope->stats when it has one). */
int search_index_scope_stats(store *db, const search_index_scope *scope, int64_t *rows,
                             int64_t *length, dbmcp_error *err);
/* The current value of scope->version as text into out ("" when the
 * scope has none: its statistics are not to be reused). Read it before
 * the statistics it stands for. */
int search_index_scope_version(store *db, const search_index_scope *scope, char *out, size_t size,
                               dbmcp_error *err);
/* *count gets the number of rows in the scope that hold phrase (its text,
 * as in search_index_query) in fts_table. */
int search_index_phrase_rows(store *db, const char *fts_table, const search_index_scope *scope,
                             const char *phrase, int64_t *count, dbmcp_error *err);
/* fn for every row of the scope matching q in fts_table, highest id
 * (newest) first, at most max rows; *capped (may be NULL) is set to 1
 * when more rows matched than max. An expression the engine refuses is
 * DBMCP_EINVAL; cancelled (may be NULL) stops the scan with
 * DBMCP_ETIMEOUT. */
int search_index_matches(store *db, const char *fts_table, const search_index_scope *scope,
                         const search_index_query *q, size_t max, search_index_match_fn fn,
                         void *ctx, int *capped, atomic_int *cancelled, dbmcp_error *err);

/* Call fn(ctx, item_id, vec) for every row of vec_table with this model
 * and dim; vec points to dim floats, suitably aligned, valid during the
 * call only. Rows whose blob is not dim * 4 bytes are skipped. fn returns
 * nonzero to stop (that value is returned). *rows (may be NULL) gets the
 * number of rows with this model and dim, for reserving. */
int search_index_vectors_count(store *db, const char *vec_table, const char *model, int dim,
                               size_t *rows, dbmcp_error *err);
int search_index_vectors_each(store *db, const char *vec_table, const char *model, int dim,
                              int (*fn)(void *ctx, int64_t id, const float *vec), void *ctx,
                              dbmcp_error *err);

#endif
