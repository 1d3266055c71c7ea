/*
 * documents.h — the SQL of documents, chunks, their full-text rows and
 * vectors (schema 0002_search.sql), for ingestion (docs/ingest.c), the
 * search_documents tool and the doc:// resources.
 *
 * Transactions: nothing here opens one. Ingestion wraps one document's
 * whole replacement (document row, chunks, FTS rows, vectors, resource
 * row, data version) in store_begin/store_commit, so a failure at any
 * point leaves the collection as it was.
 *
 * A document's text is stored once, in dbmcp_documents.content; a chunk
 * is a byte range of it (schema 0010_text_once.sql). The full-text table
 * is contentless: docs_chunk_writer_index adds the FTS rows of a
 * document's chunks from the text ingestion holds, and docs_document_clear
 * deletes them with the values they were indexed with; no trigger does it
 * behind the caller's back.
 *
 * Ownership: structs filled here own their strings; release them with the
 * matching _free. Row callbacks get values valid during the call only.
 */
#ifndef DBMCP_STORE_DOCUMENTS_H
#define DBMCP_STORE_DOCUMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/search_index.h"
#include "store/store.h"

/* The corpus of document chunks, for search/engine.h. */
#define DOCS_FTS_TABLE "dbmcp_chunks_fts"
#define DOCS_VEC_TABLE "dbmcp_chunk_vectors"
#define DOCS_VERSION_KEY "chunks"

/* --- collections ----------------------------------------------------------- */

typedef struct doc_collection {
    char *name;
    char *interface;   /* NULL when not exposed by ingest */
    char *embed_model; /* NULL before the first vector */
    int embed_dim;
    char *chunk_strategy; /* "structure" | "tokens" */
    int chunk_max_tokens;
    int chunk_overlap;
    int64_t documents; /* number of documents */
} doc_collection;

/* Fill *out; DBMCP_ENOTFOUND when there is no such collection. */
int docs_collection_get(store *db, const char *name, doc_collection *out, dbmcp_error *err);
void docs_collection_free(doc_collection *c);
/* Create the collection when missing (name checked by the schema: [a-z0-9_-],
 * 1..64). When iface is not NULL, record it and expose the collection's
 * documents (the URI pattern "doc://<name>/" + "*") and the chunk template
 * to that interface. */
int docs_collection_ensure(store *db, const char *name, const char *iface, dbmcp_error *err);
/* Record the model and dimension of the collection's vectors. */
int docs_collection_set_model(store *db, const char *name, const char *model, int dim,
                              dbmcp_error *err);
/* Record the chunk options the collection's documents were split with. */
int docs_collection_set_chunking(store *db, const char *name, const char *strategy, int max_tokens,
                                 int overlap, dbmcp_error *err);

/* --- documents -------------------------------------------------------------- */

typedef struct doc_record {
    const char *collection;
    const char *slug;
    const char *uri; /* doc://<collection>/<slug> */
    const char *title;
    const char *source; /* may be NULL */
    const char *language;
    const char *mime_type;
    const char *metadata; /* JSON object text */
    const char *content_hash;
    const char *content; /* NUL-terminated extracted text */
    int64_t bytes;       /* size of the source */
} doc_record;

/* The id and content hash of (collection, slug): *id = 0 and *hash = NULL
 * when missing. Caller frees *hash. */
int docs_document_find(store *db, const char *collection, const char *slug, int64_t *id,
                       char **hash, dbmcp_error *err);
/* Delete the document's FTS rows, chunks and (by cascade) vectors. */
int docs_document_clear(store *db, int64_t id, dbmcp_error *err);

/* The writer of an ingestion run: writes the rows of many documents (the
 * document, its chunks and vectors, its resource row) with statements
 * prepared once for the run instead of per document or per chunk, and
 * their FTS rows all at the end (FTS5 then builds a few large segments,
 * not one per document). */
typedef struct doc_chunk_writer doc_chunk_writer;

int docs_chunk_writer_open(store *db, doc_chunk_writer **out, dbmcp_error *err);
/* Finalize; chunks not yet indexed stay unindexed. NULL is a no-op. */
void docs_chunk_writer_close(doc_chunk_writer *w);
/* The chunks inserted next belong to a document with this title (indexed
 * with each chunk, so counted in its fts_length) and this content, which
 * the caller keeps valid and unchanged until docs_chunk_writer_index. */
int docs_chunk_writer_document(doc_chunk_writer *w, const char *title, const char *content,
                               size_t content_len, dbmcp_error *err);
/* Insert chunk seq (1-based) of document doc, the current document of w:
 * bytes [start, end) of its content, text[0..text_len) (no FTS row yet:
 * see docs_chunk_writer_index) with its fts_length, the token positions
 * the index will hold for it (text, heading, title). The row holds the
 * range, not the text: the document's content is the one copy. *chunk_id
 * gets the row id. */
int docs_chunk_insert(doc_chunk_writer *w, int64_t doc, int seq, size_t start, size_t end,
                      const char *heading, int tokens, const char *text, size_t text_len,
                      int64_t *chunk_id, dbmcp_error *err);
/* Add the FTS rows of every chunk inserted through w (its text, a range of
 * its document's content; its heading; its document's title); call once,
 * after the chunks of every document. */
int docs_chunk_writer_index(doc_chunk_writer *w, dbmcp_error *err);
/* docs_document_find with a statement w prepares once for its run. */
int docs_chunk_writer_find(doc_chunk_writer *w, const char *collection, const char *slug,
                           int64_t *id, char **hash, dbmcp_error *err);
/* Insert the document, or update the row of (collection, slug) in place
 * (its id is kept). *id gets the row id. */
int docs_chunk_writer_put_document(doc_chunk_writer *w, const doc_record *d, int64_t *id,
                                   dbmcp_error *err);
/* Upsert the document's dbmcp_resources row (its resources/list entry and
 * resources/read content): name, title, description, mime type and text.
 * An existing row keeps its name, description and annotations (an
 * operator may have written them); the description given is used for a
 * new row or one without a description. The row is left untouched (no
 * list_changed, no updated_at) when nothing differs. */
int docs_chunk_writer_put_resource(doc_chunk_writer *w, const char *uri, const char *name,
                                   const char *title, const char *description,
                                   const char *mime_type, const char *text, dbmcp_error *err);
/* Store (or replace) the vector of a chunk for model (dim floats). */
int docs_vector_put(doc_chunk_writer *w, int64_t chunk_id, const char *model, int dim,
                    const float *vec, dbmcp_error *err);
/* Delete every vector of the collection's chunks whose model is not keep. */
int docs_vectors_drop_other_models(store *db, const char *collection, const char *keep,
                                   dbmcp_error *err);
/* Call fn(ctx, chunk_id, document title, heading (may be NULL), text) for
 * every chunk of the collection, document by document (ascending ids),
 * each document's chunks in id order. fn returns nonzero to stop
 * (that value is returned). */
int docs_chunks_each(store *db, const char *collection,
                     int (*fn)(void *ctx, int64_t chunk_id, const char *title, const char *heading,
                               const char *text),
                     void *ctx, dbmcp_error *err);

/* --- reads for search and resources ------------------------------------------- */

/* A key=value condition on document metadata (string values). */
typedef struct doc_meta_filter {
    const char *key;
    const char *value;
} doc_meta_filter;

typedef struct doc_filter {
    const char *iface;      /* only documents exposed to this interface (required) */
    const char *collection; /* NULL: any */
    const char *language;   /* NULL: any */
    const doc_meta_filter *meta;
    size_t n_meta;
} doc_filter;

/* The chunks interface iface may read (of documents it exposes, with their
 * resource enabled), as the scope of a keyword search
 * (store/search_index.h): the statistics of BM25 come from them and
 * nothing else, whatever filters narrow the search. out borrows iface. */
void docs_search_scope(const char *iface, search_index_scope *out);
/* Call add(ctx, chunk_id) for every chunk passing the filter. */
int docs_filter_chunks(store *db, const doc_filter *f, void (*add)(void *ctx, int64_t chunk_id),
                       void *ctx, dbmcp_error *err);

typedef struct doc_chunk_row {
    int64_t chunk_id;
    int seq;
    int64_t start, end;
    const char *heading; /* may be NULL */
    const char *text;
    const char *uri; /* the document's */
    const char *title;
    const char *collection;
    const char *slug;
    const char *language;
    const char *metadata;
    int chunks; /* chunks of the document */
} doc_chunk_row;

/* Call fn(ctx, row) for the chunk with this id (nothing when missing). */
int docs_chunk_get(store *db, int64_t chunk_id, void (*fn)(void *ctx, const doc_chunk_row *row),
                   void *ctx, dbmcp_error *err);
/* The same for chunk seq of doc://collection/slug. DBMCP_ENOTFOUND when
 * missing. */
int docs_chunk_get_by_seq(store *db, const char *collection, const char *slug, int64_t seq,
                          void (*fn)(void *ctx, const doc_chunk_row *row), void *ctx,
                          dbmcp_error *err);
/* The demo's documents (`init --demo`): every doc://tarif/<slug> resource
 * but the index, with region and sector from the demo table
 * tarif_agreements (NULL when no agreement matches the slug). fn returns
 * nonzero to stop (that value is returned). */
int docs_demo_sources_each(store *db,
                           int (*fn)(void *ctx, const char *slug, const char *title,
                                     const char *text, const char *region, const char *sector),
                           void *ctx, dbmcp_error *err);

/* Nonzero when uri is a resource the interface exposes (resources/list rule). */
int docs_uri_exposed(store *db, const char *iface, const char *uri, dbmcp_error *err);

#endif
