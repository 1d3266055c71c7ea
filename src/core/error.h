/*
 * error.h — errors as values.
 *
 * Every fallible function in dbmcp returns an int status (0 on success, a
 * negative dbmcp_code on failure) and fills a caller-provided struct
 * dbmcp_error. The struct carries two messages: `message` is for the
 * operator (logs, CLI stderr, audit detail) and may name tables, paths and
 * SQL; `public_message` is what an MCP client or an LLM agent may see and
 * never leaks internals. The struct owns no heap memory: it is safe to put
 * on the stack and to overwrite.
 */
#ifndef DBMCP_CORE_ERROR_H
#define DBMCP_CORE_ERROR_H

#include <stddef.h>

typedef enum dbmcp_code {
    DBMCP_OK = 0,
    DBMCP_EINVAL = -1,     /* bad input: arguments, JSON, schema violation */
    DBMCP_ENOTFOUND = -2,  /* a named thing does not exist (or is hidden) */
    DBMCP_EEXISTS = -3,    /* unique name already taken */
    DBMCP_ESTORE = -4,     /* the database failed */
    DBMCP_EDENIED = -5,    /* policy or authentication refused */
    DBMCP_ETOOBIG = -6,    /* a size limit was exceeded */
    DBMCP_ETIMEOUT = -7,   /* a time limit was exceeded */
    DBMCP_ENOMEM = -8,     /* allocation failed */
    DBMCP_EIO = -9,        /* file or socket I/O failed */
    DBMCP_EVERSION = -10,  /* schema or protocol version mismatch */
    DBMCP_EINTERNAL = -11, /* a bug: an invariant did not hold */
    /* The database refused a row for one of its constraints (store.h): */
    DBMCP_ECONSTRAINT_UNIQUE = -12, /* a unique or primary key would repeat */
    DBMCP_ECONSTRAINT_FOREIGN_KEY =
        -13,                         /* a reference to a missing row, or a referenced row removed */
    DBMCP_ECONSTRAINT_CHECK = -14,   /* a CHECK constraint does not hold */
    DBMCP_ECONSTRAINT_NOT_NULL = -15 /* NULL in a NOT NULL column */
} dbmcp_code;

typedef struct dbmcp_error {
    int code;                 /* a dbmcp_code, DBMCP_OK when clear */
    char message[1024];       /* operator detail; may name internals */
    char public_message[512]; /* safe for clients and agents */
} dbmcp_error;

/* Reset to DBMCP_OK with empty messages. */
void dbmcp_error_clear(dbmcp_error *err);

/* Set code and both messages to the same printf-formatted text (for errors
 * whose text is safe to show, such as argument validation). Returns code so
 * callers can write `return dbmcp_error_set(err, DBMCP_EINVAL, ...)`.
 * err may be NULL. */
int dbmcp_error_set(dbmcp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Set code, the operator message (formatted) and a separate fixed public
 * message. Returns code. err may be NULL. */
int dbmcp_error_set_private(dbmcp_error *err, int code, const char *public_msg, const char *fmt,
                            ...) __attribute__((format(printf, 4, 5)));

/* Prefix both messages with "context: ". Returns err->code. */
int dbmcp_error_prefix(dbmcp_error *err, const char *context);

/* A short stable name for a code ("invalid_argument", "not_found", …),
 * used as the audit error class. Never NULL. */
const char *dbmcp_code_name(int code);

#endif
