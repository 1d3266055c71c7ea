/*
 * documents.c — the SQL of collections, documents, chunks, their FTS rows
 * and vectors, and the documents' resource rows. See documents.h.
 */
#include "store/documents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/textnorm.h"
#include "store/dialect.h"
#include "store/pg_fts.h"
#include "store/registry_internal.h"
#include "store/search_index.h"

/* Step a prepared statement to completion; finalizes it. */
static int run_done(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- collections ----------------------------------------------------------- */

void docs_collection_free(doc_collection *c)
{
    free(c->name);
    free(c->interface);
    free(c->embed_model);
    free(c->chunk_strategy);
    memset(c, 0, sizeof *c);
}

int docs_collection_get(store *db, const char *name, doc_collection *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT name, interface, embed_model, embed_dim, chunk_strategy,"
                           " chunk_max_tokens, chunk_overlap,"
                           " (SELECT count(*) FROM dbmcp_documents d WHERE d.collection = c.name)"
                           " FROM dbmcp_collections c WHERE name = :n",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":n", name);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        out->name = registry_col_strdup(st, 0);
        out->interface = registry_col_strdup(st, 1);
        out->embed_model = registry_col_strdup(st, 2);
        out->embed_dim = (int)store_column_int(st, 3);
        out->chunk_strategy = registry_col_strdup(st, 4);
        out->chunk_max_tokens = (int)store_column_int(st, 5);
        out->chunk_overlap = (int)store_column_int(st, 6);
        out->documents = store_column_int(st, 7);
        rc = out->name && out->chunk_strategy ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "oom");
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no collection named '%s'", name);
    }
    store_finalize(st);
    if (rc)
        docs_collection_free(out);
    return rc;
}

static int expose(store *db, const char *iface, const char *uri, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_interface_resources (interface, uri)"
                           " VALUES (:i, :u) ON CONFLICT DO NOTHING",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":i", iface);
    store_bind_text(st, ":u", uri);
    return run_done(st, err);
}

int docs_collection_ensure(store *db, const char *name, const char *iface, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_collections (name, interface, created_at,"
                           " updated_at) VALUES (:n, :i, :now, :now)"
                           " ON CONFLICT (name) DO UPDATE SET"
                           " interface = coalesce(excluded.interface, dbmcp_collections.interface),"
                           " updated_at = CASE WHEN excluded.interface IS NULL"
                           " THEN dbmcp_collections.updated_at ELSE excluded.updated_at END",
                           &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":n", name);
    store_bind_text(st, ":i", iface);
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0) {
        if (rc == DBMCP_ECONSTRAINT_CHECK)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "collection name '%s' is not allowed: use 1 to 64 characters "
                                   "a-z, 0-9, '_' and '-', starting with a letter or digit",
                                   name);
        if (rc == DBMCP_ECONSTRAINT_FOREIGN_KEY)
            return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no interface named '%s'", iface);
        return rc;
    }
    if (!iface)
        return 0;
    char uri[128];
    snprintf(uri, sizeof uri, "doc://%s/*", name);
    rc = expose(db, iface, uri, err);
    if (!rc)
        rc = expose(db, iface, "doc://{collection}/{slug}/chunks/{n}", err);
    return rc;
}

int docs_collection_set_model(store *db, const char *name, const char *model, int dim,
                              dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_collections SET embed_model = :m, embed_dim = :d,"
                           " updated_at = :now WHERE name = :n",
                           &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":m", model);
    store_bind_int(st, ":d", dim);
    store_bind_text(st, ":n", name);
    return run_done(st, err);
}

int docs_collection_set_chunking(store *db, const char *name, const char *strategy, int max_tokens,
                                 int overlap, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_collections SET chunk_strategy = :s,"
                           " chunk_max_tokens = :m, chunk_overlap = :o WHERE name = :n"
                           " AND (chunk_strategy, chunk_max_tokens, chunk_overlap)"
                           " IS DISTINCT FROM (:s, :m, :o)",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":s", strategy);
    store_bind_int(st, ":m", max_tokens);
    store_bind_int(st, ":o", overlap);
    store_bind_text(st, ":n", name);
    return run_done(st, err);
}

/* --- documents -------------------------------------------------------------- */

int docs_document_find(store *db, const char *collection, const char *slug, int64_t *id,
                       char **hash, dbmcp_error *err)
{
    *id = 0;
    *hash = NULL;
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT id, content_hash FROM dbmcp_documents"
                           " WHERE collection = :c AND slug = :s",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", collection);
    store_bind_text(st, ":s", slug);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *id = store_column_int(st, 0);
        *hash = registry_col_strdup(st, 1);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int docs_document_clear(store *db, int64_t id, dbmcp_error *err)
{
    /* The index forgets the chunks while they can still be read (a
     * contentless FTS5 row is deleted with the values it was indexed with). */
    char sql[512];
    store_stmt *st;
    int rc = dialect_format(db, DIALECT_CHUNKS_FTS_UNINDEX, sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":d", id);
    if ((rc = run_done(st, err)))
        return rc;
    if ((rc = store_prepare(db, "DELETE FROM dbmcp_chunks WHERE document_id = :d", &st, err)))
        return rc;
    store_bind_int(st, ":d", id);
    if ((rc = run_done(st, err)))
        return rc;
    return search_index_bump(db, DOCS_VERSION_KEY, err);
}

int docs_document_put(store *db, const doc_record *d, int64_t *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "INSERT INTO dbmcp_documents (collection, slug, uri, title, source, language, mime_type,"
        " metadata, content_hash, content, bytes, created_at, updated_at)"
        " VALUES (:c, :s, :u, :t, :src, :l, :m, :meta, :h, :content, :b, :now, :now)"
        " ON CONFLICT (collection, slug) DO UPDATE SET uri = excluded.uri, title = excluded.title,"
        " source = excluded.source, language = excluded.language,"
        " mime_type = excluded.mime_type, metadata = excluded.metadata,"
        " content_hash = excluded.content_hash, content = excluded.content,"
        " bytes = excluded.bytes, updated_at = excluded.updated_at RETURNING id",
        &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":c", d->collection);
    store_bind_text(st, ":s", d->slug);
    store_bind_text(st, ":u", d->uri);
    store_bind_text(st, ":t", d->title);
    store_bind_text(st, ":src", d->source);
    store_bind_text(st, ":l", d->language);
    store_bind_text(st, ":m", d->mime_type);
    store_bind_text(st, ":meta", d->metadata ? d->metadata : "{}");
    store_bind_text(st, ":h", d->content_hash);
    store_bind_text(st, ":content", d->content);
    store_bind_int(st, ":b", d->bytes);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        *id = store_column_int(st, 0);
    store_finalize(st);
    if (rc == DBMCP_ECONSTRAINT_CHECK)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "document '%s' was refused by the schema (slug: a-z, 0-9, '.', "
                               "'_', '-', at most 128; metadata: a JSON object)",
                               d->slug);
    return rc < 0 ? rc : 0;
}

struct doc_chunk_writer {
    store_stmt *chunk;    /* INSERT INTO dbmcp_chunks … RETURNING id */
    store_stmt *vec;      /* INSERT INTO dbmcp_chunk_vectors … ON CONFLICT DO UPDATE */
    int64_t title_length; /* token positions of the document's title */
};

int docs_chunk_writer_open(store *db, const char *title, doc_chunk_writer **out, dbmcp_error *err)
{
    *out = NULL;
    doc_chunk_writer *w = calloc(1, sizeof *w);
    if (!w)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    w->title_length = title ? text_token_count(title, strlen(title)) : 0;
    if (w->title_length < 0) {
        free(w);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_chunks (document_id, seq, start_byte, end_byte,"
                           " heading, tokens, text, fts_length)"
                           " VALUES (:d, :q, :s, :e, :h, :t, :x, :len) RETURNING id",
                           &w->chunk, err);
    if (!rc)
        rc = store_prepare(db,
                           "INSERT INTO dbmcp_chunk_vectors (model, item_id, dim, vec)"
                           " VALUES (:m, :i, :d, :v) ON CONFLICT (model, item_id)"
                           " DO UPDATE SET dim = excluded.dim, vec = excluded.vec",
                           &w->vec, err);
    if (rc) {
        docs_chunk_writer_close(w);
        return rc;
    }
    *out = w;
    return 0;
}

void docs_chunk_writer_close(doc_chunk_writer *w)
{
    if (!w)
        return;
    store_finalize(w->chunk);
    store_finalize(w->vec);
    free(w);
}

/* Step a reusable statement once and reset it for the next use. */
static int step_reset(store_stmt *st, int64_t *returned, dbmcp_error *err)
{
    int rc = store_step(st, err);
    if (rc == STORE_ROW && returned)
        *returned = store_column_int(st, 0);
    /* RETURNING: the insert is complete only once the statement finished. */
    while (rc == STORE_ROW)
        rc = store_step(st, err);
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int docs_chunk_insert(doc_chunk_writer *w, int64_t doc, int seq, size_t start, size_t end,
                      const char *heading, int tokens, const char *text, size_t text_len,
                      int64_t *chunk_id, dbmcp_error *err)
{
    /* The length BM25 sees: what DIALECT_CHUNKS_FTS_INDEX indexes. */
    int64_t text_length = text_token_count(text, text_len);
    int64_t heading_length = heading ? text_token_count(heading, strlen(heading)) : 0;
    char *copy = text_length >= 0 && heading_length >= 0 ? malloc(text_len + 1) : NULL;
    if (!copy)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    memcpy(copy, text, text_len);
    copy[text_len] = '\0';
    store_bind_int(w->chunk, ":d", doc);
    store_bind_int(w->chunk, ":q", seq);
    store_bind_int(w->chunk, ":s", (int64_t)start);
    store_bind_int(w->chunk, ":e", (int64_t)end);
    store_bind_text(w->chunk, ":h", heading);
    store_bind_int(w->chunk, ":t", tokens);
    store_bind_text(w->chunk, ":x", copy);
    store_bind_int(w->chunk, ":len", text_length + heading_length + w->title_length);
    int rc = step_reset(w->chunk, chunk_id, err);
    free(copy);
    return rc;
}

int docs_document_index(store *db, int64_t doc, dbmcp_error *err)
{
    if (pg_fts_applies(db)) /* tokens computed in C, one row at a time */
        return pg_fts_index_chunks(db, doc, err);
    /* One statement for all rows: FTS5 flushes its pending terms into a new
     * segment at every statement savepoint, so row-by-row inserts between
     * other writes would build one tiny segment per chunk. */
    char sql[512];
    store_stmt *st;
    int rc = dialect_format(db, DIALECT_CHUNKS_FTS_INDEX, sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":d", doc);
    return run_done(st, err);
}

int docs_vector_put(doc_chunk_writer *w, int64_t chunk_id, const char *model, int dim,
                    const float *vec, dbmcp_error *err)
{
    store_bind_text(w->vec, ":m", model);
    store_bind_int(w->vec, ":i", chunk_id);
    store_bind_int(w->vec, ":d", dim);
    store_bind_blob(w->vec, ":v", vec, (size_t)dim * sizeof *vec);
    return step_reset(w->vec, NULL, err);
}

int docs_vectors_drop_other_models(store *db, const char *collection, const char *keep,
                                   dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "DELETE FROM dbmcp_chunk_vectors WHERE model IS DISTINCT FROM :k AND item_id IN"
        " (SELECT c.id FROM dbmcp_chunks c JOIN dbmcp_documents d"
        " ON d.id = c.document_id WHERE d.collection = :c)",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":k", keep);
    store_bind_text(st, ":c", collection);
    if ((rc = run_done(st, err)))
        return rc;
    return search_index_bump(db, DOCS_VERSION_KEY, err);
}

int docs_chunks_each(store *db, const char *collection,
                     int (*fn)(void *ctx, int64_t chunk_id, const char *title, const char *heading,
                               const char *text),
                     void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT c.id, d.title, c.heading, c.text FROM dbmcp_chunks c"
                           " JOIN dbmcp_documents d"
                           " ON d.id = c.document_id WHERE d.collection = :c ORDER BY c.id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", collection);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        int stop = fn(ctx, store_column_int(st, 0), store_column_text(st, 1),
                      store_column_text(st, 2), store_column_text(st, 3));
        if (stop) {
            rc = stop;
            break;
        }
    }
    store_finalize(st);
    return rc == STORE_DONE ? 0 : rc;
}

int docs_resource_put(store *db, const char *uri, const char *name, const char *title,
                      const char *description, const char *mime_type, const char *text,
                      dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "INSERT INTO dbmcp_resources (uri, name, title, description, mime_type, content_text,"
        " created_at, updated_at) VALUES (:u, :n, :t, :d, :m, :x, :now, :now)"
        " ON CONFLICT (uri) DO UPDATE SET"
        " title = excluded.title,"
        " description = coalesce(dbmcp_resources.description, excluded.description),"
        " mime_type = excluded.mime_type, content_text = excluded.content_text,"
        " content_blob = NULL, enabled = 1, updated_at = excluded.updated_at"
        " WHERE (dbmcp_resources.title, dbmcp_resources.description, dbmcp_resources.mime_type,"
        " dbmcp_resources.content_text, dbmcp_resources.enabled) IS DISTINCT FROM"
        " (excluded.title, coalesce(dbmcp_resources.description, excluded.description),"
        " excluded.mime_type, excluded.content_text, 1)",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":u", uri);
    store_bind_text(st, ":n", name);
    store_bind_text(st, ":t", title);
    store_bind_text(st, ":d", description);
    store_bind_text(st, ":m", mime_type);
    store_bind_text(st, ":x", text);
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":now", now);
    return run_done(st, err);
}

/* --- reads ------------------------------------------------------------------ */

void docs_search_scope(const char *iface, search_index_scope *out)
{
    /* Tested per chunk (EXISTS), not as a list of every exposed document
     * built per statement: a match then costs a few lookups, whatever
     * the size of the collections. The version changes with every
     * ingest (chunks) and every change of resources or of what an
     * interface exposes (the catalog's resources version, triggers). */
    *out = (search_index_scope){
        .rows = "dbmcp_chunks",
        .condition =
            "EXISTS (SELECT 1 FROM dbmcp_documents d JOIN dbmcp_resources res ON res.uri = d.uri"
            " AND res.enabled = 1 WHERE d.id = sr.document_id AND" EXPOSED_BY_IFACE("d.uri") ")",
        .version =
            "CAST((SELECT version FROM dbmcp_data_versions WHERE name = '" DOCS_VERSION_KEY
            "') AS TEXT)"
            " || '/' || CAST((SELECT resources_version FROM dbmcp_catalog_version WHERE id = 1) AS "
            "TEXT)",
        .names = {":iface"},
        .values = {iface}};
}

int docs_filter_chunks(store *db, const doc_filter *f, void (*add)(void *ctx, int64_t chunk_id),
                       void *ctx, dbmcp_error *err)
{
    /* Metadata conditions: up to 8 key/value pairs as :k1/:v1 … (bound as
     * values: no key ever becomes a JSON path). */
    enum { MAX_META = 8 };
    if (f->n_meta > MAX_META)
        return dbmcp_error_set(err, DBMCP_EINVAL, "at most %d metadata filters", MAX_META);
    char sql[3072];
    size_t len = (size_t)snprintf(
        sql, sizeof sql,
        "SELECT c.id FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id"
        " JOIN dbmcp_resources r ON r.uri = d.uri AND r.enabled = 1"
        " WHERE (CAST(:coll AS TEXT) IS NULL OR d.collection = :coll)"
        " AND (CAST(:lang AS TEXT) IS NULL OR d.language = :lang)"
        " AND" EXPOSED_BY_IFACE("d.uri"));
    int rc = 0;
    for (size_t i = 0; !rc && i < f->n_meta; i++) {
        char k[32], v[32];
        snprintf(k, sizeof k, ":k%zu", i);
        snprintf(v, sizeof v, ":v%zu", i);
        len += (size_t)snprintf(sql + len, sizeof sql - len, " AND ");
        rc = dialect_format(db, DIALECT_JSON_HAS_TEXT, sql + len, sizeof sql - len, err,
                            "d.metadata", k, v);
        len += strlen(sql + len);
    }
    store_stmt *st;
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_text(st, ":coll", f->collection);
    store_bind_text(st, ":lang", f->language);
    store_bind_text(st, ":iface", f->iface);
    for (size_t i = 0; i < f->n_meta; i++) {
        char k[32], v[32];
        snprintf(k, sizeof k, ":k%zu", i);
        snprintf(v, sizeof v, ":v%zu", i);
        store_bind_text(st, k, f->meta[i].key);
        store_bind_text(st, v, f->meta[i].value);
    }
    while ((rc = store_step(st, err)) == STORE_ROW)
        add(ctx, store_column_int(st, 0));
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

#define CHUNK_ROW_SELECT                                                                           \
    "SELECT c.id, c.seq, c.start_byte, c.end_byte, c.heading, c.text, d.uri, d.title,"             \
    " d.collection, d.slug, d.language, d.metadata,"                                               \
    " (SELECT count(*) FROM dbmcp_chunks x WHERE x.document_id = d.id)"                            \
    " FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id"

static int chunk_rows(store_stmt *st, void (*fn)(void *ctx, const doc_chunk_row *row), void *ctx,
                      int *found, dbmcp_error *err)
{
    int rc;
    *found = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        doc_chunk_row r = {
            store_column_int(st, 0),      (int)store_column_int(st, 1), store_column_int(st, 2),
            store_column_int(st, 3),      store_column_text(st, 4),     store_column_text(st, 5),
            store_column_text(st, 6),     store_column_text(st, 7),     store_column_text(st, 8),
            store_column_text(st, 9),     store_column_text(st, 10),    store_column_text(st, 11),
            (int)store_column_int(st, 12)};
        fn(ctx, &r);
        (*found)++;
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int docs_chunk_get(store *db, int64_t chunk_id, void (*fn)(void *ctx, const doc_chunk_row *row),
                   void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int found, rc = store_prepare(db, CHUNK_ROW_SELECT " WHERE c.id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":id", chunk_id);
    return chunk_rows(st, fn, ctx, &found, err);
}

int docs_chunk_get_by_seq(store *db, const char *collection, const char *slug, int64_t seq,
                          void (*fn)(void *ctx, const doc_chunk_row *row), void *ctx,
                          dbmcp_error *err)
{
    store_stmt *st;
    int found, rc = store_prepare(
                   db, CHUNK_ROW_SELECT " WHERE d.collection = :c AND d.slug = :s AND c.seq = :q",
                   &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", collection);
    store_bind_text(st, ":s", slug);
    store_bind_int(st, ":q", seq);
    rc = chunk_rows(st, fn, ctx, &found, err);
    if (!rc && !found)
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no chunk %lld of doc://%s/%s", (long long)seq,
                             collection, slug);
    return rc;
}

int docs_uri_exposed(store *db, const char *iface, const char *uri, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT 1 FROM dbmcp_resources r WHERE r.uri = :u AND r.enabled = 1"
                           " AND" EXPOSED_BY_IFACE("r.uri"),
                           &st, err);
    if (rc)
        return 0;
    store_bind_text(st, ":u", uri);
    store_bind_text(st, ":iface", iface);
    rc = store_step(st, err);
    store_finalize(st);
    return rc == STORE_ROW;
}

int docs_demo_sources_each(store *db,
                           int (*fn)(void *ctx, const char *slug, const char *title,
                                     const char *text, const char *region, const char *sector),
                           void *ctx, dbmcp_error *err)
{
    /* A summary's slug starts with its agreement's slug (…-en, …-ja, …-zh). */
    store_stmt *st;
    int rc =
        store_prepare(db,
                      "SELECT substr(r.uri, 13), r.title, r.content_text, a.region, a.sector"
                      " FROM dbmcp_resources r LEFT JOIN tarif_agreements a"
                      " ON substr(r.uri, 13) = a.slug OR substr(r.uri, 13) LIKE a.slug || '-__'"
                      " WHERE r.uri LIKE 'doc://tarif/%' AND r.uri <> 'doc://tarif/index'"
                      " AND r.content_text IS NOT NULL ORDER BY r.uri",
                      &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        int stop = fn(ctx, store_column_text(st, 0), store_column_text(st, 1),
                      store_column_text(st, 2), store_column_text(st, 3), store_column_text(st, 4));
        if (stop) {
            rc = stop;
            break;
        }
    }
    store_finalize(st);
    return rc == STORE_DONE ? 0 : rc;
}
