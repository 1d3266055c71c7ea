/*
 * ingest.h — documents into a collection: read, extract (docs/extract.h),
 * chunk (search/chunk.h), embed (search/embed.h), then store the document,
 * its chunks, full-text rows, vectors and its doc:// resource row in ONE
 * transaction (store/documents.h). Any failure rolls that transaction
 * back, so the collection is exactly as it was before the call.
 *
 * Identity and change detection: a document is (collection, slug), its
 * URI doc://<collection>/<slug>. The slug comes from the file name
 * (lower-cased; characters outside [a-z0-9._-] become '-'). content_hash
 * is SHA-256 over the extracted text, title, language, metadata and chunk
 * options: when it equals the stored hash the call is a no-op
 * (INGEST_UNCHANGED); otherwise the old chunks, FTS rows and vectors are
 * replaced (INGEST_REPLACED) in place (the document keeps its id).
 *
 * Embeddings are computed before the transaction opens (an HTTP embedder
 * may take seconds; the write lock is held only for the writes). A
 * collection holds vectors of one model: ingesting with another embedder
 * model is refused until `dbmcp reembed` migrated the collection.
 *
 * The document's resource row (dbmcp_resources, the listing and reading
 * path of every MCP resource) holds the extracted text up to
 * resource_cap bytes — the query result cap, query.byte_cap — cut at a
 * chunk boundary, followed by a note naming the chunk resources
 * (doc://<collection>/<slug>/chunks/{n}) that hold the rest.
 *
 * Thread-safety: one store handle per thread. Ownership: nothing returned
 * needs freeing besides what the report says.
 */
#ifndef DBMCP_DOCS_INGEST_H
#define DBMCP_DOCS_INGEST_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "docs/extract.h"
#include "search/chunk.h"
#include "search/embed.h"
#include "store/store.h"

#define INGEST_MAX_BYTES_DEFAULT (50L * 1024 * 1024) /* setting ingest.max_bytes */
#define INGEST_META_MAX_BYTES 16384                  /* metadata JSON text */
#define INGEST_EMBED_BATCH 64                        /* texts per embedder call */

typedef struct ingest_options {
    const char *collection; /* required */
    const char *interface;  /* expose the collection to it; NULL: leave as is */
    const char *language;   /* de | en | ja | zh | und; NULL: detect */
    const json_t *metadata; /* object of strings (borrowed); NULL: {} */
    const char *title;      /* NULL: from the document */
    const char *slug;       /* NULL: from the path */
    doc_format format;      /* DOC_FORMAT_UNKNOWN: detect */
    chunk_options chunk;    /* how to split */
    size_t max_bytes;       /* largest source accepted */
    size_t resource_cap;    /* bytes of text in the resource row (0: 256 KiB) */
    doc_limits limits;      /* work per document: extracted text, PDF pages/memory/time… */
    int no_follow;          /* ingest_prepare_file refuses a symbolic link at path */
} ingest_options;

typedef enum ingest_outcome { INGEST_ADDED = 0, INGEST_REPLACED, INGEST_UNCHANGED } ingest_outcome;

typedef struct ingest_report {
    ingest_outcome outcome;
    char uri[320];     /* doc://<collection>/<slug> */
    char language[8];  /* stored language */
    size_t chunks;     /* chunks stored (or already stored when unchanged) */
    size_t text_bytes; /* bytes of extracted text */
    size_t source_bytes;
} ingest_report;

/* Defaults: structure chunking 200/40, 50 MiB, resource cap 256 KiB, the
 * doc_limits defaults. */
void ingest_options_default(ingest_options *o);
/* Read settings ingest.max_bytes, query.byte_cap and the limits
 * ingest.max_text_bytes, ingest.pdf_max_pages, ingest.pdf_max_memory,
 * ingest.pdf_timeout_ms and ingest.html_max_attributes into o (a value that
 * is not a positive whole number counts as unset). */
void ingest_options_from_settings(store *db, ingest_options *o);

/* --- in two steps (several documents in one transaction) ------------------ */

/* A document read, extracted, chunked and embedded, not yet written. */
typedef struct ingest_doc ingest_doc;

/* Prepare the file at path (a regular file, its size checked with fstat
 * before reading; with o->no_follow not a symbolic link, checked again at
 * the open with O_NOFOLLOW so a link swapped in meanwhile is refused) or a
 * buffer (name gives slug and format unless the options do). Reads the
 * store (stored hash, collection model) but writes nothing. An unchanged
 * document is prepared without chunks or vectors. *out is freed with
 * ingest_doc_free. */
int ingest_prepare_file(store *db, embedder *emb, const char *path, const ingest_options *o,
                        ingest_doc **out, dbmcp_error *err);
int ingest_prepare_buffer(store *db, embedder *emb, const char *name, const char *data, size_t n,
                          const ingest_options *o, ingest_doc **out, dbmcp_error *err);
/* Write n prepared documents of collection o->collection inside the
 * caller's transaction (nothing for an unchanged one). The documents stay
 * the caller's; their FTS rows are written after all their other rows. */
int ingest_write(store *db, ingest_doc *const *docs, size_t n, const ingest_options *o,
                 dbmcp_error *err);
/* The document's slug (distinct slugs are the caller's concern when
 * several documents go into one transaction). */
const char *ingest_doc_slug(const ingest_doc *d);
void ingest_doc_report(const ingest_doc *d, ingest_report *r);
void ingest_doc_free(ingest_doc *d);

/* --- in one call --------------------------------------------------------------- */

/* Prepare and write one file in its own transaction. */
int ingest_file(store *db, embedder *emb, const char *path, const ingest_options *o,
                ingest_report *r, dbmcp_error *err);
/* Ingest a document held in memory; name (a file name) gives the slug and
 * format when the options do not. */
int ingest_buffer(store *db, embedder *emb, const char *name, const char *data, size_t n,
                  const ingest_options *o, ingest_report *r, dbmcp_error *err);

/* Re-embed every chunk of the collection with emb's model in one
 * transaction, then drop the vectors of every other model and record the
 * new model. *chunks gets how many were embedded. */
int ingest_reembed(store *db, embedder *emb, const char *collection, size_t *chunks,
                   dbmcp_error *err);

/* A slug from a file name: its last path component without extension,
 * lower-cased, other characters than [a-z0-9._-] turned into '-', at most
 * 128 bytes, into out[size]. Returns 0, or DBMCP_EINVAL when nothing usable
 * remains. */
int ingest_slug_from_path(const char *path, char *out, size_t size, dbmcp_error *err);

#endif
