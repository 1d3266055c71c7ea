/*
 * dialect.h — the SQL that differs between SQLite and PostgreSQL, in one
 * table: a fragment per dialect for each entry of dialect_fragment, chosen
 * by store_dialect(db). Private to store/: the per-domain files (registry,
 * documents, memory, thesaurus, search index, migrations) write statements
 * both engines accept and splice in a fragment only where the engines truly
 * differ — full text (FTS5 MATCH, its index maintenance), JSON functions,
 * catalog tables, date arithmetic, limits inside recursive queries.
 *
 * A fragment is a printf format: its comment below says which %s operands
 * it takes, in order (SQL text: column names, :parameters), and the
 * :parameters it uses itself. A fragment a dialect does not have yet is
 * NULL there; dialect_format then fails with DBMCP_ESTORE naming it, so a
 * statement never runs half-translated.
 *
 * Ownership: fragments are static strings; dialect_format writes into the
 * caller's buffer.
 */
#ifndef DBMCP_STORE_DIALECT_H
#define DBMCP_STORE_DIALECT_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

typedef enum dialect_fragment {
    /* Expressions ------------------------------------------------------------ */
    DIALECT_TEXT_BYTES,       /* (expr): length in bytes of a text value */
    DIALECT_SECONDS_BETWEEN,  /* (later, earlier): seconds between two ISO-8601 texts */
    DIALECT_JSON_ARRAY_TEXTS, /* (expr): subquery, one row per element of a JSON array of strings */
    DIALECT_JSON_HAS_TEXT,    /* (obj, key, value): obj's member key is the JSON string value */
    DIALECT_JSON_MATCHES_ALL, /* (pairs, obj): every member of JSON object pairs equals obj's */
    DIALECT_RECURSIVE_LIMIT,  /* (param): LIMIT inside a recursive CTE, where the engine has one */
    /* Whole statements ---------------------------------------------------------- */
    DIALECT_TABLE_EXISTS,     /* (): count of tables named :name in the current schema */
    DIALECT_CATALOG_SCHEMA,   /* (): create the schema of dbmcp's tables if missing; "" = none */
    DIALECT_DUMP_OBJECTS,     /* (): (name, kind) of every table and view of the current
                                 schema but the engine's own; kind 'table', 'view' or
                                 'virtual' (rows live in other tables, listed too) */
    DIALECT_MIGRATIONS_TABLE, /* (): create dbmcp_schema_migrations if it is missing */
    /* (): index chunk :id with its text :x, heading :h and document title
     * :t. PostgreSQL: with the tsvector literal :v of those that
     * store/pg_fts.c computes (pg_fts_applies) */
    DIALECT_CHUNKS_FTS_INDEX,
    /* (): remove chunk :id, indexed with :x, :h and :t, from the index (a
     * contentless FTS5 row is deleted with the values it was indexed with).
     * PostgreSQL: remove every chunk of document :d */
    DIALECT_CHUNKS_FTS_UNINDEX,
    /* (): the text of chunk c, bytes [c.start_byte, c.end_byte) of the
     * content of its document d (the one copy of the text) */
    DIALECT_CHUNK_TEXT,
    /* (): index memory item :id with text :text. PostgreSQL: with the
     * tsvector literal :v of that text (store/pg_fts.c) */
    DIALECT_MEMORY_FTS_INDEX,
    DIALECT_MEMORY_FTS_UNINDEX, /* (where): remove items i WHERE <where> from the index */
    /* (rows, condition, fts): the rows sr of table rows in scope (condition
     * over sr) that match the expression :q of index fts, newest first:
     * (id, fts_length, phrase hits: int32 (phrase, count) pairs). PostgreSQL:
     * :q is a tsquery and the third column the row's tsvector as text, the
     * hits counted from it by pg_fts_hits */
    DIALECT_FTS_SCOPE_MATCH,
    /* (rows, condition, fts): count of the rows in scope holding phrase :p
     * (its text, without quotes; PostgreSQL: its tsquery, pg_fts.h) */
    DIALECT_FTS_SCOPE_COUNT,
    DIALECT_SESSION_KEY_LOCK, /* (): in a transaction, wait for others creating a session of
                                 API key :k (SQLite: the write lock already serialises) */
    /* Clauses ---------------------------------------------------------------------- */
    DIALECT_SKIP_LOCKED, /* (): after a subquery's LIMIT: lock the rows it picks, passing
                            over rows other transactions locked (SQLite: nothing) */
    DIALECT_FRAGMENT_COUNT
} dialect_fragment;

/* The fragment in db's dialect (a printf format, see above), or NULL when
 * that dialect has none. */
const char *dialect_sql(const store *db, dialect_fragment id);

/* Format fragment id of db's dialect with its operands (const char *, as
 * many as its comment names) into buf. 0, or DBMCP_ESTORE when the dialect
 * lacks the fragment, DBMCP_EINTERNAL when buf is too small. */
int dialect_format(const store *db, dialect_fragment id, char *buf, size_t size, dbmcp_error *err,
                   ...);

#endif
