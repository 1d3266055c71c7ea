/*
 * sqlite_vecfn.h — private to store/: the vector SQL functions every
 * SQLite handle gets (read-write and read-only alike).
 *
 *   vector_distance(a, b [, metric])  distance between two vectors, each a
 *       float32 BLOB (little-endian, 4 bytes per element) or a JSON array
 *       of numbers as TEXT; metric 'cosine' (default), 'dot' or
 *       'euclidean' as in core/vector.h (smaller is closer). NULL when
 *       an argument is NULL; an error naming the argument and the rule
 *       for a malformed vector, differing dimensions or an unknown metric.
 *   embed(text)  the vector of text as a float32 BLOB, from the hook the
 *       embedder's layer registered (store/embed_hook.h; dbmcp registers
 *       the default embedder at startup); NULL for NULL; an error saying
 *       so when no hook is registered.
 *
 * vector_distance is deterministic and innocuous; embed is neither (the
 * default embedder may be an HTTP service and may change at startup).
 */
#ifndef DBMCP_STORE_SQLITE_VECFN_H
#define DBMCP_STORE_SQLITE_VECFN_H

#include <sqlite3.h>

/* Longest vector vector_distance accepts, in elements, and the longest
 * JSON text it parses, in bytes. */
#define SQLITE_VECFN_MAX_DIM 65536
#define SQLITE_VECFN_MAX_JSON (4 * 1024 * 1024)

/* Register vector_distance/2, vector_distance/3 and embed/1 on db.
 * Returns an SQLite result code. */
int sqlite_vecfn_register(sqlite3 *db);

#endif
