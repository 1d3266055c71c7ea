/*
 * search_index.h — the SQL behind the search engine (search/engine.h):
 * data version counters, keyword candidates from an FTS5 table and the
 * rows of a vectors table. Table names are compile-time identifiers of the
 * caller (checked: [a-z0-9_], at most 63 bytes), never user input.
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

/* Keyword candidates: rows of fts_table MATCH match, best bm25 first. For
 * each row, keep(ctx, rowid) (NULL keeps all) decides; kept rows go to
 * ids/scores (bm25 values) and coverage (dbmcp_coverage over the first
 * `positive` phrases, 0..1; store/sqlite_fts.h) until max are kept. *n
 * gets the count. A MATCH expression FTS5 refuses is DBMCP_EINVAL.
 * cancelled (may be NULL) stops the scan with DBMCP_ETIMEOUT. */
int search_index_keyword(store *db, const char *fts_table, const char *match, int positive,
                         int (*keep)(void *ctx, int64_t id), void *ctx, size_t max, int64_t *ids,
                         double *scores, double *coverage, size_t *n, atomic_int *cancelled,
                         dbmcp_error *err);

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
