/*
 * sqlite_attach.c — ATTACH of the user databases on SQLite query handles
 * (sqlite_attach.h). mode=ro makes SQLite open the file O_RDONLY, so
 * nothing the handle runs can write it or change its journal mode;
 * immutable=1 also skips locking and journal lookups, for files on
 * read-only media that no one changes while dbmcp runs.
 */
#include "store/sqlite_attach.h"

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

int sqlite_attach_user_databases(store *db, sqlite3 *h, dbmcp_error *err)
{
    if (!has_attachment_table(h))
        return 0;
    store_attachment *v = NULL;
    size_t n = 0;
    int rc = store_attachment_list(db, &v, &n, err);
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
