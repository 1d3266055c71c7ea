/*
 * sqlite_attach.h — private to store/: the SQLite driver's side of
 * attachments.h. A query (STORE_READONLY) handle on a catalog ATTACHes
 * every row of dbmcp_attachments when it opens, before its guard is
 * installed, each as the URI `file:PATH?mode=ro` (plus `&immutable=1`), and
 * reads each schema once so a missing or broken file fails the open with a
 * message that names the attachment instead of failing a later query.
 *
 * Ownership: the rows pinned per catalog (see sqlite_attach_user_databases)
 * live until sqlite_attach_forget or the end of the process.
 */
#ifndef DBMCP_STORE_SQLITE_ATTACH_H
#define DBMCP_STORE_SQLITE_ATTACH_H

#include <sqlite3.h>

#include "store/store.h"

/* Attach the catalog's user databases to read-only handle db (whose
 * engine handle is h). A database without dbmcp_attachments (not a
 * catalog, or one older than migration 0010) attaches nothing. The rows
 * are read at the first read-only open of that catalog in this process
 * and pinned: every later handle attaches the same, so a server's handles
 * agree until it restarts. On failure err names the attachment and its
 * file; the caller closes the handle. Thread-safe. */
int sqlite_attach_user_databases(store *db, sqlite3 *h, dbmcp_error *err);
/* Drop what this process pinned for the catalog file `catalog` (its
 * store_identity): store_attachment_add/remove call it, so the next
 * read-only open reads the rows again. */
void sqlite_attach_forget(const char *catalog);
/* The `file:` URI that opens path read-only (immutable: also
 * immutable=1), with every byte outside [A-Za-z0-9/._~-] percent-encoded.
 * malloc'd; NULL when out of memory. */
char *sqlite_attach_uri(const char *path, int immutable);
/* 1 when every database attached to h, main included, is read-only. */
int sqlite_attach_all_readonly(sqlite3 *h);

#endif
