/*
 * lease.h — named leases in the database (dbmcp_leases, schema 0007): at
 * most one holder at a time for work that must not run twice at once on
 * replicas sharing the database (memory compaction).
 *
 * A lease has a holder (a replica id, core/replica.h) and an expiry. Taking
 * it succeeds when it is free, expired, already the caller's, or held by a
 * replica of this machine whose process died (replica_is_dead), all in one
 * statement, so two replicas racing for it cannot both win. The holder
 * renews it while working and releases it when done; a holder that dies
 * without releasing blocks others until the expiry at most.
 *
 * Times come from each replica's clock: replicas on several hosts need
 * clocks in step to well within the lease time.
 */
#ifndef DBMCP_STORE_LEASE_H
#define DBMCP_STORE_LEASE_H

#include "core/error.h"
#include "store/store.h"

/* Take or renew lease `name` for `holder` for `seconds` from now. 1 taken,
 * 0 another holder has it (then *other, when not NULL, gets its id,
 * truncated to other_size), or a negative code. Outside a transaction. */
int store_lease_take(store *db, const char *name, const char *holder, int seconds, char *other,
                     size_t other_size, dbmcp_error *err);
/* Give the lease up if `holder` has it. */
int store_lease_release(store *db, const char *name, const char *holder, dbmcp_error *err);

#endif
