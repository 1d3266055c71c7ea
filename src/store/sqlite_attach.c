/*
 * sqlite_attach.c — ATTACH of the user databases on SQLite query handles
 * (sqlite_attach.h). mode=ro makes SQLite open the file O_RDONLY, so
 * nothing the handle runs can write it or change its journal mode;
 * immutable=1 also skips locking and journal lookups, for files on
 * read-only media that no one changes while dbmcp runs.
 */
#include "store/sqlite_attach.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/attachments.h"

char *sqlite_attach_uri(const char *path, int immutable)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t len = strlen(path);
    /* "file:" + 3 bytes per input byte + "?mode=ro&immutable=1" + NUL */
    char *uri = malloc(5 + 3 * len + 21);
    if (!uri)
        return NULL;
    char *p = uri;
    memcpy(p, "file:", 5);
    p += 5;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
            *p++ = (char)c;
        } else {
            *p++ = '%';
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        }
    }
    strcpy(p, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
    return uri;
}

static int has_attachment_table(sqlite3 *h)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(h,
                           "SELECT 1 FROM main.sqlite_master"
                           " WHERE type = 'table' AND name = 'dbmcp_attachments'",
                           -1, &st, NULL) == SQLITE_OK)
        found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Run sql with the URI bound as ?1 (NULL: none); the engine's message into err. */
static int run_one(sqlite3 *h, const char *sql, const char *uri, const store_attachment *a,
                   dbmcp_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && uri)
        rc = sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ;
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    /* A WAL file opens read-only only where its -shm file can be made or
     * already is, or with immutable=1. */
    if (rc != SQLITE_OK)
        dbmcp_error_set(err, DBMCP_EIO,
                        "cannot read the database attached as '%s' (%s): %s; fix the file or "
                        "`dbmcp databases detach %s`%s",
                        a->name, a->path, sqlite3_errmsg(h), a->name,
                        a->immutable ? ""
                                     : " (a file in WAL mode on read-only storage opens only "
                                       "when attached --immutable)");
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : DBMCP_EIO;
}

static int attach_one(sqlite3 *h, const store_attachment *a, dbmcp_error *err)
{
    /* Rows may have been written with plain SQL: check the name again. */
    int rc = store_attachment_name_check(a->name, err);
    if (rc) {
        dbmcp_error_prefix(err, "dbmcp_attachments");
        return rc;
    }
    char *uri = sqlite_attach_uri(a->path, a->immutable);
    char attach[128], probe[128];
    snprintf(attach, sizeof attach, "ATTACH DATABASE ?1 AS \"%s\"", a->name);
    /* The schema is read at the first use: read it now. */
    snprintf(probe, sizeof probe, "SELECT count(*) FROM \"%s\".sqlite_master", a->name);
    rc =
        uri ? run_one(h, attach, uri, a, err) : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = run_one(h, probe, NULL, a, err);
    free(uri);
    return rc;
}

/* --- the attachments a process pinned, per catalog --------------------------- */

/* A server opens query handles lazily, long after it started: each must
 * attach what the first one did, or a change made meanwhile would show on
 * some handles and not on others. So the first read-only open of a
 * catalog in this process pins its rows; later opens reuse them, until
 * sqlite_attach_forget (this process changed them). */
typedef struct pinned {
    char *catalog;       /* the catalog's file name; owned */
    store_attachment *v; /* owned */
    size_t n;
    struct pinned *next;
} pinned;

static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static pinned *pinned_list; /* guarded by pinned_lock */

static pinned *pinned_find(const char *catalog)
{
    for (pinned *p = pinned_list; p; p = p->next)
        if (strcmp(p->catalog, catalog) == 0)
            return p;
    return NULL;
}

/* A deep copy of v (n rows) into *out; DBMCP_ENOMEM on failure. */
static int copy_rows(const store_attachment *v, size_t n, store_attachment **out, dbmcp_error *err)
{
    *out = n ? calloc(n, sizeof **out) : NULL;
    int failed = n && !*out;
    for (size_t i = 0; !failed && i < n; i++) {
        (*out)[i].name = strdup(v[i].name);
        (*out)[i].path = strdup(v[i].path);
        (*out)[i].immutable = v[i].immutable;
        failed = !(*out)[i].name || !(*out)[i].path;
    }
    if (failed) {
        store_attachment_array_free(*out, n);
        *out = NULL;
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    return 0;
}

/* The catalog's rows as pinned, read and pinned now if this is the first
 * open; a copy the caller frees. */
static int pinned_rows(store *db, sqlite3 *h, store_attachment **out, size_t *n, dbmcp_error *err)
{
    const char *catalog = sqlite3_db_filename(h, "main");
    catalog = catalog ? catalog : "";
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&pinned_lock);
    pinned *p = pinned_find(catalog);
    int rc = 0;
    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p || !(p->catalog = strdup(catalog))) {
            free(p);
            pthread_mutex_unlock(&pinned_lock);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
        rc = has_attachment_table(h) ? store_attachment_list(db, &p->v, &p->n, err) : 0;
        if (rc) {
            free(p->catalog);
            free(p);
            pthread_mutex_unlock(&pinned_lock);
            return rc;
        }
        p->next = pinned_list;
        pinned_list = p;
    }
    rc = copy_rows(p->v, p->n, out, err);
    if (!rc)
        *n = p->n;
    pthread_mutex_unlock(&pinned_lock);
    return rc;
}

void sqlite_attach_forget(const char *catalog)
{
    pthread_mutex_lock(&pinned_lock);
    for (pinned **at = &pinned_list; *at; at = &(*at)->next) {
        if (strcmp((*at)->catalog, catalog) == 0) {
            pinned *p = *at;
            *at = p->next;
            store_attachment_array_free(p->v, p->n);
            free(p->catalog);
            free(p);
            break;
        }
    }
    pthread_mutex_unlock(&pinned_lock);
}

int sqlite_attach_user_databases(store *db, sqlite3 *h, dbmcp_error *err)
{
    store_attachment *v = NULL;
    size_t n = 0;
    int rc = pinned_rows(db, h, &v, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = attach_one(h, &v[i], err);
    store_attachment_array_free(v, n);
    return rc;
}

int sqlite_attach_all_readonly(sqlite3 *h)
{
    for (int i = 0;; i++) {
        const char *name = sqlite3_db_name(h, i);
        if (!name)
            return 1;
        /* temp is the connection's own scratch space, never a file of the user. */
        if (strcmp(name, "temp") == 0)
            continue;
        if (sqlite3_db_readonly(h, name) != 1)
            return 0;
    }
}
