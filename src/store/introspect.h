/*
 * introspect.h — schema discovery on the read-only query connection: the
 * user tables and views an agent may query, their row estimates, columns,
 * keys, indexes and comments, with the same structs and the same answers on
 * SQLite and PostgreSQL. The schema tools (tools/schema_tools.c) are built
 * on it. introspect.c holds what both engines share; the catalog SQL of
 * each is in introspect_sqlite.c and introspect_pg.c, chosen by
 * store_dialect(db) (introspect_dialect.h).
 *
 * Only user objects the query connection may read appear: dbmcp's own
 * tables, the engine's catalog and what belongs to another object are never
 * listed, and looking one of them up by name fails exactly like a name that
 * does not exist (DBMCP_ENOTFOUND, "no table named X"), so their existence
 * is not revealed.
 *   - SQLite: dbmcp_* and sqlite_* tables, the shadow tables of virtual
 *     tables, and views the guard refuses (windows on dbmcp_* tables);
 *   - PostgreSQL: only relations the connected role holds SELECT on, in
 *     schemas it holds USAGE on; never the schemas pg_* (pg_catalog,
 *     pg_toast, temporary ones), information_schema or dbmcp (dbmcp's own
 *     tables), nor names beginning "dbmcp_"; no view that reads one of
 *     those through any chain of views, nor one the guard refuses; no
 *     partition (its parent is listed) and no object of an extension. A
 *     foreign key into a table that is not listed is left out.
 * The handle must be a STORE_READONLY query connection; each function reads
 * the engine's catalog inside store_trusted_begin/store_trusted_end, so the
 * engine guard stays shut for agent SQL.
 *
 * Names: SQLite's as created; a table of a user database attached under
 * NAME (store/attachments.h) as "NAME.table", neither part quoted, like
 * agent SQL names it. PostgreSQL's relations of schema public by
 * their bare name ("sales"), all others as "schema.name" ("hr.staff"),
 * neither part quoted; a lookup accepts "public.sales" too. Kinds on
 * PostgreSQL: ordinary and partitioned tables are tables; views and
 * materialized views are views (a materialized view keeps its indexes and
 * its row estimate); foreign tables are virtual tables.
 *
 * Row estimates: the engine's statistics when it keeps them for the table
 * (SQLite: sqlite_stat1, written by ANALYZE; PostgreSQL: pg_class.reltuples,
 * left by VACUUM, ANALYZE or autovacuum), else an exact count that stops at
 * a cap (introspect_count_rows): a table with more rows reports rows = cap
 * and INTROSPECT_ROWS_AT_LEAST, shown as ">100000". Views and virtual
 * tables are not counted (their rows may cost any amount of work).
 *
 * Comments: PostgreSQL keeps them in its catalog (COMMENT ON TABLE /
 * VIEW / COLUMN), and they are returned as written. SQLite keeps no
 * comment catalog, but sqlite_master.sql keeps the CREATE statement as
 * written, comments inside it included (comments above the statement are
 * lost). So on SQLite:
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
    INTROSPECT_ROWS_STAT         /* the engine's estimate (sqlite_stat1, reltuples) */
} introspect_rows;

typedef struct introspect_table {
    char *name;           /* as listed (see Names above) */
    introspect_kind kind; /* table, view or virtual table */
    int64_t rows;         /* see rows_source; -1 when unknown */
    introspect_rows rows_source;
    char *comment;     /* table comment, NULL when none */
    char *sql;         /* SQLite: the CREATE statement as stored in sqlite_master;
                          NULL on PostgreSQL, which keeps no CREATE text */
    int64_t object_id; /* PostgreSQL: the pg_class oid the other functions read it
                          by; 0 on SQLite */
    char *schema;      /* SQLite: the attachment the table belongs to (name is then
                          "schema.table"); NULL for the main database and on PostgreSQL */
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

/* All user tables and views, ordered by name (byte order), with comments
 * and the engine's estimates where it keeps them (rows are not counted). */
int introspect_list(store *db, introspect_table **out, size_t *n, dbmcp_error *err);
/* Count the rows of t (a listed table; others are left unknown), stopping
 * past cap: sets t->rows and t->rows_source (EXACT or AT_LEAST). Leaves an
 * engine's estimate alone. */
int introspect_count_rows(store *db, introspect_table *t, int64_t cap, dbmcp_error *err);
/* The columns of t (a listed table or view) in declaration order, with
 * comments. A view reading objects the connection may not read fails with
 * DBMCP_EDENIED. */
int introspect_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                       dbmcp_error *err);
/* One table or view by name: columns, foreign keys and indexes; rows are
 * not counted. The name as listed; on PostgreSQL also "public.name" for a
 * relation of schema public. Failing an exact match, an ASCII
 * case-insensitive one when exactly one object has it (SQLite resolves
 * names so; PostgreSQL may hold both "Sales" and "sales"). A view over
 * denied objects is described without columns (columns_denied). On
 * SQLite, failing those, a bare name that exactly one attached database
 * has ("authors" for "books.authors"), as the engine resolves it.
 * DBMCP_ENOTFOUND "no table named X" for unknown and hidden names alike. */
int introspect_describe(store *db, const char *name, introspect_detail *out, dbmcp_error *err);

/* "table", "view" or "virtual table". */
const char *introspect_kind_label(introspect_kind kind);

/* --- free ---------------------------------------------------------------------- */
void introspect_table_free(introspect_table *t);
void introspect_table_array_free(introspect_table *v, size_t n);
void introspect_column_array_free(introspect_column *v, size_t n);
void introspect_detail_free(introspect_detail *d);

#endif
