/*
 * introspect.h — schema discovery on the read-only query connection: the
 * user tables and views an agent may query, their row estimates, columns,
 * keys, indexes and comments. The schema tools (tools/schema_tools.c) are
 * built on it. introspect.c holds what every engine shares; the catalog SQL
 * lives in a reader per engine, chosen by store_dialect(db)
 * (introspect_dialect.h): SQLite's is introspect_sqlite.c.
 *
 * Only user objects appear: dbmcp's own dbmcp_* tables, SQLite's sqlite_*
 * tables and the shadow tables of virtual tables are never listed, and
 * looking one of them up by name fails exactly like a name that does not
 * exist (DBMCP_ENOTFOUND, "no table named X"), so their existence is not
 * revealed. The handle must be a STORE_READONLY query connection; each
 * function reads sqlite_master and the introspection pragmas inside
 * store_trusted_begin/store_trusted_end, so the engine guard stays shut for
 * agent SQL.
 *
 * Row estimates: sqlite_stat1 (written by ANALYZE) when it has the table,
 * else an exact count that stops at a cap (introspect_count_rows): a table
 * with more rows reports rows = cap and INTROSPECT_ROWS_AT_LEAST, shown as
 * ">100000". Views and virtual tables are not counted (their rows may cost
 * any amount of work).
 *
 * Comments: SQLite keeps no comment catalog, but sqlite_master.sql keeps
 * the CREATE statement as written, comments inside it included (comments
 * above the statement are lost). So:
 *   - table comment: comment lines between `CREATE TABLE name` and the
 *     first column definition (typically right after the opening
 *     parenthesis); for a view, comments before its SELECT;
 *   - column comment: a `--` or block comment on the same line as the
 *     column definition (after its comma, if any); comment lines standing
 *     alone between two definitions describe the definition below them.
 * Several comment lines are joined with a space; lines with no letters or
 * digits (rulers such as `-- ====`) are skipped.
 *
 * Ownership: every struct filled here owns its strings; release with the
 * matching *_free (which accepts zeroed structs). Arrays are released with
 * introspect_table_array_free / introspect_column_array_free.
 */
#ifndef DBMCP_STORE_INTROSPECT_H
#define DBMCP_STORE_INTROSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

/* Default cap of introspect_count_rows: counting stops past this many rows. */
#define INTROSPECT_COUNT_CAP 100000

typedef enum introspect_kind {
    INTROSPECT_TABLE,
    INTROSPECT_VIEW,
    INTROSPECT_VIRTUAL /* CREATE VIRTUAL TABLE (FTS5, R*Tree, …) */
} introspect_kind;

/* Where a row estimate comes from. */
typedef enum introspect_rows {
    INTROSPECT_ROWS_UNKNOWN = 0, /* not counted (views, virtual tables, not asked) */
    INTROSPECT_ROWS_EXACT,       /* counted: rows is exact */
    INTROSPECT_ROWS_AT_LEAST,    /* counting stopped at the cap: more than rows exist */
    INTROSPECT_ROWS_STAT         /* sqlite_stat1's estimate (as of the last ANALYZE) */
} introspect_rows;

typedef struct introspect_table {
    char *name;           /* as created */
    introspect_kind kind; /* table, view or virtual table */
    int64_t rows;         /* see rows_source; -1 when unknown */
    introspect_rows rows_source;
    char *comment; /* table comment, NULL when none */
    char *sql;     /* the CREATE statement as stored in sqlite_master */
} introspect_table;

typedef struct introspect_column {
    char *name;
    char *type;        /* declared type ("" when none) */
    int not_null;      /* NOT NULL */
    char *default_sql; /* DEFAULT expression as written, NULL when none */
    int pk;            /* 1-based position in the primary key, 0 when not part */
    int generated;     /* a GENERATED ALWAYS AS column */
    char *comment;     /* column comment, NULL when none */
} introspect_column;

/* A list of names (columns of a key or an index). */
typedef struct introspect_names {
    char **v; /* owned */
    size_t n;
} introspect_names;

typedef struct introspect_foreign_key {
    introspect_names columns;     /* referencing columns, in key order */
    char *ref_table;              /* referenced table */
    introspect_names ref_columns; /* referenced columns; empty = its primary key */
    char *on_update;              /* "NO ACTION", "CASCADE", … */
    char *on_delete;
} introspect_foreign_key;

typedef struct introspect_index {
    char *name;
    int unique;
    const char *origin;       /* static: "index" (CREATE INDEX), "unique" (UNIQUE constraint)
                                 or "primary key" */
    int partial;              /* has a WHERE clause */
    introspect_names columns; /* key columns; an expression is "(expression)" */
} introspect_index;

/* Everything describe_table shows about one table or view. */
typedef struct introspect_detail {
    introspect_table table;
    introspect_column *columns;
    size_t n_columns;
    introspect_foreign_key *foreign_keys;
    size_t n_foreign_keys;
    introspect_index *indexes;
    size_t n_indexes;
    int columns_denied; /* a view over objects the query connection may not read
                           (dbmcp's own tables): its columns cannot be shown */
} introspect_detail;

/* --- reading ----------------------------------------------------------------- */

/* All user tables and views, ordered by name, with comments and the
 * sqlite_stat1 estimates where ANALYZE left them (rows are not counted). */
int introspect_list(store *db, introspect_table **out, size_t *n, dbmcp_error *err);
/* Count the rows of t (a table; others are left unknown), stopping past
 * cap: sets t->rows and t->rows_source (EXACT or AT_LEAST). Leaves a
 * sqlite_stat1 estimate alone. */
int introspect_count_rows(store *db, introspect_table *t, int64_t cap, dbmcp_error *err);
/* The columns of t (a listed table or view) in declaration order, with
 * comments. A view reading objects the connection may not read fails with
 * DBMCP_EDENIED. */
int introspect_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                       dbmcp_error *err);
/* One table or view by name (ASCII case-insensitive, as SQLite resolves
 * names): columns, foreign keys and indexes; rows are not counted. A
 * view over denied objects is described without columns (columns_denied).
 * DBMCP_ENOTFOUND "no table named X" for unknown and internal names alike. */
int introspect_describe(store *db, const char *name, introspect_detail *out, dbmcp_error *err);

/* "table", "view" or "virtual table". */
const char *introspect_kind_label(introspect_kind kind);

/* --- free ---------------------------------------------------------------------- */
void introspect_table_free(introspect_table *t);
void introspect_table_array_free(introspect_table *v, size_t n);
void introspect_column_array_free(introspect_column *v, size_t n);
void introspect_detail_free(introspect_detail *d);

#endif
