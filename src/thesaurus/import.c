/*
 * import.c — thesaurus_import_file / _buffer: read the input under its
 * size limit, pick the format, and run the format's importer inside one
 * transaction that replaces the scheme of the same name. Any error rolls
 * everything back, so a bad file changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "thesaurus/internal.h"

static const char *format_names[] = {"auto", "skos-turtle", "skos-rdfxml", "mythes"};

int thesaurus_format_parse(const char *name, thesaurus_format *out)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, format_names[i]) == 0) {
            *out = (thesaurus_format)i;
            return 0;
        }
    return DBMCP_EINVAL;
}

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot ? dot + 1 : "";
}

static thesaurus_format detect_format(const char *path)
{
    const char *ext = extension(path);
    if (strcasecmp(ext, "ttl") == 0 || strcasecmp(ext, "turtle") == 0)
        return THESAURUS_FORMAT_SKOS_TURTLE;
    if (strcasecmp(ext, "rdf") == 0 || strcasecmp(ext, "xml") == 0 || strcasecmp(ext, "owl") == 0)
        return THESAURUS_FORMAT_SKOS_RDFXML;
    if (strcasecmp(ext, "dat") == 0 || strcasecmp(ext, "idx") == 0)
        return THESAURUS_FORMAT_MYTHES;
    return THESAURUS_FORMAT_AUTO;
}

/* The file's base name without its extension, into out. */
static void base_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *b = slash ? slash + 1 : path;
    const char *dot = strrchr(b, '.');
    size_t len = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), b);
}

static int read_file(const char *path, size_t max, char **data, size_t *n, dbmcp_error *err)
{
    *data = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return dbmcp_error_set(err, DBMCP_EIO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return dbmcp_error_set(err, DBMCP_EIO, "%s: not a regular file", path);
    }
    if ((unsigned long long)sb.st_size > max) {
        fclose(f);
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "%s: %lld bytes, more than the limit of %zu",
                               path, (long long)sb.st_size, max);
    }
    *data = malloc((size_t)sb.st_size + 1);
    if (!*data) {
        fclose(f);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    *n = fread(*data, 1, (size_t)sb.st_size, f);
    int bad = ferror(f) || *n != (size_t)sb.st_size;
    fclose(f);
    if (bad) {
        free(*data);
        *data = NULL;
        return dbmcp_error_set(err, DBMCP_EIO, "%s: read failed", path);
    }
    (*data)[*n] = '\0';
    return 0;
}

static int import_run(store *db, const char *data, size_t n, const char *name, const char *source,
                      const thesaurus_import_options *opt, thesaurus_import_stats *stats,
                      dbmcp_error *err)
{
    const char *scheme = opt->scheme && *opt->scheme ? opt->scheme : name;
    if (!*scheme || strlen(scheme) > 200)
        return dbmcp_error_set(err, DBMCP_EINVAL, "scheme: must be 1 to 200 characters");
    if (opt->format == THESAURUS_FORMAT_AUTO)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s: cannot tell the format from the name; pass --format "
                               "skos-turtle, skos-rdfxml or mythes",
                               source);
    snprintf(stats->scheme, sizeof stats->scheme, "%s", scheme);
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    thesaurus_writer *w = NULL;
    rc = thesaurus_writer_open(db, scheme, NULL, NULL, source, format_names[opt->format], &w, err);
    thesaurus_import_options o = *opt;
    o.scheme = scheme;
    if (!rc && opt->format == THESAURUS_FORMAT_MYTHES)
        rc = thesaurus_import_mythes(w, data, n, name, &o, stats, err);
    else if (!rc)
        rc = thesaurus_import_skos(w, data, n, name, opt->format == THESAURUS_FORMAT_SKOS_RDFXML,
                                   &o, stats, err);
    thesaurus_writer_close(w);
    if (!rc)
        rc = store_commit(db, err);
    if (rc) {
        store_rollback(db);
        dbmcp_error_prefix(err, source);
    }
    return rc;
}

int thesaurus_import_buffer(store *db, const char *data, size_t n, const char *name,
                            const thesaurus_import_options *opt, thesaurus_import_stats *stats,
                            dbmcp_error *err)
{
    thesaurus_import_stats ignored;
    stats = stats ? stats : &ignored;
    memset(stats, 0, sizeof *stats);
    size_t max = opt->max_bytes ? opt->max_bytes : (size_t)THESAURUS_IMPORT_BYTES_MAX;
    if (n > max)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "%s: %zu bytes, more than the limit of %zu",
                               name, n, max);
    return import_run(db, data, n, name, name, opt, stats, err);
}

int thesaurus_import_file(store *db, const char *path, const thesaurus_import_options *opt,
                          thesaurus_import_stats *stats, dbmcp_error *err)
{
    thesaurus_import_stats ignored;
    stats = stats ? stats : &ignored;
    memset(stats, 0, sizeof *stats);
    thesaurus_import_options o = *opt;
    if (o.format == THESAURUS_FORMAT_AUTO)
        o.format = detect_format(path);
    char dat[4096];
    snprintf(dat, sizeof dat, "%s", path);
    if (o.format == THESAURUS_FORMAT_MYTHES && strcasecmp(extension(dat), "idx") == 0)
        memcpy(dat + strlen(dat) - 3, "dat", 3); /* the data file beside the index */
    char name[256];
    base_name(dat, name, sizeof name);
    char *data = NULL;
    size_t n = 0;
    int rc = read_file(dat, o.max_bytes ? o.max_bytes : (size_t)THESAURUS_IMPORT_BYTES_MAX, &data,
                       &n, err);
    if (rc)
        return rc;
    rc = import_run(db, data, n, name, dat, &o, stats, err);
    free(data);
    return rc;
}

int thesaurus_import_resource(store *db, const char *uri, const thesaurus_import_options *opt,
                              thesaurus_import_stats *stats, dbmcp_error *err)
{
    thesaurus_import_stats ignored;
    stats = stats ? stats : &ignored;
    memset(stats, 0, sizeof *stats);
    char *text, *mime, *name;
    int rc = thesaurus_db_resource_text(db, uri, &text, &mime, &name, err);
    if (rc)
        return rc;
    thesaurus_import_options o = *opt;
    if (o.format == THESAURUS_FORMAT_AUTO && strstr(mime, "turtle"))
        o.format = THESAURUS_FORMAT_SKOS_TURTLE;
    else if (o.format == THESAURUS_FORMAT_AUTO && strstr(mime, "rdf+xml"))
        o.format = THESAURUS_FORMAT_SKOS_RDFXML;
    if (!o.scheme || !*o.scheme)
        o.scheme = name;
    size_t n = strlen(text);
    size_t max = o.max_bytes ? o.max_bytes : (size_t)THESAURUS_IMPORT_BYTES_MAX;
    if (n > max)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG, "%s: %zu bytes, more than the limit of %zu", uri,
                             n, max);
    else
        rc = import_run(db, text, n, name, uri, &o, stats, err);
    free(text);
    free(mime);
    free(name);
    return rc;
}
