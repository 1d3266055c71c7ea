/*
 * driver.h — private to store/: what a backend implements behind store.h.
 *
 * store.c owns the public functions of store.h; each forwards to the
 * driver of the handle it is given. A driver's handle types begin with the
 * common headers below (`store base;` / `store_stmt base;` as their first
 * member), so a driver converts with a cast and store.c reads the driver
 * and the open flags without knowing the rest.
 *
 * A driver's functions have store.h's contracts word for word (see there);
 * store.c checks nothing on their behalf beyond NULL handles where store.h
 * promises a no-op. Every entry is required: a driver that cannot do
 * something (a budget its engine cannot bound) implements the entry as a
 * documented no-op or refusal.
 *
 * Ownership: drivers are static tables; handles are owned by their caller
 * as store.h says.
 */
#ifndef DBMCP_STORE_DRIVER_H
#define DBMCP_STORE_DRIVER_H

#include "store/store.h"

typedef struct store_driver store_driver;

/* The first member of every driver's connection handle. */
struct store {
    const store_driver *driver;    /* never NULL */
    int flags;                     /* STORE_* given to store_open */
    struct store_stmt_cache *kept; /* store_prepare_cached's statements; NULL until the first */
};

/* The first member of every driver's statement handle. */
struct store_stmt {
    const store_driver *driver; /* the owner's driver */
    store *owner;               /* not owned */
    char *trace_sql;            /* the text, kept while spans are recorded (store.c); owned */
    struct trace_span *span;    /* the open span of this execution, or NULL; owned */
    int64_t trace_rows;         /* rows stepped in it */
    int kept;                   /* held by owner's cache: store_finalize gives it back */
};

struct store_driver {
    const char *name; /* store_dialect(): "sqlite" or "postgres" */
    /* Opens url; on success *out's header is filled by the driver. */
    int (*open)(const char *url, int flags, store **out, dbmcp_error *err);
    void (*close)(store *db);
    const char *(*identity)(store *db);
    int (*exec)(store *db, const char *sql, dbmcp_error *err);
    /* Optional (NULL: store.c runs exec): store_exec_before_next and
     * store_exec_unwaited. */
    int (*exec_before_next)(store *db, const char *const *sql, size_t n, dbmcp_error *err);
    void (*exec_unwaited)(store *db, const char *sql);
    int (*wait_notify)(store *db, int timeout_ms, int wake_fd, dbmcp_error *err);
    int (*begin)(store *db, dbmcp_error *err);
    int (*commit)(store *db, dbmcp_error *err);
    void (*rollback)(store *db);
    int64_t (*changes)(store *db);

    int (*prepare)(store *db, const char *sql, store_stmt **out, dbmcp_error *err);
    void (*finalize)(store_stmt *st);
    void (*reset)(store_stmt *st);
    /* Every parameter back to NULL (a kept statement handed out again). */
    void (*clear_bindings)(store_stmt *st);
    int (*step)(store_stmt *st, dbmcp_error *err);
    int (*stmt_is_readonly)(store_stmt *st, int *readonly, dbmcp_error *err);

    int (*bind_text)(store_stmt *st, const char *name, const char *value);
    int (*bind_int)(store_stmt *st, const char *name, int64_t value);
    int (*bind_double)(store_stmt *st, const char *name, double value);
    int (*bind_blob)(store_stmt *st, const char *name, const void *data, size_t size);
    int (*bind_null)(store_stmt *st, const char *name);
    int (*param_count)(store_stmt *st);
    const char *(*param_name)(store_stmt *st, int i);

    int (*column_count)(store_stmt *st);
    const char *(*column_name)(store_stmt *st, int i);
    store_type (*column_type)(store_stmt *st, int i);
    store_kind (*column_kind)(store_stmt *st, int i);
    const char *(*column_text)(store_stmt *st, int i);
    int64_t (*column_int)(store_stmt *st, int i);
    double (*column_double)(store_stmt *st, int i);
    const void *(*column_blob)(store_stmt *st, int i);
    size_t (*column_bytes)(store_stmt *st, int i);

    void (*set_busy_timeout)(store *db, int ms);
    int (*set_function_allowlist)(store *db, const char *csv, dbmcp_error *err);
    void (*set_time_limit)(store *db, int ms);
    void (*set_cancel_flag)(store *db, atomic_int *flag);
    void (*set_memory_budget)(store *db, size_t bytes);
    void (*set_slow_hook)(store *db, int after_ms, void (*fn)(void *arg), void *arg);
    int (*verify_readonly)(store *db, dbmcp_error *err);
    void (*trusted_begin)(store *db);
    void (*trusted_end)(store *db);
    int (*guard_explain)(store *db, const char *sql, char *reason, size_t size);
    void (*set_query_budget)(store *db, const store_query_budget *budget);
    void (*last_failure)(store *db, store_failure *out);
};

/* The drivers built into this binary. */
extern const store_driver sqlite_store_driver;
extern const store_driver postgres_store_driver;

/* --- failures (failure.c): what both drivers share to fill store_failure --- */

/* Into out (size > 0, cut to fit): the token of sql that starts at byte
 * `offset` — a name with its qualifiers (a.b, "x"."y"), a string or number
 * literal, or a run of operator characters; "" past the end or at
 * whitespace only. Lexical: either dialect's quotes. */
void store_failure_token_at(const char *sql, size_t offset, char *out, size_t size);
/* Into out (size > 0, cut to fit): the first function sql calls (a bare
 * name followed by "(", outside quotes and literals) whose name is a whole
 * word of msg, the engine's message in whatever language; "" when none.
 * For failures that name a function only in their message (PostgreSQL's
 * 42501 on a function the role may not EXECUTE). */
void store_failure_call_in(const char *sql, const char *msg, char *out, size_t size);
/* f with kind and name (NULL: ""), name cut to fit. */
void store_failure_set(store_failure *f, store_failure_kind kind, const char *name);
/* f with kind and name the n bytes at name (cut to fit). */
void store_failure_setn(store_failure *f, store_failure_kind kind, const char *name, size_t n);

/* Nonzero when url names a PostgreSQL database (postgres:// or
 * postgresql://, any case of the scheme). */
int store_url_is_postgres(const char *url);

#endif
