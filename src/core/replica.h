/*
 * replica.h — who this process is among the processes sharing a database.
 *
 * Every `dbmcp serve` (and one-off command) on a database is a replica: it
 * claims embedding jobs and holds leases under its replica id, so another
 * replica can tell whose claim it meets and, on the same machine, whether
 * that process still runs (a crashed holder's lease need not run out).
 *
 * The id is "HOST:PID:SCOPE": the host name (at most 64 bytes), the
 * process id and 8 hex digits naming the machine's boot and the pid
 * namespace the pid belongs to, so two containers with one host name are
 * told apart. Pure: no SQL, no allocation; the id is static.
 */
#ifndef DBMCP_CORE_REPLICA_H
#define DBMCP_CORE_REPLICA_H

/* This process's replica id (computed once, thread-safe; static string). */
const char *replica_id(void);

/* Nonzero when `id` is a replica id of this machine and pid namespace
 * whose process no longer runs. 0 when it runs, may run, or is not
 * ours to tell (another host, another namespace, not a replica id). */
int replica_is_dead(const char *id);

#endif
