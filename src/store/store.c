/*
 * store.c — store.h's public functions: open picks the driver by the URL's
 * scheme, everything else forwards to the driver of the handle (driver.h).
 * Helpers that only combine other store.h calls live here too, so they
 * behave the same on every backend.
 */
#include "store/store.h"
#include "store/driver.h"
#include "store/pg_guard.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text_safe.h"
#include "core/trace.h"

int store_url_is_postgres(const char *url)
{
    return url &&
           (strncasecmp(url, "postgres://", 11) == 0 || strncasecmp(url, "postgresql://", 13) == 0);
}

int store_open(const char *url, int flags, store **out, dbmcp_error *err)
{
    *out = NULL;
    if (!url || !*url)
        return dbmcp_error_set(err, DBMCP_EINVAL, "no database given (use --db PATH)");
    const store_driver *driver =
        store_url_is_postgres(url) ? &postgres_store_driver : &sqlite_store_driver;
    int rc = driver->open(url, flags, out, err);
    assert(rc || ((*out)->driver == driver && (*out)->flags == flags));
    return rc;
}

const char *store_dialect(const store *db)
{
    return db->driver->name;
}

int store_is_readonly(const store *db)
{
    return (db->flags & STORE_READONLY) != 0;
}

int store_query_int(store *db, const char *sql, int64_t def, int64_t *out, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    rc = store_step(st, err);
    *out = rc == STORE_ROW ? store_column_int(st, 0) : def;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- forwarded to the driver -------------------------------------------------- */

/* --- kept statements (store_prepare_cached) ---------------------------------- */

/* One statement kept by a handle, under the text it was prepared from. */
typedef struct kept_stmt {
    char *sql;          /* the text, owned; NULL: a free slot */
    uint64_t hash;      /* of sql, compared before the text */
    store_stmt *st;     /* the driver's statement, kept across calls */
    int busy;           /* handed out and not yet given back */
    uint64_t last_used; /* the cache's clock at the last hand-out */
} kept_stmt;

struct store_stmt_cache {
    kept_stmt slot[STORE_KEPT_MAX];
    uint64_t clock; /* counts hand-outs, for least recently used */
};

/* FNV-1a: the texts are short and few. */
static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void kept_drop(kept_stmt *k)
{
    k->st->kept = 0;
    free(k->st->trace_sql);
    k->st->driver->finalize(k->st);
    free(k->sql);
    memset(k, 0, sizeof *k);
}

/* The slot for a new statement: a free one, else the least recently used
 * that is not handed out (finalized first); NULL when all are busy. */
static kept_stmt *kept_slot(struct store_stmt_cache *c)
{
    kept_stmt *oldest = NULL;
    for (int i = 0; i < STORE_KEPT_MAX; i++) {
        kept_stmt *k = &c->slot[i];
        if (!k->sql)
            return k;
        if (!k->busy && (!oldest || k->last_used < oldest->last_used))
            oldest = k;
    }
    if (oldest)
        kept_drop(oldest);
    return oldest;
}

int store_prepare_cached(store *db, const char *sql, store_stmt **out, dbmcp_error *err)
{
    if (db->flags & STORE_READONLY)
        return store_prepare(db, sql, out, err);
    if (!db->kept && !(db->kept = calloc(1, sizeof *db->kept)))
        return store_prepare(db, sql, out, err);
    struct store_stmt_cache *c = db->kept;
    uint64_t h = text_hash(sql);
    for (int i = 0; i < STORE_KEPT_MAX; i++) {
        kept_stmt *k = &c->slot[i];
        if (k->sql && k->hash == h && strcmp(k->sql, sql) == 0) {
            if (k->busy) /* in use further up the stack: a statement of its own */
                return store_prepare(db, sql, out, err);
            k->busy = 1;
            k->last_used = ++c->clock;
            *out = k->st;
            /* As store_prepare: the text only while spans are recorded. */
            if (trace_recording() && trace_current())
                k->st->trace_sql = text_safe_bound(sql, TRACE_ATTR_TEXT_MAX, 0);
            return 0;
        }
    }
    int rc = store_prepare(db, sql, out, err);
    kept_stmt *k = rc ? NULL : kept_slot(c);
    if (!k)
        return rc;
    if (!(k->sql = strdup(sql)))
        return 0; /* not kept: finalized as usual */
    k->hash = h;
    k->st = *out;
    k->busy = 1;
    k->last_used = ++c->clock;
    (*out)->kept = 1;
    return 0;
}

/* st back into its owner's cache: reset, bindings cleared. */
static void kept_give_back(store_stmt *st)
{
    struct store_stmt_cache *c = st->owner->kept;
    st->driver->reset(st);
    st->driver->clear_bindings(st);
    for (int i = 0; i < STORE_KEPT_MAX; i++)
        if (c->slot[i].st == st) {
            c->slot[i].busy = 0;
            return;
        }
    assert(!"a kept statement missing from its cache");
}

void store_close(store *db)
{
    if (!db)
        return;
    if (db->kept) {
        for (int i = 0; i < STORE_KEPT_MAX; i++)
            if (db->kept->slot[i].sql)
                kept_drop(&db->kept->slot[i]);
        free(db->kept);
        db->kept = NULL;
    }
    db->driver->close(db);
}

const char *store_identity(store *db)
{
    return db->driver->identity(db);
}

/* --- spans of SQL statements (core/trace.h) ------------------------------------- */

/* The span name: the statement's first keyword ("SELECT", "INSERT", …). */
static void sql_operation(const char *sql, char *out, size_t size)
{
    for (;;) { /* past blanks, '(' and comments (execute_query tags its SQL with one) */
        while (*sql && (isspace((unsigned char)*sql) || *sql == '('))
            sql++;
        if (sql[0] == '/' && sql[1] == '*') {
            const char *end = strstr(sql + 2, "*/");
            sql = end ? end + 2 : sql + strlen(sql);
        } else if (sql[0] == '-' && sql[1] == '-') {
            sql += strcspn(sql, "\n");
        } else {
            break;
        }
    }
    size_t n = 0;
    while (sql[n] && isalpha((unsigned char)sql[n]) && n + 1 < size) {
        out[n] = (char)toupper((unsigned char)sql[n]);
        n++;
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, size, "SQL");
}

static trace_span *sql_span_begin(store *db, const char *sql)
{
    trace_span *span = malloc(sizeof *span);
    if (!span)
        return NULL;
    char op[24];
    sql_operation(sql, op, sizeof op);
    trace_span_begin_leaf(span, op, TRACE_KIND_CLIENT);
    trace_span_set_str(span, "db.system.name",
                       strcmp(store_dialect(db), "postgres") == 0 ? "postgresql" : "sqlite");
    trace_span_set_str(span, "db.operation.name", op);
    trace_span_set_str(span, "db.query.text", sql);
    return span;
}

static void sql_span_end(trace_span *span, int rc, int64_t rows, dbmcp_error *err)
{
    if (!span)
        return;
    if (rows >= 0)
        trace_span_set_int(span, "db.response.returned_rows", rows);
    if (rc < 0) {
        trace_span_set_error(span, dbmcp_code_name(rc));
        if (err)
            trace_span_set_str(span, "error.message", err->message);
    }
    trace_span_end(span);
    free(span);
}

static void stmt_span_close(store_stmt *st, int rc, dbmcp_error *err)
{
    if (!st->span)
        return;
    sql_span_end(st->span, rc, st->trace_rows, err);
    st->span = NULL;
    st->trace_rows = 0;
}

int store_exec(store *db, const char *sql, dbmcp_error *err)
{
    if (!trace_recording() || !trace_current())
        return db->driver->exec(db, sql, err);
    trace_span *span = sql_span_begin(db, sql);
    int rc = db->driver->exec(db, sql, err);
    sql_span_end(span, rc, -1, err);
    return rc;
}

int store_exec_before_next(store *db, const char *const *sql, size_t n, dbmcp_error *err)
{
    if (db->driver->exec_before_next)
        return db->driver->exec_before_next(db, sql, n, err);
    for (size_t i = 0; i < n; i++) {
        int rc = db->driver->exec(db, sql[i], err);
        if (rc)
            return rc;
    }
    return 0;
}

void store_exec_unwaited(store *db, const char *sql)
{
    dbmcp_error ignored;
    if (db->driver->exec_unwaited)
        db->driver->exec_unwaited(db, sql);
    else
        db->driver->exec(db, sql, &ignored);
}

int store_wait_notify(store *db, int timeout_ms, int wake_fd, dbmcp_error *err)
{
    return db->driver->wait_notify(db, timeout_ms, wake_fd, err);
}

int store_begin(store *db, dbmcp_error *err)
{
    return db->driver->begin(db, err);
}

int store_commit(store *db, dbmcp_error *err)
{
    return db->driver->commit(db, err);
}

void store_rollback(store *db)
{
    db->driver->rollback(db);
}

int64_t store_changes(store *db)
{
    return db->driver->changes(db);
}

int store_prepare(store *db, const char *sql, store_stmt **out, dbmcp_error *err)
{
    int rc = db->driver->prepare(db, sql, out, err);
    /* Only while spans are recorded for this thread does a statement keep
     * its text: nothing is copied otherwise. */
    if (rc == 0 && trace_recording() && trace_current())
        (*out)->trace_sql = text_safe_bound(sql, TRACE_ATTR_TEXT_MAX, 0);
    return rc;
}

void store_finalize(store_stmt *st)
{
    if (!st)
        return;
    stmt_span_close(st, 0, NULL);
    free(st->trace_sql);
    st->trace_sql = NULL;
    if (st->kept)
        kept_give_back(st);
    else
        st->driver->finalize(st);
}

void store_reset(store_stmt *st)
{
    stmt_span_close(st, 0, NULL);
    st->driver->reset(st);
}

int store_step(store_stmt *st, dbmcp_error *err)
{
    if (st->trace_sql && !st->span && trace_current())
        st->span = sql_span_begin(st->owner, st->trace_sql);
    int rc = st->driver->step(st, err);
    if (st->span) {
        if (rc == STORE_ROW)
            st->trace_rows++;
        else
            stmt_span_close(st, rc, err);
    }
    return rc;
}

int store_stmt_is_readonly(store_stmt *st, int *readonly, dbmcp_error *err)
{
    return st->driver->stmt_is_readonly(st, readonly, err);
}

int store_bind_text(store_stmt *st, const char *name, const char *value)
{
    return st->driver->bind_text(st, name, value);
}

int store_bind_int(store_stmt *st, const char *name, int64_t value)
{
    return st->driver->bind_int(st, name, value);
}

int store_bind_double(store_stmt *st, const char *name, double value)
{
    return st->driver->bind_double(st, name, value);
}

int store_bind_blob(store_stmt *st, const char *name, const void *data, size_t size)
{
    return st->driver->bind_blob(st, name, data, size);
}

int store_bind_null(store_stmt *st, const char *name)
{
    return st->driver->bind_null(st, name);
}

int store_param_count(store_stmt *st)
{
    return st->driver->param_count(st);
}

const char *store_param_name(store_stmt *st, int i)
{
    return st->driver->param_name(st, i);
}

int store_column_count(store_stmt *st)
{
    return st->driver->column_count(st);
}

const char *store_column_name(store_stmt *st, int i)
{
    return st->driver->column_name(st, i);
}

store_type store_column_type(store_stmt *st, int i)
{
    return st->driver->column_type(st, i);
}

store_kind store_column_kind(store_stmt *st, int i)
{
    return st->driver->column_kind(st, i);
}

const char *store_column_text(store_stmt *st, int i)
{
    return st->driver->column_text(st, i);
}

int64_t store_column_int(store_stmt *st, int i)
{
    return st->driver->column_int(st, i);
}

double store_column_double(store_stmt *st, int i)
{
    return st->driver->column_double(st, i);
}

const void *store_column_blob(store_stmt *st, int i)
{
    return st->driver->column_blob(st, i);
}

size_t store_column_bytes(store_stmt *st, int i)
{
    return st->driver->column_bytes(st, i);
}

void store_set_busy_timeout(store *db, int ms)
{
    db->driver->set_busy_timeout(db, ms);
}

int store_set_function_allowlist(store *db, const char *csv, dbmcp_error *err)
{
    return db->driver->set_function_allowlist(db, csv, err);
}

void store_set_time_limit(store *db, int ms)
{
    db->driver->set_time_limit(db, ms);
}

void store_set_cancel_flag(store *db, atomic_int *flag)
{
    db->driver->set_cancel_flag(db, flag);
}

void store_set_memory_budget(store *db, size_t bytes)
{
    db->driver->set_memory_budget(db, bytes);
}

void store_set_slow_hook(store *db, int after_ms, void (*fn)(void *arg), void *arg)
{
    db->driver->set_slow_hook(db, after_ms, fn, arg);
}

int store_verify_readonly(store *db, dbmcp_error *err)
{
    return db->driver->verify_readonly(db, err);
}

void store_trusted_begin(store *db)
{
    db->driver->trusted_begin(db);
}

void store_trusted_end(store *db)
{
    db->driver->trusted_end(db);
}

int store_guard_explain(store *db, const char *sql, char *reason, size_t size)
{
    return db->driver->guard_explain(db, sql, reason, size);
}

void store_set_query_budget(store *db, const store_query_budget *budget)
{
    db->driver->set_query_budget(db, budget);
}

/* --- one call on a query connection ------------------------------------------- */

/* Set on a handle whose call could not be ended: never reused (pool.c).
 * Outside the STORE_* flags store_open takes. */
#define STORE_FLAG_UNFIT 0x40000000
/* The time ending a call may take. */
#define STORE_CALL_END_MS 5000

static int is_postgres(const store *db)
{
    return strcmp(store_dialect(db), "postgres") == 0;
}

int store_call_begin(store *db, const store_call *c, dbmcp_error *err)
{
    if (!is_postgres(db))
        return 0;
    if (!store_is_readonly(db))
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "a call runs on a read-only handle only");
    size_t kb = c->memory_bytes / 1024;
    if (kb > 0 && kb < 64)
        kb = 64; /* the least work_mem PostgreSQL accepts */
    pg_guard_call call = {
        .call_id = c->call_id,
        .tool = c->tool,
        .statement_timeout_ms = c->time_limit_ms,
        .work_mem_kb = kb > INT_MAX ? INT_MAX : (int)kb,
    };
    return pg_guard_call_begin(db, &call, err);
}

int store_call_end(store *db)
{
    if (!is_postgres(db))
        return 0;
    /* Ending must not be cancelled by the call's own limits, nor wait
     * without end on a server that stopped answering. */
    store_set_cancel_flag(db, NULL);
    store_set_time_limit(db, STORE_CALL_END_MS);
    int rc = pg_guard_call_end(db);
    store_set_time_limit(db, 0);
    if (rc >= 0)
        return 0;
    db->flags |= STORE_FLAG_UNFIT;
    return DBMCP_ESTORE;
}

int store_call_unfit(const store *db)
{
    return (db->flags & STORE_FLAG_UNFIT) != 0;
}

/* --- why a statement failed ------------------------------------------------------ */

void store_last_failure(store *db, store_failure *out)
{
    memset(out, 0, sizeof *out);
    if (db)
        db->driver->last_failure(db, out);
}
