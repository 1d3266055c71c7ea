/*
 * sqlite_driver.h — private to the SQLite driver (store/sqlite*.c) and to
 * white-box tests of it: the engine handle behind a store handle.
 *
 * Nothing above store/ includes this: code that talks to a database goes
 * through store.h, whichever backend serves it. Tests that prove SQLite's
 * engine state after hostile SQL (no database attached, no transaction
 * open, sqlite3_limit values restored) read it through this door.
 */
#ifndef DBMCP_STORE_SQLITE_DRIVER_H
#define DBMCP_STORE_SQLITE_DRIVER_H

#include <sqlite3.h>

#include "store/store.h"

/* The sqlite3 connection of db, owned by db (never close it). */
sqlite3 *sqlite_store_handle(store *db);

#endif
