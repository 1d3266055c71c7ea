/*
 * sqlite_guard.h — private to store/: SQL functions that replace SQLite
 * built-ins on read-only (query) handles, where the built-in's worst case
 * grows with the product of its argument sizes.
 *
 * The engine checks the time limit between virtual-machine steps, so one
 * function call that runs for minutes is not interrupted. SQLite 3.40's
 * instr(X, Y), replace(X, Y, Z) and trim/ltrim/rtrim(X, Y) compare Y at
 * every position of X (instr of a 1 MB needle in a 2 MB text takes about
 * 25 s; trim with a 100 000-character set about 70 s). The replacements
 * give the same results in linear time (memmem; a sorted character set
 * searched by binary search). A trim set that is not prefix-free (only
 * possible with malformed UTF-8) falls back to the built-in algorithm
 * within a work budget and fails beyond it.
 */
#ifndef DBMCP_STORE_SQLITE_GUARD_H
#define DBMCP_STORE_SQLITE_GUARD_H

#include <sqlite3.h>

/* Pairs of (character, set member) the fallback trim may compare. */
#define SQLITE_GUARD_TRIM_BUDGET 10000000

/* Register instr/2, replace/3, trim/2, ltrim/2 and rtrim/2 on db.
 * Returns an SQLite result code. */
int sqlite_guard_register(sqlite3 *db);

#endif
