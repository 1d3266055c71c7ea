/*
 * cmd_ingest.c — `dbmcp ingest` (documents into a collection) and
 * `dbmcp reembed` (a collection's vectors to the configured embedder).
 * The pipeline is docs/ingest.h; this file parses flags, expands
 * directories and writes all documents of one run in one transaction.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "docs/ingest.h"
#include "store/documents.h"

#define INGEST_MAX_FILES 10000

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"                    \
    }

/* --- flags ------------------------------------------------------------------- */

/* --meta key=value[,key=value…] (a comma inside a value written \,), or a
 * JSON object. *out is a new object. */
static int parse_meta(const cli_args *a, json_t **out)
{
    *out = NULL;
    const char *v = cli_flag(a, "meta");
    if (!v)
        return 0;
    if (*v == '{') {
        json_error_t je;
        *out = json_loads(v, 0, &je);
        if (!json_is_object(*out)) {
            json_decref(*out);
            *out = NULL;
            return cli_usage_error(a->cmd, "--meta: not a JSON object (%s)", je.text);
        }
        return 0;
    }
    json_t *o = json_object();
    char *buf = malloc(strlen(v) + 1);
    const char *p = v;
    while (buf && *p) {
        size_t n = 0;
        while (*p && *p != ',') {
            if (*p == '\\' && p[1] == ',')
                p++;
            buf[n++] = *p++;
        }
        buf[n] = '\0';
        if (*p == ',')
            p++;
        char *eq = strchr(buf, '=');
        if (!eq || eq == buf) {
            int rc = cli_usage_error(a->cmd, "--meta: '%s' is not key=value", buf);
            free(buf);
            json_decref(o);
            return rc;
        }
        *eq = '\0';
        json_object_set_new(o, buf, json_string(eq + 1));
    }
    free(buf);
    *out = o;
    return 0;
}

static int options_from_flags(cli_args *a, store *db, ingest_options *o, json_t **meta)
{
    ingest_options_default(o);
    ingest_options_from_settings(db, o);
    o->collection = cli_flag(a, "collection") ? cli_flag(a, "collection") : "default";
    o->interface = cli_flag(a, "interface");
    o->language = cli_flag(a, "lang");
    o->title = cli_flag(a, "title");
    o->slug = cli_flag(a, "slug");
    if (o->language && strcmp(o->language, "de") && strcmp(o->language, "en") &&
        strcmp(o->language, "ja") && strcmp(o->language, "zh") && strcmp(o->language, "und"))
        return cli_usage_error(a->cmd, "--lang must be de, en, ja, zh or und");
    if ((o->title || o->slug) && a->argc != 1)
        return cli_usage_error(a->cmd, "--title and --slug need exactly one PATH");
    const char *fmt = cli_flag(a, "format");
    if (fmt && !(o->format = doc_format_parse(fmt)))
        return cli_usage_error(a->cmd, "--format must be text, markdown, html or pdf");
    /* Chunking: the flags, else what the collection used, else the defaults. */
    doc_collection c;
    dbmcp_error err;
    if (docs_collection_get(db, o->collection, &c, &err) == 0) {
        o->chunk.strategy =
            strcmp(c.chunk_strategy, "tokens") == 0 ? CHUNK_TOKENS : CHUNK_STRUCTURE;
        o->chunk.max_tokens = c.chunk_max_tokens;
        o->chunk.overlap = c.chunk_overlap;
        docs_collection_free(&c);
    }
    const char *strategy = cli_flag(a, "chunk");
    if (strategy && strcmp(strategy, "structure") && strcmp(strategy, "tokens"))
        return cli_usage_error(a->cmd, "--chunk must be structure or tokens");
    if (strategy)
        o->chunk.strategy = strcmp(strategy, "tokens") == 0 ? CHUNK_TOKENS : CHUNK_STRUCTURE;
    int rc = cli_int_flag(a, "max-tokens", 16, 4096, &o->chunk.max_tokens);
    if (!rc)
        rc = cli_int_flag(a, "overlap", 0, 4095, &o->chunk.overlap);
    if (rc)
        return rc;
    if (o->chunk.overlap >= o->chunk.max_tokens) {
        if (cli_flag(a, "overlap"))
            return cli_usage_error(a->cmd, "--overlap (%d) must be smaller than --max-tokens (%d)",
                                   o->chunk.overlap, o->chunk.max_tokens);
        o->chunk.overlap = o->chunk.max_tokens / 5;
    }
    return parse_meta(a, meta);
}

/* --- paths ------------------------------------------------------------------- */

typedef struct path_list {
    char **items;
    int *listed; /* per item: found by listing a directory (not named by the user) */
    size_t count, cap;
} path_list;

static int path_add(path_list *l, const char *path, int listed)
{
    if (l->count >= INGEST_MAX_FILES)
        return DBMCP_ETOOBIG;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **p = realloc(l->items, cap * sizeof *p);
        if (!p)
            return DBMCP_ENOMEM;
        l->items = p;
        int *f = realloc(l->listed, cap * sizeof *f);
        if (!f)
            return DBMCP_ENOMEM;
        l->listed = f;
        l->cap = cap;
    }
    l->listed[l->count] = listed;
    return (l->items[l->count] = strdup(path)) ? (l->count++, 0) : DBMCP_ENOMEM;
}

static void path_list_free(path_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    free(l->listed);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Whether the directory entry full is a file to ingest: a regular file
 * with a known extension. A symbolic link counts only with follow_links
 * (then for what it points to); without, it is skipped with a note, so a
 * link planted in a shared directory (to /etc/passwd, a key file) never
 * brings a file from elsewhere into a collection. */
static int wanted_entry(const char *full, int follow_links)
{
    struct stat sb;
    if (doc_format_by_extension(full) == DOC_FORMAT_UNKNOWN || lstat(full, &sb) != 0)
        return 0;
    if (S_ISLNK(sb.st_mode)) {
        if (!follow_links) {
            fprintf(stderr,
                    "dbmcp ingest: skipping %s: a symbolic link (ingest what it points to by "
                    "naming it, or pass --follow-links)\n",
                    full);
            return 0;
        }
        if (stat(full, &sb) != 0)
            return 0;
    }
    return S_ISREG(sb.st_mode);
}

/* A PATH the user named is used as given (a link to a file or directory
 * is followed: it was asked for). A directory contributes its regular
 * files with a known extension (not recursively), in name order. */
static int expand_path(const char *path, int follow_links, path_list *l, dbmcp_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return path_add(l, path, 0) ? dbmcp_error_set(err, DBMCP_ETOOBIG, "too many files") : 0;
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0)
        return dbmcp_error_set(err, DBMCP_EIO, "cannot list %s: %s", path, strerror(errno));
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
        if (!rc && names[i]->d_name[0] != '.' && wanted_entry(full, follow_links))
            rc = path_add(l, full, 1) ? dbmcp_error_set(err, DBMCP_ETOOBIG, "too many files") : 0;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* --- ingest ------------------------------------------------------------------- */

static const char *outcome_name(ingest_outcome o)
{
    return o == INGEST_ADDED ? "added" : o == INGEST_REPLACED ? "replaced" : "unchanged";
}

/* Prepare every file (nothing written), then write them all in one
 * transaction: a failure anywhere leaves the collection as it was. */
static int ingest_all(const cli_args *a, store *db, embedder *emb, const path_list *paths,
                      const ingest_options *o, dbmcp_error *err)
{
    ingest_doc **docs = calloc(paths->count ? paths->count : 1, sizeof *docs);
    if (!docs)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = 0;
    size_t n = 0;
    for (; !rc && n < paths->count; n++) {
        /* A listed file is opened without following a link, even one that
         * replaced it since the listing; a named one as given. */
        ingest_options fo = *o;
        fo.no_follow = paths->listed[n] && !cli_flag(a, "follow-links");
        rc = ingest_prepare_file(db, emb, paths->items[n], &fo, &docs[n], err);
        for (size_t j = 0; !rc && j < n; j++)
            if (strcmp(ingest_doc_slug(docs[j]), ingest_doc_slug(docs[n])) == 0)
                rc = dbmcp_error_set(err, DBMCP_EINVAL,
                                     "%s and %s would both be document %s; ingest one of them "
                                     "with --slug",
                                     paths->items[j], paths->items[n], ingest_doc_slug(docs[n]));
    }
    if (!rc && !(rc = store_begin(db, err))) {
        rc = ingest_write(db, docs, n, o, err);
        if (!rc)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; !rc && i < n; i++) {
        ingest_report r;
        ingest_doc_report(docs[i], &r);
        counts[r.outcome]++;
        if (r.outcome == INGEST_UNCHANGED)
            printf("unchanged %s (content hash equal; nothing written)\n", r.uri);
        else
            printf("%s %s (%s, %zu chunks, %zu bytes of text from %zu bytes)\n",
                   outcome_name(r.outcome), r.uri, r.language, r.chunks, r.text_bytes,
                   r.source_bytes);
    }
    if (!rc)
        printf("collection %s: %zu added, %zu replaced, %zu unchanged\n", o->collection,
               counts[INGEST_ADDED], counts[INGEST_REPLACED], counts[INGEST_UNCHANGED]);
    for (size_t i = 0; i < n; i++)
        ingest_doc_free(docs[i]);
    free(docs);
    return rc;
}

/* A collection no interface exposes is found by no search_documents
 * call: say so, with the command that exposes it (no re-ingest). */
static void warn_unexposed(store *db, const char *collection)
{
    doc_collection c;
    dbmcp_error err;
    if (docs_collection_get(db, collection, &c, &err))
        return;
    if (!c.interface)
        fprintf(stderr,
                "dbmcp ingest: warning: no interface exposes collection %s, so search_documents "
                "and resources/list do not see it; expose it (its documents stay as they are) "
                "with `dbmcp collections expose %s --interface default%s`\n",
                collection, collection, cli_hint_db());
    docs_collection_free(&c);
}

static int run_ingest(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    ingest_options o;
    json_t *meta = NULL;
    int rc = options_from_flags(a, db, &o, &meta);
    if (rc) {
        store_close(db);
        return rc;
    }
    o.metadata = meta;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    path_list paths = {0};
    for (int i = 0; !rc && i < a->argc; i++)
        rc = expand_path(a->argv[i], cli_flag(a, "follow-links") != NULL, &paths, &err);
    if (!rc && paths.count == 0)
        rc = dbmcp_error_set(&err, DBMCP_EINVAL, "no files to ingest");
    embedder *emb = NULL;
    if (!rc)
        rc = embedder_open_from_settings(db, &emb, &err);
    if (!rc)
        rc = ingest_all(a, db, emb, &paths, &o, &err);
    if (rc)
        fprintf(stderr, "dbmcp ingest: nothing was written to collection %s\n", o.collection);
    else
        warn_unexposed(db, o.collection);
    embedder_free(emb);
    path_list_free(&paths);
    json_decref(meta);
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec ingest_flags[] = {
    DB_FLAG,
    {"collection", "NAME", "collection to add to (created when missing); default `default`"},
    {"meta", "K=V,…", "metadata for every document: key=value pairs (\\, for a comma) or JSON"},
    {"lang", "LANG", "language de, en, ja, zh or und; default: detected from the text"},
    {"chunk", "STRATEGY", "structure (headings, paragraphs, sentences; default) or tokens"},
    {"max-tokens", "N", "tokens per chunk, 16..4096 (default 200)"},
    {"overlap", "N", "tokens shared by neighbouring chunks with --chunk tokens (default 40)"},
    {"interface", "NAME", "expose the collection to this interface (doc://C/* and chunks)"},
    {"format", "FORMAT", "text, markdown, html or pdf instead of detecting it"},
    {"title", "TEXT", "document title (one PATH only); default from the document"},
    {"slug", "SLUG", "document name in its URI (one PATH only); default from the file name"},
    {"follow-links", NULL,
     "in a directory, also ingest symbolic links (what they point to, wherever it is)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_ingest = {
    "ingest",
    "Add documents (text, Markdown, HTML, PDF) to a collection for search_documents",
    "PATH… [--collection C] [--meta K=V,…] [--lang L] [--chunk structure|tokens] "
    "[--max-tokens N] [--overlap N] [--interface NAME] [--follow-links]",
    "Each PATH is a file or a directory (its .txt, .md, .html and .pdf files, not recursive).\n"
    "In a directory, symbolic links are skipped (with a note on stderr) unless --follow-links\n"
    "is given: a link could bring any file the user can read into the collection. A PATH\n"
    "named on the command line is used as given, a link too. A document is\n"
    "doc://<collection>/<slug>, the slug taken from the file name. Text is extracted (HTML:\n"
    "body text without scripts; PDF: the text of every page), split into chunks, embedded\n"
    "with the configured embedder (settings embed.*; builtin by default) and indexed for\n"
    "full-text search. Re-ingesting unchanged content (same text, title, language, metadata\n"
    "and chunking) is a no-op; changed content replaces the document's chunks. All files of\n"
    "one run are written in one transaction: an error (file above ingest.max_bytes, invalid\n"
    "UTF-8, a truncated PDF, an unknown format, a document past a limit such as\n"
    "ingest.max_text_bytes, ingest.pdf_max_pages, ingest.pdf_max_memory,\n"
    "ingest.pdf_timeout_ms or ingest.html_max_attributes) leaves the collection exactly as\n"
    "it was. See docs/search.md and docs/security.md (Limits under attack).",
    1,
    CLI_ANY_ARGS,
    ingest_flags,
    run_ingest,
};

/* --- collections expose ------------------------------------------------------------ */

static int run_expose(cli_args *a)
{
    const char *name = a->argv[0], *iface = cli_flag(a, "interface");
    dbmcp_error err;
    if (!iface)
        return cli_usage_error(a->cmd, "--interface NAME is required");
    if (catalog_validate_name("interface", iface, &err))
        return cli_usage_error(a->cmd, "%s", err.message);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    doc_collection c;
    int rc = docs_collection_get(db, name, &c, &err);
    if (!rc) {
        docs_collection_free(&c);
        rc = store_begin(db, &err);
        if (!rc)
            rc = docs_collection_ensure(db, name, iface, &err);
        if (!rc)
            rc = store_commit(db, &err);
        else
            store_rollback(db);
    }
    store_close(db);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "dbmcp: interface '%s' now exposes collection %s (doc://%s/*)\n",
            cli_safe(iface), name, name);
    return CLI_OK;
}

static const cli_flag_spec expose_flags[] = {
    DB_FLAG,
    {"interface", "NAME", "the interface to expose the collection to"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_collections_expose = {
    "collections expose",
    "Expose an ingested collection to an interface (no re-ingest)",
    "NAME --interface NAME [--db PATH]",
    "Does what `ingest --interface` does, for a collection already ingested: the\n"
    "interface's resources then include doc://NAME/* (and the chunk template), and its\n"
    "search_documents finds the collection's documents. Documents, chunks, vectors and\n"
    "metadata are not touched. Running servers notice the change (catalog version\n"
    "triggers) and send their clients list_changed.",
    1,
    1,
    expose_flags,
    run_expose,
};

/* --- reembed ------------------------------------------------------------------- */

static int run_reembed(cli_args *a)
{
    const char *collection = cli_flag(a, "collection");
    if (!collection)
        return cli_usage_error(a->cmd, "--collection is required");
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    embedder *emb = NULL;
    size_t chunks = 0;
    int rc = embedder_open_from_settings(db, &emb, &err);
    if (!rc)
        rc = ingest_reembed(db, emb, collection, &chunks, &err);
    if (!rc)
        printf("collection %s: %zu chunks embedded with %s; vectors of other models removed\n",
               collection, chunks, embedder_model(emb));
    embedder_free(emb);
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec reembed_flags[] = {
    DB_FLAG,
    {"collection", "NAME", "collection to re-embed (required)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_reembed = {
    "reembed",
    "Re-embed a collection with the configured embedder model",
    "--collection C [--db PATH]",
    "Embeds every chunk of the collection with the embedder the settings embed.* configure,\n"
    "then, in the same transaction, removes the vectors of every other model and records the\n"
    "new model on the collection. On failure nothing changes. Use it after changing\n"
    "embed.kind, embed.model or embed.dim: searches only compare vectors of one model.",
    0,
    0,
    reembed_flags,
    run_reembed,
};
