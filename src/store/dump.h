/*
 * dump.h — what `dbmcp dump` reads: every table and view of a database,
 * dbmcp's own and the user's, and the rows of each table. The CLI turns
 * them into a deterministic text (cli/cmd_sql.c); the SQL lives here.
 *
 * Works on the catalog (read-write) connection: a read-only query
 * connection's guard hides dbmcp's tables. The engine's own tables
 * (SQLite's sqlite_*) are left out, so the same data dumps the same on
 * either backend's bookkeeping.
 *
 * Ownership: dump_objects_list fills an array the caller releases with
 * dump_objects_free; dump_table_scan returns a statement the caller
 * finalizes.
 */
#ifndef DBMCP_STORE_DUMP_H
#define DBMCP_STORE_DUMP_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

typedef enum dump_kind {
    DUMP_TABLE,  /* a table holding rows (SQLite: also the shadow tables of a virtual table) */
    DUMP_VIEW,   /* a view: no rows of its own */
    DUMP_VIRTUAL /* SQLite's virtual table: its rows live in its shadow tables */
} dump_kind;

typedef struct dump_object {
    char *name;     /* as created; owned */
    dump_kind kind; /* what it is */
} dump_object;

/* Every table and view of db but the engine's own, sorted by name in byte
 * order (not by the engine's collation, so the order is the same on every
 * backend). */
int dump_objects_list(store *db, dump_object **out, size_t *n, dbmcp_error *err);
void dump_objects_free(dump_object *v, size_t n);
/* Prepare a statement that returns every row of table `name` (an object
 * dump_objects_list gave), all its columns in declaration order, in no
 * particular order. */
int dump_table_scan(store *db, const char *name, store_stmt **out, dbmcp_error *err);

#endif
