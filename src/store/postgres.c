/*
 * postgres.c — the PostgreSQL backend of store.h, on libpq.
 *
 * Statements. store_prepare rewrites :names to $n (postgres_sql.h), then
 * prepares the statement on the server and asks the server to describe
 * it: parameter types, column names and column type OIDs are known from
 * prepare on, and nothing is looked up per call afterwards. A parameter
 * whose type the server cannot infer (SELECT :x) is declared text. Every
 * statement runs with the extended protocol, values as text except blobs
 * and values for bytea parameters (binary), and rows arrive one at a time
 * (PQsetSingleRowMode). On read-write handles the statement is a named
 * server-side one run with PQsendQueryPrepared: store_reset keeps it and
 * its bindings, store_finalize deallocates it, batched with later
 * commands. Read-only handles (agent SQL, mostly run once) use the unnamed
 * statement and PQsendQueryParams, so nothing of theirs outlives a call
 * and pg_guard's DEALLOCATE ALL at the end of one costs them nothing.
 *
 * store_exec sends its text with the simple protocol (several statements,
 * no parameters: migrations, pg_guard's call); nothing prepared ever does. Two statements stepped
 * in turn on one handle (a nested loop) work: the one whose rows are coming reads the rest of them
 * into memory before the other runs.
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
 * Read-only handles (the agent's query connection). The session starts
 * with default_transaction_read_only on (a startup option), so every
 * transaction on it is read-only unless a statement asks otherwise. Each
 * statement run outside a transaction gets its own, opened by one
 * simple-protocol message of fixed, driver-generated text — BEGIN READ
 * ONLY and SET LOCAL lock_timeout (the busy timeout),
 * idle_in_transaction_session_timeout, statement_timeout (what is left of
 * the time limit, so the server stops it even if dbmcp dies) and work_mem
 * (the memory budget) — and ended by ROLLBACK, so no statement can write
 * or leave a setting behind, whatever its text: a write fails in the
 * engine with DBMCP_EDENIED (25006). A statement run while the caller has
 * a transaction open (pg_guard_call_begin's BEGIN READ ONLY … SAVEPOINT,
 * kept by store_exec_before_next and sent in one pipeline with the call's
 * first statement) runs inside it instead, and the caller ends it
 * (store_exec_unwaited: the answer is read, and checked, before the next
 * command).
 * store_exec sends its text (the store's and pg_guard's, never agent SQL)
 * with the simple protocol. store_begin is refused there. application_name
 * cannot carry a call tag from here: store.h has no way to pass one
 * (pg_guard_call_begin sets it).
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* --- whole statements and transactions ------------------------------------------------ */

/* store_exec: the simple protocol, on either kind of handle. Its text is
 * the store's and pg_guard's, never agent SQL; on a read-only handle the
 * session's default_transaction_read_only keeps it from writing. */
static int pg_exec(store *h, const char *sql, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    int rc = pg_conn_take(db, err);
    if (!rc)
        rc = pg_sync_lock_timeout(db, err);
    return rc ? rc : pg_conn_run(db, sql, err);
}

/* store_exec_before_next: kept for the next statement's pipeline
 * (postgres_stmt.c start), or run by pg_conn_take before any other
 * command. */
static int pg_exec_before_next(store *h, const char *const *sql, size_t n, dbmcp_error *err)
{
    return pg_conn_before_next((pg_store *)h, sql, n, err);
}

/* store_exec_unwaited: sent now, its answer checked before the next
 * command (pg_conn_take), which runs on a new session if it failed. */
static void pg_exec_unwaited(store *h, const char *sql)
{
    pg_store *db = (pg_store *)h;
    dbmcp_error ignored;
    if (db->n_before) {
        /* Never sent: nothing of theirs is open for sql to end. */
        size_t n = 0;
        pg_conn_free_before(pg_conn_take_before(db, &n), n);
        return;
    }
    if (pg_conn_take(db, &ignored) == 0)
        pg_conn_send_checked(db, sql);
}

static int pg_wait_notify(store *h, int timeout_ms, int wake_fd, dbmcp_error *err)
{
    return pg_conn_wait_notify((pg_store *)h, timeout_ms, wake_fd, err);
}

static int pg_begin(store *h, dbmcp_error *err)
{
    pg_store *db = (pg_store *)h;
    if (pg_is_readonly(db))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "a read-only connection runs each statement in a read-only "
                               "transaction of its own; it cannot open one");
    int rc = pg_conn_take(db, err);
    if (!rc)
        rc = pg_sync_lock_timeout(db, err);
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
    rc = pg_answer(db, PGRES_COMMAND_OK, &res, err, "commit");
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
        pg_stmt_stop(db->streaming, 1);
    /* A read-only handle opens no transaction of the caller's (pg_begin
     * refuses); what it sent without waiting (a call's end) is read, and
     * checked, by its next command: not waited for here, on the way back
     * to the pool. */
    if (pg_is_readonly(db) && db->pending) {
        db->txn_open = 0;
        return;
    }
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
    pg_store *db = pg_store_of(st);
    size_t size = strlen(text) + 32;
    char *sql = malloc(size);
    if (!sql)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    snprintf(sql, size, "EXPLAIN (FORMAT JSON) %s", text);
    int rc = pg_conn_take(db, err);
    /* Planning may run immutable functions: on a query handle, read-only.
     * Inside a caller's transaction a refused EXPLAIN must not abort it. */
    int savepoint = !rc && PQtransactionStatus(db->conn) == PQTRANS_INTRANS;
    int own = !rc && !savepoint && pg_is_readonly(db);
    if (own)
        rc = pg_begin_readonly(db, err);
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
    rc = pg_answer(db, PGRES_TUPLES_OK, &plan, &refused, "explain");
    if (own)
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
    if (!pg_is_readonly(db))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "the query connection was not opened read-only; refusing to serve");
    /* Through the path every statement takes: its transaction must be
     * read-only, and a superuser could leave it (COPY TO PROGRAM, …). */
    store_stmt *st = NULL;
    int rc = pg_prepare(h,
                        "SELECT pg_catalog.current_setting('transaction_read_only'), r.rolsuper,"
                        " r.rolname, pg_catalog.current_setting('default_transaction_read_only')"
                        " FROM pg_catalog.pg_roles r WHERE r.rolname = current_user",
                        &st, err);
    if (!rc && (rc = pg_step(st, err)) == STORE_ROW) {
        const char *ro = pg_column_text(st, 0), *session = pg_column_text(st, 3);
        if (!ro || strcmp(ro, "on") != 0 || !session || strcmp(session, "on") != 0)
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

static void pg_last_failure(store *h, store_failure *out)
{
    *out = ((pg_store *)h)->failure;
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
    .exec_before_next = pg_exec_before_next,
    .exec_unwaited = pg_exec_unwaited,
    .wait_notify = pg_wait_notify,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .changes = pg_changes,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .reset = pg_reset,
    .clear_bindings = pg_clear_bindings,
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
    .last_failure = pg_last_failure,
};
