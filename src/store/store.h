/*
 * store.h — the neutral database API: the only door to SQL in dbmcp.
 *
 * Everything above store/ talks to a database through these functions, never
 * through sqlite3_* or PQ* directly, so the PostgreSQL backend plugs in
 * behind the same contract. Statements use :named parameters in either
 * dialect (the PostgreSQL backend rewrites them to $n). Values cross the
 * API as text, 64-bit integers, doubles, blobs or NULL.
 *
 * Two identities (see ARCHITECTURE.md): a catalog connection opened
 * read-write for dbmcp's own dbmcp_* tables, and a query connection opened
 * with STORE_READONLY for agent-facing SQL on user data. On SQLite the
 * user's data are the databases recorded in dbmcp_attachments, which every
 * STORE_READONLY handle on the catalog attaches read-only when it opens
 * (store/attachments.h); a read-write handle never does.
 *
 * Threading: one store handle is used by one thread at a time. Servers keep
 * a store_pool of handles and check one out per request.
 *
 * Ownership: store_open/store_prepare return handles the caller releases with
 * store_close/store_finalize. Column getters return pointers owned by the
 * statement, valid until the next store_step/store_reset/store_finalize.
 *
 * Errors: negative dbmcp_code values with a dbmcp_error filled (the
 * engine's own message goes to the operator message only). A row the
 * database refuses for a constraint fails store_step, store_exec or
 * store_commit with DBMCP_ECONSTRAINT_UNIQUE, _FOREIGN_KEY, _CHECK or
 * _NOT_NULL, whichever engine reports it, so callers switch on the code
 * and never read the message. Lock waits past the busy timeout, the time
 * limit and cancellation are DBMCP_ETIMEOUT; what the guard of a read-only
 * handle refuses is DBMCP_EDENIED; a value past the budget DBMCP_ETOOBIG.
 */
#ifndef DBMCP_STORE_H
#define DBMCP_STORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct store store;
typedef struct store_stmt store_stmt;
typedef struct store_pool store_pool;

/* Flags for store_open. */
#define STORE_READWRITE 0x0
#define STORE_READONLY 0x1 /* no writes possible, enforced by the engine */
#define STORE_CREATE 0x2   /* create the database file if missing */

/* store_step results (errors are negative dbmcp_code values). */
#define STORE_DONE 0
#define STORE_ROW 1

/* Column types as reported by store_column_type. */
typedef enum store_type {
    STORE_NULL = 0,
    STORE_INTEGER,
    STORE_FLOAT,
    STORE_TEXT,
    STORE_BLOB
} store_type;

/* What the engine's type of a result column says about its values beyond
 * their store_type, as reported by store_column_kind. */
typedef enum store_kind {
    STORE_KIND_PLAIN = 0, /* nothing more: a value is what store_column_type says */
    STORE_KIND_VECTOR     /* float32 vectors: a blob holds 4 bytes per dimension */
} store_kind;

/* --- connections ------------------------------------------------------- */

/* Open `url`: a SQLite path (or "file:" URI), or a PostgreSQL URI
 * ("postgres://…" or "postgresql://…", as libpq reads it). */
int store_open(const char *url, int flags, store **out, dbmcp_error *err);
/* Nonzero when url names a PostgreSQL database (postgres:// or
 * postgresql://), which store_open hands to the PostgreSQL driver. */
int store_url_is_postgres(const char *url);
/* Close and free; NULL is a no-op. Finalizes the statements kept by
 * store_prepare_cached and nothing else: finalize statements first. */
void store_close(store *db);
/* "sqlite" or "postgres". */
const char *store_dialect(const store *db);
/* A name of the database db is connected to, equal for every handle on the
 * same database and stable while db is open, for cache keys (SQLite: the
 * file's absolute path, "" for an in-memory or temporary database;
 * PostgreSQL: host, port and database name, never credentials). Owned by
 * db, valid until store_close. */
const char *store_identity(store *db);
/* Nonzero when the handle was opened with STORE_READONLY. */
int store_is_readonly(const store *db);
/* Run one or more statements without parameters (DDL, migrations). */
int store_exec(store *db, const char *sql, dbmcp_error *err);
/* Run n statements of driver-generated text (each one statement, no
 * parameters, never agent SQL) right before the next statement stepped on
 * db, in the same round trip where the engine allows (PostgreSQL: one
 * pipeline with that statement); when one of them fails, that statement
 * does not run and its first step fails with the error. Any other command
 * on db first runs them on their own, waited. SQLite (and any driver
 * without the hook): store_exec of each, now. 0 or a code (out of
 * memory, or what store_exec returned). */
int store_exec_before_next(store *db, const char *const *sql, size_t n, dbmcp_error *err);
/* Send sql (driver-generated, several statements allowed) without waiting
 * for its answer (PostgreSQL); the next command on db reads the answer
 * first, and when any of it failed or a transaction is left open, the
 * session is replaced by a new one before that command runs. Statements
 * of store_exec_before_next that no statement ran yet are dropped instead,
 * unsent, and sql with them (it ends what they would have opened). SQLite
 * (and any driver without the hook): store_exec, result ignored. */
void store_exec_unwaited(store *db, const char *sql);

/* --- notifications ------------------------------------------------------- */

/* Wait until a notification arrives for a channel this handle LISTENs to
 * (store_exec(db, "LISTEN channel")), wake_fd (-1: none) becomes
 * readable, or timeout_ms (-1: no limit) passes, using no CPU meanwhile.
 * 1 when at least one notification arrived (every pending one is consumed
 * and its payload dropped: callers read what moved from tables); 0 on
 * timeout or wake_fd, whose bytes are left unread; a negative code with
 * err filled when the connection broke: close db and open a new handle
 * (the driver would reconnect without the LISTEN). For store_listener
 * (notify.h). SQLite has no notifications: DBMCP_ESTORE. */
int store_wait_notify(store *db, int timeout_ms, int wake_fd, dbmcp_error *err);

/* --- transactions ------------------------------------------------------- */

/* BEGIN IMMEDIATE on SQLite: writers queue behind the busy timeout. */
int store_begin(store *db, dbmcp_error *err);
int store_commit(store *db, dbmcp_error *err);
/* Roll back if a transaction is open; never fails the caller. */
void store_rollback(store *db);

/* --- statements --------------------------------------------------------- */

/* Prepare exactly one statement; trailing text other than whitespace and
 * comments is refused. */
int store_prepare(store *db, const char *sql, store_stmt **out, dbmcp_error *err);
/* Finalize st; a statement of store_prepare_cached goes back to its
 * handle's cache instead (reset, bindings cleared). NULL is a no-op. */
void store_finalize(store_stmt *st);
/* Like store_prepare, but the statement is kept by db after store_finalize
 * and handed out again, reset and with every parameter NULL, to the next
 * store_prepare_cached of the same text on the same handle: SQLite's
 * parser and PostgreSQL's PREPARE round trip run once per handle instead of
 * once per call. For dbmcp's own fixed statements on its catalog handles;
 * a STORE_READONLY handle (agent SQL, whose guard decides at prepare time)
 * and a text already handed out and not yet finalized get a fresh
 * statement, as from store_prepare. At most STORE_KEPT_MAX statements per
 * handle, the least recently used one finalized to make room; all are
 * finalized by store_close. */
int store_prepare_cached(store *db, const char *sql, store_stmt **out, dbmcp_error *err);
#define STORE_KEPT_MAX 48
/* Reset for re-execution; bindings are kept. */
void store_reset(store_stmt *st);
/* Execute one step: STORE_ROW, STORE_DONE or a negative code with err filled. */
int store_step(store_stmt *st, dbmcp_error *err);
/* Set *readonly to 1 when running st cannot change the database's data or
 * schema (a SELECT, WITH … SELECT, EXPLAIN), 0 otherwise. Decided by the
 * engine, not from the text. 0, or a negative code with err filled when
 * the engine cannot tell. */
int store_stmt_is_readonly(store_stmt *st, int *readonly, dbmcp_error *err);

/* Bind by name (":name", the colon included). A name the statement does not
 * use is ignored and returns DBMCP_ENOTFOUND so callers can detect it. */
int store_bind_text(store_stmt *st, const char *name, const char *value); /* NULL → SQL NULL */
int store_bind_int(store_stmt *st, const char *name, int64_t value);
int store_bind_double(store_stmt *st, const char *name, double value);
int store_bind_blob(store_stmt *st, const char *name, const void *data, size_t size);
int store_bind_null(store_stmt *st, const char *name);
/* Number of parameters and the name of the i-th (0-based), e.g. ":year". */
int store_param_count(store_stmt *st);
const char *store_param_name(store_stmt *st, int i);

int store_column_count(store_stmt *st);
const char *store_column_name(store_stmt *st, int i);
store_type store_column_type(store_stmt *st, int i);
/* Kind of result column i, from the engine's type of the column: SQLite
 * knows the declared type of a column read straight from a table
 * (STORE_KIND_VECTOR for one naming VECTOR or F32_BLOB in any case, as in
 * VECTOR(384)) and nothing of an expression; a server engine reports every
 * column's type (PostgreSQL: its type OID, pgvector's vector being
 * STORE_KIND_VECTOR). Valid from prepare on. */
store_kind store_column_kind(store_stmt *st, int i);
/* Text of a column (NULL for SQL NULL); numbers are converted to text. */
const char *store_column_text(store_stmt *st, int i);
int64_t store_column_int(store_stmt *st, int i);
double store_column_double(store_stmt *st, int i);
const void *store_column_blob(store_stmt *st, int i);
size_t store_column_bytes(store_stmt *st, int i);
/* Rows changed by the last INSERT/UPDATE/DELETE on this handle. */
int64_t store_changes(store *db);

/* --- one-liners built on the above ------------------------------------- */

/* Run a statement with no parameters that returns one integer (or def when
 * no row). */
int store_query_int(store *db, const char *sql, int64_t def, int64_t *out, dbmcp_error *err);

/* --- scripts: texts of several statements (sql_script.c) ---------------- */

/* Length in bytes of the first statement of sql, its ';' included, or of
 * all of sql when no ';' ends it; 0 for "". Semicolons inside quotes of
 * either dialect ('…', E'…', "…", `…`, […], $tag$…$tag$), inside comments
 * and inside the BEGIN … END body of CREATE TRIGGER or of CREATE FUNCTION
 * … BEGIN ATOMIC do not end a statement. Lexical only: runs nothing and
 * checks no syntax. */
size_t store_statement_length(const char *sql);
/* Prepare the next statement of the script *sql and advance *sql past it.
 * 0 with *out set; 0 with *out NULL when only whitespace, semicolons and
 * comments are left; a negative code with err filled, *sql then still at
 * the statement that failed. Finalize *out with store_finalize. */
int store_prepare_next(store *db, const char **sql, store_stmt **out, dbmcp_error *err);
/* name as an identifier in SQL text of either dialect: in double quotes,
 * inner quotes doubled. malloc'd (the caller frees); NULL when out of
 * memory. */
char *store_ident_quote(const char *name);

/* --- limits -------------------------------------------------------------- */

/* Milliseconds to wait for a lock before failing with DBMCP_ETIMEOUT. */
void store_set_busy_timeout(store *db, int ms);

/* --- pool ---------------------------------------------------------------- */

/* A fixed set of `size` handles to the same url, opened lazily. */
int store_pool_create(const char *url, int flags, int size, store_pool **out, dbmcp_error *err);
void store_pool_free(store_pool *pool);
/* Block until a handle is free; never returns NULL unless opening failed. */
store *store_pool_acquire(store_pool *pool, dbmcp_error *err);
/* Give db back; a handle store_call_end found unfit is closed instead, and
 * its slot opens a new one when next needed. */
void store_pool_release(store_pool *pool, store *db);

/* What a pool holds now and how long acquirers have waited, for
 * monitoring (the /metrics endpoint of `serve --http`). */
typedef struct store_pool_usage {
    int size;            /* slots: the most handles the pool opens */
    int open;            /* handles opened so far */
    int in_use;          /* handles checked out now */
    int waiting;         /* threads blocked in store_pool_acquire now */
    uint64_t acquires;   /* handles checked out since the pool was created */
    uint64_t waits;      /* of them, the ones that had to wait for a release */
    double wait_seconds; /* time those waits took, in all */
} store_pool_usage;
/* A consistent copy of the pool's figures (taken under its lock). */
void store_pool_stats(store_pool *pool, store_pool_usage *out);

/* --- guarded query connections (STORE_READONLY handles) ----------------- */

/* The engine-side guard of a read-only handle denies every write, schema
 * change, attachment of another database, engine setting, transaction
 * control and read of dbmcp_* tables or of the engine's own catalog,
 * through views, CTEs and subqueries alike (SQLite: an authorizer that
 * also denies PRAGMA and sqlite_* tables). These tune and explain it. */

/* Allow only these SQL functions (comma-separated, case-insensitive);
 * NULL allows any. Applies to statements prepared afterwards. */
int store_set_function_allowlist(store *db, const char *csv, dbmcp_error *err);
/* Interrupt statements running longer than ms from now (0 = no limit);
 * store_step then fails with DBMCP_ETIMEOUT. Call before each statement.
 * A watchdog thread interrupts at the deadline even inside one long
 * function call: the statement stops when that call returns. */
void store_set_time_limit(store *db, int ms);
/* Interrupt running statements as soon as *flag becomes nonzero (a client
 * cancelled or went away; looked at every 50 ms); NULL stops watching.
 * store_step then fails with DBMCP_ETIMEOUT "cancelled by the client". */
void store_set_cancel_flag(store *db, atomic_int *flag);
/* Fail a statement on this handle that needs more than `bytes` of the
 * engine's memory at once, with DBMCP_ETOOBIG (0 = no budget, the
 * default). What counts is everything the engine allocates for the
 * statements stepped by the calling thread until the budget is removed
 * (SQLite: a counting allocator; its own heap limits are process-wide).
 * Set and remove it on the thread that steps the statements. */
void store_set_memory_budget(store *db, size_t bytes);
/* Nonzero when memory budgets are enforced in this process (SQLite: off
 * when the host program initialised SQLite before the first store_open). */
int store_memory_budget_enforced(void);
/* Call fn(arg) once when a statement on this handle is still running
 * after_ms or more after this call (the statements of one request share
 * the moment); NULL fn removes the hook. fn runs on the thread stepping
 * the statement, from inside store_step, and must not use db; the
 * statement goes on running. It runs only while a statement does, at the
 * driver's next look at the clock after the moment. A transport uses it
 * to hand its reading role to another thread, so a request it began on
 * its reading thread does not hold up cancellations. */
void store_set_slow_hook(store *db, int after_ms, void (*fn)(void *arg), void *arg);
/* 0 when the handle provably cannot write (SQLite: read-only open and
 * query_only); DBMCP_EDENIED otherwise. Servers refuse to start on failure. */
int store_verify_readonly(store *db, dbmcp_error *err);
/* Store internals only (schema introspection): allow reads of the engine's
 * catalog (SQLite: sqlite_master and the table_info/index_list/
 * foreign_key_list pragmas) on this handle until store_trusted_end. Never
 * held across agent SQL. */
void store_trusted_begin(store *db);
void store_trusted_end(store *db);
/* Why the guard of read-only handle db refuses sql, for the operator: the
 * first action it denies as a phrase ("it writes to the database (table
 * t)", "it reads the internal table dbmcp_api_keys", "it uses PRAGMA x",
 * "it controls transactions", …) into reason (size bytes, NUL-terminated).
 * Returns 1 when the guard refuses sql and reason names why; 0 when it does
 * not (or db is not read-only), reason then "". Runs nothing. */
int store_guard_explain(store *db, const char *sql, char *reason, size_t size);

/* --- resource budget of agent SQL (execute_query) ----------------------- */

/* What one statement of agent-written SQL may build, besides its time
 * (store_set_time_limit). A field <= 0 sets no bound of its own: the
 * handle keeps the value it was opened with. Each driver maps the fields
 * onto what its engine can bound and says in its file comment what it
 * cannot. */
typedef struct store_query_budget {
    int value_bytes;   /* longest string or blob a statement may build or read */
    int sql_bytes;     /* longest statement text */
    int pattern_bytes; /* longest LIKE or GLOB pattern */
} store_query_budget;

/* Put budget on read-only handle db, with the driver's fixed bounds of
 * agent SQL (expression nesting, terms of one compound SELECT, no attached
 * databases), for the statements prepared and run until the next call.
 * NULL lifts them all: the handle is back as opened. Lift the budget
 * before the handle goes back to a pool it shares with report tools. The
 * budget is copied. */
void store_set_query_budget(store *db, const store_query_budget *budget);

/* --- why a statement failed (agent SQL, report tools, sql templates) ---- */

/* The class of an engine's refusal of a statement, the same on every
 * engine (SQLite: result codes and the shapes of its messages; PostgreSQL:
 * the SQLSTATE and the error position), so callers can tell an agent what
 * to correct without reading an engine's English. */
typedef enum store_failure_kind {
    STORE_FAILURE_OTHER = 0,        /* none of the classes below, or no failure */
    STORE_FAILURE_UNKNOWN_TABLE,    /* name: the table as written (maybe schema-qualified) */
    STORE_FAILURE_UNKNOWN_COLUMN,   /* name: the column as written, its qualifier included */
    STORE_FAILURE_AMBIGUOUS_COLUMN, /* name: a column several tables of the query hold */
    STORE_FAILURE_UNKNOWN_FUNCTION, /* name: a function no one defines (SQLite) */
    STORE_FAILURE_ARGUMENTS,        /* name: a function called with arguments it does not take
                                       (SQLite: their number; PostgreSQL: number or types) */
    STORE_FAILURE_SYNTAX,           /* name: the token near which; "" at the end of the text */
    STORE_FAILURE_TYPE_MISMATCH,    /* a value or operator of the wrong type; name: the token
                                       at fault when the engine points at one, else "" */
    STORE_FAILURE_DIVISION_BY_ZERO, /* name "" */
    STORE_FAILURE_GROUPING,         /* name: a column outside GROUP BY and any aggregate */
    STORE_FAILURE_DENIED,           /* the guard refused (an internal or unreadable object,
                                       a function off the allowlist); name "": the object
                                       may be one the caller must not learn of */
    STORE_FAILURE_TIME_LIMIT,       /* the time limit (store_set_time_limit) stopped it */
    STORE_FAILURE_CANCELLED,        /* the cancel flag stopped it */
    STORE_FAILURE_VALUE_TOO_BIG,    /* a value past the query budget's value_bytes */
    STORE_FAILURE_MEMORY            /* past the memory budget (store_set_memory_budget) */
} store_failure_kind;

/* Room for store_failure.name: longer names are cut. */
#define STORE_FAILURE_NAME_MAX 256

typedef struct store_failure {
    store_failure_kind kind;
    /* The offending name or token, as the statement or the engine spells
     * it: raw bytes (any characters, cut to fit), never shown unescaped. */
    char name[STORE_FAILURE_NAME_MAX];
} store_failure;

/* The class of the last failure of store_prepare or store_step on db
 * (kind STORE_FAILURE_OTHER when the last statement prepared on db has
 * not failed). Read it right after the failing call: the next
 * store_prepare forgets it. */
void store_last_failure(store *db, store_failure *out);
/* A short stable name of kind ("unknown_table", "syntax", …). */
const char *store_failure_kind_name(store_failure_kind kind);

/* --- one call on a query connection (agent SQL, report tools, sql templates) --- */

/* The names and bounds of one call's SQL. */
typedef struct store_call {
    const char *call_id; /* the audit's call id: database-side logs name it */
    const char *tool;    /* the tool, or "resources/read" for a template */
    int time_limit_ms;   /* the call's time limit (> 0) */
    size_t memory_bytes; /* the call's memory budget (0: the engine's default) */
} store_call;

/* Open a call on read-only handle db, after its statement is prepared
 * (parsed, nothing run: the driver may prepare again when the server could
 * not type a parameter, which a failed statement inside the call's
 * transaction would forbid) and before it is stepped. PostgreSQL: pg_guard's transaction
 * (store/pg_guard.h) — BEGIN READ ONLY, SET LOCAL statement_timeout (time_limit_ms), work_mem
 * (memory_bytes, which bounds each sort or hash), the call id in a comment
 * and in application_name, SAVEPOINT — inside which the call's statements
 * run. SQLite: nothing (its guard is the handle's own). On failure nothing
 * of the call is left open. */
int store_call_begin(store *db, const store_call *c, dbmcp_error *err);
/* End the call store_call_begin opened, whatever happened inside it: 0
 * when db may serve the next call; DBMCP_ESTORE when the end failed and
 * the connection is unfit for another call (store_pool_release then closes
 * it). The end runs without the cancel flag, which it removes, and within
 * a time limit of its own; the time limit is 0 afterwards. A no-op
 * returning 0 on SQLite. */
int store_call_end(store *db);
/* Nonzero once store_call_end found db unfit for another call. */
int store_call_unfit(const store *db);

#endif
