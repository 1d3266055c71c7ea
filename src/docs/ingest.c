/*
 * ingest.c — the ingestion pipeline and re-embedding. See ingest.h.
 */
#include "docs/ingest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/textnorm.h"
#include "store/documents.h"
#include "store/registry.h"
#include "store/search_index.h"

#define RESOURCE_CAP_DEFAULT (256u * 1024)

void ingest_options_default(ingest_options *o)
{
    memset(o, 0, sizeof *o);
    chunk_options_default(&o->chunk);
    o->max_bytes = (size_t)INGEST_MAX_BYTES_DEFAULT;
    o->resource_cap = RESOURCE_CAP_DEFAULT;
    doc_limits_default(&o->limits);
}

static long setting_long(store *db, const char *key, long def)
{
    char *v = reg_setting_get(db, key);
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : def;
    if (!v || end == v || *end || n <= 0)
        n = def;
    free(v);
    return n;
}

static int setting_int(store *db, const char *key, int def)
{
    long n = setting_long(db, key, def);
    return n > INT_MAX ? INT_MAX : (int)n;
}

void ingest_options_from_settings(store *db, ingest_options *o)
{
    o->max_bytes = (size_t)setting_long(db, "ingest.max_bytes", INGEST_MAX_BYTES_DEFAULT);
    o->resource_cap = (size_t)setting_long(db, "query.byte_cap", RESOURCE_CAP_DEFAULT);
    doc_limits *l = &o->limits;
    doc_limits_default(l);
    l->max_text_bytes = (size_t)setting_long(db, "ingest.max_text_bytes", (long)l->max_text_bytes);
    l->pdf_max_pages = setting_int(db, "ingest.pdf_max_pages", l->pdf_max_pages);
    l->pdf_max_memory = (size_t)setting_long(db, "ingest.pdf_max_memory", (long)l->pdf_max_memory);
    l->pdf_timeout_ms = setting_int(db, "ingest.pdf_timeout_ms", l->pdf_timeout_ms);
    l->html_max_attributes = setting_int(db, "ingest.html_max_attributes", l->html_max_attributes);
}

/* --- names ------------------------------------------------------------------- */

int ingest_slug_from_path(const char *path, char *out, size_t size, dbmcp_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    size_t len = 0;
    for (size_t i = 0; i < n && len + 1 < size && len < 128; i++) {
        unsigned char c = (unsigned char)base[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        int ok =
            (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok)
            c = '-';
        if (c == '-' && (len == 0 || out[len - 1] == '-'))
            continue; /* no leading or doubled dashes */
        out[len++] = (char)c;
    }
    while (len && (out[len - 1] == '-' || out[len - 1] == '.'))
        len--;
    out[len] = '\0';
    if (len == 0 || !((out[0] >= 'a' && out[0] <= 'z') || (out[0] >= '0' && out[0] <= '9')))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "cannot derive a document name (slug) from '%s': the file name "
                               "needs letters or digits a-z, 0-9",
                               path);
    return 0;
}

static int check_language(const char *lang, dbmcp_error *err)
{
    static const char *const known[] = {"de", "en", "ja", "zh", "und", NULL};
    for (int i = 0; known[i]; i++)
        if (strcmp(lang, known[i]) == 0)
            return 0;
    return dbmcp_error_set(err, DBMCP_EINVAL, "language '%s' is not one of de, en, ja, zh, und",
                           lang);
}

/* Metadata as canonical JSON text (sorted keys): an object of strings. */
static int metadata_text(const json_t *meta, char **out, dbmcp_error *err)
{
    *out = NULL;
    if (meta && !json_is_object(meta))
        return dbmcp_error_set(err, DBMCP_EINVAL, "metadata must be a JSON object");
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)meta, k, v) {
        if (!json_is_string(v))
            return dbmcp_error_set(err, DBMCP_EINVAL, "metadata value of '%s' must be a string", k);
        if (!*k)
            return dbmcp_error_set(err, DBMCP_EINVAL, "metadata keys must not be empty");
    }
    *out = meta ? json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS) : strdup("{}");
    if (!*out)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (strlen(*out) > INGEST_META_MAX_BYTES) {
        free(*out);
        *out = NULL;
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "metadata is longer than %d bytes",
                               INGEST_META_MAX_BYTES);
    }
    return 0;
}

/* --- one document, prepared outside the transaction -------------------------------- */

struct ingest_doc {
    doc_extracted ex;
    char slug[136];
    char uri[320];
    const char *source; /* the name given (file path) */
    const char *title;
    const char *language;
    char *metadata;
    char hash[crypto_hash_sha256_BYTES * 2 + 1];
    chunk_list chunks;
    float *vectors; /* chunks.count * dim, or NULL when no chunks */
    int dim;
    const char *model;
    char *source_copy; /* owned copy of the source name */
    size_t source_bytes;
    int64_t existing; /* id of the stored document at prepare time, 0 when new */
    int unchanged;    /* same hash as the stored document */
};
typedef struct ingest_doc prepared;

static void prepared_free(prepared *p)
{
    doc_extracted_free(&p->ex);
    free(p->source_copy);
    free(p->metadata);
    chunk_list_free(&p->chunks);
    free(p->vectors);
    memset(p, 0, sizeof *p);
}

static void content_hash(prepared *p, const chunk_options *c)
{
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    char opts[96];
    snprintf(opts, sizeof opts, "%d/%d/%d/%d", (int)c->strategy, c->max_tokens, c->overlap,
             c->markdown);
    const char *parts[] = {p->title, p->language, p->metadata, opts};
    crypto_hash_sha256_update(&st, (const unsigned char *)p->ex.text, p->ex.len);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        crypto_hash_sha256_update(&st, (const unsigned char *)parts[i], strlen(parts[i]) + 1);
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_final(&st, digest);
    sodium_bin2hex(p->hash, sizeof p->hash, digest, sizeof digest);
}

/* What is embedded for a chunk: title, heading and text, so a passage is
 * found by the words of the document it belongs to. Caller frees. */
static char *embed_text(const char *title, const char *heading, const char *text, size_t len)
{
    size_t tl = title ? strlen(title) : 0, hl = heading ? strlen(heading) : 0;
    char *s = malloc(tl + hl + len + 3);
    if (!s)
        return NULL;
    size_t n = 0;
    memcpy(s + n, title ? title : "", tl);
    n += tl;
    s[n++] = '\n';
    memcpy(s + n, heading ? heading : "", hl);
    n += hl;
    s[n++] = '\n';
    memcpy(s + n, text, len);
    n += len;
    s[n] = '\0';
    return s;
}

/* Embed n texts (built by text_at) in batches into out[n * dim]. */
static int embed_batches(embedder *emb, char **texts, size_t n, float *out, int dim,
                         dbmcp_error *err)
{
    for (size_t i = 0; i < n; i += INGEST_EMBED_BATCH) {
        size_t m = n - i < INGEST_EMBED_BATCH ? n - i : INGEST_EMBED_BATCH;
        int rc = embedder_embed(emb, (const char *const *)texts + i, m, out + i * (size_t)dim, err);
        if (rc)
            return dbmcp_error_prefix(err, "embedding");
    }
    return 0;
}

static void free_texts(char **texts, size_t n)
{
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
}

static int embed_chunks(embedder *emb, prepared *p, dbmcp_error *err)
{
    size_t n = p->chunks.count;
    int rc = embedder_dim(emb) > 0 ? 0 : embedder_probe(emb, err);
    if (rc)
        return rc;
    p->dim = embedder_dim(emb);
    p->model = embedder_model(emb);
    if (n == 0)
        return 0;
    char **texts = calloc(n, sizeof *texts);
    p->vectors = malloc(n * (size_t)p->dim * sizeof *p->vectors);
    if (!texts || !p->vectors) {
        free(texts);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const chunk *c = &p->chunks.items[i];
        texts[i] = embed_text(p->title, c->heading, p->ex.text + c->start, c->end - c->start);
        if (!texts[i]) {
            free_texts(texts, i);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
    }
    rc = embed_batches(emb, texts, n, p->vectors, p->dim, err);
    free_texts(texts, n);
    return rc;
}

/* Extract, name, hash and chunk; stops early (p->unchanged) when the
 * stored document has the same hash. */
static int prepare(store *db, const char *name, const char *data, size_t n, const ingest_options *o,
                   prepared *p, dbmcp_error *err)
{
    p->source_copy = strdup(name);
    p->source = p->source_copy;
    p->source_bytes = n;
    if (!p->source_copy)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = o->slug ? (snprintf(p->slug, sizeof p->slug, "%s", o->slug), 0)
                     : ingest_slug_from_path(name, p->slug, sizeof p->slug, err);
    if (rc)
        return rc;
    snprintf(p->uri, sizeof p->uri, "doc://%s/%s", o->collection, p->slug);
    doc_format f = o->format ? o->format : doc_format_detect(name, data, n);
    if ((rc = doc_extract(f, data, n, &o->limits, &p->ex, err)))
        return dbmcp_error_prefix(err, name);
    p->title = o->title ? o->title : p->ex.title ? p->ex.title : p->slug;
    p->language = o->language ? o->language : doc_language_detect(p->ex.text, p->ex.len);
    if ((rc = check_language(p->language, err)) ||
        (rc = metadata_text(o->metadata, &p->metadata, err)))
        return rc;
    chunk_options copt = o->chunk;
    copt.markdown = p->ex.markdown;
    content_hash(p, &copt);
    char *old_hash = NULL;
    if ((rc = docs_document_find(db, o->collection, p->slug, &p->existing, &old_hash, err)))
        return rc;
    p->unchanged = old_hash && strcmp(old_hash, p->hash) == 0;
    free(old_hash);
    if (p->unchanged)
        return 0;
    return chunk_split(p->ex.text, p->ex.len, &copt, &p->chunks, err);
}

/* The resource text: all of it, or up to cap bytes ending at a chunk end,
 * then a note on where the rest is. Caller frees. */
static char *resource_text(const prepared *p, size_t cap)
{
    if (p->ex.len <= cap)
        return strdup(p->ex.text);
    char note[1024];
    size_t cut = 0, next = 1;
    for (size_t i = 0; i < p->chunks.count; i++) {
        if (p->chunks.items[i].end + sizeof note > cap)
            break;
        cut = p->chunks.items[i].end;
        next = i + 2;
    }
    snprintf(note, sizeof note,
             "\n\n[This document has %zu bytes of text; the first %zu are shown here. The rest "
             "is in its passages %s/chunks/%zu to %s/chunks/%zu.]\n",
             p->ex.len, cut, p->uri, next, p->uri, p->chunks.count);
    size_t nl = strlen(note);
    char *s = malloc(cut + nl + 1);
    if (!s)
        return NULL;
    memcpy(s, p->ex.text, cut);
    memcpy(s + cut, note, nl + 1);
    return s;
}

static char *resource_description(const prepared *p, const char *collection)
{
    char *s = NULL;
    if (asprintf(
            &s,
            "Document in collection %s (language %s, metadata %s), %zu passages at %s/chunks/{n}.",
            collection, p->language, p->metadata, p->chunks.count, p->uri) < 0)
        return NULL;
    return s;
}

/* The rows of one changed document (its FTS rows come at the end of the
 * run, from w); the caller holds the transaction. */
static int write_document(store *db, const ingest_options *o, const prepared *p,
                          doc_chunk_writer *w, dbmcp_error *err)
{
    int64_t existing = 0;
    char *hash = NULL;
    /* Read again inside the transaction: the row may have changed since prepare. */
    int rc = docs_chunk_writer_find(w, o->collection, p->slug, &existing, &hash, err);
    free(hash);
    if (!rc && existing)
        rc = docs_document_clear(db, existing, err);
    doc_record d = {o->collection,
                    p->slug,
                    p->uri,
                    p->title,
                    p->source,
                    p->language,
                    p->ex.mime_type,
                    p->metadata,
                    p->hash,
                    p->ex.text,
                    (int64_t)p->source_bytes};
    int64_t id = 0;
    if (!rc)
        rc = docs_chunk_writer_put_document(w, &d, &id, err);
    if (!rc && p->chunks.count)
        rc = docs_chunk_writer_document(w, p->title, p->ex.text, p->ex.len, err);
    for (size_t i = 0; !rc && i < p->chunks.count; i++) {
        const chunk *c = &p->chunks.items[i];
        int64_t cid = 0;
        rc = docs_chunk_insert(w, id, (int)i + 1, c->start, c->end, c->heading, c->tokens,
                               p->ex.text + c->start, c->end - c->start, &cid, err);
        if (!rc)
            rc = docs_vector_put(w, cid, p->model, p->dim, p->vectors + i * (size_t)p->dim, err);
    }
    if (!rc) {
        char name[200];
        snprintf(name, sizeof name, "%s-%s", o->collection, p->slug);
        char *text = resource_text(p, o->resource_cap ? o->resource_cap : RESOURCE_CAP_DEFAULT);
        char *desc = resource_description(p, o->collection);
        rc = text && desc
                 ? docs_chunk_writer_put_resource(w, p->uri, name, p->title, desc,
                                                  p->ex.markdown ? "text/markdown" : "text/plain",
                                                  text, err)
                 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        free(text);
        free(desc);
    }
    return rc;
}

/* Everything written for the changed documents of a run: per run, the
 * collection, the FTS rows of all their chunks (after every other row),
 * the collection's model and chunk options and the data version; per
 * document, write_document. */
static int write_documents(store *db, const ingest_options *o, ingest_doc *const *docs, size_t n,
                           dbmcp_error *err)
{
    const prepared *last = NULL, *with_chunks = NULL;
    for (size_t i = 0; i < n; i++)
        if (!docs[i]->unchanged) {
            last = docs[i];
            with_chunks = docs[i]->chunks.count ? docs[i] : with_chunks;
        }
    if (!last)
        return 0;
    doc_chunk_writer *w = NULL;
    int rc = docs_collection_ensure(db, o->collection, o->interface, err);
    if (!rc)
        rc = docs_chunk_writer_open(db, &w, err);
    for (size_t i = 0; !rc && i < n; i++)
        if (!docs[i]->unchanged)
            rc = write_document(db, o, docs[i], w, err);
    if (!rc)
        rc = docs_chunk_writer_index(w, err);
    docs_chunk_writer_close(w);
    if (!rc && with_chunks)
        rc =
            docs_collection_set_model(db, o->collection, with_chunks->model, with_chunks->dim, err);
    if (!rc)
        rc = docs_collection_set_chunking(
            db, o->collection, o->chunk.strategy == CHUNK_TOKENS ? "tokens" : "structure",
            o->chunk.max_tokens, o->chunk.overlap, err);
    if (!rc)
        rc = search_index_bump(db, DOCS_VERSION_KEY, err);
    return rc;
}

/* The collection's vectors are of one model: refuse another. */
static int check_model(store *db, const char *collection, embedder *emb, dbmcp_error *err)
{
    doc_collection c;
    int rc = docs_collection_get(db, collection, &c, err);
    if (rc == DBMCP_ENOTFOUND)
        return 0;
    if (rc)
        return rc;
    if (c.embed_model && strcmp(c.embed_model, embedder_model(emb)) != 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "collection %s holds vectors of model %s but the configured embedder "
                             "is %s; run `dbmcp reembed --collection %s` first",
                             collection, c.embed_model, embedder_model(emb), collection);
    docs_collection_free(&c);
    return rc;
}

int ingest_prepare_buffer(store *db, embedder *emb, const char *name, const char *data, size_t n,
                          const ingest_options *o, ingest_doc **out, dbmcp_error *err)
{
    *out = NULL;
    if (!o->collection || !*o->collection)
        return dbmcp_error_set(err, DBMCP_EINVAL, "a collection name is required");
    if (n > o->max_bytes)
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "%s is %zu bytes; the limit is %zu bytes (setting ingest.max_bytes)",
                               name, n, o->max_bytes);
    prepared *p = calloc(1, sizeof *p);
    if (!p)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = prepare(db, name, data, n, o, p, err);
    if (!rc && !p->unchanged)
        rc = check_model(db, o->collection, emb, err);
    if (!rc && !p->unchanged)
        rc = embed_chunks(emb, p, err);
    if (rc) {
        ingest_doc_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int ingest_prepare_file(store *db, embedder *emb, const char *path, const ingest_options *o,
                        ingest_doc **out, dbmcp_error *err)
{
    *out = NULL;
    struct stat sb;
    if ((o->no_follow ? lstat(path, &sb) : stat(path, &sb)) != 0)
        return dbmcp_error_set(err, DBMCP_EIO, "cannot read %s: %s", path, strerror(errno));
    if (o->no_follow && S_ISLNK(sb.st_mode))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s is a symbolic link; links found in a directory are followed "
                               "only with --follow-links",
                               path);
    if (!S_ISREG(sb.st_mode))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s is not a regular file", path);
    /* Open what was checked: no link when they are refused, no waiting on a
     * FIFO put in its place; fstat confirms it is the same file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (o->no_follow ? O_NOFOLLOW : 0));
    struct stat fb;
    if (fd < 0 || fstat(fd, &fb) != 0 || fb.st_dev != sb.st_dev || fb.st_ino != sb.st_ino) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fd < 0 && e != ELOOP
                   ? dbmcp_error_set(err, DBMCP_EIO, "cannot open %s: %s", path, strerror(e))
                   : dbmcp_error_set(err, DBMCP_EINVAL,
                                     "%s changed while it was opened (it is no longer the file "
                                     "that was listed)",
                                     path);
    }
    if ((uint64_t)fb.st_size > (uint64_t)o->max_bytes) {
        close(fd);
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "%s is %lld bytes; the limit is %zu bytes (setting "
                               "ingest.max_bytes)",
                               path, (long long)fb.st_size, o->max_bytes);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return dbmcp_error_set(err, DBMCP_EIO, "cannot open %s: %s", path, strerror(errno));
    }
    /* Read at most size + 1 bytes: a file that grew since fstat stays bounded
     * and is refused by the size check. */
    size_t cap = (size_t)fb.st_size + 1;
    char *data = malloc(cap);
    if (!data) {
        fclose(f);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory reading %s", path);
    }
    size_t n = fread(data, 1, cap, f);
    int bad = ferror(f);
    fclose(f);
    int rc = bad ? dbmcp_error_set(err, DBMCP_EIO, "cannot read %s", path)
                 : ingest_prepare_buffer(db, emb, path, data, n, o, out, err);
    free(data);
    return rc;
}

int ingest_write(store *db, ingest_doc *const *docs, size_t n, const ingest_options *o,
                 dbmcp_error *err)
{
    return write_documents(db, o, docs, n, err);
}

const char *ingest_doc_slug(const ingest_doc *d)
{
    return d->slug;
}

void ingest_doc_report(const ingest_doc *d, ingest_report *r)
{
    memset(r, 0, sizeof *r);
    r->outcome = d->unchanged ? INGEST_UNCHANGED : d->existing ? INGEST_REPLACED : INGEST_ADDED;
    snprintf(r->uri, sizeof r->uri, "%s", d->uri);
    snprintf(r->language, sizeof r->language, "%s", d->language ? d->language : "");
    r->chunks = d->chunks.count;
    r->text_bytes = d->ex.len;
    r->source_bytes = d->source_bytes;
}

void ingest_doc_free(ingest_doc *d)
{
    if (!d)
        return;
    prepared_free(d);
    free(d);
}

/* Write one prepared document in its own transaction. */
static int write_one(store *db, ingest_doc *d, const ingest_options *o, ingest_report *r,
                     dbmcp_error *err)
{
    int rc = d->unchanged ? 0 : store_begin(db, err);
    if (!rc && !d->unchanged) {
        rc = ingest_write(db, &d, 1, o, err);
        if (!rc)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    if (!rc)
        ingest_doc_report(d, r);
    ingest_doc_free(d);
    return rc;
}

int ingest_buffer(store *db, embedder *emb, const char *name, const char *data, size_t n,
                  const ingest_options *o, ingest_report *r, dbmcp_error *err)
{
    memset(r, 0, sizeof *r);
    ingest_doc *d = NULL;
    int rc = ingest_prepare_buffer(db, emb, name, data, n, o, &d, err);
    return rc ? rc : write_one(db, d, o, r, err);
}

int ingest_file(store *db, embedder *emb, const char *path, const ingest_options *o,
                ingest_report *r, dbmcp_error *err)
{
    memset(r, 0, sizeof *r);
    ingest_doc *d = NULL;
    int rc = ingest_prepare_file(db, emb, path, o, &d, err);
    return rc ? rc : write_one(db, d, o, r, err);
}

/* --- reembed ------------------------------------------------------------------- */

typedef struct reembed_ctx {
    int64_t *ids;
    char **texts;
    size_t n, cap;
    int oom;
} reembed_ctx;

static int collect_chunk(void *ctx, int64_t id, const char *title, const char *heading,
                         const char *text)
{
    reembed_ctx *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        int64_t *ids = realloc(c->ids, cap * sizeof *ids);
        if (ids)
            c->ids = ids;
        char **texts = ids ? realloc(c->texts, cap * sizeof *texts) : NULL;
        if (!ids || !texts) {
            c->oom = 1;
            return 1;
        }
        c->texts = texts;
        c->cap = cap;
    }
    c->texts[c->n] = embed_text(title, heading, text ? text : "", text ? strlen(text) : 0);
    if (!c->texts[c->n]) {
        c->oom = 1;
        return 1;
    }
    c->ids[c->n++] = id;
    return 0;
}

int ingest_reembed(store *db, embedder *emb, const char *collection, size_t *chunks,
                   dbmcp_error *err)
{
    *chunks = 0;
    doc_collection coll;
    int rc = docs_collection_get(db, collection, &coll, err);
    if (rc)
        return rc;
    docs_collection_free(&coll);
    reembed_ctx c = {0};
    rc = docs_chunks_each(db, collection, collect_chunk, &c, err);
    if (c.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc && embedder_dim(emb) <= 0)
        rc = embedder_probe(emb, err);
    int dim = embedder_dim(emb);
    float *vecs = NULL;
    if (!rc && c.n && !(vecs = malloc(c.n * (size_t)dim * sizeof *vecs)))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = embed_batches(emb, c.texts, c.n, vecs, dim, err);
    if (!rc && !(rc = store_begin(db, err))) {
        const char *model = embedder_model(emb);
        doc_chunk_writer *w = NULL;
        rc = docs_chunk_writer_open(db, &w, err);
        for (size_t i = 0; !rc && i < c.n; i++)
            rc = docs_vector_put(w, c.ids[i], model, dim, vecs + i * (size_t)dim, err);
        docs_chunk_writer_close(w);
        if (!rc)
            rc = docs_vectors_drop_other_models(db, collection, model, err);
        if (!rc)
            rc = docs_collection_set_model(db, collection, model, dim, err);
        if (!rc)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    if (!rc)
        *chunks = c.n;
    free(vecs);
    free_texts(c.texts, c.n);
    free(c.ids);
    return rc;
}
