/*
 * documents.c — the SQL of collections, documents, chunks, their FTS rows
 * and vectors, and the documents' resource rows. See documents.h.
 */
#include "store/documents.h"

#include <assert.h>
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

static int step_reset(store_stmt *st, int64_t *returned, dbmcp_error *err);

/* Prepare sql into *slot unless it holds a statement already: the writer
 * of a run keeps its statements in slots, a single call passes a slot of
 * its own and finalizes it. */
static int slot_prepare(store *db, store_stmt **slot, const char *sql, dbmcp_error *err)
{
    return *slot ? 0 : store_prepare(db, sql, slot, err);
}

static int document_find(store *db, store_stmt **slot, const char *collection, const char *slug,
                         int64_t *id, char **hash, dbmcp_error *err)
{
    *id = 0;
    *hash = NULL;
    int rc = slot_prepare(db, slot,
                          "SELECT id, content_hash FROM dbmcp_documents"
                          " WHERE collection = :c AND slug = :s",
                          err);
    if (rc)
        return rc;
    store_stmt *st = *slot;
    store_bind_text(st, ":c", collection);
    store_bind_text(st, ":s", slug);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        *id = store_column_int(st, 0);
        *hash = registry_col_strdup(st, 1);
        rc = *hash ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int docs_document_find(store *db, const char *collection, const char *slug, int64_t *id,
                       char **hash, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = document_find(db, &st, collection, slug, id, hash, err);
    store_finalize(st);
    return rc;
}

/* A chunk's place in its document, as the index needs it. */
typedef struct chunk_place {
    int64_t id;
    size_t doc;        /* index of its document in the caller's chunk_doc array */
    size_t start, end; /* bytes of the document's content */
    char *heading;     /* owned; NULL when none */
} chunk_place;

/* A document whose chunks are indexed: its title and its content. */
typedef struct chunk_doc {
    char *title;         /* owned */
    const char *content; /* the caller's; content_len bytes */
    size_t content_len;
} chunk_doc;

static void places_free(chunk_place *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++)
        free(p[i].heading);
    free(p);
}

static int places_add(chunk_place **p, size_t *n, size_t *cap, int64_t id, size_t doc, size_t start,
                      size_t end, const char *heading)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        chunk_place *g = realloc(*p, c * sizeof *g);
        if (!g)
            return DBMCP_ENOMEM;
        *p = g;
        *cap = c;
    }
    char *h = heading ? strdup(heading) : NULL;
    if (heading && !h)
        return DBMCP_ENOMEM;
    (*p)[(*n)++] = (chunk_place){id, doc, start, end, h};
    return 0;
}

/* Run fragment id (SQLite's chunk index or unindex) once per chunk with
 * its text (a range of its document's content), heading and title. */
static int fts_rows(store *db, dialect_fragment id, const chunk_doc *docs, const chunk_place *p,
                    size_t n, dbmcp_error *err)
{
    char sql[512];
    store_stmt *st;
    int rc = dialect_format(db, id, sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    char *text = NULL;
    size_t cap = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const chunk_doc *d = &docs[p[i].doc];
        assert(p[i].start <= p[i].end && p[i].end <= d->content_len);
        size_t len = p[i].end - p[i].start;
        if (len + 1 > cap) {
            char *g = realloc(text, len + 1);
            if (!g) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            text = g;
            cap = len + 1;
        }
        memcpy(text, d->content + p[i].start, len);
        text[len] = '\0';
        store_bind_int(st, ":id", p[i].id);
        store_bind_text(st, ":x", text);
        store_bind_text(st, ":h", p[i].heading);
        store_bind_text(st, ":t", d->title);
        rc = step_reset(st, NULL, err);
    }
    free(text);
    store_finalize(st);
    return rc;
}

/* SQLite: delete the FTS rows of document id's chunks with the values
 * they were indexed with, read once: the content and title, then every
 * chunk's range and heading. */
static int fts_unindex_sqlite(store *db, int64_t id, dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        store_prepare(db, "SELECT title, content FROM dbmcp_documents WHERE id = :d", &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":d", id);
    char *title = NULL, *content = NULL;
    size_t content_len = 0;
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        title = registry_col_strdup(st, 0);
        content_len = store_column_bytes(st, 1);
        content = malloc(content_len + 1);
        if (content)
            memcpy(content, store_column_text(st, 1), content_len + 1);
        rc = title && content ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_finalize(st);
    chunk_place *places = NULL;
    size_t n = 0, cap = 0;
    if (!rc && content)
        rc = store_prepare(db,
                           "SELECT id, start_byte, end_byte, heading FROM dbmcp_chunks"
                           " WHERE document_id = :d ORDER BY id",
                           &st, err);
    if (!rc && content) {
        store_bind_int(st, ":d", id);
        while ((rc = store_step(st, err)) == STORE_ROW) {
            int64_t s = store_column_int(st, 1), e = store_column_int(st, 2);
            if (s < 0 || e < s || (size_t)e > content_len) {
                rc = dbmcp_error_set(err, DBMCP_ESTORE,
                                     "chunk %lld points outside its document's text",
                                     (long long)store_column_int(st, 0));
                break;
            }
            if (places_add(&places, &n, &cap, store_column_int(st, 0), 0, (size_t)s, (size_t)e,
                           store_column_text(st, 3))) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
        }
        store_finalize(st);
        rc = rc == STORE_DONE ? 0 : rc;
    }
    chunk_doc doc = {title, content, content_len};
    if (!rc && n)
        rc = fts_rows(db, DIALECT_CHUNKS_FTS_UNINDEX, &doc, places, n, err);
    places_free(places, n);
    free(title);
    free(content);
    return rc;
}

int docs_document_clear(store *db, int64_t id, dbmcp_error *err)
{
    /* The index forgets the chunks while they can still be read. */
    int rc;
    if (pg_fts_applies(db)) {
        char sql[512];
        store_stmt *st;
        if ((rc = dialect_format(db, DIALECT_CHUNKS_FTS_UNINDEX, sql, sizeof sql, err)) ||
            (rc = store_prepare(db, sql, &st, err)))
            return rc;
        store_bind_int(st, ":d", id);
        rc = run_done(st, err);
    } else {
        rc = fts_unindex_sqlite(db, id, err);
    }
    if (rc)
        return rc;
    store_stmt *st;
    if ((rc = store_prepare(db, "DELETE FROM dbmcp_chunks WHERE document_id = :d", &st, err)))
        return rc;
    store_bind_int(st, ":d", id);
    if ((rc = run_done(st, err)))
        return rc;
    return search_index_bump(db, DOCS_VERSION_KEY, err);
}

static int document_put(store *db, store_stmt **slot, const doc_record *d, int64_t *id,
                        dbmcp_error *err)
{
    int rc = slot_prepare(
        db, slot,
        "INSERT INTO dbmcp_documents (collection, slug, uri, title, source, language, mime_type,"
        " metadata, content_hash, content, bytes, created_at, updated_at)"
        " VALUES (:c, :s, :u, :t, :src, :l, :m, :meta, :h, :content, :b, :now, :now)"
        " ON CONFLICT (collection, slug) DO UPDATE SET uri = excluded.uri, title = excluded.title,"
        " source = excluded.source, language = excluded.language,"
        " mime_type = excluded.mime_type, metadata = excluded.metadata,"
        " content_hash = excluded.content_hash, content = excluded.content,"
        " bytes = excluded.bytes, updated_at = excluded.updated_at RETURNING id",
        err);
    if (rc)
        return rc;
    store_stmt *st = *slot;
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
    rc = step_reset(st, id, err);
    if (rc == DBMCP_ECONSTRAINT_CHECK)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "document '%s' was refused by the schema (slug: a-z, 0-9, '.', "
                               "'_', '-', at most 128; metadata: a JSON object)",
                               d->slug);
    return rc;
}

struct doc_chunk_writer {
    store *db;
    store_stmt *chunk;    /* INSERT INTO dbmcp_chunks … RETURNING id */
    store_stmt *vec;      /* INSERT INTO dbmcp_chunk_vectors … ON CONFLICT DO UPDATE */
    store_stmt *find;     /* document_find's, once used */
    store_stmt *put;      /* document_put's, once used */
    store_stmt *resource; /* resource_put's, once used */
    chunk_doc *docs;      /* the documents given, the current one last */
    size_t n_docs, cap_docs;
    int64_t title_length; /* token positions of the current document's title */
    chunk_place *placed;  /* the chunks inserted, for docs_chunk_writer_index */
    size_t n_placed, cap_placed;
};

int docs_chunk_writer_open(store *db, doc_chunk_writer **out, dbmcp_error *err)
{
    *out = NULL;
    doc_chunk_writer *w = calloc(1, sizeof *w);
    if (!w)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    w->db = db;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_chunks (document_id, seq, start_byte, end_byte,"
                           " heading, tokens, fts_length)"
                           " VALUES (:d, :q, :s, :e, :h, :t, :len) RETURNING id",
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

int docs_chunk_writer_document(doc_chunk_writer *w, const char *title, const char *content,
                               size_t content_len, dbmcp_error *err)
{
    if (w->n_docs == w->cap_docs) {
        size_t c = w->cap_docs ? w->cap_docs * 2 : 16;
        chunk_doc *g = realloc(w->docs, c * sizeof *g);
        if (!g)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        w->docs = g;
        w->cap_docs = c;
    }
    char *t = strdup(title);
    int64_t length = t ? text_token_count(title, strlen(title)) : -1;
    if (length < 0) {
        free(t);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    w->docs[w->n_docs++] = (chunk_doc){t, content, content_len};
    w->title_length = length;
    return 0;
}

void docs_chunk_writer_close(doc_chunk_writer *w)
{
    if (!w)
        return;
    store_finalize(w->chunk);
    store_finalize(w->vec);
    store_finalize(w->find);
    store_finalize(w->put);
    store_finalize(w->resource);
    places_free(w->placed, w->n_placed);
    for (size_t i = 0; i < w->n_docs; i++)
        free(w->docs[i].title);
    free(w->docs);
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
    assert(w->n_docs > 0 && end >= start && end - start == text_len);
    assert(end <= w->docs[w->n_docs - 1].content_len);
    /* The length BM25 sees: what DIALECT_CHUNKS_FTS_INDEX indexes. */
    int64_t text_length = text_token_count(text, text_len);
    int64_t heading_length = heading ? text_token_count(heading, strlen(heading)) : 0;
    if (text_length < 0 || heading_length < 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    store_bind_int(w->chunk, ":d", doc);
    store_bind_int(w->chunk, ":q", seq);
    store_bind_int(w->chunk, ":s", (int64_t)start);
    store_bind_int(w->chunk, ":e", (int64_t)end);
    store_bind_text(w->chunk, ":h", heading);
    store_bind_int(w->chunk, ":t", tokens);
    store_bind_int(w->chunk, ":len", text_length + heading_length + w->title_length);
    int64_t id = 0;
    int rc = step_reset(w->chunk, &id, err);
    if (!rc && places_add(&w->placed, &w->n_placed, &w->cap_placed, id, w->n_docs - 1, start, end,
                          heading))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        *chunk_id = id;
    return rc;
}

/* PostgreSQL: index the n chunks p of document doc of w. */
static int pg_index_document(doc_chunk_writer *w, size_t doc, const chunk_place *p, size_t n,
                             dbmcp_error *err)
{
    const chunk_doc *d = &w->docs[doc];
    int64_t *ids = malloc(n * sizeof *ids);
    char **texts = calloc(n, sizeof *texts);
    const char **headings = malloc(n * sizeof *headings);
    int rc = ids && texts && headings ? 0 : DBMCP_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        assert(p[i].doc == doc && p[i].end <= d->content_len);
        ids[i] = p[i].id;
        headings[i] = p[i].heading;
        texts[i] = strndup(d->content + p[i].start, p[i].end - p[i].start);
        rc = texts[i] ? 0 : DBMCP_ENOMEM;
    }
    if (rc)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    else
        rc =
            pg_fts_index_chunks(w->db, n, ids, (const char *const *)texts, headings, d->title, err);
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    free(ids);
    free(headings);
    return rc;
}

int docs_chunk_writer_index(doc_chunk_writer *w, dbmcp_error *err)
{
    if (!w->n_placed)
        return 0;
    if (!pg_fts_applies(w->db))
        /* One statement run per chunk, after all the other writes: a
         * single-row insert needs no statement savepoint, at which FTS5
         * would flush its pending terms into a new segment. */
        return fts_rows(w->db, DIALECT_CHUNKS_FTS_INDEX, w->docs, w->placed, w->n_placed, err);
    /* PostgreSQL: the tokens computed in C (store/pg_fts.c), a document at
     * a time (its chunks are consecutive). */
    int rc = 0;
    for (size_t first = 0, next; !rc && first < w->n_placed; first = next) {
        size_t doc = w->placed[first].doc;
        for (next = first; next < w->n_placed && w->placed[next].doc == doc; next++)
            ;
        rc = pg_index_document(w, doc, w->placed + first, next - first, err);
    }
    return rc;
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

/* The ids of the collection's documents, ascending, into *ids (caller
 * frees) and their count into *n. */
static int document_ids(store *db, const char *collection, int64_t **ids, size_t *n,
                        dbmcp_error *err)
{
    *ids = NULL;
    *n = 0;
    store_stmt *st;
    int rc = store_prepare(db, "SELECT id FROM dbmcp_documents WHERE collection = :c ORDER BY id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":c", collection);
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (*n == cap) {
            size_t c = cap ? cap * 2 : 64;
            int64_t *g = realloc(*ids, c * sizeof *g);
            if (!g) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            *ids = g;
            cap = c;
        }
        (*ids)[(*n)++] = store_column_int(st, 0);
    }
    store_finalize(st);
    return rc == STORE_DONE ? 0 : rc;
}

/* fn for every chunk of document doc, in id order: the document's content
 * is read once and cut in C (a range per chunk in SQL would read all of it
 * per chunk). */
static int document_chunks_each(store *db, int64_t doc,
                                int (*fn)(void *ctx, int64_t chunk_id, const char *title,
                                          const char *heading, const char *text),
                                void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        store_prepare(db, "SELECT title, content FROM dbmcp_documents WHERE id = :d", &st, err);
    if (rc)
        return rc;
    store_bind_int(st, ":d", doc);
    char *title = NULL, *content = NULL;
    size_t content_len = 0;
    if ((rc = store_step(st, err)) == STORE_ROW) {
        title = registry_col_strdup(st, 0);
        content_len = store_column_bytes(st, 1);
        content = malloc(content_len + 1);
        if (content)
            memcpy(content, store_column_text(st, 1), content_len + 1);
        rc = title && content ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    store_finalize(st);
    chunk_place *places = NULL;
    size_t n = 0, cap = 0;
    if (!rc && content &&
        !(rc = store_prepare(db,
                             "SELECT id, start_byte, end_byte, heading FROM dbmcp_chunks"
                             " WHERE document_id = :d ORDER BY id",
                             &st, err))) {
        store_bind_int(st, ":d", doc);
        while ((rc = store_step(st, err)) == STORE_ROW) {
            int64_t s = store_column_int(st, 1), e = store_column_int(st, 2);
            if (s < 0 || e < s || (size_t)e > content_len)
                rc = dbmcp_error_set(err, DBMCP_ESTORE,
                                     "chunk %lld points outside its document's text",
                                     (long long)store_column_int(st, 0));
            else if (places_add(&places, &n, &cap, store_column_int(st, 0), 0, (size_t)s, (size_t)e,
                                store_column_text(st, 3)))
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            if (rc < 0)
                break;
        }
        store_finalize(st);
        rc = rc == STORE_DONE ? 0 : rc;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        char saved = content[places[i].end];
        content[places[i].end] = '\0';
        rc = fn(ctx, places[i].id, title, places[i].heading, content + places[i].start);
        content[places[i].end] = saved;
    }
    places_free(places, n);
    free(title);
    free(content);
    return rc;
}

int docs_chunks_each(store *db, const char *collection,
                     int (*fn)(void *ctx, int64_t chunk_id, const char *title, const char *heading,
                               const char *text),
                     void *ctx, dbmcp_error *err)
{
    int64_t *ids;
    size_t n;
    int rc = document_ids(db, collection, &ids, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = document_chunks_each(db, ids[i], fn, ctx, err);
    free(ids);
    return rc;
}

static int resource_put(store *db, store_stmt **slot, const char *uri, const char *name,
                        const char *title, const char *description, const char *mime_type,
                        const char *text, dbmcp_error *err)
{
    int rc = slot_prepare(
        db, slot,
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
        err);
    if (rc)
        return rc;
    store_stmt *st = *slot;
    store_bind_text(st, ":u", uri);
    store_bind_text(st, ":n", name);
    store_bind_text(st, ":t", title);
    store_bind_text(st, ":d", description);
    store_bind_text(st, ":m", mime_type);
    store_bind_text(st, ":x", text);
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":now", now);
    return step_reset(st, NULL, err);
}

int docs_chunk_writer_find(doc_chunk_writer *w, const char *collection, const char *slug,
                           int64_t *id, char **hash, dbmcp_error *err)
{
    return document_find(w->db, &w->find, collection, slug, id, hash, err);
}

int docs_chunk_writer_put_document(doc_chunk_writer *w, const doc_record *d, int64_t *id,
                                   dbmcp_error *err)
{
    return document_put(w->db, &w->put, d, id, err);
}

int docs_chunk_writer_put_resource(doc_chunk_writer *w, const char *uri, const char *name,
                                   const char *title, const char *description,
                                   const char *mime_type, const char *text, dbmcp_error *err)
{
    return resource_put(w->db, &w->resource, uri, name, title, description, mime_type, text, err);
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
        "dbmcp_chunks",
        "EXISTS (SELECT 1 FROM dbmcp_documents d JOIN dbmcp_resources res ON res.uri = d.uri"
        " AND res.enabled = 1 WHERE d.id = sr.document_id AND" EXPOSED_BY_IFACE("d.uri") ")",
        "CAST((SELECT version FROM dbmcp_data_versions WHERE name = '" DOCS_VERSION_KEY
        "') AS TEXT)"
        " || '/' || CAST((SELECT resources_version FROM dbmcp_catalog_version WHERE id = 1) AS "
        "TEXT)",
        {":iface", NULL},
        {iface, NULL}};
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

/* The statement reading chunk rows (doc_chunk_row) WHERE where, into sql. */
static int chunk_row_sql(store *db, const char *where, char *sql, size_t size, dbmcp_error *err)
{
    char text[256];
    int rc = dialect_format(db, DIALECT_CHUNK_TEXT, text, sizeof text, err);
    if (rc)
        return rc;
    int n = snprintf(sql, size,
                     "SELECT c.id, c.seq, c.start_byte, c.end_byte, c.heading, %s, d.uri, d.title,"
                     " d.collection, d.slug, d.language, d.metadata,"
                     " (SELECT count(*) FROM dbmcp_chunks x WHERE x.document_id = d.id)"
                     " FROM dbmcp_chunks c JOIN dbmcp_documents d ON d.id = c.document_id"
                     " WHERE %s",
                     text, where);
    if (n < 0 || (size_t)n >= size)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                       "chunk statement too long");
    return 0;
}

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
    char sql[1024];
    store_stmt *st;
    int found, rc = chunk_row_sql(db, "c.id = :id", sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_int(st, ":id", chunk_id);
    return chunk_rows(st, fn, ctx, &found, err);
}

int docs_chunk_get_by_seq(store *db, const char *collection, const char *slug, int64_t seq,
                          void (*fn)(void *ctx, const doc_chunk_row *row), void *ctx,
                          dbmcp_error *err)
{
    char sql[1024];
    store_stmt *st;
    int found, rc = chunk_row_sql(db, "d.collection = :c AND d.slug = :s AND c.seq = :q", sql,
                                  sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
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
