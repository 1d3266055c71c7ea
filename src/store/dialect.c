/*
 * dialect.c — the table of SQL fragments per dialect (see dialect.h).
 *
 * The SQLite column is what dbmcp runs today. The PostgreSQL column is
 * written where the translation is known; NULL marks what has no
 * PostgreSQL form yet. Full text on PostgreSQL is dbmcp's own tokens in a
 * tsvector per row (store/pg_fts.h): the index fragments there write one
 * row whose tsvector literal :v pg_fts.c computed in C, and the match
 * fragments take a tsquery (:q, :p) pg_fts.c built from the phrase list
 * and return the row's tsvector text, from which it counts phrase hits.
 * Every fragment is a printf format, so a literal '%' is written "%%".
 */
#include "store/dialect.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct dialect_entry {
    const char *name;     /* for error messages */
    const char *sqlite;   /* SQLite 3.40 */
    const char *postgres; /* PostgreSQL 15, or NULL */
} dialect_entry;

#define MIGRATIONS_COLUMNS                                                                         \
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL"

static const dialect_entry fragments[DIALECT_FRAGMENT_COUNT] = {
    [DIALECT_TEXT_BYTES] = {"text bytes", "length(CAST(%s AS BLOB))", "octet_length(%s)"},
    [DIALECT_SECONDS_BETWEEN] = {"seconds between", "((julianday(%s) - julianday(%s)) * 86400.0)",
                                 "extract(epoch FROM CAST(%s AS timestamptz)"
                                 " - CAST(%s AS timestamptz))"},
    [DIALECT_JSON_ARRAY_TEXTS] = {"JSON array texts", "SELECT value FROM json_each(%s)",
                                  "SELECT json_array_elements_text(CAST(%s AS json))"},
    [DIALECT_JSON_HAS_TEXT] = {"JSON text member",
                               "EXISTS (SELECT 1 FROM json_each(%s) m WHERE m.key = %s"
                               " AND m.type = 'text' AND m.value = %s)",
                               "CAST(%s AS jsonb) @> jsonb_build_object(CAST(%s AS text),"
                               " CAST(%s AS text))"},
    [DIALECT_JSON_MATCHES_ALL] = {"JSON members match",
                                  "NOT EXISTS (SELECT 1 FROM json_each(%s) w WHERE"
                                  " json_extract(%s, '$.\"' || w.key || '\"')"
                                  " IS DISTINCT FROM w.value)",
                                  "coalesce(CAST(%2$s AS jsonb), '{}') @> CAST(%1$s AS jsonb)"},
    /* PostgreSQL refuses LIMIT in a recursive query; there the recursion is
     * bounded by its depth condition and by the outer query's LIMIT. */
    [DIALECT_RECURSIVE_LIMIT] = {"recursive limit", " LIMIT %s", ""},
    [DIALECT_TABLE_EXISTS] = {"table exists",
                              "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                              " AND name = :name",
                              "SELECT count(*) FROM information_schema.tables"
                              " WHERE table_schema = current_schema() AND table_name = :name"},
    /* SQLite keeps dbmcp's tables beside the user's (the authorizer hides
     * them). PostgreSQL keeps them in the schema dbmcp, which the driver
     * puts first in search_path; the migrations name no schema. */
    [DIALECT_CATALOG_SCHEMA] = {"catalog schema", "", "CREATE SCHEMA IF NOT EXISTS dbmcp"},
    /* pragma_table_list (SQLite 3.37) tells virtual tables and their shadow
     * tables apart by type, which sqlite_master does not. */
    [DIALECT_DUMP_OBJECTS] = {"dump objects",
                              "SELECT name, CASE type WHEN 'shadow' THEN 'table' ELSE type END"
                              " FROM pragma_table_list WHERE schema = 'main'"
                              " AND type IN ('table', 'shadow', 'view', 'virtual')"
                              " AND name NOT LIKE 'sqlite\\_%%' ESCAPE '\\'",
                              "SELECT table_name, CASE table_type WHEN 'VIEW' THEN 'view'"
                              " ELSE 'table' END FROM information_schema.tables"
                              " WHERE table_schema = ANY (current_schemas(false))"
                              " AND table_type IN ('BASE TABLE', 'VIEW')"},
    [DIALECT_MIGRATIONS_TABLE] = {"migrations table",
                                  "CREATE TABLE IF NOT EXISTS dbmcp_schema_migrations"
                                  " (" MIGRATIONS_COLUMNS
                                  " DEFAULT (strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ','now')))",
                                  "CREATE TABLE IF NOT EXISTS dbmcp_schema_migrations"
                                  " (" MIGRATIONS_COLUMNS " DEFAULT to_char(now() AT TIME ZONE"
                                  " 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))"},
    /* Contentless FTS5: rows are added by rowid and removed with the
     * 'delete' command and the values they were indexed with. Ingestion
     * binds the texts it holds in memory: a chunk's text is a range of its
     * document's content, which SQL would read whole for every chunk. */
    [DIALECT_CHUNKS_FTS_INDEX] = {"chunk index",
                                  "INSERT INTO dbmcp_chunks_fts (rowid, text, heading, title)"
                                  " VALUES (:id, :x, :h, :t)",
                                  "INSERT INTO dbmcp_chunks_fts (rowid, doc)"
                                  " VALUES (:id, CAST(:v AS tsvector))"},
    [DIALECT_CHUNKS_FTS_UNINDEX] = {"chunk unindex",
                                    "INSERT INTO dbmcp_chunks_fts (dbmcp_chunks_fts, rowid, text,"
                                    " heading, title) VALUES ('delete', :id, :x, :h, :t)",
                                    "DELETE FROM dbmcp_chunks_fts WHERE rowid IN"
                                    " (SELECT id FROM dbmcp_chunks WHERE document_id = :d)"},
    [DIALECT_CHUNK_TEXT] = {"chunk text",
                            "CAST(substr(CAST(d.content AS BLOB), c.start_byte + 1,"
                            " c.end_byte - c.start_byte) AS TEXT)",
                            "convert_from(substring(convert_to(d.content, 'UTF8')"
                            " FROM CAST(c.start_byte + 1 AS integer)"
                            " FOR CAST(c.end_byte - c.start_byte AS integer)), 'UTF8')"},
    /* External-content FTS5 over dbmcp_mem_items (content_rowid = id). */
    [DIALECT_MEMORY_FTS_INDEX] = {"memory index",
                                  "INSERT INTO dbmcp_mem_fts (rowid, text) VALUES (:id, :text)",
                                  "INSERT INTO dbmcp_mem_fts (rowid, doc)"
                                  " VALUES (:id, CAST(:v AS tsvector))"},
    [DIALECT_MEMORY_FTS_UNINDEX] = {"memory unindex",
                                    "INSERT INTO dbmcp_mem_fts (dbmcp_mem_fts, rowid, text)"
                                    " SELECT 'delete', i.id, i.text FROM dbmcp_mem_items i"
                                    " WHERE%s",
                                    "DELETE FROM dbmcp_mem_fts WHERE rowid IN"
                                    " (SELECT i.id FROM dbmcp_mem_items i WHERE%s)"},
    /* The index drives both: FTS5 walks the postings of the expression in
     * rowid order (descending: no sort) and each match is looked up in the
     * rows table by primary key and tested against the scope. CROSS JOIN
     * keeps that order: left to itself the planner may walk the scope and
     * ask FTS5 for one rowid at a time, which sets the whole query up
     * again per row (seconds for a scope of 20,000 rows). An FTS5 table's
     * hidden column of its own name stands for the table (MATCH, auxiliary
     * functions) under an alias. */
    [DIALECT_FTS_SCOPE_MATCH] = {"scoped keyword match",
                                 "SELECT sr.id, sr.fts_length, dbmcp_phrase_hits(f.%3$s)"
                                 " FROM %3$s f CROSS JOIN %1$s sr WHERE sr.id = f.rowid"
                                 " AND f.%3$s MATCH :q AND (%2$s) ORDER BY f.rowid DESC",
                                 "SELECT sr.id, sr.fts_length, CAST(f.doc AS text)"
                                 " FROM %3$s f JOIN %1$s sr ON sr.id = f.rowid"
                                 " WHERE f.doc @@ CAST(:q AS tsquery) AND (%2$s)"
                                 " ORDER BY f.rowid DESC"},
    [DIALECT_FTS_SCOPE_COUNT] = {"scoped phrase count",
                                 "SELECT count(*) FROM %3$s f CROSS JOIN %1$s sr"
                                 " WHERE sr.id = f.rowid"
                                 " AND f.%3$s MATCH ('\"' || replace(:p, '\"', '\"\"') || '\"')"
                                 " AND (%2$s)",
                                 "SELECT count(*) FROM %3$s f JOIN %1$s sr ON sr.id = f.rowid"
                                 " WHERE f.doc @@ CAST(:p AS tsquery) AND (%2$s)"},
    /* SQLite runs one writer at a time: BEGIN IMMEDIATE is the lock, and the
     * statement only has to be harmless. */
    [DIALECT_SESSION_KEY_LOCK] = {"session key lock", "SELECT 1",
                                  "SELECT pg_advisory_xact_lock(hashtextextended("
                                  "'dbmcp_sessions ' || CAST(:k AS text), 0))"},
    [DIALECT_SKIP_LOCKED] = {"skip locked", "", " FOR UPDATE SKIP LOCKED"},
};

static int is_postgres(const store *db)
{
    return strcmp(store_dialect(db), "postgres") == 0;
}

const char *dialect_sql(const store *db, dialect_fragment id)
{
    if ((int)id < 0 || id >= DIALECT_FRAGMENT_COUNT)
        return NULL;
    return is_postgres(db) ? fragments[id].postgres : fragments[id].sqlite;
}

int dialect_format(const store *db, dialect_fragment id, char *buf, size_t size, dbmcp_error *err,
                   ...)
{
    if ((int)id < 0 || id >= DIALECT_FRAGMENT_COUNT)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error", "no SQL fragment %d",
                                       (int)id);
    const char *fmt = dialect_sql(db, id);
    if (!fmt)
        return dbmcp_error_set_private(err, DBMCP_ESTORE, "internal error",
                                       "the %s dialect has no SQL for '%s' yet", store_dialect(db),
                                       fragments[id].name);
    va_list ap;
    va_start(ap, err);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "SQL for '%s' does not fit in %zu bytes", fragments[id].name,
                                       size);
    return 0;
}
