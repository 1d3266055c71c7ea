/*
 * sqlite_watchdog.h — private to store/: one thread that interrupts
 * statements past their deadline, or whose caller cancelled.
 *
 * The progress handler runs between virtual-machine steps, and one step
 * can be a function call that runs for seconds (embed() of a long text,
 * upper() of a 16 MB string): a query checked only there overran its
 * 10 s limit by minutes. The watchdog thread calls sqlite3_interrupt()
 * at the deadline, which stops the statement as soon as the running
 * step returns, whatever it is.
 *
 * A handle is armed for the length of one statement's run and disarmed
 * afterwards; sqlite3_interrupt is only ever called on an armed handle,
 * under the watchdog's lock, so a handle is never interrupted after it
 * was disarmed or closed. A stale interrupt of a handle with no statement
 * running is cleared by SQLite when the next statement starts.
 *
 * The thread starts on the first arm and exits after a second with
 * nothing armed; idle, it costs nothing.
 */
#ifndef DBMCP_STORE_SQLITE_WATCHDOG_H
#define DBMCP_STORE_SQLITE_WATCHDOG_H

#include <sqlite3.h>
#include <stdatomic.h>

/* One armed handle; the caller owns it (usually inside its store) and
 * keeps it alive and unmoved until sqlite_watchdog_disarm returns. */
typedef struct sqlite_watch {
    sqlite3 *db;               /* the connection to interrupt */
    double deadline_ms;        /* monotonic ms; 0 = no deadline */
    atomic_int *cancel;        /* interrupt when *cancel != 0; may be NULL */
    atomic_int fired;          /* set by the watchdog: 1 deadline, 2 cancelled */
    struct sqlite_watch *next; /* the watchdog's list; private */
    int armed;                 /* private */
} sqlite_watch;

/* Watch w until disarmed. Returns 0, or -1 when the thread cannot start
 * (the progress handler still checks, less promptly). */
int sqlite_watchdog_arm(sqlite_watch *w);
/* Stop watching w (no-op when not armed). After it returns, the watchdog
 * no longer touches w or its connection. */
void sqlite_watchdog_disarm(sqlite_watch *w);
/* Monotonic clock in milliseconds, the one deadlines use. */
double sqlite_watchdog_now_ms(void);

#endif
