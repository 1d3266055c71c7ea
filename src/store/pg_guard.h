/*
 * pg_guard.h — the PostgreSQL side of the guard around agent SQL
 * (execute_query, report tools, sql resource templates): the
 * least-privilege role the query connection logs in as, the check `serve`
 * runs on that role before it starts, and the statements that wrap every
 * call on the query connection. Written against store.h only, so the
 * PostgreSQL driver runs it like any other statement.
 *
 * Why a role that logs in, not one the catalog connection SET ROLEs into:
 * SET ROLE can be undone from inside a single statement
 * (SELECT set_config('role', 'none', true), query_to_xml('SELECT … FROM
 * dbmcp.dbmcp_api_keys', …) reads dbmcp's keys with the catalog user's
 * rights; shown on PostgreSQL 15), role defaults such as temp_file_limit
 * apply only at login, and PgBouncer's transaction pooling keeps a pool
 * per user, so a query role with its own URL needs no session state.
 *
 * Why every call runs BEGIN READ ONLY … SAVEPOINT … ROLLBACK (the savepoint
 * is part of the guard): right after BEGIN READ ONLY, before any snapshot
 * is taken, SET TRANSACTION READ WRITE still succeeds, and then CREATE
 * TEMP TABLE does (shown on PostgreSQL 15); inside a savepoint PostgreSQL
 * refuses it ("cannot set transaction read-write mode inside a read-only
 * transaction"). Ending with ROLLBACK, never COMMIT, undoes what a
 * read-only transaction still lets a statement change: session settings
 * (set_config(…, false)), LISTEN, cursors WITH HOLD, large objects
 * (lo_creat and lo_from_bytea succeed in a read-only transaction). What
 * ROLLBACK does not undo, the end of the call does before it: session
 * advisory locks (pg_advisory_unlock_all) and prepared statements
 * (DEALLOCATE ALL; the query connection uses unnamed statements only).
 * What none of this stops and only text admission (tools/sql_admission.h)
 * and the check's warnings cover: reads of the system catalog (table
 * names, row estimates, regclass casts), pg_cancel_backend and
 * pg_terminate_backend on other calls of the same role, txid_current and
 * pg_logical_emit_message (which write even in a read-only transaction),
 * and functions that run SQL given as text.
 *
 * Who uses it: the CLI's init (the role), the server's start (the
 * check), and store.c's store_call_begin/_end (the call), which is how
 * execute_query, report tools and sql resource templates reach it.
 *
 * Ownership: pg_guard_role_script and the pending script of
 * pg_guard_role_apply are malloc'd, the caller frees them; a finding's
 * strings live until the report callback returns.
 */
#ifndef DBMCP_STORE_PG_GUARD_H
#define DBMCP_STORE_PG_GUARD_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

#define PG_GUARD_ROLE_DEFAULT "dbmcp_query" /* the query role's name */
#define PG_GUARD_SCHEMA_DEFAULT "dbmcp"     /* the schema of dbmcp's own tables */

/* --- the query role ------------------------------------------------------ */

/* What the query role is and may read. Names are plain identifiers:
 * role and schemas lower-case letters, digits and '_' (not first), at most
 * 63 bytes; the database name may be anything (it is quoted). */
typedef struct pg_guard_role {
    const char *role;                /* NULL: PG_GUARD_ROLE_DEFAULT */
    const char *schema;              /* dbmcp's schema; NULL: PG_GUARD_SCHEMA_DEFAULT */
    const char *database;            /* the database it connects to (GRANT CONNECT) */
    const char *const *data_schemas; /* NULL-terminated schemas it reads; NULL: public */
    int connection_limit;            /* CONNECTION LIMIT; <= 0: none */
    int statement_timeout_ms;        /* role default, for sessions without the wrapper;
                                        <= 0: 30000 */
    int temp_file_limit_kb;          /* role default (superuser only); <= 0: 1048576 */
    const char *const *data_tables;  /* NULL-terminated "schema.table" names it reads besides
                                        data_schemas' tables (SELECT, and USAGE on their
                                        schemas); NULL: none */
} pg_guard_role;

/* The parts of the role script, by who may run them. */
#define PG_GUARD_PART_ROLE 0x1      /* a role with CREATEROLE: the role and its defaults */
#define PG_GUARD_PART_SUPERUSER 0x2 /* a superuser: defaults only a superuser may set */
#define PG_GUARD_PART_GRANTS 0x4    /* the owners: CONNECT, dbmcp's schema closed, the reads */
#define PG_GUARD_PART_ALL 0x7

/* The statements that create the role (or bring an existing one in line)
 * and grant it read access, as a script for psql, each part headed by a
 * comment naming who may run it: a role with CREATEROLE, a superuser, the
 * owner of dbmcp's schema and of the data. The password is set apart
 * (psql's \password hashes it on the client, so it never reaches a log).
 * NULL when a name is invalid or out of memory. Caller frees. */
char *pg_guard_role_script(const pg_guard_role *r);
/* The same for some parts only (PG_GUARD_PART_*, or'ed): e.g. what a user
 * with CREATEROLE runs before `dbmcp init`, whose runner then grants the
 * rest. NULL as above, or when the parts hold no statement. Caller frees. */
char *pg_guard_role_script_parts(const pg_guard_role *r, unsigned parts);

/* Whether the current user of db may create roles and is a superuser. */
int pg_guard_role_rights(store *db, int *can_create_role, int *superuser, dbmcp_error *err);
/* Whether role (NULL: PG_GUARD_ROLE_DEFAULT) exists on db's server. */
int pg_guard_role_exists(store *db, const char *role, int *exists, dbmcp_error *err);

/* Run the script's statements on db, one at a time: those that need a
 * superuser only when db's user is one; a grant the user may not give is
 * left for its owner. password_verifier, when not NULL, is a SCRAM-SHA-256
 * verifier (libpq's PQencryptPasswordConn), never a clear-text password.
 * *pending (may be NULL) gets the statements that were not run, as a
 * script (caller frees), or NULL when all ran. When the user lacks
 * CREATEROLE but the role exists (made by someone who may, from
 * pg_guard_role_script_parts), only the grants run: the role's attributes,
 * defaults and password stay as they are (pg_guard_check judges them) and
 * are not pending. DBMCP_EDENIED when the user lacks CREATEROLE and the
 * role does not exist (then nothing ran: print the script), or when a
 * password is given and the user may not set it; DBMCP_EINVAL for invalid
 * names or a malformed verifier. */
int pg_guard_role_apply(store *db, const pg_guard_role *r, const char *password_verifier,
                        char **pending, dbmcp_error *err);

/* --- the check serve runs -------------------------------------------------- */

typedef enum pg_guard_severity {
    PG_GUARD_WARN = 1,  /* serve starts and logs it */
    PG_GUARD_REFUSE = 2 /* serve refuses to start */
} pg_guard_severity;

/* One thing the check found. */
typedef struct pg_guard_finding {
    pg_guard_severity severity;
    const char *code;   /* "superuser", "member", "owner", "write", "create", "internal",
                           "view", "definer", "function", "parameter", "setting", … */
    const char *object; /* what it is about, e.g. "INSERT on table public.items" */
    const char *fix;    /* the statement that fixes it, e.g. "REVOKE INSERT ON …;" */
} pg_guard_finding;

/* Called once per finding; the strings are valid until it returns. */
typedef void (*pg_guard_report_fn)(const pg_guard_finding *f, void *arg);

/* The check as one statement with the parameters :role and :schema; rows
 * (severity 'refuse' or 'warn', code, object, fix), refusals first.
 * Exposed for tests that run it outside dbmcp. */
extern const char pg_guard_check_sql[];

/* Check that role (NULL: PG_GUARD_ROLE_DEFAULT) is fit to run agent SQL in
 * the database of db, whose schema dbmcp's tables live in (NULL:
 * PG_GUARD_SCHEMA_DEFAULT). Refused: a role that is missing or cannot log
 * in, is superuser or has CREATEROLE, CREATEDB, REPLICATION or BYPASSRLS,
 * is a member of any role, owns anything, holds INSERT, UPDATE, DELETE,
 * TRUNCATE, REFERENCES or TRIGGER on any table or column, UPDATE or USAGE
 * on a sequence, CREATE on the database, a schema or a tablespace, UPDATE
 * on a large object, SET on a parameter, any of these through default
 * privileges, any privilege on dbmcp's schema or its tables, SELECT on a
 * view or materialized view that reads them with its owner's rights,
 * EXECUTE on a SECURITY DEFINER function whose owner can read them, or
 * EXECUTE on functions that reach files or other servers (dblink*,
 * pg_read_file, lo_import, …). Warned: other SECURITY DEFINER functions,
 * pg_cancel_backend/pg_terminate_backend (other calls of the role),
 * txid_current and pg_logical_emit_message, a readable
 * pg_stat_statements, role defaults missing (track_activities = off,
 * temp_file_limit, default_transaction_read_only), prepared transactions
 * enabled. Each finding goes to report (may be NULL) with its fix.
 * Returns 0 when nothing is refused; DBMCP_EDENIED when something is (err
 * names the first refusal and its fix, *refusals, when not NULL, how
 * many); another code when the check could not run. TEMP on the database
 * is not refused: PUBLIC holds it by default and a read-only transaction
 * cannot create a temporary table. */
int pg_guard_check(store *db, const char *role, const char *schema, pg_guard_report_fn report,
                   void *arg, int *refusals, dbmcp_error *err);

/* --- every call on the query connection ------------------------------------ */

/* The bounds and names of one call. */
typedef struct pg_guard_call {
    const char *call_id;      /* the audit's call id: in the comment and application_name */
    const char *tool;         /* the tool's name, likewise */
    int statement_timeout_ms; /* the statement's time limit (> 0) */
    int lock_timeout_ms;      /* waiting for a lock; <= 0: the smaller of 2000 and the limit */
    int idle_timeout_ms;      /* idle inside the call's transaction; <= 0: limit + 5000 */
    int work_mem_kb;          /* per sort or hash; <= 0: 16384 */
} pg_guard_call;

/* The statements that open a call, into buf (size bytes): a comment with
 * the call id, BEGIN READ ONLY, SET LOCAL statement_timeout, lock_timeout,
 * idle_in_transaction_session_timeout, work_mem,
 * max_parallel_workers_per_gather = 0 (one call, one core),
 * jit = off (compilation time and memory of a large plan are not the
 * statement's own), standard_conforming_strings = on and client_encoding
 * = UTF8 (the text is lexed as admission read it), application_name, then
 * SAVEPOINT. temp_file_limit is no SET LOCAL: PostgreSQL lets only a
 * superuser set it, so it is a role default (pg_guard_role_script). 0, or
 * DBMCP_EINVAL (a limit <= 0) or DBMCP_ETOOBIG (buf too small). */
int pg_guard_begin_sql(const pg_guard_call *c, char *buf, size_t size, dbmcp_error *err);

/* The same opening as three single statements, for a pipeline (each runs
 * over the extended protocol): the comment and BEGIN READ ONLY; one SELECT
 * of pg_catalog.set_config(name, value, true) for each SET LOCAL above
 * (is_local true is SET LOCAL); SAVEPOINT dbmcp_call. */
typedef struct pg_guard_opening {
    char begin[128];
    char settings[768];
    char savepoint[32];
} pg_guard_opening;
int pg_guard_begin_statements(const pg_guard_call *c, pg_guard_opening *out, dbmcp_error *err);

/* The statements that end a call, whatever happened inside it: back to
 * the savepoint, session advisory locks released, prepared statements
 * dropped, ROLLBACK. */
extern const char pg_guard_end_sql[];

/* Open a call on the query connection db: pg_guard_begin_statements's
 * statements go out with the call's first statement, in the same round
 * trip (store_exec_before_next); when one fails, that statement does not
 * run and fails with the error. 0, or a code when the opening cannot be
 * built. */
int pg_guard_call_begin(store *db, const pg_guard_call *c, dbmcp_error *err);
/* End the call on db: pg_guard_end_sql is sent without waiting for its
 * answer (store_exec_unwaited), which the next command on db reads first;
 * when it failed (the call's statement ended the transaction itself:
 * COMMIT, ROLLBACK, RELEASE SAVEPOINT dbmcp_call, which admission
 * refuses) or left a transaction open, that command runs on a new session,
 * so nothing of the call outlives it. Returns 0. */
int pg_guard_call_end(store *db);

#endif
