/*
 * attachments.c — the statements of dbmcp_attachments (attachments.h).
 * The attaching itself is the SQLite driver's (sqlite.c): it reads these
 * rows when a query handle opens.
 */
#include "store/attachments.h"
#include "store/sqlite_attach.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int store_attachment_name_check(const char *name, dbmcp_error *err)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > ATTACHMENT_NAME_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "an attachment name has 1 to %d characters (got %zu)",
                               ATTACHMENT_NAME_MAX, len);
    if (name[0] >= '0' && name[0] <= '9')
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "attachment name '%s' starts with a digit; use letters, digits "
                               "and _ and begin with a letter or _",
                               name);
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "attachment name '%.*s' holds '%c'; use letters, digits and _",
                                   ATTACHMENT_NAME_MAX, name, c >= 0x20 && c < 0x7f ? c : '?');
    }
    if (strcasecmp(name, "main") == 0 || strcasecmp(name, "temp") == 0 ||
        strcasecmp(name, "dbmcp") == 0 || strncasecmp(name, "dbmcp_", 6) == 0 ||
        strncasecmp(name, "sqlite_", 7) == 0 || strncasecmp(name, "pg_", 3) == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "attachment name '%s' is reserved (main, temp, dbmcp and names "
                               "starting with dbmcp_, sqlite_ or pg_)",
                               name);
    return 0;
}

int store_attachment_add(store *db, const char *name, const char *path, int immutable,
                         dbmcp_error *err)
{
    if (strcmp(store_dialect(db), "postgres") == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PostgreSQL needs no attach step: agent SQL reads the schemas the "
                               "query role is granted (dbmcp init --query-schemas A,B; see "
                               "docs/postgres.md)");
    int rc = store_attachment_name_check(name, err);
    if (rc)
        return rc;
    if (!path || path[0] != '/')
        return dbmcp_error_set(err, DBMCP_EINVAL, "the attached file's path must be absolute");
    int64_t count = 0;
    rc = store_query_int(db, "SELECT count(*) FROM dbmcp_attachments", 0, &count, err);
    if (rc)
        return rc;
    if (count >= ATTACHMENT_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%d databases are attached already, the most SQLite allows; "
                               "detach one first",
                               ATTACHMENT_MAX);
    store_stmt *st;
    rc = store_prepare(db,
                       "INSERT INTO dbmcp_attachments (name, path, immutable)"
                       " VALUES (:name, :path, :immutable)",
                       &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":name", name);
    store_bind_text(st, ":path", path);
    store_bind_int(st, ":immutable", immutable ? 1 : 0);
    rc = store_step(st, err);
    store_finalize(st);
    sqlite_attach_forget(store_identity(db));
    if (rc == DBMCP_ECONSTRAINT_UNIQUE)
        return dbmcp_error_set(err, DBMCP_ECONSTRAINT_UNIQUE,
                               "a database is attached as '%s' already (dbmcp databases detach "
                               "%s first)",
                               name, name);
    return rc < 0 ? rc : 0;
}

int store_attachment_remove(store *db, const char *name, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_attachments WHERE name = :name", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":name", name);
    rc = store_step(st, err);
    store_finalize(st);
    if (strcmp(store_dialect(db), "sqlite") == 0)
        sqlite_attach_forget(store_identity(db));
    if (rc < 0)
        return rc;
    if (store_changes(db) == 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no database is attached as '%s'", name);
    return 0;
}

static char *dup_column(store_stmt *st, int i)
{
    const char *s = store_column_text(st, i);
    return s ? strdup(s) : NULL;
}

int store_attachment_list(store *db, store_attachment **out, size_t *n, dbmcp_error *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT name, path, immutable, created_at FROM dbmcp_attachments"
                           " ORDER BY name",
                           &st, err);
    if (rc)
        return rc;
    size_t cap = 0;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (*n == cap) {
            size_t grown_cap = cap ? cap * 2 : 4;
            store_attachment *grown = realloc(*out, grown_cap * sizeof *grown);
            if (!grown) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            *out = grown;
            cap = grown_cap;
        }
        store_attachment *a = &(*out)[(*n)++];
        a->name = dup_column(st, 0);
        a->path = dup_column(st, 1);
        a->immutable = store_column_int(st, 2) != 0;
        a->created_at = dup_column(st, 3);
        if (!a->name || !a->path) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
    }
    store_finalize(st);
    if (rc < 0) {
        store_attachment_array_free(*out, *n);
        *out = NULL;
        *n = 0;
        return rc;
    }
    return 0;
}

void store_attachment_array_free(store_attachment *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].name);
        free(v[i].path);
        free(v[i].created_at);
    }
    free(v);
}
