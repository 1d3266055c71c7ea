/*
 * search_index.c — the SQL of the search engine: version counters, keyword
 * matches and their statistics within a scope, vector rows. See
 * search_index.h.
 */
#include "store/search_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "store/dialect.h"
#include "store/pg_fts.h"

/* A new version row starts at a random 48-bit value (search_index.h). */
#define VERSION_START_MASK ((UINT64_C(1) << 48) - 1)

/* Table names come from the caller's constants, but a wrong one must never
 * become SQL: [a-z0-9_] only. */
static int check_name(const char *name, dbmcp_error *err)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 63)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "search index: bad table name");
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                           "search index: bad table name '%s'", name);
    }
    return 0;
}

int search_index_version(store *db, const char *key, int64_t *out, dbmcp_error *err)
{
    *out = 0;
    store_stmt *st;
    int rc = store_prepare_cached(db, "SELECT version FROM dbmcp_data_versions WHERE name = :k",
                                  &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        *out = store_column_int(st, 0);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int search_index_bump(store *db, const char *key, dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        store_prepare_cached(db,
                             "INSERT INTO dbmcp_data_versions (name, version) VALUES (:k, :start)"
                             " ON CONFLICT (name) DO UPDATE"
                             " SET version = dbmcp_data_versions.version + 1",
                             &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", key);
    store_bind_int(st, ":start", (int64_t)(ids_random64() & VERSION_START_MASK));
    rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- keyword search within a scope ------------------------------------------ */

/* Scope conditions come from store/ modules, but they are spliced into SQL:
 * check what can be checked (the table name; no statement separator). */
static int check_scope(const search_index_scope *scope, dbmcp_error *err)
{
    if (!scope || !scope->condition || strchr(scope->condition, ';') ||
        (scope->eligible && strchr(scope->eligible, ';')))
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "search index: bad scope");
    return check_name(scope->rows, err);
}

static void bind_scope(store_stmt *st, const search_index_scope *scope)
{
    for (size_t i = 0; i < sizeof scope->names / sizeof scope->names[0]; i++)
        if (scope->names[i])
            store_bind_text(st, scope->names[i], scope->values[i]);
}

/* Prepare fragment id (rows, condition, fts) for scope and fts_table. */
static int prepare_scoped(store *db, dialect_fragment id, const char *fts_table,
                          const search_index_scope *scope, store_stmt **st, dbmcp_error *err)
{
    char sql[4096];
    int rc = check_name(fts_table, err);
    if (!rc)
        rc = check_scope(scope, err);
    if (!rc)
        rc = dialect_format(db, id, sql, sizeof sql, err, scope->rows, scope->condition, fts_table,
                            scope->eligible ? scope->eligible : "1 = 1");
    if (!rc)
        rc = store_prepare(db, sql, st, err);
    if (!rc)
        bind_scope(*st, scope);
    return rc;
}

/* FTS5 reports an expression it cannot parse as an error of the statement;
 * the agent gets a plain message, the operator FTS5's. */
static int refused_query(int rc, dbmcp_error *err)
{
    if (rc == DBMCP_ESTORE && strstr(err->message, "fts5"))
        return dbmcp_error_set_private(err, DBMCP_EINVAL, "the query could not be searched",
                                       "full-text query refused: %s", err->message);
    return rc;
}

int search_index_scope_stats(store *db, const search_index_scope *scope, int64_t *rows,
                             int64_t *length, dbmcp_error *err)
{
    *rows = *length = 0;
    int rc = check_scope(scope, err);
    if (rc)
        return rc;
    char sql[4096];
    int n = scope->stats ? snprintf(sql, sizeof sql, "%s", scope->stats)
                         : snprintf(sql, sizeof sql,
                                    "SELECT count(*), coalesce(sum(sr.fts_length), 0) FROM %s sr"
                                    " WHERE %s",
                                    scope->rows, scope->condition);
    if (n < 0 || (size_t)n >= sizeof sql)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "search index: scope condition too long");
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)))
        return rc;
    bind_scope(st, scope);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *rows = store_column_int(st, 0);
        *length = store_column_int(st, 1);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int search_index_scope_version(store *db, const search_index_scope *scope, char *out, size_t size,
                               dbmcp_error *err)
{
    out[0] = '\0';
    if (!scope->version)
        return 0;
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "SELECT %s", scope->version);
    if (n < 0 || (size_t)n >= sizeof sql || strchr(scope->version, ';'))
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "search index: bad scope version");
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    rc = store_step(st, err);
    if (rc == STORE_ROW && store_column_text(st, 0))
        snprintf(out, size, "%s", store_column_text(st, 0));
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int search_index_phrase_rows(store *db, const char *fts_table, const search_index_scope *scope,
                             const char *phrase, int64_t *count, dbmcp_error *err)
{
    *count = 0;
    store_stmt *st;
    int rc = prepare_scoped(db, DIALECT_FTS_SCOPE_COUNT, fts_table, scope, &st, err);
    if (rc)
        return rc;
    char *tsquery = NULL;
    if (pg_fts_applies(db) && pg_fts_phrase_tsquery(phrase, &tsquery)) {
        store_finalize(st);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_bind_text(st, ":p", tsquery ? tsquery : phrase);
    rc = store_step(st, err);
    free(tsquery);
    if (rc == STORE_ROW)
        *count = store_column_int(st, 0);
    store_finalize(st);
    return refused_query(rc < 0 ? rc : 0, err);
}

/* The (phrase, count) pairs of a row: int32 pairs from the SQLite
 * function, checked against the query's phrase count. */
static size_t read_hits(store_stmt *st, int col, size_t phrases, search_index_hit *hits)
{
    size_t bytes = store_column_bytes(st, col), n = 0;
    const unsigned char *blob = store_column_blob(st, col);
    for (size_t off = 0; blob && off + 2 * sizeof(int32_t) <= bytes && n < phrases;
         off += 2 * sizeof(int32_t)) {
        int32_t pair[2];
        memcpy(pair, blob + off, sizeof pair); /* blob memory has no alignment guarantee */
        if (pair[0] < 0 || (size_t)pair[0] >= phrases || pair[1] < 1)
            continue;
        hits[n++] = (search_index_hit){pair[0], pair[1]};
    }
    return n;
}

int search_index_matches(store *db, const char *fts_table, const search_index_scope *scope,
                         const search_index_query *q, size_t max, search_index_match_fn fn,
                         void *ctx, int *capped, atomic_int *cancelled, dbmcp_error *err)
{
    if (capped)
        *capped = 0;
    /* PostgreSQL: the tsquery and the phrases' tokens, rebuilt from q's
     * phrase list (store/pg_fts.h). */
    pg_fts_query *pq = NULL;
    search_index_hit *hits = malloc((q->count ? q->count : 1) * sizeof *hits);
    if (!hits || (pg_fts_applies(db) && pg_fts_query_build(q, &pq))) {
        free(hits);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_stmt *st;
    int rc = prepare_scoped(db, DIALECT_FTS_SCOPE_MATCH, fts_table, scope, &st, err);
    if (rc) {
        free(hits);
        pg_fts_query_free(pq);
        return rc;
    }
    store_bind_text(st, ":q", pq ? pg_fts_query_text(pq) : q->match);
    size_t rows = 0;
    for (;;) {
        if (cancelled && *cancelled) {
            rc = dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
            break;
        }
        rc = store_step(st, err);
        if (rc != STORE_ROW)
            break;
        if (rows == max) { /* one row more than max: there are more */
            if (capped)
                *capped = 1;
            rc = STORE_DONE;
            break;
        }
        rows++;
        size_t n =
            pq ? pg_fts_hits(pq, store_column_text(st, 2), hits) : read_hits(st, 2, q->count, hits);
        if (n && (rc = fn(ctx, store_column_int(st, 0), store_column_int(st, 1), hits, n,
                          store_column_int(st, 3) != 0)))
            break;
    }
    store_finalize(st);
    free(hits);
    pg_fts_query_free(pq);
    return refused_query(rc == STORE_DONE ? 0 : rc, err);
}

int search_index_vectors_count(store *db, const char *vec_table, const char *model, int dim,
                               size_t *rows, dbmcp_error *err)
{
    *rows = 0;
    int rc = check_name(vec_table, err);
    if (rc)
        return rc;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE model = :m AND dim = :d", vec_table);
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_text(st, ":m", model);
    store_bind_int(st, ":d", dim);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        *rows = (size_t)store_column_int(st, 0);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int search_index_vectors_each(store *db, const char *vec_table, const char *model, int dim,
                              int (*fn)(void *ctx, int64_t id, const float *vec), void *ctx,
                              dbmcp_error *err)
{
    int rc = check_name(vec_table, err);
    if (rc)
        return rc;
    if (dim < 1)
        return dbmcp_error_set(err, DBMCP_EINVAL, "vector dimension must be at least 1");
    float *buf = malloc((size_t)dim * sizeof *buf);
    if (!buf)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT item_id, vec FROM %s WHERE model = :m AND dim = :d ORDER BY item_id",
             vec_table);
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err))) {
        free(buf);
        return rc;
    }
    store_bind_text(st, ":m", model);
    store_bind_int(st, ":d", dim);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (store_column_bytes(st, 1) != (size_t)dim * sizeof(float))
            continue;
        /* Blob memory has no alignment guarantee: copy before reading floats. */
        memcpy(buf, store_column_blob(st, 1), (size_t)dim * sizeof(float));
        int stop = fn(ctx, store_column_int(st, 0), buf);
        if (stop) {
            rc = stop;
            break;
        }
    }
    store_finalize(st);
    free(buf);
    return rc == STORE_DONE ? 0 : rc;
}
