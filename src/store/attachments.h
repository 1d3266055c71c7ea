/*
 * attachments.h — user databases attached read-only to the query
 * connection, as rows of dbmcp_attachments (issue #17: dbmcp keeps its
 * catalog, audit and memory in its own database and never writes into a
 * user's file).
 *
 * On SQLite every STORE_READONLY handle on a catalog ATTACHes each row at
 * open (store/sqlite.c) as the URI `file:PATH?mode=ro`, with `immutable=1`
 * when the row says the file never changes (SQLite then takes no locks and
 * never looks for a journal: the file may sit on a read-only mount). Agent
 * SQL reads its tables as NAME.table (or unqualified when no other schema
 * has the name); the guard of the handle refuses writes to it, ATTACH and
 * DETACH as on the main database. Read-write (catalog) handles never
 * attach. A process reads the rows at the first query handle it opens on
 * a catalog and keeps them for every later one (sqlite_attach.h), so all
 * the handles of a server agree: attach or detach, then restart
 * `dbmcp serve`. add and remove in the same process drop what it kept.
 *
 * On PostgreSQL the rows are never read: the query role reads the schemas
 * it is granted, which is what attaching is on SQLite (docs/postgres.md);
 * store_attachment_add refuses with a message that says so.
 *
 * Names: ATTACHMENT_NAME_MAX bytes at most of [A-Za-z0-9_], not starting
 * with a digit, and not main, temp, dbmcp or a name starting with dbmcp_,
 * sqlite_ or pg_ (ASCII case-insensitive), so a name is an identifier in
 * either dialect that never needs quotes and never hides dbmcp's tables.
 *
 * Ownership: store_attachment_list fills an array the caller frees with
 * store_attachment_array_free.
 */
#ifndef DBMCP_STORE_ATTACHMENTS_H
#define DBMCP_STORE_ATTACHMENTS_H

#include <stddef.h>

#include "store/store.h"

/* Longest attachment name, in bytes. */
#define ATTACHMENT_NAME_MAX 63
/* Most attachments of one catalog (SQLite's default SQLITE_LIMIT_ATTACHED). */
#define ATTACHMENT_MAX 10

typedef struct store_attachment {
    char *name;       /* schema name in agent SQL; owned */
    char *path;       /* absolute path of the SQLite file; owned */
    int immutable;    /* the operator says the file never changes */
    char *created_at; /* ISO 8601 UTC; owned, NULL when not read */
} store_attachment;

/* 0 when name is a valid attachment name (see Names above); else
 * DBMCP_EINVAL with err saying which rule it breaks. */
int store_attachment_name_check(const char *name, dbmcp_error *err);
/* Record a new attachment in the catalog db (read-write). path must be
 * absolute. DBMCP_EINVAL for a bad name or path, a PostgreSQL catalog, or
 * ATTACHMENT_MAX reached; DBMCP_ECONSTRAINT_UNIQUE when the name is taken. */
int store_attachment_add(store *db, const char *name, const char *path, int immutable,
                         dbmcp_error *err);
/* Forget an attachment; DBMCP_ENOTFOUND when no attachment has that name. */
int store_attachment_remove(store *db, const char *name, dbmcp_error *err);
/* Every attachment of the catalog db, ordered by name. */
int store_attachment_list(store *db, store_attachment **out, size_t *n, dbmcp_error *err);
void store_attachment_array_free(store_attachment *v, size_t n);

#endif
