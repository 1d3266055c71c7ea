/*
 * search_index.c — the SQL of the search engine: version counters, FTS5
 * candidates, vector rows. See search_index.h.
 */
#include "store/search_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "store/dialect.h"

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
    int rc = store_prepare(db, "SELECT version FROM dbmcp_data_versions WHERE name = :k", &st, err);
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
    int rc = store_prepare(db,
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

int search_index_keyword(store *db, const char *fts_table, const char *match, int positive,
                         int (*keep)(void *ctx, int64_t id), void *ctx, size_t max, int64_t *ids,
                         double *scores, double *coverage, size_t *n, atomic_int *cancelled,
                         dbmcp_error *err)
{
    *n = 0;
    int rc = check_name(fts_table, err);
    if (rc)
        return rc;
    char sql[256];
    if ((rc = dialect_format(db, DIALECT_FTS_KEYWORD_SEARCH, sql, sizeof sql, err, fts_table)))
        return rc;
    store_stmt *st;
    if ((rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":n", positive);
    store_bind_text(st, ":q", match);
    while (*n < max) {
        if (cancelled && *cancelled) {
            rc = dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
            break;
        }
        rc = store_step(st, err);
        if (rc != STORE_ROW)
            break;
        int64_t id = store_column_int(st, 0);
        if (keep && !keep(ctx, id))
            continue;
        ids[*n] = id;
        scores[*n] = store_column_double(st, 1);
        if (coverage)
            coverage[*n] = store_column_double(st, 2);
        (*n)++;
    }
    store_finalize(st);
    if (rc == DBMCP_ESTORE && strstr(err->message, "fts5"))
        return dbmcp_error_set_private(err, DBMCP_EINVAL, "the query could not be searched",
                                       "full-text query refused: %s", err->message);
    return rc < 0 ? rc : 0;
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
