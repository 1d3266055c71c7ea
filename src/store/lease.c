/*
 * lease.c — named leases (lease.h). One upsert takes a free or expired
 * lease or renews the caller's; both engines serialise the conflicting
 * writes on the row, so exactly one of two racing replicas changes it.
 */
#include "store/lease.h"

#include <stdio.h>
#include <string.h>

#include "core/ids.h"
#include "core/replica.h"

/* The upsert: a row changed means the caller holds the lease. */
static int lease_upsert(store *db, const char *name, const char *holder, int seconds,
                        const char *steal, int *taken, dbmcp_error *err)
{
    char now[32], until[32];
    ids_now_iso(now);
    ids_iso_from_now(seconds, until);
    store_stmt *st;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_leases (name, holder, expires_at) VALUES (:n, :h, :u)"
                           " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
                           " expires_at = excluded.expires_at"
                           " WHERE dbmcp_leases.expires_at < :now"
                           " OR dbmcp_leases.holder = excluded.holder"
                           " OR dbmcp_leases.holder = :steal",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":n", name);
    store_bind_text(st, ":h", holder);
    store_bind_text(st, ":u", until);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":steal", steal);
    rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0)
        return rc;
    *taken = store_changes(db) > 0;
    return 0;
}

/* The holder of lease name now ("" when none) into out. */
static int lease_holder(store *db, const char *name, char *out, size_t size, dbmcp_error *err)
{
    store_stmt *st;
    out[0] = '\0';
    int rc = store_prepare(db, "SELECT holder FROM dbmcp_leases WHERE name = :n", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":n", name);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        snprintf(out, size, "%s", store_column_text(st, 0) ? store_column_text(st, 0) : "");
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int store_lease_take(store *db, const char *name, const char *holder, int seconds, char *other,
                     size_t other_size, dbmcp_error *err)
{
    int taken = 0;
    int rc = lease_upsert(db, name, holder, seconds, NULL, &taken, err);
    if (rc || taken)
        return rc ? rc : 1;
    char current[256];
    if ((rc = lease_holder(db, name, current, sizeof current, err)))
        return rc;
    /* A holder of this machine that died: take its lease now, but only
     * from that holder (another replica may have taken it meanwhile). */
    if (current[0] && replica_is_dead(current)) {
        if ((rc = lease_upsert(db, name, holder, seconds, current, &taken, err)))
            return rc;
        if (taken)
            return 1;
        if ((rc = lease_holder(db, name, current, sizeof current, err)))
            return rc;
    }
    if (other && other_size)
        snprintf(other, other_size, "%s", current);
    return 0;
}

int store_lease_release(store *db, const char *name, const char *holder, dbmcp_error *err)
{
    store_stmt *st;
    int rc =
        store_prepare(db, "DELETE FROM dbmcp_leases WHERE name = :n AND holder = :h", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":n", name);
    store_bind_text(st, ":h", holder);
    rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : 0;
}
