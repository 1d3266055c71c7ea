/*
 * notify.h — waiting for what other processes change in the database.
 *
 * Replicas of one database (several `dbmcp serve`, the CLI, plain SQL)
 * learn of each other's changes through change channels: triggers bump a
 * counter per channel in dbmcp_changes (schema 0007) in the transaction
 * that makes the change. The channels:
 *   catalog   tools, prompts or resources changed (dbmcp_catalog_version)
 *   settings  a row of dbmcp_settings
 *   keys      an API key revoked or deleted
 *   sessions  a legacy MCP session's state changed, or it ended
 *
 * A store_listener sleeps until some counter may have moved. How depends on
 * the engine: SQLite has no notifications, so the listener reads the sum of
 * the counters every poll_ms on its own connection (one indexed read of a
 * four-row table). PostgreSQL's triggers also NOTIFY dbmcp_changes, and its
 * listener LISTENs on a connection of its own and sleeps in the driver
 * (store_wait_notify) until a notification arrives, using no CPU while
 * nothing changes; poll_ms does not apply. Either way a wake-up only
 * says "look": the caller reads the counters (store_counters_read) to learn
 * which channels moved.
 *
 * Threading: a listener is used by one thread; store_listener_wake may be
 * called from any thread. Ownership: store_listener_open returns a
 * listener the caller frees with store_listener_close.
 */
#ifndef DBMCP_STORE_NOTIFY_H
#define DBMCP_STORE_NOTIFY_H

#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

typedef struct store_listener store_listener;

/* The change counters; each only grows. */
typedef struct store_counters {
    int64_t catalog;  /* tools, prompts, resources */
    int64_t settings; /* dbmcp_settings rows */
    int64_t keys;     /* API keys revoked or deleted */
    int64_t sessions; /* legacy sessions changed or ended */
} store_counters;

/* Read every counter. 0, or a negative code with err filled. */
int store_counters_read(store *db, store_counters *out, dbmcp_error *err);

/* Open a listener on a connection of its own to url (read-write: the
 * counters are dbmcp's own tables). poll_ms (> 0) is how often an engine
 * without notifications looks at the counters. */
int store_listener_open(const char *url, int poll_ms, store_listener **out, dbmcp_error *err);
/* Sleep until a change may have happened since the last call returned (1),
 * timeout_ms passed or store_listener_wake was called (0), or the database
 * failed (a negative code with err filled; the next call reconnects). The
 * first call compares with the counters as they were at open. */
int store_listener_wait(store_listener *l, int timeout_ms, dbmcp_error *err);
/* Make the wait in progress, or else the next one, return 0 at once. */
void store_listener_wake(store_listener *l);
/* Close; NULL is a no-op. No wait may be in progress. */
void store_listener_close(store_listener *l);

#endif
