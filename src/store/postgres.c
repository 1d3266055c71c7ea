/*
 * postgres.c — the PostgreSQL backend of store.h, on libpq.
 *
 * Statements. store_prepare rewrites :names to $n (postgres_sql.h), then
 * prepares a named server-side statement and asks the server to describe
 * it: parameter types, column names and column type OIDs are known from
 * prepare on, and nothing is looked up per call afterwards. A parameter
 * whose type the server cannot infer (SELECT :x) is declared text. Every
 * statement runs with the extended protocol (PQsendQueryPrepared), values
 * as text except blobs and values for bytea parameters (binary), and rows
 * arrive one at a time (PQsetSingleRowMode). store_reset keeps the
 * prepared statement and its bindings; store_finalize deallocates it,
 * batched with later commands.
 *
 * Stopping early. A statement reset or finalized before its last row is
 * cancelled on the server (PQcancel) when cancelling loses nothing: on
 * read-only handles, and on read-write handles outside a transaction for a
 * query (SELECT, VALUES, TABLE, SHOW, WITH without DML). Other statements
 * (an INSERT … RETURNING, anything inside store_begin) are read to their
 * end and the rows dropped, since a cancel would undo their changes or
 * abort the caller's transaction.
 *
 * Values. int2/int4/int8/oid are STORE_INTEGER; float4/float8 STORE_FLOAT;
 * numeric per value (postgres_value.h: whole numbers that fit 64 bits are
 * INTEGER, those a double reproduces FLOAT, the rest TEXT with every digit
 * kept; store_column_text always gives the server's exact digits); bool is
 * STORE_INTEGER 1/0 with text "1"/"0", as SQLite stores booleans; bytea is
 * STORE_BLOB (decoded once per cell); pgvector's vector is STORE_BLOB of
 * float32 (STORE_KIND_VECTOR; its text is pgvector's "[…]" and a blob
 * bound to a vector parameter is sent as that text); NULL is STORE_NULL;
 * every other type is STORE_TEXT in PostgreSQL's output format.
 *
 * Read-only handles (the agent's query connection). Each statement runs in
 * its own transaction, opened by one simple-protocol message of fixed,
 * driver-generated text — BEGIN READ ONLY and SET LOCAL lock_timeout (the
 * busy timeout), idle_in_transaction_session_timeout, statement_timeout
 * (what is left of the time limit, so the server stops it even if dbmcp
 * dies) and work_mem (the memory budget) — and ended by ROLLBACK, so no
 * statement can write or leave a setting behind, whatever its text: a
 * write fails in the engine with DBMCP_EDENIED (25006). store_exec on such
 * a handle runs one statement the same way. store_begin is refused there.
 * application_name cannot carry a call tag yet: store.h has no way to pass
 * one.
 *
 * What the neutral guard of store.h maps to here, and what it does not:
 *   - writes, schema changes, settings that outlive the statement,
 *     transaction control: structural (the read-only transaction above);
 *     the role must not be a superuser (store_verify_readonly checks it);
 *   - reads of dbmcp's own tables and the catalog, and the function
 *     allowlist: not enforced by this driver (the allowlist is kept, not
 *     applied): admission of agent SQL (pg_guard) and the query role's
 *     privileges do that on PostgreSQL; store_guard_explain therefore names
 *     no reason and returns 0;
 *   - the query budget: sql_bytes refuses longer statements at prepare;
 *     value_bytes refuses a result cell longer than it at step (a value
 *     built and dropped inside the statement is not bounded); pattern_bytes
 *     and the fixed bounds (expression depth, compound terms) have no
 *     per-session setting a non-superuser may change: not enforced;
 *   - the memory budget is work_mem, which bounds each sort or hash of the
 *     statement, not their sum: a guide, not a cap;
 *   - the time limit, cancel flag and slow hook: enforced by the client's
 *     wait loop (postgres_conn.c) on every handle, and by statement_timeout
 *     on the server for read-only ones.
 *
 * store_stmt_is_readonly asks the engine: a statement is read-only when it
 * returns columns and its plan (EXPLAIN (FORMAT JSON), parameters NULL) has
 * no ModifyTable or LockRows node; a statement EXPLAIN refuses (utility
 * statements) or one without columns (SELECT INTO, CREATE TABLE AS) is
 * not. EXPLAIN without ANALYZE is read-only; EXPLAIN ANALYZE is what the
 * statement it runs is. Functions with side effects called by a SELECT are
 * not seen (the read-only transaction still stops them on query handles).
 * The answer is kept with the statement. store_trusted_begin/end are
 * no-ops: nothing here hides the catalog.
 */
#include "store/postgres_driver.h"
#include "store/postgres_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type OIDs (pg_type.dat: fixed since PostgreSQL 7). */
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

/* Idle time a dead client may leave a read-only transaction open. */
#define PG_IDLE_IN_TRANSACTION_MS 300000
/* The smallest work_mem PostgreSQL accepts, in kB. */
#define PG_WORK_MEM_MIN_KB 64

static int pg_step(store_stmt *h, dbmcp_error *err);
static int pg_prepare(store *h, const char *sql, store_stmt **out, dbmcp_error *err);
static void pg_finalize(store_stmt *h);

static pg_store *store_of(pg_stmt *st)
{
    return (pg_store *)st->base.owner;
}

static int is_readonly_handle(const pg_store *db)
{
    return (db->base.flags & STORE_READONLY) != 0;
}

/* --- connections ------------------------------------------------------------------ */

static int pg_open(const char *url, int flags, store **out, dbmcp_error *err)
{
    pg_store *db = NULL;
    int rc = pg_conn_open(url, flags, &db, err);
    *out = rc ? NULL : &db->base;
    return rc;
}

static void pg_close(store *h)
{
    pg_conn_close((pg_store *)h);
}

static const char *pg_identity(store *h)
{
    return ((pg_store *)h)->identity;
}

/* --- the rows of a running statement ------------------------------------------------ */

static void clear_row(pg_stmt *st)
{
    PQclear(st->row);
    st->row = NULL;
    for (int i = 0; st->decoded && i < st->ncols; i++) {
        free(st->decoded[i]);
        st->decoded[i] = NULL;
    }
}

static void clear_buffered(pg_stmt *st)
{
    for (size_t i = st->next_buffered; i < st->n_buffered; i++)
        PQclear(st->buffered[i]);
    free(st->buffered);
    st->buffered = NULL;
    st->n_buffered = st->next_buffered = st->cap_buffered = 0;
    st->buffered_rc = 0;
    free(st->buffered_err);
    st->buffered_err = NULL;
}

/* The statement's last answer came (or it was stopped): the connection is
 * free, and a read-only statement's transaction ends. */
static void finish(pg_stmt *st)
{
    pg_store *db = store_of(st);
    if (db->streaming == st)
        db->streaming = NULL;
    st->state = PG_DONE;
    if (is_readonly_handle(db))
        pg_conn_send_discarded(db, "ROLLBACK");
}

static int buffer_row(pg_stmt *st, PGresult *res)
{
    if (st->n_buffered == st->cap_buffered) {
        size_t cap = st->cap_buffered ? st->cap_buffered * 2 : 64;
        PGresult **grown = realloc(st->buffered, cap * sizeof *grown);
        if (!grown)
            return -1;
        st->buffered = grown;
        st->cap_buffered = cap;
    }
    st->buffered[st->n_buffered++] = res;
    return 0;
}

static void buffer_error(pg_stmt *st, int rc, const dbmcp_error *err)
{
    if (st->buffered_rc)
        return;
    st->buffered_rc = rc;
    if ((st->buffered_err = malloc(sizeof *st->buffered_err)))
        *st->buffered_err = *err;
}

int pg_stmt_buffer_rest(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    for (;;) {
        int rc = pg_conn_wait(db, err);
        if (rc) {
            buffer_error(st, rc, err);
            break;
        }
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_SINGLE_TUPLE) {
            if (buffer_row(st, res) == 0)
                continue;
            buffer_error(st, dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory"), err);
        } else if (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) {
            pg_note_changes(db, res);
        } else {
            buffer_error(st, pg_fail(db, res, err, "step"), err);
        }
        PQclear(res);
        if (st->buffered_rc == DBMCP_ENOMEM) {
            pg_conn_cancel(db, PG_CANCEL_STOP);
            dbmcp_error ignored;
            pg_conn_drain(db, &ignored);
            break;
        }
    }
    finish(st);
    st->state = PG_RUNNING; /* the buffered rows are still to be stepped */
    return st->buffered_rc;
}

/* Whether a cancel of st half-read loses nothing (see the file comment). */
static int stop_may_cancel(pg_stmt *st)
{
    pg_store *db = store_of(st);
    return is_readonly_handle(db) || (!db->txn_open && st->sql.kind == PG_SQL_QUERY);
}

/* Stop st, which owns the connection, before its last row. */
static void stream_stop(pg_stmt *st, int force_cancel)
{
    pg_store *db = store_of(st);
    dbmcp_error ignored;
    /* What already arrived may be the whole rest of a short result: then
     * there is nothing to cancel. A few results only: rows keep arriving as
     * fast as they are read. */
    for (int looked = 0; looked < 64 && PQconsumeInput(db->conn) && !PQisBusy(db->conn); looked++) {
        PGresult *res = PQgetResult(db->conn);
        if (!res) {
            finish(st);
            return;
        }
        if (PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK)
            pg_note_changes(db, res);
        PQclear(res);
    }
    if (force_cancel || stop_may_cancel(st))
        pg_conn_cancel(db, PG_CANCEL_STOP);
    pg_conn_drain(db, &ignored);
    finish(st);
}

static void pg_reset(store_stmt *h)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = store_of(st);
    if (db->streaming == st)
        stream_stop(st, 0);
    clear_row(st);
    clear_buffered(st);
    st->state = PG_IDLE;
    st->last_param = 0;
}

/* --- prepare ---------------------------------------------------------------------------- */

/* Wait for the answer to one command: its result when it has status want
 * (*out, caller PQclears; NULL out drops it), else the mapped error. */
static int answer(pg_store *db, ExecStatusType want, PGresult **out, dbmcp_error *err,
                  const char *what)
{
    PGresult *kept = NULL;
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
        if (!kept && !rc && PQresultStatus(res) == want) {
            kept = res;
            continue;
        }
        if (!rc)
            rc = pg_fail(db, res, err, what);
        PQclear(res);
    }
    if (!rc && !kept)
        rc = pg_fail(db, NULL, err, what);
    if (rc || !out)
        PQclear(kept);
    else
        *out = kept;
    return rc;
}

/* The $n of a "could not determine data type of parameter $n" error. */
static int undetermined_param(const PGresult *res)
{
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *dollar = msg ? strrchr(msg, '$') : NULL;
    if (!state || strcmp(state, "42P18") != 0 || !dollar)
        return 0;
    return atoi(dollar + 1);
}

/* Prepare st->sql on the server as st->name. A parameter the server cannot
 * type is declared text and the statement prepared again. */
static int server_prepare(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    int n = st->sql.n_names;
    Oid *types = n ? calloc((size_t)n, sizeof *types) : NULL;
    if (n && !types)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (int tries = 0;; tries++) {
        snprintf(st->name, sizeof st->name, "dbmcp_%lu", ++db->statements);
        if (!PQsendPrepare(db->conn, st->name, st->sql.text, n, types)) {
            free(types);
            return pg_fail(db, NULL, err, "prepare");
        }
        int rc = pg_conn_wait(db, err), retry = 0;
        PGresult *res = rc ? NULL : PQgetResult(db->conn);
        if (!rc && !res) {
            rc = pg_fail(db, NULL, err, "prepare");
        } else if (!rc && PQresultStatus(res) != PGRES_COMMAND_OK) {
            int k = undetermined_param(res);
            if (k >= 1 && k <= n && !types[k - 1] && tries < n) {
                types[k - 1] = PG_TEXT;
                retry = 1;
            } else {
                rc = pg_fail(db, res, err, "prepare");
            }
        }
        PQclear(res);
        if (!db->broken) {
            dbmcp_error drained;
            int d = pg_conn_drain(db, &drained);
            if (d && !rc) {
                *err = drained;
                rc = d;
            }
        }
        if (retry && !rc)
            continue;
        free(types);
        return rc;
    }
}

/* Describe the prepared statement: parameter types, column names and types. */
static int server_describe(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    if (!PQsendDescribePrepared(db->conn, st->name))
        return pg_fail(db, NULL, err, "describe");
    PGresult *desc = NULL;
    int rc = answer(db, PGRES_COMMAND_OK, &desc, err, "describe");
    if (rc)
        return rc;
    int nparams = PQnparams(desc), ncols = PQnfields(desc);
    if (nparams != st->sql.n_names || (st->col_names && ncols != st->ncols)) {
        /* The same text prepared again after a reconnection describes the
         * same parameters; columns may change with the schema. */
        if (nparams != st->sql.n_names) {
            PQclear(desc);
            return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "internal error",
                                           "describe: %d parameters, %d names", nparams,
                                           st->sql.n_names);
        }
    }
    for (int i = 0; st->col_names && i < st->ncols; i++)
        free(st->col_names[i]);
    free(st->col_names);
    free(st->col_types);
    free(st->decoded);
    free(st->decoded_size);
    st->col_names = NULL;
    st->col_types = NULL;
    st->decoded = NULL;
    st->decoded_size = NULL;
    st->ncols = ncols;
    st->nparams = nparams;
    int oom = 0;
    if (!st->param_types && nparams)
        oom |= !(st->param_types = calloc((size_t)nparams, sizeof *st->param_types));
    for (int i = 0; !oom && i < nparams; i++)
        st->param_types[i] = PQparamtype(desc, i);
    if (ncols) {
        oom |= !(st->col_names = calloc((size_t)ncols, sizeof *st->col_names));
        oom |= !(st->col_types = calloc((size_t)ncols, sizeof *st->col_types));
        oom |= !(st->decoded = calloc((size_t)ncols, sizeof *st->decoded));
        oom |= !(st->decoded_size = calloc((size_t)ncols, sizeof *st->decoded_size));
    }
    for (int i = 0; !oom && i < ncols; i++) {
        oom |= !(st->col_names[i] = strdup(PQfname(desc, i)));
        st->col_types[i] = PQftype(desc, i);
    }
    PQclear(desc);
    if (oom)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    st->generation = db->generation;
    return 0;
}

static int server_setup(pg_stmt *st, dbmcp_error *err)
{
    int rc = server_prepare(st, err);
    return rc ? rc : server_describe(st, err);
}

static void free_stmt(pg_stmt *st)
{
    for (int i = 0; i < st->nparams; i++)
        free(st->values ? st->values[i] : NULL);
    for (int i = 0; st->col_names && i < st->ncols; i++)
        free(st->col_names[i]);
    free(st->values);
    free(st->lengths);
    free(st->formats);
    free(st->param_types);
    free(st->col_names);
    free(st->col_types);
    free(st->decoded);
    free(st->decoded_size);
    pg_sql_free(&st->sql);
    free(st);
}

static int pg_prepare(store *h, const char *sql, store_stmt **out, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    *out = NULL;
    size_t len = strlen(sql);
    if (is_readonly_handle(db) && db->budget_on && db->budget.sql_bytes > 0 &&
        len > (size_t)db->budget.sql_bytes)
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "the statement is %zu bytes long, more than its budget of %d", len,
                               db->budget.sql_bytes);
    pg_stmt *st = calloc(1, sizeof *st);
    if (!st)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    st->base.driver = &postgres_store_driver;
    st->base.owner = h;
    st->readonly = -1;
    int rc = pg_sql_rewrite(sql, db->backslash_quotes, &st->sql, err);
    if (!rc)
        rc = pg_conn_take(db, err);
    if (!rc)
        rc = server_setup(st, err);
    int n = st->sql.n_names;
    if (!rc && n) {
        st->values = calloc((size_t)n, sizeof *st->values);
        st->lengths = calloc((size_t)n, sizeof *st->lengths);
        st->formats = calloc((size_t)n, sizeof *st->formats);
        if (!st->values || !st->lengths || !st->formats)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    if (rc) {
        free_stmt(st);
        return rc;
    }
    *out = &st->base;
    return 0;
}

/* Queue "DEALLOCATE name" for the next command (postgres_conn.c sends them). */
static void deallocate_later(pg_store *db, const char *name)
{
    char cmd[64];
    int n = snprintf(cmd, sizeof cmd, "DEALLOCATE %s;", name);
    if (db->garbage_len + (size_t)n + 1 > db->garbage_cap) {
        size_t cap = db->garbage_cap ? db->garbage_cap * 2 : 1024;
        char *grown = realloc(db->garbage, cap);
        if (!grown)
            return; /* the server keeps it until the session ends: harmless */
        db->garbage = grown;
        db->garbage_cap = cap;
    }
    memcpy(db->garbage + db->garbage_len, cmd, (size_t)n + 1);
    db->garbage_len += (size_t)n;
    db->garbage_count++;
}

static void pg_finalize(store_stmt *h)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!st)
        return;
    pg_store *db = store_of(st);
    pg_reset(h);
    if (st->name[0] && st->generation == db->generation && !db->broken)
        deallocate_later(db, st->name);
    free_stmt(st);
}

/* --- running -------------------------------------------------------------------------------- */

/* A time limit passed or a cancel came before the statement started. */
static int preflight(pg_store *db, dbmcp_error *err)
{
    if (db->cancel && atomic_load(db->cancel))
        return dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
    if (db->deadline_ms > 0 && pg_now_ms() >= db->deadline_ms)
        return dbmcp_error_set_private(err, DBMCP_ETIMEOUT, "the query took too long",
                                       "step: time limit exceeded");
    return 0;
}

/* Open a read-only statement's transaction with its limits (file comment),
 * sending the queued DEALLOCATEs in the same message. */
static int begin_readonly(pg_store *db, dbmcp_error *err)
{
    char sql[512];
    int lock = db->busy_timeout_ms > 0 ? db->busy_timeout_ms : 1;
    int n = snprintf(sql, sizeof sql,
                     "BEGIN READ ONLY; SET LOCAL lock_timeout = %d;"
                     " SET LOCAL idle_in_transaction_session_timeout = %d;",
                     lock, PG_IDLE_IN_TRANSACTION_MS);
    if (db->deadline_ms > 0) {
        double left = db->deadline_ms - pg_now_ms();
        n += snprintf(sql + n, sizeof sql - (size_t)n, " SET LOCAL statement_timeout = %ld;",
                      (long)(left < 1 ? 1 : left + 0.999));
    }
    if (db->memory_budget) {
        size_t kb = db->memory_budget / 1024;
        n += snprintf(sql + n, sizeof sql - (size_t)n, " SET LOCAL work_mem = '%zukB';",
                      kb < PG_WORK_MEM_MIN_KB ? (size_t)PG_WORK_MEM_MIN_KB : kb);
    }
    const char *prelude = sql;
    char *joined = NULL;
    if (db->garbage_count) {
        size_t size = db->garbage_len + strlen(sql) + 1;
        if ((joined = malloc(size))) {
            snprintf(joined, size, "%s%s", db->garbage, sql);
            prelude = joined;
        }
        db->garbage_count = 0;
        db->garbage_len = 0;
        db->garbage[0] = '\0';
    }
    int rc = pg_conn_run(db, prelude, err);
    free(joined);
    if (rc && rc != DBMCP_EIO)
        pg_conn_send_discarded(db, "ROLLBACK");
    return rc;
}

/* A read-write session's lock_timeout follows store_set_busy_timeout; set
 * outside transactions only, where a rollback cannot undo it. */
static int sync_lock_timeout(pg_store *db, dbmcp_error *err)
{
    if (is_readonly_handle(db) || db->busy_timeout_ms == db->session_lock_timeout ||
        PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        return 0;
    char sql[64];
    snprintf(sql, sizeof sql, "SET lock_timeout = %d",
             db->busy_timeout_ms > 0 ? db->busy_timeout_ms : 1);
    int rc = pg_conn_run(db, sql, err);
    if (!rc)
        db->session_lock_timeout = db->busy_timeout_ms;
    return rc;
}

/* Send st's execution; the rows follow one at a time. */
static int start(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    int rc = preflight(db, err);
    if (!rc)
        rc = pg_conn_take(db, err);
    if (!rc && st->generation != db->generation)
        rc = server_setup(st, err); /* reconnected: the server forgot it */
    if (!rc)
        rc = sync_lock_timeout(db, err);
    if (!rc && is_readonly_handle(db))
        rc = begin_readonly(db, err);
    if (rc)
        return rc;
    if (!PQsendQueryPrepared(db->conn, st->name, st->nparams, (const char *const *)st->values,
                             st->lengths, st->formats, 0)) {
        rc = pg_fail(db, NULL, err, "step");
        if (is_readonly_handle(db))
            pg_conn_send_discarded(db, "ROLLBACK");
        return rc;
    }
    PQsetSingleRowMode(db->conn);
    db->streaming = st;
    st->state = PG_RUNNING;
    return 0;
}

/* A result cell past the query budget's value_bytes (read-only handles). */
static int over_budget(pg_stmt *st, const PGresult *row, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    if (!is_readonly_handle(db) || !db->budget_on || db->budget.value_bytes <= 0)
        return 0;
    for (int i = 0; i < st->ncols; i++) {
        size_t len = (size_t)PQgetlength(row, 0, i);
        if (st->col_types[i] == PG_BYTEA && len >= 2)
            len = (len - 2) / 2;
        if (len > (size_t)db->budget.value_bytes)
            return dbmcp_error_set_private(err, DBMCP_ETOOBIG, "a value is larger than allowed",
                                           "step: column %s holds %zu bytes, more than the budget "
                                           "of %d",
                                           st->col_names[i], len, db->budget.value_bytes);
    }
    return 0;
}

static int take_row(pg_stmt *st, PGresult *row, dbmcp_error *err)
{
    st->row = row;
    int rc = over_budget(st, row, err);
    if (!rc)
        return STORE_ROW;
    pg_store *db = store_of(st);
    if (db->streaming == st)
        stream_stop(st, 1);
    clear_buffered(st);
    st->state = PG_DONE;
    clear_row(st);
    return rc;
}

/* The next row from the server (st owns the connection). */
static int next_row(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    int rc = pg_conn_wait(db, err);
    if (rc) {
        if (db->streaming == st) {
            dbmcp_error ignored;
            pg_conn_drain(db, &ignored);
            finish(st);
        }
        return rc;
    }
    PGresult *res = PQgetResult(db->conn);
    if (res && PQresultStatus(res) == PGRES_SINGLE_TUPLE)
        return take_row(st, res, err);
    if (!res || PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK ||
        PQresultStatus(res) == PGRES_EMPTY_QUERY) {
        if (res)
            pg_note_changes(db, res);
        PQclear(res);
        rc = res ? pg_conn_drain(db, err) : 0;
        if (db->streaming == st)
            finish(st);
        return rc ? rc : STORE_DONE;
    }
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COPY_IN || s == PGRES_COPY_OUT || s == PGRES_COPY_BOTH)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "COPY to or from the client is not supported");
    else
        rc = pg_fail(db, res, err, "step");
    PQclear(res);
    if (db->streaming == st) {
        if (s == PGRES_COPY_IN)
            PQputCopyEnd(db->conn, "COPY from the client is not supported by dbmcp");
        else if (s == PGRES_COPY_OUT || s == PGRES_COPY_BOTH)
            pg_conn_cancel(db, PG_CANCEL_STOP);
        dbmcp_error ignored;
        pg_conn_drain(db, &ignored);
        finish(st);
    }
    return rc;
}

/* The next buffered row, then the buffered end. */
static int next_buffered(pg_stmt *st, dbmcp_error *err)
{
    if (st->next_buffered < st->n_buffered) {
        PGresult *row = st->buffered[st->next_buffered];
        st->buffered[st->next_buffered++] = NULL;
        return take_row(st, row, err);
    }
    int rc = st->buffered_rc;
    if (rc && err && st->buffered_err)
        *err = *st->buffered_err;
    else if (rc)
        dbmcp_error_set(err, rc, "the statement failed");
    clear_buffered(st);
    st->state = PG_DONE;
    return rc ? rc : STORE_DONE;
}

static int pg_step(store_stmt *h, dbmcp_error *err)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = store_of(st);
    clear_row(st);
    if (st->state == PG_DONE)
        st->state = PG_IDLE; /* stepping after the end runs it again, as SQLite does */
    if (st->state == PG_IDLE) {
        int rc = start(st, err);
        if (rc)
            return rc;
    }
    if (db->streaming == st)
        return next_row(st, err);
    return next_buffered(st, err);
}

/* --- bindings ----------------------------------------------------------------------------- */

/* The 0-based index of parameter name, or -1. Callers bind mostly in order,
 * so the one after the last bound is tried first. */
static int param_index(pg_stmt *st, const char *name)
{
    int next = st->last_param;
    if (name && next < st->nparams && strcmp(st->sql.names[next], name) == 0) {
        st->last_param = next + 1;
        return next;
    }
    for (int i = 0; name && i < st->nparams; i++)
        if (strcmp(st->sql.names[i], name) == 0) {
            st->last_param = i + 1;
            return i;
        }
    return -1;
}

/* Bind value (size bytes, owned by the caller) to parameter i in format. */
static int bind_value(pg_stmt *st, int i, const void *value, size_t size, int binary)
{
    char *copy = NULL;
    if (value) {
        if (size > 0x7fffffff)
            return DBMCP_ETOOBIG;
        if (!(copy = malloc(size + 1)))
            return DBMCP_ENOMEM;
        memcpy(copy, value, size);
        copy[size] = '\0';
    }
    free(st->values[i]);
    st->values[i] = copy;
    st->lengths[i] = (int)size;
    st->formats[i] = binary;
    return 0;
}

static int pg_bind_text(store_stmt *h, const char *name, const char *value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    /* Text for a bytea parameter is its bytes, as SQLite would store them. */
    return bind_value(st, i, value, value ? strlen(value) : 0, st->param_types[i] == PG_BYTEA);
}

static int pg_bind_int(store_stmt *h, const char *name, int64_t value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)value);
    return bind_value(st, i, text, (size_t)n, 0);
}

static int pg_bind_double(store_stmt *h, const char *name, double value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    char text[32];
    pg_double_text(value, text, sizeof text);
    return bind_value(st, i, text, strlen(text), 0);
}

static int pg_bind_blob(store_stmt *h, const char *name, const void *data, size_t size)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = store_of(st);
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    if (db->vector_oid != InvalidOid && st->param_types[i] == db->vector_oid) {
        char *text = pg_vector_encode(data, size);
        if (!text)
            return size % 4 ? DBMCP_EINVAL : DBMCP_ENOMEM;
        int rc = bind_value(st, i, text, strlen(text), 0);
        free(text);
        return rc;
    }
    return bind_value(st, i, data ? data : "", size, 1);
}

static int pg_bind_null(store_stmt *h, const char *name)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    return bind_value(st, i, NULL, 0, 0);
}

static int pg_param_count(store_stmt *h)
{
    return ((pg_stmt *)h)->nparams;
}

static const char *pg_param_name(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->nparams ? st->sql.names[i] : NULL;
}

/* --- columns ------------------------------------------------------------------------------ */

static int pg_column_count(store_stmt *h)
{
    return ((pg_stmt *)h)->ncols;
}

static const char *pg_column_name(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->ncols ? st->col_names[i] : NULL;
}

/* Whether cell i of the current row has a value (not NULL, a row there). */
static int has_value(pg_stmt *st, int i)
{
    return st->row && i >= 0 && i < st->ncols && !PQgetisnull(st->row, 0, i);
}

static int is_vector(pg_stmt *st, int i)
{
    Oid vector = store_of(st)->vector_oid;
    return vector != InvalidOid && st->col_types[i] == vector;
}

static store_type pg_column_type(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return STORE_NULL;
    switch (st->col_types[i]) {
    case PG_BOOL:
    case PG_INT2:
    case PG_INT4:
    case PG_INT8:
    case PG_OID: return STORE_INTEGER;
    case PG_FLOAT4:
    case PG_FLOAT8: return STORE_FLOAT;
    case PG_NUMERIC: return pg_numeric_type(PQgetvalue(st->row, 0, i));
    case PG_BYTEA: return STORE_BLOB;
    default: return is_vector(st, i) ? STORE_BLOB : STORE_TEXT;
    }
}

static store_kind pg_column_kind(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->ncols && is_vector(st, i) ? STORE_KIND_VECTOR : STORE_KIND_PLAIN;
}

/* The decoded bytes of bytea or vector cell i (cached until the next row),
 * NULL when the cell is neither or cannot be decoded. */
static const unsigned char *decoded(pg_stmt *st, int i, size_t *size)
{
    if (st->decoded[i]) {
        *size = st->decoded_size[i];
        return st->decoded[i];
    }
    const char *text = PQgetvalue(st->row, 0, i);
    int rc = -1;
    if (st->col_types[i] == PG_BYTEA)
        rc = pg_bytea_decode(text, (size_t)PQgetlength(st->row, 0, i), &st->decoded[i],
                             &st->decoded_size[i]);
    else if (is_vector(st, i))
        rc = pg_vector_decode(text, &st->decoded[i], &st->decoded_size[i]);
    *size = rc ? 0 : st->decoded_size[i];
    return rc ? NULL : st->decoded[i];
}

static const char *pg_column_text(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return NULL;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't' ? "1" : "0";
    if (st->col_types[i] == PG_BYTEA) {
        size_t size;
        const unsigned char *bytes = decoded(st, i, &size);
        return bytes ? (const char *)bytes : "";
    }
    return text;
}

static int64_t pg_column_int(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't';
    return pg_text_int(text);
}

static double pg_column_double(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0.0;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't' ? 1.0 : 0.0;
    return pg_text_double(text);
}

static const void *pg_column_blob(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return NULL;
    size_t size;
    if (st->col_types[i] == PG_BYTEA || is_vector(st, i))
        return decoded(st, i, &size);
    return pg_column_text(h, i);
}

static size_t pg_column_bytes(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0;
    size_t size = 0;
    if (st->col_types[i] == PG_BYTEA || is_vector(st, i))
        return decoded(st, i, &size) ? size : 0;
    if (st->col_types[i] == PG_BOOL)
        return 1;
    return (size_t)PQgetlength(st->row, 0, i);
}

/* --- whole statements and transactions ------------------------------------------------ */

/* Run one statement through prepare/step/finalize (read-only store_exec). */
static int exec_one(store *h, const char *sql, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = pg_prepare(h, sql, &st, err);
    while (!rc && (rc = pg_step(st, err)) == STORE_ROW)
        rc = 0;
    pg_finalize(st);
    return rc < 0 ? rc : 0;
}

static int pg_exec(store *h, const char *sql, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    if (is_readonly_handle(db))
        return exec_one(h, sql, err);
    int rc = pg_conn_take(db, err);
    if (!rc)
        rc = sync_lock_timeout(db, err);
    return rc ? rc : pg_conn_run(db, sql, err);
}

static int pg_begin(store *h, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    if (is_readonly_handle(db))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "a read-only connection runs each statement in a read-only "
                               "transaction of its own; it cannot open one");
    int rc = pg_conn_take(db, err);
    if (!rc)
        rc = sync_lock_timeout(db, err);
    if (!rc)
        rc = pg_conn_run(db, "BEGIN", err);
    if (!rc)
        db->txn_open = 1;
    return rc;
}

static int pg_commit(store *h, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    int rc = pg_conn_take(db, err);
    if (rc)
        return rc;
    if (!PQsendQuery(db->conn, "COMMIT"))
        return pg_fail(db, NULL, err, "commit");
    PGresult *res = NULL;
    rc = answer(db, PGRES_COMMAND_OK, &res, err, "commit");
    /* A transaction that failed earlier answers COMMIT with ROLLBACK. */
    if (!rc && strcmp(PQcmdStatus(res), "ROLLBACK") == 0)
        rc = dbmcp_error_set_private(err, DBMCP_ESTORE, "the database refused the request",
                                     "commit: the transaction had failed and was rolled back");
    PQclear(res);
    if (rc != DBMCP_EIO)
        db->txn_open = 0;
    return rc;
}

static void pg_rollback(store *h)
{
    pg_store *db = (pg_store *)h;
    if (db->txn_lost) {
        /* The server already rolled back when the connection dropped. */
        db->txn_lost = 0;
        db->txn_open = 0;
        return;
    }
    if (db->streaming)
        stream_stop(db->streaming, 1);
    dbmcp_error ignored;
    if (pg_conn_take(db, &ignored) == 0 && PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        pg_conn_run(db, "ROLLBACK", &ignored);
    db->txn_open = 0;
}

static int64_t pg_changes(store *h)
{
    return ((pg_store *)h)->changes;
}

/* --- whether a statement reads only ------------------------------------------------------- */

/* Whether EXPLAIN of text (with st's parameters, all NULL) shows a plan that
 * writes or locks rows: *readonly 0 or 1. A statement EXPLAIN refuses is not
 * read-only. 0, or a negative code when the server could not answer. */
static int explain_readonly(pg_stmt *st, const char *text, int *readonly, dbmcp_error *err)
{
    pg_store *db = store_of(st);
    size_t size = strlen(text) + 32;
    char *sql = malloc(size);
    if (!sql)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    snprintf(sql, size, "EXPLAIN (FORMAT JSON) %s", text);
    int rc = pg_conn_take(db, err);
    /* Planning may run immutable functions: on a query handle, read-only.
     * Inside a caller's transaction a refused EXPLAIN must not abort it. */
    int savepoint =
        !rc && !is_readonly_handle(db) && PQtransactionStatus(db->conn) == PQTRANS_INTRANS;
    if (!rc && is_readonly_handle(db))
        rc = begin_readonly(db, err);
    if (savepoint)
        rc = pg_conn_run(db, "SAVEPOINT dbmcp_explain", err);
    if (!rc && !PQsendQueryParams(db->conn, sql, st->nparams, st->param_types, NULL, NULL, NULL, 0))
        rc = pg_fail(db, NULL, err, "explain");
    free(sql);
    if (rc)
        return rc;
    PGresult *plan = NULL;
    dbmcp_error refused;
    dbmcp_error_clear(&refused);
    rc = answer(db, PGRES_TUPLES_OK, &plan, &refused, "explain");
    if (is_readonly_handle(db))
        pg_conn_send_discarded(db, "ROLLBACK");
    else if (savepoint && rc != DBMCP_EIO)
        pg_conn_send_discarded(db, "ROLLBACK TO SAVEPOINT dbmcp_explain;"
                                   " RELEASE SAVEPOINT dbmcp_explain");
    if (rc == DBMCP_ETIMEOUT || rc == DBMCP_EIO || rc == DBMCP_ENOMEM) {
        *err = refused;
        return rc;
    }
    *readonly = 0;
    if (!rc) {
        const char *json = PQntuples(plan) ? PQgetvalue(plan, 0, 0) : "";
        *readonly = !strstr(json, "\"Node Type\": \"ModifyTable\"") &&
                    !strstr(json, "\"Node Type\": \"LockRows\"");
    }
    PQclear(plan);
    return 0;
}

static int pg_stmt_is_readonly(store_stmt *h, int *readonly, dbmcp_error *err)
{
    pg_stmt *st = (pg_stmt *)h;
    *readonly = 0;
    if (st->readonly >= 0) {
        *readonly = st->readonly;
        return 0;
    }
    const char *text = st->sql.text;
    int analyze = 0;
    long target = pg_sql_explain_target(text, &analyze);
    int rc = 0;
    if (target >= 0 && !analyze)
        *readonly = 1;
    else if (target >= 0)
        rc = explain_readonly(st, text + target, readonly, err);
    else if (st->ncols > 0)
        rc = explain_readonly(st, text, readonly, err);
    if (!rc)
        st->readonly = *readonly;
    return rc;
}

/* --- limits and the guard ------------------------------------------------------------------ */

static void pg_set_busy_timeout(store *h, int ms)
{
    ((pg_store *)h)->busy_timeout_ms = ms;
}

static int pg_set_function_allowlist(store *h, const char *csv, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    free(db->functions_csv);
    db->functions_csv = NULL;
    if (csv && !(db->functions_csv = strdup(csv)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return 0;
}

static void pg_set_time_limit(store *h, int ms)
{
    pg_store *db = (pg_store *)h;
    db->deadline_ms = ms > 0 ? pg_now_ms() + ms : 0;
}

static void pg_set_cancel_flag(store *h, atomic_int *flag)
{
    ((pg_store *)h)->cancel = flag;
}

static void pg_set_memory_budget(store *h, size_t bytes)
{
    ((pg_store *)h)->memory_budget = bytes;
}

static void pg_set_slow_hook(store *h, int after_ms, void (*fn)(void *arg), void *arg)
{
    pg_store *db = (pg_store *)h;
    db->slow_fn = fn;
    db->slow_arg = arg;
    db->slow_at_ms = fn ? pg_now_ms() + after_ms : 0;
}

static int pg_verify_readonly(store *h, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    if (!is_readonly_handle(db))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "the query connection was not opened read-only; refusing to serve");
    /* Through the path every statement takes: its transaction must be
     * read-only, and a superuser could leave it (COPY TO PROGRAM, …). */
    store_stmt *st = NULL;
    int rc = pg_prepare(h,
                        "SELECT pg_catalog.current_setting('transaction_read_only'), r.rolsuper,"
                        " r.rolname FROM pg_catalog.pg_roles r WHERE r.rolname = current_user",
                        &st, err);
    if (!rc && (rc = pg_step(st, err)) == STORE_ROW) {
        const char *ro = pg_column_text(st, 0);
        if (!ro || strcmp(ro, "on") != 0)
            rc = dbmcp_error_set(err, DBMCP_EDENIED,
                                 "the query connection's statements can write to the database; "
                                 "refusing to serve");
        else if (pg_column_int(st, 1))
            rc = dbmcp_error_set(err, DBMCP_EDENIED,
                                 "the query connection's role \"%s\" is a PostgreSQL superuser, "
                                 "which can leave a read-only transaction; connect as a role "
                                 "without SUPERUSER",
                                 pg_column_text(st, 2));
        else
            rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_EDENIED,
                             "the query connection's role is not in pg_roles; refusing to serve");
    }
    pg_finalize(st);
    return rc;
}

static void pg_trusted_begin(store *h)
{
    (void)h;
}

static void pg_trusted_end(store *h)
{
    (void)h;
}

static int pg_guard_explain(store *h, const char *sql, char *reason, size_t size)
{
    (void)h;
    (void)sql;
    if (reason && size)
        reason[0] = '\0';
    return 0;
}

static void pg_set_query_budget(store *h, const store_query_budget *budget)
{
    pg_store *db = (pg_store *)h;
    db->budget_on = budget != NULL;
    if (budget)
        db->budget = *budget;
}

const store_driver postgres_store_driver = {
    .name = "postgres",
    .open = pg_open,
    .close = pg_close,
    .identity = pg_identity,
    .exec = pg_exec,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .changes = pg_changes,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .reset = pg_reset,
    .step = pg_step,
    .stmt_is_readonly = pg_stmt_is_readonly,
    .bind_text = pg_bind_text,
    .bind_int = pg_bind_int,
    .bind_double = pg_bind_double,
    .bind_blob = pg_bind_blob,
    .bind_null = pg_bind_null,
    .param_count = pg_param_count,
    .param_name = pg_param_name,
    .column_count = pg_column_count,
    .column_name = pg_column_name,
    .column_type = pg_column_type,
    .column_kind = pg_column_kind,
    .column_text = pg_column_text,
    .column_int = pg_column_int,
    .column_double = pg_column_double,
    .column_blob = pg_column_blob,
    .column_bytes = pg_column_bytes,
    .set_busy_timeout = pg_set_busy_timeout,
    .set_function_allowlist = pg_set_function_allowlist,
    .set_time_limit = pg_set_time_limit,
    .set_cancel_flag = pg_set_cancel_flag,
    .set_memory_budget = pg_set_memory_budget,
    .set_slow_hook = pg_set_slow_hook,
    .verify_readonly = pg_verify_readonly,
    .trusted_begin = pg_trusted_begin,
    .trusted_end = pg_trusted_end,
    .guard_explain = pg_guard_explain,
    .set_query_budget = pg_set_query_budget,
};
