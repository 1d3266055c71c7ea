/*
 * postgres_stmt.c — the PostgreSQL driver's statements: prepare, step,
 * reset, finalize (see postgres.c's comment for the design).
 *
 * A statement is prepared on the server under a name of its own and
 * described once. A step that starts it opens the read-only transaction
 * of a query handle (one simple-protocol message of driver text, with the
 * DEALLOCATEs of finalized statements), sends the execution and reads one
 * row per step in single-row mode. Rows that must make way for another
 * command are read ahead into the statement (pg_stmt_buffer_rest).
 */
#include "store/postgres_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Idle time a dead client may leave a read-only transaction open. */
#define PG_IDLE_IN_TRANSACTION_MS 300000
/* The smallest work_mem PostgreSQL accepts, in kB. */
#define PG_WORK_MEM_MIN_KB 64

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
    pg_store *db = pg_store_of(st);
    if (db->streaming == st)
        db->streaming = NULL;
    st->state = PG_DONE;
    if (db->pipelined)
        pg_conn_end_pipeline(db);
    if (st->own_txn)
        pg_conn_send_discarded(db, "ROLLBACK");
    st->own_txn = 0;
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
    pg_store *db = pg_store_of(st);
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
            buffer_error(st, pg_fail_in(db, res, err, "step", st->sql.text), err);
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
    pg_store *db = pg_store_of(st);
    return pg_is_readonly(db) || (!db->txn_open && st->sql.kind == PG_SQL_QUERY);
}

/* Stop st, which owns the connection, before its last row. */
void pg_stmt_stop(pg_stmt *st, int force_cancel)
{
    pg_store *db = pg_store_of(st);
    dbmcp_error ignored;
    /* What already arrived may be the whole rest of a short result: then
     * there is nothing to cancel. A few results only: rows keep arriving as
     * fast as they are read. */
    for (int looked = 0;
         looked < 64 && (!PQisBusy(db->conn) || (PQconsumeInput(db->conn) && !PQisBusy(db->conn)));
         looked++) {
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

void pg_reset(store_stmt *h)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = pg_store_of(st);
    if (db->streaming == st)
        pg_stmt_stop(st, 0);
    clear_row(st);
    clear_buffered(st);
    st->state = PG_IDLE;
    st->last_param = 0;
}

/* --- prepare ---------------------------------------------------------------------------- */

/* Wait for the answer to one command: its result when it has status want
 * (*out, caller PQclears; NULL out drops it), else the mapped error. */
int pg_answer(pg_store *db, ExecStatusType want, PGresult **out, dbmcp_error *err, const char *what)
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

/* The $n of a "could not determine data type of parameter $n" error:
 * 42P18, or 42P08 where the parameter's only other use leaves its type
 * open ((:x IS NULL OR col = :x) in a report tool). */
static int undetermined_param(const PGresult *res)
{
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char *dollar = msg ? strrchr(msg, '$') : NULL;
    if (!state || (strcmp(state, "42P18") != 0 && strcmp(state, "42P08") != 0) || !dollar)
        return 0;
    return atoi(dollar + 1);
}

static int is_sqlstate(const PGresult *res, const char *state)
{
    const char *s = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    return s && strcmp(s, state) == 0;
}

/* text with the $k that PostgreSQL's error position (1-based, in
 * characters of the UTF-8 text) points at replaced by NULL; NULL when no
 * $k is there, or out of memory. Caller frees. */
static char *without_param_at(const char *text, const PGresult *res, int k)
{
    const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);
    long chars = pos ? strtol(pos, NULL, 10) : 0;
    const char *p = text;
    for (long c = 1; c < chars && *p; c++) /* to the start of character number chars */
        for (p++; (*p & 0xC0) == 0x80; p++)
            ;
    char digits[16];
    int nd = snprintf(digits, sizeof digits, "$%d", k);
    if (chars < 1 || strncmp(p, digits, (size_t)nd) != 0 || (p[nd] >= '0' && p[nd] <= '9'))
        return NULL;
    size_t before = (size_t)(p - text), after = strlen(p + nd);
    char *out = malloc(before + 4 + after + 1);
    if (out) {
        memcpy(out, text, before);
        memcpy(out + before, "NULL", 4);
        memcpy(out + before + 4, p + nd, after + 1);
    }
    return out;
}

/* Prepare text as the unnamed statement and wait for the answer: its
 * result (caller PQclears), or NULL with *rc set when the connection
 * failed. */
static PGresult *prepare_unnamed(pg_store *db, const char *text, int n, const Oid *types, int *rc,
                                 dbmcp_error *err)
{
    if (!PQsendPrepare(db->conn, "", text, n, types)) {
        *rc = pg_fail(db, NULL, err, "prepare");
        return NULL;
    }
    *rc = pg_conn_wait(db, err);
    PGresult *res = *rc ? NULL : PQgetResult(db->conn);
    if (!*rc && !res)
        *rc = pg_fail(db, NULL, err, "prepare");
    if (!db->broken) {
        dbmcp_error drained;
        int d = pg_conn_drain(db, &drained);
        if (d && !*rc) {
            *err = drained;
            *rc = d;
        }
    }
    if (*rc) {
        PQclear(res);
        return NULL;
    }
    return res;
}

/* The type of $k where the statement settles it, after 42P08 (first): the
 * uses that leave it open ($k IS NULL), which the error positions point
 * at, are replaced by NULL in a probe prepared as the unnamed statement,
 * and the probe's description names the type PostgreSQL infers from the
 * others (col = $k). InvalidOid when the probe cannot tell; then text is
 * declared, as for 42P18. 0, or a code when the connection failed. */
static int settled_type(pg_stmt *st, int k, const Oid *types, const PGresult *first, Oid *out,
                        dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    int n = st->sql.n_names, rc = 0;
    *out = InvalidOid;
    Oid *probe_types = malloc((size_t)n * sizeof *probe_types);
    char *probe = probe_types ? without_param_at(st->sql.text, first, k) : NULL;
    if (probe_types)
        memcpy(probe_types, types, (size_t)n * sizeof *probe_types);
    for (int tries = 0; probe && tries <= n; tries++) {
        PGresult *res = prepare_unnamed(db, probe, n, probe_types, &rc, err);
        if (!res)
            break;
        int j = undetermined_param(res);
        char *next = NULL;
        if (PQresultStatus(res) == PGRES_COMMAND_OK) {
            PQclear(res);
            res = NULL;
            if (PQsendDescribePrepared(db->conn, "") &&
                pg_answer(db, PGRES_COMMAND_OK, &res, err, "describe") == 0)
                *out = PQparamtype(res, k - 1);
            PQclear(res);
            break;
        }
        if (j >= 1 && j <= n && j != k && is_sqlstate(res, "42P18"))
            probe_types[j - 1] = PG_TEXT; /* another parameter without a type */
        else if (j >= 1 && j <= n && is_sqlstate(res, "42P08"))
            next = without_param_at(probe, res, j); /* another open use */
        PQclear(res);
        if (!next && !(j >= 1 && j <= n && j != k && probe_types[j - 1] == PG_TEXT))
            break;
        if (next) {
            free(probe);
            probe = next;
        }
    }
    free(probe);
    free(probe_types);
    return rc;
}

/* Prepare st->sql on the server as st->name (read-write handles) or as the
 * unnamed statement (read-only handles, which run it with
 * PQsendQueryParams: nothing of theirs outlives a call, DEALLOCATE ALL
 * included). A parameter the server cannot type is declared text, and one
 * whose type only some of its uses settle (:x IS NULL OR n = :x) the type
 * those uses give it (settled_type), and the statement prepared again.
 * Each failed attempt is an error on the server: inside a transaction it
 * ends the transaction (store_call prepares before its transaction). */
static int server_prepare(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    int n = st->sql.n_names;
    Oid *types = n ? calloc((size_t)n, sizeof *types) : NULL;
    if (n && !types)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (int tries = 0;; tries++) {
        if (pg_is_readonly(db))
            st->name[0] = '\0';
        else
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
                rc = pg_fail_in(db, res, err, "prepare", st->sql.text);
            }
        }
        if (!db->broken) {
            dbmcp_error drained;
            int d = pg_conn_drain(db, &drained);
            if (d && !rc) {
                *err = drained;
                rc = d;
            }
        }
        if (retry && !rc && is_sqlstate(res, "42P08")) {
            int k = undetermined_param(res);
            Oid settled = InvalidOid;
            types[k - 1] = InvalidOid; /* open in the probe */
            rc = settled_type(st, k, types, res, &settled, err);
            types[k - 1] = settled != InvalidOid ? settled : PG_TEXT;
        }
        PQclear(res);
        if (retry && !rc)
            continue;
        free(types);
        return rc;
    }
}

/* The answer to one command of a pipeline: its result (caller PQclears)
 * and the NULL after it; NULL with *rc set when the connection failed. */
static PGresult *pipeline_answer(pg_store *db, int *rc, dbmcp_error *err)
{
    PGresult *kept = NULL;
    for (;;) {
        if ((*rc = pg_conn_wait(db, err)) != 0)
            break;
        PGresult *res = PQgetResult(db->conn);
        if (!res)
            break;
        if (!kept)
            kept = res;
        else
            PQclear(res);
    }
    if (*rc) {
        PQclear(kept);
        return NULL;
    }
    return kept;
}

/* Prepare and describe st in one round trip (a pipeline of Parse and
 * Describe): 1 with the description in *desc (caller PQclears), 0 when the
 * prepare failed outside a transaction (server_prepare then runs it again,
 * typing parameters the server could not), or a negative code: the
 * connection failed, or the prepare failed inside a transaction, which
 * that ended (err holds the server's error). */
static int prepare_described(pg_stmt *st, PGresult **desc, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    *desc = NULL;
    if (pg_is_readonly(db))
        st->name[0] = '\0';
    else
        snprintf(st->name, sizeof st->name, "dbmcp_%lu", ++db->statements);
    if (!PQenterPipelineMode(db->conn))
        return 0;
    db->pipelined = 1;
    int rc = 0;
    if (!PQsendPrepare(db->conn, st->name, st->sql.text, st->sql.n_names, NULL) ||
        !PQsendDescribePrepared(db->conn, st->name) || !PQpipelineSync(db->conn))
        rc = pg_fail(db, NULL, err, "prepare");
    PGresult *prepared = rc ? NULL : pipeline_answer(db, &rc, err);
    PGresult *described = rc ? NULL : pipeline_answer(db, &rc, err);
    if (!db->broken && pg_conn_end_pipeline(db) != 0 && !rc)
        rc = pg_fail(db, NULL, err, "prepare");
    int ok = !rc && PQresultStatus(prepared) == PGRES_COMMAND_OK &&
             PQresultStatus(described) == PGRES_COMMAND_OK;
    if (!rc && !ok && PQresultStatus(prepared) == PGRES_FATAL_ERROR &&
        PQtransactionStatus(db->conn) == PQTRANS_INERROR)
        rc = pg_fail_in(db, prepared, err, "prepare", st->sql.text);
    PQclear(prepared);
    if (ok)
        *desc = described;
    else
        PQclear(described);
    return rc ? rc : ok;
}

/* Take the prepared statement's description: parameter types, column
 * names and types. */
static int take_description(pg_stmt *st, PGresult *desc, dbmcp_error *err)
{
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
    st->generation = pg_store_of(st)->generation;
    return 0;
}

/* Describe the prepared statement (server_prepare's). */
static int server_describe(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    if (!PQsendDescribePrepared(db->conn, st->name))
        return pg_fail(db, NULL, err, "describe");
    PGresult *desc = NULL;
    int rc = pg_answer(db, PGRES_COMMAND_OK, &desc, err, "describe");
    return rc ? rc : take_description(st, desc, err);
}

static int server_setup(pg_stmt *st, dbmcp_error *err)
{
    PGresult *desc = NULL;
    int rc = prepare_described(st, &desc, err);
    if (rc == 1)
        return take_description(st, desc, err);
    if (rc < 0)
        return rc;
    rc = server_prepare(st, err);
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

int pg_prepare(store *h, const char *sql, store_stmt **out, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    *out = NULL;
    store_failure_set(&db->failure, STORE_FAILURE_OTHER, NULL);
    size_t len = strlen(sql);
    if (pg_is_readonly(db) && db->budget_on && db->budget.sql_bytes > 0 &&
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

void pg_finalize(store_stmt *h)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!st)
        return;
    pg_store *db = pg_store_of(st);
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

/* Open a read-only statement's transaction with its limits (file comment). */
int pg_begin_readonly(pg_store *db, dbmcp_error *err)
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
    int rc = pg_conn_run(db, sql, err);
    if (rc && rc != DBMCP_EIO)
        pg_conn_send_discarded(db, "ROLLBACK");
    return rc;
}

/* A read-write session's lock_timeout follows store_set_busy_timeout; set
 * outside transactions only, where a rollback cannot undo it. */
int pg_sync_lock_timeout(pg_store *db, dbmcp_error *err)
{
    if (pg_is_readonly(db) || db->busy_timeout_ms == db->session_lock_timeout ||
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

/* Send st's execution after the statements store_exec_before_next kept
 * (pre, n), in one pipeline: one round trip for all of them. Their answers
 * are read here; when one failed, st is not run (the pipeline skips what
 * follows a failure) and its error is returned. Then st's rows stream as
 * usual; finish() reads the pipeline's sync. */
static int start_pipelined(pg_stmt *st, char **pre, size_t n, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    PGconn *c = db->conn;
    const char *const *values = (const char *const *)st->values;
    if (!PQenterPipelineMode(c))
        return pg_fail(db, NULL, err, "pipeline");
    db->pipelined = 1;
    int sent = 1;
    for (size_t i = 0; i < n && sent; i++)
        sent = PQsendQueryParams(c, pre[i], 0, NULL, NULL, NULL, NULL, 0);
    if (sent)
        sent = pg_is_readonly(db) ? PQsendQueryParams(c, st->sql.text, st->nparams, st->param_types,
                                                      values, st->lengths, st->formats, 0)
                                  : PQsendQueryPrepared(c, st->name, st->nparams, values,
                                                        st->lengths, st->formats, 0);
    if (sent)
        sent = PQpipelineSync(c);
    int rc = sent ? 0 : pg_fail(db, NULL, err, "pipeline");
    for (size_t i = 0; i < n && !rc; i++) {
        for (;;) {
            if ((rc = pg_conn_wait(db, err)) != 0)
                break;
            PGresult *res = PQgetResult(c);
            if (!res)
                break;
            ExecStatusType s = PQresultStatus(res);
            if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && !rc)
                rc = pg_fail(db, res, err, "call");
            PQclear(res);
        }
    }
    if (!rc && !PQsetSingleRowMode(c))
        rc = pg_fail(db, NULL, err, "single-row mode");
    if (rc) {
        if (!db->broken) {
            pg_conn_end_pipeline(db);
            if (!db->broken && PQtransactionStatus(c) != PQTRANS_IDLE)
                pg_conn_send_discarded(db, "ROLLBACK");
        }
        return rc;
    }
    db->streaming = st;
    st->state = PG_RUNNING;
    return 0;
}

/* Send st's execution; the rows follow one at a time. */
static int start(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
    /* Taken before pg_conn_take, which would run them on their own. */
    size_t n_pre = 0;
    char **pre = pg_conn_take_before(db, &n_pre);
    int rc = preflight(db, err);
    if (!rc)
        rc = pg_conn_take(db, err);
    if (!rc && n_pre) {
        if (!pg_is_readonly(db) && st->generation != db->generation)
            rc = server_setup(st, err); /* reconnected: the server forgot it */
        st->own_txn = 0;
        if (!rc)
            rc = start_pipelined(st, pre, n_pre, err);
        pg_conn_free_before(pre, n_pre);
        return rc;
    }
    pg_conn_free_before(pre, n_pre);
    int readonly = pg_is_readonly(db);
    if (!rc && !readonly && st->generation != db->generation)
        rc = server_setup(st, err); /* reconnected: the server forgot it */
    if (!rc)
        rc = pg_sync_lock_timeout(db, err);
    /* A read-only statement opens its own transaction, unless the caller
     * runs it inside one of its own (pg_guard's call): that transaction is
     * read-only too (the session's default_transaction_read_only). */
    st->own_txn = 0;
    if (!rc && readonly && PQtransactionStatus(db->conn) == PQTRANS_IDLE)
        st->own_txn = (rc = pg_begin_readonly(db, err)) == 0;
    if (rc)
        return rc;
    const char *const *values = (const char *const *)st->values;
    int sent = readonly ? PQsendQueryParams(db->conn, st->sql.text, st->nparams, st->param_types,
                                            values, st->lengths, st->formats, 0)
                        : PQsendQueryPrepared(db->conn, st->name, st->nparams, values, st->lengths,
                                              st->formats, 0);
    if (!sent) {
        rc = pg_fail(db, NULL, err, "step");
        if (st->own_txn)
            pg_conn_send_discarded(db, "ROLLBACK");
        st->own_txn = 0;
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
    pg_store *db = pg_store_of(st);
    if (!pg_is_readonly(db) || !db->budget_on || db->budget.value_bytes <= 0)
        return 0;
    for (int i = 0; i < st->ncols; i++) {
        size_t len = (size_t)PQgetlength(row, 0, i);
        if (st->col_types[i] == PG_BYTEA && len >= 2)
            len = (len - 2) / 2;
        if (len > (size_t)db->budget.value_bytes) {
            store_failure_set(&db->failure, STORE_FAILURE_VALUE_TOO_BIG, NULL);
            return dbmcp_error_set_private(err, DBMCP_ETOOBIG, "a value is larger than allowed",
                                           "step: column %s holds %zu bytes, more than the budget "
                                           "of %d",
                                           st->col_names[i], len, db->budget.value_bytes);
        }
    }
    return 0;
}

static int take_row(pg_stmt *st, PGresult *row, dbmcp_error *err)
{
    st->row = row;
    int rc = over_budget(st, row, err);
    if (!rc)
        return STORE_ROW;
    pg_store *db = pg_store_of(st);
    if (db->streaming == st)
        pg_stmt_stop(st, 1);
    clear_buffered(st);
    st->state = PG_DONE;
    clear_row(st);
    return rc;
}

/* The next row from the server (st owns the connection). */
static int next_row(pg_stmt *st, dbmcp_error *err)
{
    pg_store *db = pg_store_of(st);
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
        rc = pg_fail_in(db, res, err, "step", st->sql.text);
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

int pg_step(store_stmt *h, dbmcp_error *err)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = pg_store_of(st);
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
