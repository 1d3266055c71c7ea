/*
 * demo.c — `dbmcp init --demo`: the demo's Tarifvertrag resources (and
 * their English, Japanese and Chinese summaries) ingested into the
 * collection "tarif", exposed to document_analysis, with region and
 * sector metadata, so search_documents has something to find. See
 * demo.h.
 */
#include "docs/demo.h"

#include <stdlib.h>
#include <string.h>

#include "docs/ingest.h"
#include "search/embed.h"
#include "store/documents.h"

typedef struct demo_source {
    char *slug, *title, *text;
    json_t *meta;
} demo_source;

typedef struct demo_sources {
    demo_source items[64];
    size_t n;
    int oom;
} demo_sources;

static int collect(void *ctx, const char *slug, const char *title, const char *text,
                   const char *region, const char *sector)
{
    demo_sources *s = ctx;
    if (s->n == sizeof s->items / sizeof s->items[0])
        return 0; /* the demo has 18; more would be a seed change, not data */
    demo_source *d = &s->items[s->n];
    d->slug = strdup(slug ? slug : "");
    d->title = strdup(title ? title : "");
    d->text = strdup(text ? text : "");
    d->meta = json_object();
    if (region)
        json_object_set_new(d->meta, "region", json_string(region));
    if (sector)
        json_object_set_new(d->meta, "sector", json_string(sector));
    s->n++;
    if (!d->slug || !d->title || !d->text || !d->meta) {
        s->oom = 1;
        return 1;
    }
    return 0;
}

static void sources_free(demo_sources *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].slug);
        free(s->items[i].title);
        free(s->items[i].text);
        json_decref(s->items[i].meta);
    }
}

int docs_demo_ingest(store *db, size_t *documents, dbmcp_error *err)
{
    *documents = 0;
    demo_sources src = {0};
    int rc = docs_demo_sources_each(db, collect, &src, err);
    if (!rc && src.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    embedder *emb = NULL;
    if (!rc)
        rc = embedder_open_from_settings(db, &emb, err);
    ingest_options o;
    ingest_options_default(&o);
    ingest_options_from_settings(db, &o);
    o.collection = "tarif";
    o.interface = "document_analysis";
    o.format = DOC_FORMAT_MARKDOWN;
    ingest_doc *docs[64] = {0};
    size_t n = 0;
    for (; !rc && n < src.n; n++) {
        o.slug = src.items[n].slug;
        o.title = src.items[n].title;
        o.metadata = src.items[n].meta;
        rc = ingest_prepare_buffer(db, emb, src.items[n].slug, src.items[n].text,
                                   strlen(src.items[n].text), &o, &docs[n], err);
    }
    if (!rc && !(rc = store_begin(db, err))) {
        /* The per-document options (slug, title, metadata) were used by
         * the prepare; the write needs those of the collection. */
        rc = ingest_write(db, docs, n, &o, err);
        if (!rc)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    if (!rc)
        *documents = n;
    for (size_t i = 0; i < n; i++)
        ingest_doc_free(docs[i]);
    embedder_free(emb);
    sources_free(&src);
    return rc ? dbmcp_error_prefix(err, "ingesting the demo documents") : 0;
}
