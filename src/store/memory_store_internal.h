/*
 * memory_store_internal.h — statement helpers shared by the memory_store*.c
 * files. Private to store/.
 */
#ifndef DBMCP_STORE_MEMORY_STORE_INTERNAL_H
#define DBMCP_STORE_MEMORY_STORE_INTERNAL_H

#include "store/memory_store.h"

/* Prepare sql and bind :u and :a (NULL binds SQL NULL). */
int mstore_prepare_scoped(store *db, const char *sql, const char *u, const char *a, store_stmt **st,
                          dbmcp_error *err);
/* Step once (a statement without rows) and finalize; 0 or the error. */
int mstore_run(store_stmt *st, dbmcp_error *err);
/* Call fn for every row (stop when it returns nonzero), finalize; *rows
 * (may be NULL) receives the rows seen. */
int mstore_each(store_stmt *st, mstore_row_fn fn, void *ctx, int *rows, dbmcp_error *err);
/* The first column of the first row into *out and finalize; DBMCP_ENOTFOUND
 * when there is no row. */
int mstore_one_int(store_stmt *st, int64_t *out, dbmcp_error *err);

#endif
