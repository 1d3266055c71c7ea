/*
 * sqlite_memory.h — private to store/: a per-thread memory budget for
 * what SQLite allocates while one agent statement runs.
 *
 * SQLite's own heap limits (sqlite3_hard_heap_limit64, the soft limit)
 * are process-wide: one caller's query would take the budget of every
 * other. So the SQLite driver installs its own allocator (a thin layer
 * over malloc that keeps each block's size in a 16-byte header) and
 * counts, per thread, the bytes allocated minus the bytes freed. While a
 * thread holds a budget, an allocation that would take its count more
 * than the budget above where it stood at sqlite_memory_budget_begin
 * fails: SQLite then stops the statement with SQLITE_NOMEM, frees what it
 * built, and the connection stays usable.
 *
 * A store handle is used by one thread at a time and a statement runs on
 * the thread that steps it, so what the statement builds (sorters, hash
 * tables, strings, blobs, results of functions) is counted on that
 * thread. Blocks freed on another thread lower that thread's count; only
 * differences inside one begin/end window on one thread matter.
 *
 * sqlite_memory_install must run before SQLite is initialised (the first
 * sqlite3_open_v2 of the process does that); store_open calls it once.
 * If SQLite was initialised earlier (a host program that uses SQLite
 * itself), the allocator cannot be replaced: install reports it, and
 * budgets are then not enforced (sqlite_memory_enforced says so).
 */
#ifndef DBMCP_STORE_SQLITE_MEMORY_H
#define DBMCP_STORE_SQLITE_MEMORY_H

#include <stddef.h>

/* Install the counting allocator (once per process, thread-safe).
 * Returns an SQLite result code: SQLITE_OK, or SQLITE_MISUSE when SQLite
 * was initialised before (budgets are then off). */
int sqlite_memory_install(void);
/* Nonzero when the counting allocator is in use. */
int sqlite_memory_enforced(void);

/* Start a budget of `bytes` on this thread (0 = no budget). Nests
 * nothing: a second begin replaces the first. */
void sqlite_memory_budget_begin(size_t bytes);
/* End this thread's budget. Returns nonzero when an allocation was
 * refused because of it since begin. */
int sqlite_memory_budget_end(void);
/* Nonzero when an allocation was refused by this thread's current budget
 * (between begin and end): a NOMEM is then the budget's, not the
 * machine's. */
int sqlite_memory_budget_hit(void);
/* The most this thread's count rose above its begin value, in bytes,
 * since begin. */
size_t sqlite_memory_budget_peak(void);

#endif
