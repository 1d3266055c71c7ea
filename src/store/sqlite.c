/*
 * sqlite.c — the SQLite backend of store.h.
 *
 * Read-write handles run in WAL mode with foreign keys on, so a server's
 * readers never block its writer. Read-only handles are opened with
 * SQLITE_OPEN_READONLY and `PRAGMA query_only`, so the engine itself refuses
 * writes whatever SQL text arrives, and attach the catalog's user
 * databases read-only (sqlite_attach.h). Busy waits use
 * sqlite3_busy_timeout.
 *
 * How store.h's neutral guard maps onto SQLite: the guard is an authorizer
 * on read-only handles (which also names the reason of a refusal for
 * store_guard_explain); the query budget and the fixed bounds of agent SQL
 * are sqlite3_limit values; the time limit, the cancel flag and the slow
 * hook ride on the progress handler; constraint codes come from extended
 * result codes; a column's kind from its declared type.
 */
#include "store/store.h"
#include "store/driver.h"
#include "store/sqlite_attach.h"
#include "store/sqlite_driver.h"
#include "store/sqlite_fts.h"
#include "store/sqlite_guard.h"
#include "store/sqlite_memory.h"
#include "store/sqlite_vecfn.h"
#include "store/sqlite_watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* sqlite3_limit categories a query budget sets (store_set_query_budget):
 * the first BUDGET_FIELDS from the fields of store_query_budget, the rest
 * fixed bounds of agent SQL. */
#define BUDGET_LIMITS 6
#define BUDGET_FIELDS 3

typedef struct sqlite_store {
    store base;       /* driver.h's header: driver and open flags */
    sqlite3 *db;      /* owned */
    int trusted;      /* store-internal introspection in progress (see store_trusted_begin) */
    char **functions; /* allowlisted SQL functions (lowercase), NULL = any; owned */
    size_t n_functions;
    char *functions_csv; /* what `functions` was parsed from (kept while inactive); owned */
    int functions_on;    /* the allowlist applies (store_set_function_allowlist non-NULL) */
    double deadline_ms;  /* monotonic deadline for the running statement; 0 = none */
    int timed_out;       /* the progress handler interrupted for the deadline */
    atomic_int *cancel;  /* nonzero when the caller gave up (client cancelled); may be NULL */
    double slow_at_ms;   /* monotonic time at which slow_fn is called; 0 = none */
    void (*slow_fn)(void *arg);
    void *slow_arg;
    sqlite_watch watch;   /* armed while a deadline or a cancel flag is set */
    size_t memory_budget; /* bytes a statement may hold (store_set_memory_budget); 0 = none */
    char *refusal;        /* store_guard_explain's buffer while it runs, else NULL; not owned */
    size_t refusal_size;  /* bytes of refusal */
    int budget_on;        /* a query budget is in force (store_set_query_budget) */
    int opened_limits[BUDGET_LIMITS]; /* the budget's limits before it, restored without one */
    store_failure failure; /* the class of the last failed prepare or step (store_last_failure) */
} sqlite_store;

typedef struct sqlite_stmt {
    store_stmt base;  /* driver.h's header: driver and owner */
    sqlite3_stmt *st; /* owned */
    int last_param;   /* index of the parameter bound last (see param_index) */
} sqlite_stmt;

static int sq_exec(store *h, const char *sql, dbmcp_error *err);
static void sq_close(store *h);

/* dbmcp's code for an SQLite result code, extended codes included (the
 * handle reports them: sqlite3_extended_result_codes). Constraint kinds
 * other than the four store.h names (a trigger's RAISE, a STRICT column's
 * type, virtual tables) stay DBMCP_EINVAL. */
static int map_sqlite_code(int rc)
{
    switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
    case SQLITE_CONSTRAINT_ROWID: return DBMCP_ECONSTRAINT_UNIQUE;
    case SQLITE_CONSTRAINT_FOREIGNKEY: return DBMCP_ECONSTRAINT_FOREIGN_KEY;
    case SQLITE_CONSTRAINT_CHECK: return DBMCP_ECONSTRAINT_CHECK;
    case SQLITE_CONSTRAINT_NOTNULL: return DBMCP_ECONSTRAINT_NOT_NULL;
    }
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return DBMCP_ETIMEOUT;
    case SQLITE_INTERRUPT: return DBMCP_ETIMEOUT;
    case SQLITE_NOMEM: return DBMCP_ENOMEM;
    case SQLITE_TOOBIG: return DBMCP_ETOOBIG;
    case SQLITE_CONSTRAINT: return DBMCP_EINVAL;
    case SQLITE_AUTH:
    case SQLITE_PERM:
    case SQLITE_READONLY: return DBMCP_EDENIED;
    case SQLITE_CANTOPEN: return DBMCP_EIO;
    default: return DBMCP_ESTORE;
    }
}

/* The message's rest after prefix, when it starts with prefix; else NULL. */
static const char *after(const char *msg, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(msg, prefix, n) == 0 ? msg + n : NULL;
}

/* Classify SQLite's refusal of a statement: the result code, then the
 * shapes of SQLite's messages (fixed English text in every build). */
static void classify(store_failure *f, int rc, const char *msg)
{
    const char *rest;
    size_t n;
    store_failure_set(f, STORE_FAILURE_OTHER, NULL);
    switch (rc & 0xff) {
    case SQLITE_AUTH: store_failure_set(f, STORE_FAILURE_DENIED, NULL); return;
    case SQLITE_TOOBIG: store_failure_set(f, STORE_FAILURE_VALUE_TOO_BIG, NULL); return;
    case SQLITE_MISMATCH: store_failure_set(f, STORE_FAILURE_TYPE_MISMATCH, NULL); return;
    case SQLITE_ERROR:
    case SQLITE_SCHEMA: break; /* prepare reports some errors inside a WITH so */
    default: return;
    }
    if (!msg)
        return;
    if ((rest = after(msg, "no such table: ")))
        store_failure_set(f, STORE_FAILURE_UNKNOWN_TABLE, rest);
    else if ((rest = after(msg, "no such column: ")))
        store_failure_set(f, STORE_FAILURE_UNKNOWN_COLUMN, rest);
    else if ((rest = after(msg, "ambiguous column name: ")))
        store_failure_set(f, STORE_FAILURE_AMBIGUOUS_COLUMN, rest);
    else if ((rest = after(msg, "no such function: ")))
        store_failure_set(f, STORE_FAILURE_UNKNOWN_FUNCTION, rest);
    else if ((rest = after(msg, "wrong number of arguments to function ")))
        store_failure_setn(f, STORE_FAILURE_ARGUMENTS, rest,
                           (n = strlen(rest)) >= 2 && strcmp(rest + n - 2, "()") == 0 ? n - 2 : n);
    else if ((rest = after(msg, "near \"")) && (n = strlen(rest)) > 15 &&
             strcmp(rest + n - 15, "\": syntax error") == 0)
        store_failure_setn(f, STORE_FAILURE_SYNTAX, rest, n - 15);
    else if ((rest = after(msg, "unrecognized token: \"")) && (n = strlen(rest)) > 0)
        store_failure_setn(f, STORE_FAILURE_SYNTAX, rest, rest[n - 1] == '"' ? n - 1 : n);
    else if (strcmp(msg, "incomplete input") == 0)
        store_failure_set(f, STORE_FAILURE_SYNTAX, NULL);
    else if (strcmp(msg, "malformed JSON") == 0 || after(msg, "datatype mismatch"))
        store_failure_set(f, STORE_FAILURE_TYPE_MISMATCH, NULL);
}

static int fail(sqlite_store *db, int rc, dbmcp_error *err, const char *what)
{
    if (db && db->db)
        classify(&db->failure, rc, sqlite3_errmsg(db->db));
    const char *msg = db && db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc);
    return dbmcp_error_set_private(err, map_sqlite_code(rc), "the database refused the request",
                                   "%s: %s", what, msg);
}

/* Whether the function allowlist (store_set_function_allowlist) lets name run. */
static int function_allowed(const sqlite_store *db, const char *name)
{
    if (!db->functions_on || !name)
        return 1;
    for (size_t i = 0; i < db->n_functions; i++)
        if (strcasecmp(db->functions[i], name) == 0)
            return 1;
    return 0;
}

/* The query connection's authorizer: the engine itself refuses what the
 * agent-facing side must never do, whatever SQL text arrives. Reads of
 * dbmcp's own tables (dbmcp_*, catalog, keys, audit), writes, schema
 * changes, ATTACH/DETACH, PRAGMA, transaction control and functions off
 * the allowlist are denied. Returns SQLITE_OK or SQLITE_DENY. */
static int guard_verdict(const sqlite_store *db, int action, const char *a, const char *b,
                         const char *trigger)
{
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_RECURSIVE: return SQLITE_OK;
    case SQLITE_FUNCTION: return function_allowed(db, b) ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_READ:
        /* sqlite_master would name the internal tables: schema discovery
         * reads it through the store (trusted), filtered, not through
         * agent SQL. */
        if (a && strncmp(a, "dbmcp_", 6) == 0)
            return SQLITE_DENY;
        if (a && strcmp(a, "sqlite_master") == 0 && b && strcmp(b, "ROWID") == 0)
            return SQLITE_OK; /* part of a virtual table declaration, see below */
        if (a && strncmp(a, "sqlite_", 7) == 0)
            return db->trusted ? SQLITE_OK : SQLITE_DENY;
        return SQLITE_OK;
    case SQLITE_UPDATE:
        /* SQLite 3.40 reports connecting a virtual table (json_each, an
         * FTS5 table) as an update of sqlite_master's columns and a read of
         * its ROWID. A real write of sqlite_master cannot happen here: the
         * engine refuses it without writable_schema (a PRAGMA, denied) and
         * the handle is read-only with query_only. */
        return a && strcmp(a, "sqlite_master") == 0 && !trigger ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_PRAGMA:
        /* FTS5 reads data_version (a change counter, no setting form). */
        if (a && strcmp(a, "data_version") == 0 && !b)
            return SQLITE_OK;
        /* Read-only introspection pragmas, for store internals only:
         * query_only may be read, never set (b is the value of
         * `PRAGMA x = v`); database_list names the attached databases;
         * the others take a table or index name as b and have no setting
         * form. */
        if (!db->trusted || !a)
            return SQLITE_DENY;
        if (strcmp(a, "query_only") == 0)
            return b ? SQLITE_DENY : SQLITE_OK;
        return strcmp(a, "table_xinfo") == 0 || strcmp(a, "table_info") == 0 ||
                       strcmp(a, "index_list") == 0 || strcmp(a, "index_info") == 0 ||
                       strcmp(a, "index_xinfo") == 0 || strcmp(a, "foreign_key_list") == 0 ||
                       strcmp(a, "database_list") == 0
                   ? SQLITE_OK
                   : SQLITE_DENY;
    default: return SQLITE_DENY;
    }
}

/* The phrase store_guard_explain gives for a denied action. */
static void describe_refusal(char *out, size_t size, int action, const char *a, const char *b)
{
    switch (action) {
    case SQLITE_FUNCTION:
        snprintf(out, size, "it calls the function %s, which is not allowed", b ? b : "?");
        break;
    case SQLITE_READ: snprintf(out, size, "it reads the internal table %s", a ? a : "?"); break;
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
        if (a && strncmp(a, "sqlite_", 7) == 0)
            snprintf(out, size, "it changes the database schema");
        else
            snprintf(out, size, "it writes to the database (table %s)", a ? a : "?");
        break;
    case SQLITE_PRAGMA: snprintf(out, size, "it uses PRAGMA %s", a ? a : ""); break;
    case SQLITE_ATTACH:
    case SQLITE_DETACH: snprintf(out, size, "it attaches or detaches a database"); break;
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT: snprintf(out, size, "it controls transactions"); break;
    default: snprintf(out, size, "it changes the database schema or state");
    }
}

static int query_authorizer(void *ctx, int action, const char *a, const char *b, const char *dbn,
                            const char *trigger)
{
    sqlite_store *db = ctx;
    (void)dbn;
    int verdict = guard_verdict(db, action, a, b, trigger);
    /* Only the first denial names the reason: later ones may follow from it. */
    if (verdict == SQLITE_DENY && db->refusal && !db->refusal[0])
        describe_refusal(db->refusal, db->refusal_size, action, a, b);
    return verdict;
}

static double monotonic_ms(void)
{
    return sqlite_watchdog_now_ms();
}

/* The progress handler, called every few thousand VM steps: it carries the
 * cancel flag and the slow hook of store.h between steps. The watchdog
 * thread interrupts inside long steps at the deadline; this also catches
 * an interrupt that SQLite cleared because it fell between two statements. */
static int deadline_check(void *ctx)
{
    sqlite_store *db = ctx;
    if (db->cancel && *db->cancel)
        return 1;
    if (atomic_load(&db->watch.fired) == 1)
        db->timed_out = 1;
    if (atomic_load(&db->watch.fired))
        return 1;
    if (db->deadline_ms <= 0 && !db->slow_fn)
        return 0;
    double now = monotonic_ms();
    if (db->slow_fn && now >= db->slow_at_ms) {
        void (*fn)(void *) = db->slow_fn;
        db->slow_fn = NULL;
        fn(db->slow_arg);
    }
    if (db->deadline_ms > 0 && now > db->deadline_ms) {
        db->timed_out = 1;
        return 1;
    }
    return 0;
}

/* Create the database file 0600 when it does not exist yet: it holds key
 * hashes, the audit and memories, and SQLite gives the -wal and -shm files
 * the main file's mode. An existing file keeps its mode (O_EXCL); URIs and
 * ":memory:" are left to SQLite. Failure is left to sqlite3_open_v2 to
 * report. */
static void create_private(const char *path)
{
    if (strncmp(path, "file:", 5) == 0 || strcmp(path, ":memory:") == 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

static int sq_open(const char *url, int flags, store **out, dbmcp_error *err)
{
    *out = NULL;
    /* Before SQLite initialises: the allocator that counts per thread
     * (memory budgets of agent SQL). When the host initialised SQLite
     * first, budgets are off and store_memory_budget_enforced says so. */
    sqlite_memory_install();
    sqlite_store *db = calloc(1, sizeof *db);
    if (!db)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    db->base.driver = &sqlite_store_driver;
    db->base.flags = flags;
    int oflags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
    if (flags & STORE_READONLY)
        oflags |= SQLITE_OPEN_READONLY;
    else
        oflags |= SQLITE_OPEN_READWRITE | ((flags & STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if ((flags & STORE_CREATE) && !(flags & STORE_READONLY))
        create_private(url);
    /* SQLite says only "unable to open database file": name the cause. */
    int plain = strncmp(url, "file:", 5) != 0 && strcmp(url, ":memory:") != 0;
    if (plain && !(flags & STORE_CREATE) && access(url, F_OK) != 0 && errno == ENOENT) {
        sq_close(&db->base);
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "database file %s does not exist", url);
    }
    int rc = sqlite3_open_v2(url, &db->db, oflags, NULL);
    if (rc != SQLITE_OK) {
        dbmcp_error_set(err, DBMCP_EIO, "cannot open database %s: %s", url,
                        db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
        sq_close(&db->base);
        return DBMCP_EIO;
    }
    sqlite3_extended_result_codes(db->db, 1);
    sqlite3_busy_timeout(db->db, 5000);
    /* vector_distance() and embed() on every handle (sqlite_vecfn.h). */
    if ((rc = sqlite_vecfn_register(db->db)) != SQLITE_OK) {
        rc = fail(db, rc, err, "registering vector functions");
        sq_close(&db->base);
        return rc;
    }
    /* Every handle knows the "dbmcp" tokenizer: FTS5 tables use it. */
    if ((rc = sqlite_fts_register(db->db)) != SQLITE_OK) {
        rc = fail(db, rc, err, "registering the dbmcp full-text tokenizer");
        sq_close(&db->base);
        return rc;
    }
    const char *setup = (flags & STORE_READONLY)
                            /* temp_store = MEMORY: sorts and DISTINCT sets that outgrow
                             * the page cache stay in memory, where the memory budget
                             * bounds them, instead of growing temporary files. */
                            ? "PRAGMA query_only = ON; PRAGMA foreign_keys = ON; "
                              "PRAGMA temp_store = MEMORY;"
                            /* mmap_size: the catalog handles read dbmcp's own tables
                             * (memory, chunks, their full-text indexes) from the page
                             * cache the kernel shares between them, not by copying each
                             * page through SQLite's small per-handle cache: a memory
                             * search at 100k items read its pages with pread. */
                            : "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
                              "PRAGMA foreign_keys = ON; PRAGMA mmap_size = 1073741824;";
    rc = sq_exec(&db->base, setup, err);
    if (rc && sqlite3_errcode(db->db) == SQLITE_NOTADB)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "%s is not a SQLite database (nor a dbmcp one)",
                             url);
    if (rc) {
        sq_close(&db->base);
        return rc;
    }
    /* Before the guard, which refuses ATTACH: the user databases of the
     * catalog, read-only (attachments.h). */
    if ((flags & STORE_READONLY) && (rc = sqlite_attach_user_databases(&db->base, db->db, err))) {
        sq_close(&db->base);
        return rc;
    }
    if (flags & STORE_READONLY) {
        sqlite3_set_authorizer(db->db, query_authorizer, db);
        /* One function call is never interrupted by the time limit: replace
         * the built-ins whose cost is quadratic (sqlite_guard.h). */
        if ((rc = sqlite_guard_register(db->db)) != SQLITE_OK) {
            rc = fail(db, rc, err, "registering guarded functions");
            sq_close(&db->base);
            return rc;
        }
    }
    sqlite3_progress_handler(db->db, 4000, deadline_check, db);
    *out = &db->base;
    return 0;
}

static void free_functions(sqlite_store *db)
{
    for (size_t i = 0; i < db->n_functions; i++)
        free(db->functions[i]);
    free(db->functions);
    free(db->functions_csv);
    db->functions = NULL;
    db->functions_csv = NULL;
    db->n_functions = 0;
}

static void sq_close(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    if (!db)
        return;
    sqlite_watchdog_disarm(&db->watch);
    free_functions(db);
    sqlite3_close_v2(db->db);
    free(db);
}

static int sq_exec(store *h, const char *sql, dbmcp_error *err)
{
    sqlite_store *db = (sqlite_store *)h;
    char *msg = NULL;
    int rc = sqlite3_exec(db->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        dbmcp_error_set_private(err, map_sqlite_code(rc), "the database refused the request", "%s",
                                msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return map_sqlite_code(rc);
    }
    return 0;
}

/* SQLite has no LISTEN/NOTIFY: store_listener polls its counters instead. */
static int sq_wait_notify(store *h, int timeout_ms, int wake_fd, dbmcp_error *err)
{
    (void)h;
    (void)timeout_ms;
    (void)wake_fd;
    return dbmcp_error_set(err, DBMCP_ESTORE, "notifications are not supported by SQLite");
}

static int sq_begin(store *h, dbmcp_error *err)
{
    return sq_exec(h, "BEGIN IMMEDIATE", err);
}

static int sq_commit(store *h, dbmcp_error *err)
{
    return sq_exec(h, "COMMIT", err);
}

static void sq_rollback(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    if (!sqlite3_get_autocommit(db->db))
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}

static int only_space_or_comments(const char *s)
{
    while (*s) {
        if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ';') {
            s++;
        } else if (s[0] == '-' && s[1] == '-') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *end = strstr(s + 2, "*/");
            if (!end)
                return 0;
            s = end + 2;
        } else {
            return 0;
        }
    }
    return 1;
}

static int sq_prepare(store *h, const char *sql, store_stmt **out, dbmcp_error *err)
{
    sqlite_store *db = (sqlite_store *)h;
    *out = NULL;
    store_failure_set(&db->failure, STORE_FAILURE_OTHER, NULL);
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v3(db->db, sql, -1, 0, &st, &tail);
    if (rc != SQLITE_OK)
        return fail(db, rc, err, "prepare");
    if (!st)
        return dbmcp_error_set(err, DBMCP_EINVAL, "empty statement");
    if (tail && !only_space_or_comments(tail)) {
        sqlite3_finalize(st);
        return dbmcp_error_set(err, DBMCP_EINVAL, "only one statement is allowed");
    }
    sqlite_stmt *s = calloc(1, sizeof *s);
    if (!s) {
        sqlite3_finalize(st);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    s->base.driver = &sqlite_store_driver;
    s->base.owner = h;
    s->st = st;
    *out = &s->base;
    return 0;
}

static void sq_finalize(store_stmt *h)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    if (!st)
        return;
    sqlite3_finalize(st->st);
    free(st);
}

static void sq_reset(store_stmt *h)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    sqlite3_reset(st->st);
    st->last_param = 0;
}

static void sq_clear_bindings(store_stmt *h)
{
    sqlite3_clear_bindings(((sqlite_stmt *)h)->st);
}

static int timeout_error(sqlite_store *db, dbmcp_error *err)
{
    store_failure_set(&db->failure, STORE_FAILURE_TIME_LIMIT, NULL);
    return dbmcp_error_set_private(err, DBMCP_ETIMEOUT, "the query took too long",
                                   "step: time limit exceeded");
}

static int cancelled_error(sqlite_store *db, dbmcp_error *err)
{
    store_failure_set(&db->failure, STORE_FAILURE_CANCELLED, NULL);
    return dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
}

static int sq_step(store_stmt *h, dbmcp_error *err)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    sqlite_store *db = (sqlite_store *)st->base.owner;
    /* The watchdog fired between statements: SQLite clears such an
     * interrupt when the next statement starts, so it is honoured here. */
    int fired = atomic_load(&db->watch.fired);
    if (fired == 1 || (fired && !(db->cancel && *db->cancel)))
        return timeout_error(db, err);
    if (fired)
        return cancelled_error(db, err);
    int rc = sqlite3_step(st->st);
    if (rc == SQLITE_ROW)
        return STORE_ROW;
    if (rc == SQLITE_DONE)
        return STORE_DONE;
    if ((rc & 0xff) == SQLITE_INTERRUPT && (db->timed_out || atomic_load(&db->watch.fired) == 1))
        return timeout_error(db, err);
    if ((rc & 0xff) == SQLITE_INTERRUPT && db->cancel && *db->cancel)
        return cancelled_error(db, err);
    if ((rc & 0xff) == SQLITE_NOMEM && db->memory_budget && sqlite_memory_budget_hit()) {
        store_failure_set(&db->failure, STORE_FAILURE_MEMORY, NULL);
        return dbmcp_error_set_private(
            err, DBMCP_ETOOBIG, "the query needed more memory than its budget",
            "step: the statement needed more than its memory budget of %zu bytes",
            db->memory_budget);
    }
    return fail(db, rc, err, "step");
}

/* Callers bind mostly in the order the parameters appear, so the one
 * after the last is tried first: one comparison instead of SQLite's scan
 * of every name (a 21-parameter audit insert did 200+ per row). */
static int param_index(sqlite_stmt *st, const char *name)
{
    int next = st->last_param + 1;
    const char *guess = next <= sqlite3_bind_parameter_count(st->st)
                            ? sqlite3_bind_parameter_name(st->st, next)
                            : NULL;
    int i = guess && strcmp(guess, name) == 0 ? next : sqlite3_bind_parameter_index(st->st, name);
    if (i)
        st->last_param = i;
    return i;
}

static int sq_bind_text(store_stmt *h, const char *name, const char *value)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    int i = param_index(st, name);
    if (!i)
        return DBMCP_ENOTFOUND;
    int rc = value ? sqlite3_bind_text(st->st, i, value, -1, SQLITE_TRANSIENT)
                   : sqlite3_bind_null(st->st, i);
    return rc == SQLITE_OK ? 0 : map_sqlite_code(rc);
}

static int sq_bind_int(store_stmt *h, const char *name, int64_t value)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    int i = param_index(st, name);
    if (!i)
        return DBMCP_ENOTFOUND;
    return sqlite3_bind_int64(st->st, i, value) == SQLITE_OK ? 0 : DBMCP_ESTORE;
}

static int sq_bind_double(store_stmt *h, const char *name, double value)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    int i = param_index(st, name);
    if (!i)
        return DBMCP_ENOTFOUND;
    return sqlite3_bind_double(st->st, i, value) == SQLITE_OK ? 0 : DBMCP_ESTORE;
}

static int sq_bind_blob(store_stmt *h, const char *name, const void *data, size_t size)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    int i = param_index(st, name);
    if (!i)
        return DBMCP_ENOTFOUND;
    int rc = sqlite3_bind_blob64(st->st, i, data, (sqlite3_uint64)size, SQLITE_TRANSIENT);
    return rc == SQLITE_OK ? 0 : map_sqlite_code(rc);
}

static int sq_bind_null(store_stmt *h, const char *name)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    int i = param_index(st, name);
    if (!i)
        return DBMCP_ENOTFOUND;
    return sqlite3_bind_null(st->st, i) == SQLITE_OK ? 0 : DBMCP_ESTORE;
}

static int sq_param_count(store_stmt *h)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_bind_parameter_count(st->st);
}

static const char *sq_param_name(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_bind_parameter_name(st->st, i + 1);
}

static int sq_column_count(store_stmt *h)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_column_count(st->st);
}

static const char *sq_column_name(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_column_name(st->st, i);
}

static store_type sq_column_type(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    switch (sqlite3_column_type(st->st, i)) {
    case SQLITE_INTEGER: return STORE_INTEGER;
    case SQLITE_FLOAT: return STORE_FLOAT;
    case SQLITE_TEXT: return STORE_TEXT;
    case SQLITE_BLOB: return STORE_BLOB;
    default: return STORE_NULL;
    }
}

static store_kind sq_column_kind(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    /* VECTOR(d) and libSQL's F32_BLOB(d) name float32 vectors. */
    const char *declared = sqlite3_column_decltype(st->st, i);
    if (declared && (strcasestr(declared, "VECTOR") || strcasestr(declared, "F32_BLOB")))
        return STORE_KIND_VECTOR;
    return STORE_KIND_PLAIN;
}

static const char *sq_column_text(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return (const char *)sqlite3_column_text(st->st, i);
}

static int64_t sq_column_int(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_column_int64(st->st, i);
}

static double sq_column_double(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_column_double(st->st, i);
}

static const void *sq_column_blob(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return sqlite3_column_blob(st->st, i);
}

static size_t sq_column_bytes(store_stmt *h, int i)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    return (size_t)sqlite3_column_bytes(st->st, i);
}

static int64_t sq_changes(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    return sqlite3_changes64(db->db);
}

static void sq_set_busy_timeout(store *h, int ms)
{
    sqlite_store *db = (sqlite_store *)h;
    sqlite3_busy_timeout(db->db, ms);
}

static void sq_trusted_begin(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    db->trusted = 1;
}

static void sq_trusted_end(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    db->trusted = 0;
}

static int sq_set_function_allowlist(store *h, const char *csv, dbmcp_error *err)
{
    sqlite_store *db = (sqlite_store *)h;
    /* The parsed list is kept while switched off: every execute_query sets
     * the same setting again, and parsing it each call was measurable. */
    db->functions_on = 0;
    if (!csv)
        return 0;
    if (db->functions_csv && strcmp(db->functions_csv, csv) == 0) {
        db->functions_on = 1;
        return 0;
    }
    free_functions(db);
    size_t cap = 16;
    db->functions = calloc(cap, sizeof *db->functions);
    db->functions_csv = strdup(csv);
    if (!db->functions || !db->functions_csv) {
        free_functions(db);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    const char *p = csv;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        if (db->n_functions == cap) {
            char **grown = realloc(db->functions, cap * 2 * sizeof *grown);
            if (!grown) {
                free_functions(db); /* never keep a partial list for the same csv */
                return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            }
            db->functions = grown;
            cap *= 2;
        }
        if (!(db->functions[db->n_functions++] = strndup(p, len))) {
            free_functions(db);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
        p += len;
    }
    db->functions_on = 1;
    return 0;
}

/* Arm the watchdog while a deadline or a cancel flag is set; re-arming
 * picks up a new deadline. */
static void watch_update(sqlite_store *db)
{
    sqlite_watchdog_disarm(&db->watch);
    db->watch.db = db->db;
    db->watch.deadline_ms = db->deadline_ms;
    db->watch.cancel = db->cancel;
    atomic_store(&db->watch.fired, 0);
    if (db->deadline_ms > 0 || db->cancel)
        sqlite_watchdog_arm(&db->watch); /* on failure the progress handler still checks */
}

static void sq_set_cancel_flag(store *h, atomic_int *flag)
{
    sqlite_store *db = (sqlite_store *)h;
    db->cancel = flag;
    watch_update(db);
}

static void sq_set_slow_hook(store *h, int after_ms, void (*fn)(void *arg), void *arg)
{
    sqlite_store *db = (sqlite_store *)h;
    db->slow_fn = fn;
    db->slow_arg = arg;
    db->slow_at_ms = fn ? monotonic_ms() + after_ms : 0;
}

static void sq_set_time_limit(store *h, int ms)
{
    sqlite_store *db = (sqlite_store *)h;
    db->timed_out = 0;
    db->deadline_ms = ms > 0 ? monotonic_ms() + ms : 0;
    watch_update(db);
}

static void sq_set_memory_budget(store *h, size_t bytes)
{
    sqlite_store *db = (sqlite_store *)h;
    if (bytes)
        sqlite_memory_budget_begin(bytes);
    else if (db->memory_budget)
        sqlite_memory_budget_end();
    db->memory_budget = bytes;
}

int store_memory_budget_enforced(void)
{
    return sqlite_memory_enforced();
}

static int sq_verify_readonly(store *h, dbmcp_error *err)
{
    sqlite_store *db = (sqlite_store *)h;
    int64_t query_only = 0;
    int rc = 0;
    db->trusted = 1;
    rc = store_query_int(h, "PRAGMA query_only", 0, &query_only, err);
    db->trusted = 0;
    if (sqlite3_db_readonly(db->db, "main") != 1 || !sqlite_attach_all_readonly(db->db) ||
        (!rc && query_only != 1))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "the query connection could write to the database; refusing to "
                               "serve");
    return 0;
}

static int sq_guard_explain(store *h, const char *sql, char *reason, size_t size)
{
    sqlite_store *db = (sqlite_store *)h;
    if (!reason || size == 0)
        return 0;
    reason[0] = '\0';
    if (!(db->base.flags & STORE_READONLY))
        return 0;
    db->refusal = reason;
    db->refusal_size = size;
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v3(db->db, sql, -1, 0, &st, NULL);
    sqlite3_finalize(st);
    db->refusal = NULL;
    db->refusal_size = 0;
    return reason[0] != '\0';
}

static int sq_stmt_is_readonly(store_stmt *h, int *readonly, dbmcp_error *err)
{
    sqlite_stmt *st = (sqlite_stmt *)h;
    (void)err;
    *readonly = sqlite3_stmt_readonly(st->st) != 0;
    return 0;
}

static const char *sq_identity(store *h)
{
    sqlite_store *db = (sqlite_store *)h;
    const char *name = sqlite3_db_filename(db->db, "main");
    return name ? name : "";
}

sqlite3 *sqlite_store_handle(store *db)
{
    return ((sqlite_store *)db)->db;
}

/* --- resource budget of agent SQL ------------------------------------------------ */

/* The budget maps onto sqlite3_limit, which bounds a connection rather
 * than one statement: hence the handle keeps its limits as opened and
 * store_set_query_budget(NULL) puts them back. Not bounded per connection
 * in SQLite: the total heap of a statement (the heap limit is
 * process-wide), the temporary files of large sorts and DISTINCT sets
 * (bounded by the time limit only) and the page cache (cache_size, about
 * 2 MB by default). */

/* Fixed bounds of agent SQL under a budget. */
#define GUARD_EXPR_DEPTH 200      /* deepest expression tree */
#define GUARD_COMPOUND_SELECT 100 /* terms of one UNION/EXCEPT/INTERSECT chain */
#define GUARD_ATTACHED 0          /* ATTACH always fails */

/* The sqlite3_limit categories a budget sets: value, statement and pattern
 * bytes (the fields of store_query_budget), then the fixed bounds above. */
static const int budget_categories[BUDGET_LIMITS] = {
    SQLITE_LIMIT_LENGTH,     SQLITE_LIMIT_SQL_LENGTH,      SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
    SQLITE_LIMIT_EXPR_DEPTH, SQLITE_LIMIT_COMPOUND_SELECT, SQLITE_LIMIT_ATTACHED};

static void sq_last_failure(store *h, store_failure *out)
{
    *out = ((sqlite_store *)h)->failure;
}

static void sq_set_query_budget(store *h, const store_query_budget *budget)
{
    sqlite_store *db = (sqlite_store *)h;
    if (!budget) {
        for (int i = 0; db->budget_on && i < BUDGET_LIMITS; i++)
            sqlite3_limit(db->db, budget_categories[i], db->opened_limits[i]);
        db->budget_on = 0;
        return;
    }
    if (!db->budget_on)
        for (int i = 0; i < BUDGET_LIMITS; i++)
            db->opened_limits[i] = sqlite3_limit(db->db, budget_categories[i], -1);
    db->budget_on = 1;
    const int wanted[BUDGET_LIMITS] = {budget->value_bytes,   budget->sql_bytes,
                                       budget->pattern_bytes, GUARD_EXPR_DEPTH,
                                       GUARD_COMPOUND_SELECT, GUARD_ATTACHED};
    for (int i = 0; i < BUDGET_LIMITS; i++) {
        /* A budget field <= 0 sets no bound; the fixed ones always apply. */
        int value = i < BUDGET_FIELDS && wanted[i] <= 0 ? db->opened_limits[i] : wanted[i];
        sqlite3_limit(db->db, budget_categories[i], value);
    }
}

const store_driver sqlite_store_driver = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .identity = sq_identity,
    .exec = sq_exec,
    .wait_notify = sq_wait_notify,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .changes = sq_changes,
    .prepare = sq_prepare,
    .finalize = sq_finalize,
    .reset = sq_reset,
    .clear_bindings = sq_clear_bindings,
    .step = sq_step,
    .stmt_is_readonly = sq_stmt_is_readonly,
    .bind_text = sq_bind_text,
    .bind_int = sq_bind_int,
    .bind_double = sq_bind_double,
    .bind_blob = sq_bind_blob,
    .bind_null = sq_bind_null,
    .param_count = sq_param_count,
    .param_name = sq_param_name,
    .column_count = sq_column_count,
    .column_name = sq_column_name,
    .column_type = sq_column_type,
    .column_kind = sq_column_kind,
    .column_text = sq_column_text,
    .column_int = sq_column_int,
    .column_double = sq_column_double,
    .column_blob = sq_column_blob,
    .column_bytes = sq_column_bytes,
    .set_busy_timeout = sq_set_busy_timeout,
    .set_function_allowlist = sq_set_function_allowlist,
    .set_time_limit = sq_set_time_limit,
    .set_cancel_flag = sq_set_cancel_flag,
    .set_memory_budget = sq_set_memory_budget,
    .set_slow_hook = sq_set_slow_hook,
    .verify_readonly = sq_verify_readonly,
    .trusted_begin = sq_trusted_begin,
    .trusted_end = sq_trusted_end,
    .guard_explain = sq_guard_explain,
    .set_query_budget = sq_set_query_budget,
    .last_failure = sq_last_failure,
};
