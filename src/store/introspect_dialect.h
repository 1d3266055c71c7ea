/*
 * introspect_dialect.h — private to store/: what each engine's catalog
 * reader implements behind introspect.h, and the helpers introspect.c
 * shares with them.
 *
 * introspect.c owns the public functions: it checks the handle, picks the
 * reader by store_dialect(db), sorts the list, resolves a caller's name
 * against it, counts rows, leaves out keys into dbmcp's own tables and
 * frees. A reader only turns its engine's catalog into the structs of
 * introspect.h:
 *   introspect_sqlite.c  sqlite_master, sqlite_stat1, the table_xinfo,
 *                        foreign_key_list and index_list pragmas, and
 *                        comments recovered from the CREATE text;
 *   introspect_pg.c      pg_class, pg_attribute, pg_constraint, pg_index,
 *                        pg_description, filtered by the privileges of the
 *                        connected role.
 * Each reads its catalog inside store_trusted_begin/store_trusted_end and
 * reaches it only through store.h.
 *
 * Ownership: as introspect.h says; a reader fills the caller's arrays,
 * which introspect.c frees on error.
 */
#ifndef DBMCP_STORE_INTROSPECT_DIALECT_H
#define DBMCP_STORE_INTROSPECT_DIALECT_H

#include "store/introspect.h"

typedef struct introspect_dialect {
    const char *name; /* store_dialect() of the handles it reads */
    /* A lookup "<default_schema>.name" also finds a listed `name` (NULL:
     * names carry no schema). */
    const char *default_schema;
    /* Nonzero for a name that never appears: a foreign key naming such a
     * table is left out of describe's answer. */
    int (*is_internal)(const char *name);
    /* Every user table and view the connection may read, in any order,
     * dbmcp's own tables and the engine's left out, with comments and the
     * engine's row estimates where it keeps them (rows -1 otherwise). */
    int (*list)(store *db, introspect_table **out, size_t *n, dbmcp_error *err);
    /* The FROM target that reads listed table t, as quoted SQL text
     * (malloc'd into *out); DBMCP_ENOTFOUND when t is gone. */
    int (*count_source)(store *db, const introspect_table *t, char **out, dbmcp_error *err);
    /* The columns of listed t in declaration order; DBMCP_EDENIED for a
     * view whose columns the connection may not learn. */
    int (*columns)(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                   dbmcp_error *err);
    /* Foreign keys and indexes of d->table, appended to d. */
    int (*keys)(store *db, introspect_detail *d, dbmcp_error *err);
} introspect_dialect;

extern const introspect_dialect introspect_sqlite_dialect;
extern const introspect_dialect introspect_pg_dialect;

/* --- shared by the readers ---------------------------------------------------- */

/* Nonzero for a name of dbmcp's own tables: "dbmcp_" in any ASCII case. */
int introspect_is_internal_name(const char *name);
/* strdup, NULL for NULL. */
char *introspect_strdup_or_null(const char *s);
/* Append a copy of s ("" for NULL) to names; nothing on allocation failure. */
void introspect_names_add(introspect_names *names, const char *s);
/* Grow *arr of elem_size by one zeroed element and return it; NULL on
 * failure (the array is then unchanged). */
void *introspect_grow(void **arr, size_t *n, size_t elem_size);

#endif
