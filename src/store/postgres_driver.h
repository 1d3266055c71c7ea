/*
 * postgres_driver.h — private to the PostgreSQL driver (store/postgres*.c):
 * its handle types and what its files share.
 *
 * postgres_conn.c owns the connection: opening it from a URI, the session
 * it sets up, waiting for the server without a thread (poll in 50 ms
 * slices that look at the deadline, the cancel flag and the slow hook),
 * cancelling, reconnecting after the server went away and turning
 * PostgreSQL's SQLSTATEs into dbmcp codes. postgres_stmt.c builds
 * statements on it, postgres_columns.c their values, and postgres.c the
 * driver table, transactions, limits and the guard.
 *
 * One connection runs one command at a time. A statement whose rows are
 * still coming owns it (pg_store.streaming); any other command first makes
 * that statement read the rest of its rows into memory (pg_conn_take), so
 * interleaved statements behave as on SQLite. Commands whose answers do
 * not matter (the ROLLBACK that ends a read-only statement, DEALLOCATE) are
 * sent without waiting and their answers discarded before the next command.
 */
#ifndef DBMCP_STORE_POSTGRES_DRIVER_H
#define DBMCP_STORE_POSTGRES_DRIVER_H

#include <libpq-fe.h>
#include <stdatomic.h>

#include "store/driver.h"
#include "store/postgres_sql.h"
#include "store/store.h"

typedef struct pg_stmt pg_stmt;

/* Type OIDs the driver knows (pg_type.dat: fixed since PostgreSQL 7). */
#define PG_BOOL 16
#define PG_BYTEA 17
#define PG_INT8 20
#define PG_INT2 21
#define PG_INT4 23
#define PG_TEXT 25
#define PG_OID 26
#define PG_FLOAT4 700
#define PG_FLOAT8 701
#define PG_NUMERIC 1700

/* Why the driver cancelled the command that is running. */
typedef enum pg_cancel_reason {
    PG_CANCEL_NONE = 0,
    PG_CANCEL_DEADLINE, /* store_set_time_limit's moment passed */
    PG_CANCEL_FLAG,     /* store_set_cancel_flag's flag became nonzero */
    PG_CANCEL_STOP      /* a statement was reset or finalized before its last row */
} pg_cancel_reason;

typedef struct pg_store {
    store base;          /* driver.h's header: driver and open flags */
    PGconn *conn;        /* owned; never NULL after open */
    PGcancel *canceller; /* PQgetCancel of conn, NULL while broken; owned */
    char *identity;      /* "host-or-socket-dir:port/dbname"; owned */
    int broken;          /* the server went away: reconnect before the next command */
    int txn_open;        /* store_begin ran; no store_commit/store_rollback yet */
    int txn_lost;        /* the connection dropped while txn_open: refuse until rollback */
    int pending;         /* answers of commands sent without waiting, to discard */
    int pending_checked; /* ... and a failure among them replaces the session */
    char **before;       /* store_exec_before_next's statements, not run yet; owned */
    size_t n_before;
    int pipelined;            /* the streaming statement runs in a pipeline (pg_stmt start) */
    pg_stmt *streaming;       /* the statement whose rows are coming, or NULL */
    unsigned generation;      /* bumped by every reconnection (prepared statements are gone) */
    unsigned long statements; /* names of prepared statements: "dbmcp_<n>" */
    Oid vector_oid;           /* pgvector's vector type, InvalidOid when not installed */
    int backslash_quotes;     /* standard_conforming_strings is off on the server */
    int64_t changes;          /* rows of the last INSERT/UPDATE/DELETE/MERGE */
    int busy_timeout_ms;      /* store_set_busy_timeout: lock_timeout */
    int session_lock_timeout; /* the lock_timeout the session has (read-write handles) */
    double deadline_ms;       /* monotonic deadline of store_set_time_limit; 0 = none */
    atomic_int *cancel;       /* store_set_cancel_flag's flag; may be NULL */
    double slow_at_ms;        /* when slow_fn is due; 0 = no hook */
    void (*slow_fn)(void *arg);
    void *slow_arg;
    pg_cancel_reason cancelled; /* why the running command was cancelled */
    double cancel_sent_ms;      /* when it was */
    size_t memory_budget;       /* store_set_memory_budget: work_mem of read-only statements */
    char *garbage;              /* "DEALLOCATE …;" of finalized statements, sent later; owned */
    size_t garbage_len, garbage_cap;
    int garbage_count;         /* statements named in garbage */
    char *functions_csv;       /* store_set_function_allowlist (kept, not enforced); owned */
    store_query_budget budget; /* store_set_query_budget; budget_on says whether it applies */
    int budget_on;
    store_failure failure; /* the class of the last failed prepare or step (store_last_failure) */
} pg_store;

/* A statement (postgres.c). */
typedef enum pg_state {
    PG_IDLE = 0, /* prepared or reset: the next step runs it */
    PG_RUNNING,  /* rows are coming (streaming) or buffered */
    PG_DONE      /* its last answer came: the next step runs it again */
} pg_state;

struct pg_stmt {
    store_stmt base;     /* driver.h's header: driver and owner */
    char name[32];       /* server-side name of the prepared statement */
    unsigned generation; /* pg_store.generation it was prepared in */
    pg_sql sql;          /* the rewritten text and its parameter names; owned */
    int nparams;         /* $1…$nparams */
    Oid *param_types;    /* from the server's description; owned */
    char **values;       /* bound values (NULL = SQL NULL); owned */
    int *lengths;        /* bytes of binary values */
    int *formats;        /* 1 for binary (bytea), 0 for text */
    int last_param;      /* index bound last (see param_index) */
    int ncols;           /* result columns */
    char **col_names;    /* owned */
    Oid *col_types;      /* owned */
    pg_state state;
    PGresult *row;       /* the current row (a single-row result); owned */
    PGresult **buffered; /* rows read ahead when another command needed the connection */
    size_t n_buffered, next_buffered, cap_buffered;
    int buffered_rc;           /* the error that ended the buffered rows, 0 if none */
    dbmcp_error *buffered_err; /* its message; owned */
    unsigned char **decoded;   /* per column: the current row's blob decoded; owned */
    size_t *decoded_size;
    int readonly; /* store_stmt_is_readonly's answer, -1 until asked */
    int own_txn;  /* the driver opened the read-only transaction it runs in */
};

/* --- the connection (postgres_conn.c) ------------------------------------------- */

/* Open url (postgres:// or postgresql://) with flags; see store_open. */
int pg_conn_open(const char *url, int flags, pg_store **out, dbmcp_error *err);
void pg_conn_close(pg_store *db);
/* Make the connection ready for a new command: the streaming statement
 * reads the rest of its rows into memory, discarded answers are read, a
 * dropped connection is re-established (outside transactions), and the
 * cancel reason cleared. 0 or a negative code. */
int pg_conn_take(pg_store *db, dbmcp_error *err);
/* Send what libpq queued (after a PQsend*) and wait until an answer is
 * ready for PQgetResult, honouring the deadline, the cancel flag and the
 * slow hook. 0, or a negative code when the connection was lost or
 * abandoned. */
int pg_conn_wait(pg_store *db, dbmcp_error *err);
/* store_wait_notify: wait for a notification (1), timeout or wake_fd (0),
 * or a lost connection (DBMCP_EIO; not re-established here, since a new
 * session would not LISTEN). */
int pg_conn_wait_notify(pg_store *db, int timeout_ms, int wake_fd, dbmcp_error *err);
/* Cancel the running command for reason (once per command). */
void pg_conn_cancel(pg_store *db, pg_cancel_reason reason);
/* Read and discard answers until the command is complete. 0 or a code
 * (the connection was lost). */
int pg_conn_drain(pg_store *db, dbmcp_error *err);
/* Send driver-generated sql (no user text, may hold several statements)
 * with the simple protocol, without waiting: its answers are discarded
 * before the next command. */
void pg_conn_send_discarded(pg_store *db, const char *sql);
/* pg_conn_send_discarded, but its answers are checked when read (before
 * the next command): an error among them, or a transaction left open,
 * replaces the session with a new one (store_exec_unwaited). */
void pg_conn_send_checked(pg_store *db, const char *sql);
/* store_exec_before_next: keep copies of the n statements for the next
 * statement's pipeline (pg_stmt start); 0 or DBMCP_ENOMEM. */
int pg_conn_before_next(pg_store *db, const char *const *sql, size_t n, dbmcp_error *err);
/* Take the statements kept by pg_conn_before_next (caller frees each and
 * the array with pg_conn_free_before); *n how many. */
char **pg_conn_take_before(pg_store *db, size_t *n);
void pg_conn_free_before(char **sql, size_t n);
/* Read the rest of a pipeline up to its sync and leave pipeline mode; a
 * connection that cannot is marked broken. 0 or DBMCP_EIO. */
int pg_conn_end_pipeline(pg_store *db);
/* Run driver-generated or migration sql with the simple protocol and wait
 * for all of it: 0 or the first error, mapped. */
int pg_conn_run(pg_store *db, const char *sql, dbmcp_error *err);
/* The dbmcp code and error for a failed result (NULL: the connection's
 * error); what names the operation in the operator message. */
int pg_fail(pg_store *db, const PGresult *res, dbmcp_error *err, const char *what);
/* pg_fail for a statement whose text the server was sent: also names in
 * db->failure the token of text the server's error position points at. */
int pg_fail_in(pg_store *db, const PGresult *res, dbmcp_error *err, const char *what,
               const char *text);
/* Record the rows an INSERT/UPDATE/DELETE/MERGE result changed. */
void pg_note_changes(pg_store *db, const PGresult *res);
/* The monotonic clock, in ms. */
double pg_now_ms(void);

/* --- statements (postgres_stmt.c) ---------------------------------------------- */

static inline pg_store *pg_store_of(pg_stmt *st)
{
    return (pg_store *)st->base.owner;
}

static inline int pg_is_readonly(const pg_store *db)
{
    return (db->base.flags & STORE_READONLY) != 0;
}

/* store.h's store_prepare, store_step, store_reset and store_finalize. */
int pg_prepare(store *h, const char *sql, store_stmt **out, dbmcp_error *err);
int pg_step(store_stmt *h, dbmcp_error *err);
void pg_reset(store_stmt *h);
void pg_finalize(store_stmt *h);
/* Read the rest of st's rows into memory so another command can run. */
int pg_stmt_buffer_rest(pg_stmt *st, dbmcp_error *err);
/* Stop st, which owns the connection, before its last row: cancelled on the
 * server when that loses nothing (or force_cancel), else read to its end. */
void pg_stmt_stop(pg_stmt *st, int force_cancel);
/* Wait for the answer to one command: its result when it has status want
 * (*out, caller PQclears; NULL out drops it), else the mapped error. */
int pg_answer(pg_store *db, ExecStatusType want, PGresult **out, dbmcp_error *err,
              const char *what);
/* Open a read-only handle's per-statement transaction with its limits. */
int pg_begin_readonly(pg_store *db, dbmcp_error *err);
/* Give a read-write session the lock_timeout of store_set_busy_timeout. */
int pg_sync_lock_timeout(pg_store *db, dbmcp_error *err);

/* --- values in and out (postgres_columns.c): store.h's functions -------------- */

int pg_bind_text(store_stmt *h, const char *name, const char *value);
int pg_bind_int(store_stmt *h, const char *name, int64_t value);
int pg_bind_double(store_stmt *h, const char *name, double value);
int pg_bind_blob(store_stmt *h, const char *name, const void *data, size_t size);
int pg_bind_null(store_stmt *h, const char *name);
void pg_clear_bindings(store_stmt *h);
int pg_param_count(store_stmt *h);
const char *pg_param_name(store_stmt *h, int i);
int pg_column_count(store_stmt *h);
const char *pg_column_name(store_stmt *h, int i);
store_type pg_column_type(store_stmt *h, int i);
store_kind pg_column_kind(store_stmt *h, int i);
const char *pg_column_text(store_stmt *h, int i);
int64_t pg_column_int(store_stmt *h, int i);
double pg_column_double(store_stmt *h, int i);
const void *pg_column_blob(store_stmt *h, int i);
size_t pg_column_bytes(store_stmt *h, int i);

#endif
