/*
 * postgres_conn.c — the PostgreSQL driver's connection (see
 * postgres_driver.h): opening it, waiting on it, cancelling and
 * re-establishing it, and PostgreSQL's errors as dbmcp codes.
 *
 * Opening. The URI is parsed by libpq (PQconninfoParse) and connected with
 * a few settings added: client_encoding UTF8 (store.h's text is UTF-8),
 * fallback_application_name "dbmcp", connect_timeout 10 s unless the URI
 * says otherwise, and on read-write (catalog) handles the startup option
 * `-csearch_path=dbmcp,public -clock_timeout=5000`: dbmcp's tables live in
 * schema dbmcp (created first under STORE_CREATE), and the session gets
 * its search_path and busy timeout without a SET, so a transaction-pooling
 * PgBouncer (1.20 or later, with search_path and lock_timeout in
 * track_extra_parameters) gives every server connection the same; the
 * handle checks the search_path it got and refuses to open with a message
 * naming the fix when a pooler dropped it. Read-only (query) handles keep
 * the server's search_path, start with `-cdefault_transaction_read_only=on`
 * (with a pooler: track it too, or make it the role's default) and set
 * their limits per statement (SET LOCAL, postgres.c). Failures to connect get one message each for
 * an unreachable server, a refused or missing password and a missing database, naming host (or
 * socket directory), port and database, never the password.
 *
 * Waiting. The socket is non-blocking; every wait is a poll() of at most 50
 * ms, after which the driver looks at the cancel flag and the deadline
 * (then PQcancel: the server stops the command and answers with an error)
 * and calls the slow hook once at its moment. A server that does not
 * answer a cancel within PG_CANCEL_GRACE_MS is abandoned: the call fails
 * and the handle reconnects on its next use. Waiting for notifications
 * (store_wait_notify) is the one wait without slices: nothing runs on the
 * server, so a single poll() on the socket and the caller's wake fd sleeps
 * until either has something or the timeout passes.
 *
 * Losing the server. A command in flight when the connection drops fails
 * with DBMCP_EIO; the next command reconnects (PQreset) first, and so does
 * one that finds an idle connection closed (a restarted server, an idle
 * session timeout). Inside a transaction nothing is re-established behind
 * the caller: every call fails until store_rollback, so work the caller
 * was never told was committed is never half-applied.
 */
#include "store/postgres_driver.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

#define PG_WAIT_SLICE_MS 50     /* longest poll before looking at the clock and the flag */
#define PG_CANCEL_GRACE_MS 5000 /* a server that ignores a cancel this long is abandoned */
#define PG_BUSY_TIMEOUT_MS 5000 /* the default lock_timeout, as SQLite's busy timeout */
#define PG_CONNECT_TIMEOUT "10" /* seconds, unless the URI sets connect_timeout */
#define PG_GARBAGE_BATCH 16     /* finalized statements a read-write handle deallocates at once */

double pg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* The first line of a libpq message, without its "ERROR:  " decoration
 * trimmed of trailing newlines, into buf. */
static const char *first_line(const char *msg, char *buf, size_t size)
{
    if (!msg)
        msg = "";
    size_t n = strcspn(msg, "\n");
    snprintf(buf, size, "%.*s", (int)n, msg);
    return buf;
}

/* --- errors -------------------------------------------------------------------- */

/* dbmcp's code for a SQLSTATE (NULL when the server sent none). */
static int map_sqlstate(const char *s)
{
    if (!s || strlen(s) != 5)
        return DBMCP_ESTORE;
    if (strcmp(s, "23505") == 0)
        return DBMCP_ECONSTRAINT_UNIQUE;
    if (strcmp(s, "23503") == 0)
        return DBMCP_ECONSTRAINT_FOREIGN_KEY;
    if (strcmp(s, "23514") == 0)
        return DBMCP_ECONSTRAINT_CHECK;
    if (strcmp(s, "23502") == 0)
        return DBMCP_ECONSTRAINT_NOT_NULL;
    if (strncmp(s, "23", 2) == 0)
        return DBMCP_EINVAL; /* exclusion, restrict: as SQLite's other constraint kinds */
    if (strcmp(s, "57014") == 0 || strcmp(s, "55P03") == 0 || strcmp(s, "40P01") == 0)
        return DBMCP_ETIMEOUT;
    if (strcmp(s, "25006") == 0 || strcmp(s, "42501") == 0)
        return DBMCP_EDENIED;
    if (strncmp(s, "08", 2) == 0 || strcmp(s, "57P01") == 0 || strcmp(s, "57P02") == 0 ||
        strcmp(s, "57P03") == 0)
        return DBMCP_EIO;
    if (strncmp(s, "54", 2) == 0)
        return DBMCP_ETOOBIG;
    if (strncmp(s, "53", 2) == 0)
        return DBMCP_ENOMEM;
    return DBMCP_ESTORE;
}

/* The connection dropped: the call in flight fails, the next reconnects. */
static int lost(pg_store *db, dbmcp_error *err, const char *what)
{
    char line[512];
    db->broken = 1;
    db->pending = 0;
    if (db->txn_open)
        db->txn_lost = 1;
    if (db->streaming) {
        db->streaming->state = PG_DONE;
        db->streaming = NULL;
    }
    return dbmcp_error_set_private(
        err, DBMCP_EIO, "the database server went away; the request was not completed",
        "%s: the connection to PostgreSQL at %s was lost (the next call reconnects): %s", what,
        db->identity, first_line(PQerrorMessage(db->conn), line, sizeof line));
}

static int cancel_error(pg_store *db, dbmcp_error *err, const char *what, const char *detail)
{
    store_failure_set(
        &db->failure,
        db->cancelled == PG_CANCEL_FLAG ? STORE_FAILURE_CANCELLED : STORE_FAILURE_TIME_LIMIT, NULL);
    if (db->cancelled == PG_CANCEL_FLAG)
        return dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
    return dbmcp_error_set_private(err, DBMCP_ETIMEOUT, "the query took too long",
                                   "%s: time limit exceeded%s%s", what, detail ? ": " : "",
                                   detail ? detail : "");
}

/* The class of a SQLSTATE (store.h's store_failure_kind); the name is
 * filled from the error position by pg_fail_in. */
static store_failure_kind failure_kind(const char *s)
{
    static const struct {
        const char *state;
        store_failure_kind kind;
    } classes[] = {
        {"42P01", STORE_FAILURE_UNKNOWN_TABLE},    /* undefined_table */
        {"3F000", STORE_FAILURE_UNKNOWN_TABLE},    /* invalid_schema_name: s.t of no schema s */
        {"42703", STORE_FAILURE_UNKNOWN_COLUMN},   /* undefined_column */
        {"42702", STORE_FAILURE_AMBIGUOUS_COLUMN}, /* ambiguous_column */
        {"42883", STORE_FAILURE_ARGUMENTS},        /* undefined_function: name or arguments */
        {"42601", STORE_FAILURE_SYNTAX},           /* syntax_error */
        {"42804", STORE_FAILURE_TYPE_MISMATCH},    /* datatype_mismatch */
        {"42846", STORE_FAILURE_TYPE_MISMATCH},    /* cannot_coerce */
        {"22P02", STORE_FAILURE_TYPE_MISMATCH},    /* invalid_text_representation */
        {"22007", STORE_FAILURE_TYPE_MISMATCH},    /* invalid_datetime_format */
        {"22008", STORE_FAILURE_TYPE_MISMATCH},    /* datetime_field_overflow */
        {"22012", STORE_FAILURE_DIVISION_BY_ZERO}, /* division_by_zero */
        {"42803", STORE_FAILURE_GROUPING},         /* grouping_error */
        {"42501", STORE_FAILURE_DENIED},           /* insufficient_privilege */
        {"53400", STORE_FAILURE_MEMORY},           /* configuration_limit_exceeded: temp files */
        {"54000", STORE_FAILURE_VALUE_TOO_BIG},    /* program_limit_exceeded: a value's size */
    };
    for (size_t i = 0; s && i < sizeof classes / sizeof classes[0]; i++)
        if (strcmp(s, classes[i].state) == 0)
            return classes[i].kind;
    return STORE_FAILURE_OTHER;
}

/* Byte offset in text of PostgreSQL's error position (1-based, in
 * characters), or -1 when res has none inside text. */
static long position_offset(const PGresult *res, const char *text)
{
    const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);
    long chars = pos ? strtol(pos, NULL, 10) : 0;
    if (chars < 1)
        return -1;
    const char *p = text;
    for (long c = 1; c < chars && *p; c++) /* to the start of character number chars */
        for (p++; (*p & 0xC0) == 0x80; p++)
            ;
    return (long)(p - text);
}

int pg_fail_in(pg_store *db, const PGresult *res, dbmcp_error *err, const char *what,
               const char *text)
{
    int rc = pg_fail(db, res, err, what);
    store_failure *f = &db->failure;
    /* A function the role may not EXECUTE (42501, no error position) is
     * answered as an unknown function, as SQLite answers a function it
     * does not offer: the caller learns no more than from a missing one.
     * Its name is the call in the statement that the message names. */
    if (f->kind == STORE_FAILURE_DENIED && res && text) {
        const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        store_failure_call_in(text, msg, f->name, sizeof f->name);
        if (f->name[0])
            f->kind = STORE_FAILURE_UNKNOWN_FUNCTION;
    }
    long at = res && text ? position_offset(res, text) : -1;
    if (at < 0 || f->kind == STORE_FAILURE_DENIED || f->kind == STORE_FAILURE_UNKNOWN_FUNCTION ||
        f->kind == STORE_FAILURE_TIME_LIMIT || f->kind == STORE_FAILURE_CANCELLED ||
        f->kind == STORE_FAILURE_DIVISION_BY_ZERO)
        return rc;
    store_failure_token_at(text, (size_t)at, f->name, sizeof f->name);
    if (f->kind == STORE_FAILURE_ARGUMENTS) {
        /* 42883 names a function called as name(…) or an operator no
         * type pair has (text + integer): the latter is a type mismatch. */
        const char *next = text + at + strlen(f->name);
        while (*next == ' ' || *next == '\t' || *next == '\n' || *next == '\r')
            next++;
        if (!f->name[0] || *next != '(')
            f->kind = STORE_FAILURE_TYPE_MISMATCH;
    }
    return rc;
}

int pg_fail(pg_store *db, const PGresult *res, dbmcp_error *err, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    store_failure_set(&db->failure, failure_kind(state), NULL);
    const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn);
    char line[768];
    first_line(msg, line, sizeof line);
    if (PQstatus(db->conn) == CONNECTION_BAD)
        return lost(db, err, what);
    int code = map_sqlstate(state);
    if (state && strcmp(state, "57014") == 0)
        return cancel_error(db, err, what, line);
    if (code == DBMCP_EIO)
        return lost(db, err, what);
    if (code == DBMCP_ETIMEOUT)
        return dbmcp_error_set_private(err, code,
                                       "the database was busy: a lock wait took too long",
                                       "%s: %s (SQLSTATE %s)", what, line, state);
    if (state && strcmp(state, "42601") == 0 && strstr(line, "multiple commands"))
        return dbmcp_error_set(err, DBMCP_EINVAL, "only one statement is allowed");
    return dbmcp_error_set_private(err, code, "the database refused the request",
                                   "%s: %s (SQLSTATE %s)", what, line, state ? state : "none");
}

void pg_note_changes(pg_store *db, const PGresult *res)
{
    const char *tag = PQcmdStatus((PGresult *)res);
    if (!tag)
        return;
    if (strncmp(tag, "INSERT ", 7) == 0 || strncmp(tag, "UPDATE ", 7) == 0 ||
        strncmp(tag, "DELETE ", 7) == 0 || strncmp(tag, "MERGE ", 6) == 0)
        db->changes = strtoll(PQcmdTuples((PGresult *)res), NULL, 10);
}

/* --- waiting --------------------------------------------------------------------- */

void pg_conn_cancel(pg_store *db, pg_cancel_reason reason)
{
    if (db->cancelled != PG_CANCEL_NONE)
        return;
    db->cancelled = reason;
    db->cancel_sent_ms = pg_now_ms();
    char buf[256];
    /* On failure (the server unreachable) the grace period abandons it. */
    if (db->canceller)
        PQcancel(db->canceller, buf, sizeof buf);
}

/* Look at the clock and the flag between two polls: the slow hook, a
 * cancel, a server that ignores one. 0, or the code of an abandoned call. */
static int watch(pg_store *db, dbmcp_error *err, const char *what)
{
    double now = pg_now_ms();
    if (db->slow_fn && now >= db->slow_at_ms) {
        void (*fn)(void *) = db->slow_fn;
        db->slow_fn = NULL;
        fn(db->slow_arg);
    }
    if (db->cancelled == PG_CANCEL_NONE) {
        if (db->cancel && atomic_load(db->cancel))
            pg_conn_cancel(db, PG_CANCEL_FLAG);
        else if (db->deadline_ms > 0 && now >= db->deadline_ms)
            pg_conn_cancel(db, PG_CANCEL_DEADLINE);
    } else if (now - db->cancel_sent_ms > PG_CANCEL_GRACE_MS) {
        lost(db, err, what);
        return cancel_error(db, err, what, "the server did not answer the cancel");
    }
    return 0;
}

/* Milliseconds to poll before the next look at the clock. */
static int slice_ms(const pg_store *db)
{
    double now = pg_now_ms(), ms = PG_WAIT_SLICE_MS;
    if (db->cancelled == PG_CANCEL_NONE && db->deadline_ms > 0 && db->deadline_ms - now < ms)
        ms = db->deadline_ms - now;
    if (db->slow_fn && db->slow_at_ms - now < ms)
        ms = db->slow_at_ms - now;
    return ms < 1 ? 1 : (int)ms;
}

int pg_conn_wait(pg_store *db, dbmcp_error *err)
{
    for (int polled = 0;; polled = 1) {
        /* Input is read only when no answer is complete yet: libpq moves
         * what it holds to the front of its buffer on every read, so
         * reading per row of a fast result costs the square of its size.
         * And only after a poll: right after a command went out its answer
         * is not there yet, and the read would only find nothing. */
        int unsent = PQflush(db->conn);
        if (unsent < 0)
            return lost(db, err, "waiting for the server");
        if (!unsent && !PQisBusy(db->conn))
            return 0;
        if (polled && !PQconsumeInput(db->conn))
            return lost(db, err, "waiting for the server");
        if (polled && !unsent && !PQisBusy(db->conn))
            return 0;
        int rc = watch(db, err, "waiting for the server");
        if (rc)
            return rc;
        struct pollfd p = {.fd = PQsocket(db->conn), .events = POLLIN | (unsent ? POLLOUT : 0)};
        if (p.fd < 0)
            return lost(db, err, "waiting for the server");
        if (poll(&p, 1, slice_ms(db)) < 0 && errno != EINTR)
            return lost(db, err, "waiting for the server");
    }
}

static void drain_pending(pg_store *db);

/* Free every notification libpq holds; 1 when there was one. */
static int drop_notifications(pg_store *db)
{
    int got = 0;
    PGnotify *n;
    while ((n = PQnotifies(db->conn)) != NULL) {
        got = 1;
        PQfreemem(n);
    }
    return got;
}

int pg_conn_wait_notify(pg_store *db, int timeout_ms, int wake_fd, dbmcp_error *err)
{
    if (db->streaming) {
        dbmcp_error ignored; /* the streaming statement keeps its own error */
        pg_stmt_buffer_rest(db->streaming, &ignored);
    }
    if (db->pending && !db->broken)
        drain_pending(db);
    if (db->broken)
        return lost(db, err, "waiting for notifications");
    double deadline = timeout_ms >= 0 ? pg_now_ms() + timeout_ms : 0;
    for (;;) {
        /* Notifications read with an earlier command's answers are queued
         * in libpq already; PQconsumeInput adds what the socket holds. */
        if (!PQconsumeInput(db->conn) || PQstatus(db->conn) == CONNECTION_BAD || db->broken)
            return lost(db, err, "waiting for notifications");
        if (drop_notifications(db))
            return 1;
        int ms = -1;
        if (timeout_ms >= 0) {
            double left = deadline - pg_now_ms();
            if (left <= 0)
                return 0;
            ms = left < 1 ? 1 : (int)left;
        }
        struct pollfd p[2] = {{.fd = PQsocket(db->conn), .events = POLLIN},
                              {.fd = wake_fd, .events = POLLIN}};
        if (p[0].fd < 0)
            return lost(db, err, "waiting for notifications");
        int n = poll(p, wake_fd >= 0 ? 2 : 1, ms);
        if (n < 0 && errno != EINTR)
            return lost(db, err, "waiting for notifications");
        if (n > 0 && wake_fd >= 0 && p[1].revents)
            return 0;
    }
}

/* Answer what a result in a copy state waits for, so the command ends:
 * dbmcp never streams COPY data. */
static void end_copy(pg_store *db, PGresult *res)
{
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COPY_IN)
        PQputCopyEnd(db->conn, "COPY from the client is not supported by dbmcp");
    else if (s == PGRES_COPY_OUT || s == PGRES_COPY_BOTH)
        pg_conn_cancel(db, PG_CANCEL_STOP);
}

/* Discard COPY OUT data until the server ends it. */
static int skip_copy_data(pg_store *db, dbmcp_error *err)
{
    for (;;) {
        char *buf = NULL;
        int n = PQgetCopyData(db->conn, &buf, 1);
        if (buf)
            PQfreemem(buf);
        if (n == -1)
            return 0;
        if (n == -2)
            return lost(db, err, "reading COPY data");
        if (n == 0) {
            if (!PQconsumeInput(db->conn))
                return lost(db, err, "reading COPY data");
            int rc = watch(db, err, "reading COPY data");
            if (rc)
                return rc;
            struct pollfd p = {.fd = PQsocket(db->conn), .events = POLLIN};
            poll(&p, 1, slice_ms(db));
        }
    }
}

int pg_conn_drain(pg_store *db, dbmcp_error *err)
{
    for (;;) {
        int rc = pg_conn_wait(db, err);
        if (rc)
            return rc;
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
            pg_note_changes(db, res);
        end_copy(db, res);
        int copy_out = PQresultStatus(res) == PGRES_COPY_OUT;
        PQclear(res);
        if (copy_out && (rc = skip_copy_data(db, err)))
            return rc;
    }
    return PQstatus(db->conn) == CONNECTION_BAD ? lost(db, err, "reading answers") : 0;
}

void pg_conn_send_discarded(pg_store *db, const char *sql)
{
    if (db->broken)
        return;
    if (!PQsendQuery(db->conn, sql)) {
        db->broken = 1;
        return;
    }
    PQflush(db->conn); /* the rest goes out with the next wait */
    db->pending = 1;
}

void pg_conn_send_checked(pg_store *db, const char *sql)
{
    pg_conn_send_discarded(db, sql);
    if (db->pending)
        db->pending_checked = 1;
}

/* Read the answers of commands sent without waiting. Those sent checked
 * (pg_conn_send_checked) that failed, or left a transaction open, mark
 * the connection broken: the caller's reconnection gives a new session. */
static void drain_pending(pg_store *db)
{
    int checked = db->pending_checked;
    db->pending = 0;
    db->pending_checked = 0;
    db->cancelled = PG_CANCEL_NONE;
    int failed = 0;
    for (;;) {
        dbmcp_error ignored;
        if (pg_conn_wait(db, &ignored) != 0)
            return;
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_FATAL_ERROR)
            failed = 1;
        end_copy(db, res);
        PQclear(res);
    }
    if (PQstatus(db->conn) == CONNECTION_BAD ||
        (checked && (failed || PQtransactionStatus(db->conn) != PQTRANS_IDLE)))
        db->broken = 1;
}

void pg_conn_free_before(char **sql, size_t n)
{
    for (size_t i = 0; sql && i < n; i++)
        free(sql[i]);
    free(sql);
}

int pg_conn_before_next(pg_store *db, const char *const *sql, size_t n, dbmcp_error *err)
{
    char **kept = calloc(db->n_before + n + 1, sizeof *kept);
    if (!kept)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; i < db->n_before; i++)
        kept[i] = db->before[i];
    for (size_t i = 0; i < n; i++)
        if (!(kept[db->n_before + i] = strdup(sql[i]))) {
            for (size_t k = db->n_before; k < db->n_before + i; k++)
                free(kept[k]);
            free(kept);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
    free(db->before);
    db->before = kept;
    db->n_before += n;
    return 0;
}

char **pg_conn_take_before(pg_store *db, size_t *n)
{
    char **sql = db->before;
    *n = db->n_before;
    db->before = NULL;
    db->n_before = 0;
    return sql;
}

/* Run the statements kept for the next statement now, on their own (a
 * command other than a statement's start came first). On failure the
 * transaction they may have opened is rolled back. */
static int run_before(pg_store *db, dbmcp_error *err)
{
    size_t n = 0;
    char **sql = pg_conn_take_before(db, &n);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = pg_conn_run(db, sql[i], err);
    pg_conn_free_before(sql, n);
    if (rc && rc != DBMCP_EIO && PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        pg_conn_send_discarded(db, "ROLLBACK");
    return rc;
}

int pg_conn_end_pipeline(pg_store *db)
{
    if (PQpipelineStatus(db->conn) == PQ_PIPELINE_OFF) {
        db->pipelined = 0;
        return 0;
    }
    db->pipelined = 0;
    /* Up to the sync: the NULLs that end each command's results, what is
     * left of the commands after the one read (none in dbmcp's
     * pipelines), and PGRES_PIPELINE_SYNC. */
    for (int nulls = 0; !db->broken && nulls < 16;) {
        dbmcp_error ignored;
        if (pg_conn_wait(db, &ignored) != 0)
            break;
        PGresult *res = PQgetResult(db->conn);
        if (!res) {
            nulls++;
            continue;
        }
        ExecStatusType s = PQresultStatus(res);
        end_copy(db, res);
        PQclear(res);
        if (s == PGRES_PIPELINE_SYNC)
            break;
    }
    if (!PQexitPipelineMode(db->conn)) {
        db->broken = 1;
        return DBMCP_EIO;
    }
    return 0;
}

int pg_conn_run(pg_store *db, const char *sql, dbmcp_error *err)
{
    if (!PQsendQuery(db->conn, sql))
        return pg_fail(db, NULL, err, "sending");
    int first = 0;
    for (;;) {
        int rc = pg_conn_wait(db, err);
        if (rc)
            return rc;
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
            pg_note_changes(db, res);
        else if (s == PGRES_FATAL_ERROR && !first)
            first = pg_fail(db, res, err, "exec");
        end_copy(db, res);
        int copy_out = s == PGRES_COPY_OUT;
        PQclear(res);
        if (copy_out && (rc = skip_copy_data(db, err)))
            return rc;
        if (first == DBMCP_EIO)
            return first;
    }
    return first;
}

/* Run a driver-generated query and return its last rows (NULL on failure,
 * err filled). The caller PQclears it. */
static PGresult *query_rows(pg_store *db, const char *sql, dbmcp_error *err)
{
    if (!PQsendQuery(db->conn, sql)) {
        pg_fail(db, NULL, err, "session setup");
        return NULL;
    }
    PGresult *rows = NULL;
    int rc = 0;
    for (;;) {
        int waited = pg_conn_wait(db, err);
        if (waited) {
            rc = waited;
            break;
        }
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        if (PQresultStatus(res) == PGRES_TUPLES_OK && !rows) {
            rows = res;
            continue;
        }
        if (PQresultStatus(res) == PGRES_FATAL_ERROR && !rc)
            rc = pg_fail(db, res, err, "session setup");
        PQclear(res);
    }
    if (rc) {
        PQclear(rows);
        return NULL;
    }
    return rows;
}

/* --- opening ----------------------------------------------------------------------- */

/* Notices go to the operator log. An error that arrives while the session is
 * idle comes here too: a FATAL one (an administrator or an idle timeout
 * ended the session) marks the connection broken before its socket closes. */
static void notice_received(void *arg, const PGresult *res)
{
    pg_store *db = arg;
    const char *severity = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (severity && (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0))
        db->broken = 1;
    char line[512];
    log_msg(LOG_DEBUG, "postgres", "%s", first_line(PQresultErrorMessage(res), line, sizeof line));
}

/* "host-or-socket-dir:port/dbname" of conn (attempted or connected). */
static char *identity_of(PGconn *conn)
{
    const char *host = PQhost(conn), *port = PQport(conn), *db = PQdb(conn);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s:%s/%s", host && *host ? host : "localhost",
             port && *port ? port : "5432", db ? db : "");
    return strdup(buf);
}

/* The one message a failed connection gets, by what the operator must do. */
static int connect_error(PGconn *conn, dbmcp_error *err)
{
    char line[768], *where = identity_of(conn);
    const char *msg = PQerrorMessage(conn);
    first_line(msg, line, sizeof line);
    const char *user = PQuser(conn) ? PQuser(conn) : "";
    const char *db = PQdb(conn) ? PQdb(conn) : "";
    const char *w = where ? where : "the server";
    int rc;
    if (strstr(msg, "password authentication failed"))
        rc = dbmcp_error_set(err, DBMCP_EDENIED,
                             "PostgreSQL at %s refused the password of user \"%s\": check the "
                             "password in the URL, PGPASSWORD or ~/.pgpass",
                             w, user);
    else if (PQconnectionNeedsPassword(conn) || strstr(msg, "no password supplied"))
        rc = dbmcp_error_set(err, DBMCP_EDENIED,
                             "PostgreSQL at %s wants a password for user \"%s\" and none was "
                             "given: put it in the URL, PGPASSWORD or ~/.pgpass",
                             w, user);
    else if (strstr(msg, "database \"") && strstr(msg, "does not exist"))
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND,
                             "the database \"%s\" does not exist on the PostgreSQL server at %s: "
                             "create it (createdb %s) or fix the database name in the URL",
                             db, w, db);
    else if (strstr(msg, "Connection refused") || strstr(msg, "No such file or directory") ||
             strstr(msg, "could not translate host name") || strstr(msg, "timeout expired") ||
             strstr(msg, "No route to host") || strstr(msg, "Network is unreachable"))
        rc = dbmcp_error_set(err, DBMCP_EIO,
                             "cannot reach the PostgreSQL server at %s: start it, or fix the "
                             "host (or socket directory) and port in the URL (%s)",
                             w, line);
    else
        rc = dbmcp_error_set(err, DBMCP_EIO, "cannot connect to PostgreSQL at %s: %s", w, line);
    free(where);
    return rc;
}

/* One query per connection: the search_path the session got, pgvector's
 * type (found through the extension, not a name that anyone may create)
 * and whether schema dbmcp exists. */
static const char session_sql[] =
    "SELECT pg_catalog.current_setting('search_path'),"
    " (SELECT t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_depend d"
    " ON d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objid = t.oid"
    " AND d.deptype = 'e' JOIN pg_catalog.pg_extension x ON x.oid = d.refobjid"
    " WHERE x.extname = 'vector' AND t.typname = 'vector'),"
    " EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'dbmcp')";

/* Whether search_path's first schema is dbmcp. */
static int search_path_ok(const char *path)
{
    while (*path == ' ')
        path++;
    if (*path == '"')
        return strncmp(path, "\"dbmcp\"", 7) == 0;
    return strncmp(path, "dbmcp", 5) == 0 && (path[5] == ',' || path[5] == ' ' || !path[5]);
}

/* What every (re)connection needs before its first command. */
static int session_setup(pg_store *db, int create, dbmcp_error *err)
{
    PQsetNoticeReceiver(db->conn, notice_received, db);
    if (PQsetnonblocking(db->conn, 1) != 0)
        return pg_fail(db, NULL, err, "session setup");
    PQfreeCancel(db->canceller);
    if (!(db->canceller = PQgetCancel(db->conn)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    const char *scs = PQparameterStatus(db->conn, "standard_conforming_strings");
    db->backslash_quotes = scs && strcmp(scs, "off") == 0;
    db->generation++; /* the server forgot every prepared statement */
    db->cancelled = PG_CANCEL_NONE;
    db->garbage_count = 0;
    db->garbage_len = 0;
    if (db->garbage)
        db->garbage[0] = '\0';
    PGresult *rows = query_rows(db, session_sql, err);
    if (!rows)
        return err->code ? err->code : DBMCP_ESTORE;
    db->vector_oid =
        PQgetisnull(rows, 0, 1) ? InvalidOid : (Oid)strtoul(PQgetvalue(rows, 0, 1), NULL, 10);
    int have_schema = strcmp(PQgetvalue(rows, 0, 2), "t") == 0;
    char path[256];
    snprintf(path, sizeof path, "%s", PQgetvalue(rows, 0, 0));
    PQclear(rows);
    if (db->base.flags & STORE_READONLY)
        return 0;
    if (!search_path_ok(path))
        return dbmcp_error_set(err, DBMCP_ESTORE,
                               "the PostgreSQL session at %s has search_path \"%s\", not \"dbmcp, "
                               "public\": a connection pooler dropped the startup option (add "
                               "search_path and lock_timeout to PgBouncer's "
                               "track_extra_parameters) or set it for the role: ALTER ROLE … SET "
                               "search_path = dbmcp, public",
                               db->identity, path);
    if (create && !have_schema)
        return pg_conn_run(db, "CREATE SCHEMA IF NOT EXISTS dbmcp", err);
    return 0;
}

static int reconnect(pg_store *db, dbmcp_error *err)
{
    PQfreeCancel(db->canceller);
    db->canceller = NULL;
    PQreset(db->conn);
    if (PQstatus(db->conn) != CONNECTION_OK) {
        db->broken = 1;
        connect_error(db->conn, err);
        return dbmcp_error_set(err, DBMCP_EIO, "%.900s", err->message);
    }
    db->broken = 0;
    int rc = session_setup(db, 0, err);
    if (rc)
        db->broken = 1;
    return rc;
}

int pg_conn_take(pg_store *db, dbmcp_error *err)
{
    if (db->streaming) {
        dbmcp_error ignored; /* the streaming statement keeps its own error */
        pg_stmt_buffer_rest(db->streaming, &ignored);
    }
    if (!db->broken && PQpipelineStatus(db->conn) != PQ_PIPELINE_OFF)
        pg_conn_end_pipeline(db);
    if (db->pending && !db->broken)
        drain_pending(db);
    /* An idle connection the server closed (restart, idle timeout) is
     * noticed here, before a command is lost in it. */
    if (!db->broken && (!PQconsumeInput(db->conn) || PQstatus(db->conn) == CONNECTION_BAD))
        db->broken = 1;
    if (db->broken && db->txn_open)
        db->txn_lost = 1;
    if (db->txn_lost)
        return dbmcp_error_set_private(
            err, DBMCP_EIO, "the database server went away; the request was not completed",
            "the connection to PostgreSQL at %s dropped inside a transaction: roll it back and "
            "retry",
            db->identity);
    if (db->broken) {
        int rc = reconnect(db, err);
        if (rc)
            return rc;
    }
    db->cancelled = PG_CANCEL_NONE;
    /* Only read-write handles name their statements (read-only ones use the
     * unnamed statement): one round trip per batch of DEALLOCATEs. */
    if (db->garbage_count >= PG_GARBAGE_BATCH && !(db->base.flags & STORE_READONLY)) {
        dbmcp_error ignored;
        db->garbage_count = 0;
        db->garbage_len = 0;
        pg_conn_run(db, db->garbage, &ignored);
        db->garbage[0] = '\0';
    }
    return db->n_before ? run_before(db, err) : 0;
}

/* Append "-c name=value" settings to the URI's own options. */
static char *startup_options(const char *given, int readonly)
{
    char ours[128] = "-cdefault_transaction_read_only=on";
    if (!readonly)
        snprintf(ours, sizeof ours, "-csearch_path=dbmcp,public -clock_timeout=%d",
                 PG_BUSY_TIMEOUT_MS);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s%s", given ? given : "", given && *given && *ours ? " " : "",
             ours);
    return strdup(buf);
}

int pg_conn_open(const char *url, int flags, pg_store **out, dbmcp_error *err)
{
    *out = NULL;
    char *parse_error = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &parse_error);
    if (!opts) {
        char line[512];
        int rc = parse_error
                     ? dbmcp_error_set(err, DBMCP_EINVAL, "the PostgreSQL URL is malformed: %s",
                                       first_line(parse_error, line, sizeof line))
                     : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        PQfreemem(parse_error);
        return rc;
    }
    size_t n = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        n++;
    const char **keys = calloc(n + 5, sizeof *keys), **values = calloc(n + 5, sizeof *values);
    const char *given_options = NULL, *timeout = NULL;
    size_t k = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val)
            continue;
        if (strcmp(o->keyword, "options") == 0)
            given_options = o->val;
        else if (strcmp(o->keyword, "client_encoding") != 0 && keys) {
            if (strcmp(o->keyword, "connect_timeout") == 0)
                timeout = o->val;
            keys[k] = o->keyword;
            values[k++] = o->val;
        }
    }
    char *options = startup_options(given_options, flags & STORE_READONLY);
    PGconn *conn = NULL;
    if (keys && values && options) {
        keys[k] = "options", values[k++] = options;
        keys[k] = "client_encoding", values[k++] = "UTF8";
        keys[k] = "fallback_application_name", values[k++] = "dbmcp";
        if (!timeout)
            keys[k] = "connect_timeout", values[k++] = PG_CONNECT_TIMEOUT;
        keys[k] = NULL;
        conn = PQconnectdbParams(keys, values, 0);
    }
    free(keys);
    free(values);
    free(options);
    PQconninfoFree(opts);
    if (!conn)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (PQstatus(conn) != CONNECTION_OK) {
        int rc = connect_error(conn, err);
        PQfinish(conn);
        return rc;
    }
    pg_store *db = calloc(1, sizeof *db);
    if (!db || !(db->identity = identity_of(conn))) {
        free(db);
        PQfinish(conn);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    db->base.driver = &postgres_store_driver;
    db->base.flags = flags;
    db->conn = conn;
    db->busy_timeout_ms = PG_BUSY_TIMEOUT_MS;
    db->session_lock_timeout = PG_BUSY_TIMEOUT_MS;
    int rc = session_setup(db, (flags & STORE_CREATE) != 0, err);
    if (rc) {
        pg_conn_close(db);
        return rc;
    }
    *out = db;
    return 0;
}

void pg_conn_close(pg_store *db)
{
    if (!db)
        return;
    PQfreeCancel(db->canceller);
    PQfinish(db->conn);
    free(db->identity);
    free(db->functions_csv);
    free(db->garbage);
    pg_conn_free_before(db->before, db->n_before);
    free(db);
}
