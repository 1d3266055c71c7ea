/*
 * sql_failure.h — what an agent is told when SQL on the query connection
 * failed: execute_query's agent-written SQL, a report tool's SQL and an
 * `sql` resource template.
 *
 * The store classifies the engine's refusal (store_last_failure: unknown
 * table or column, syntax error near a token, wrong arguments, type
 * mismatch, division by zero, a limit); this module turns the class into
 * one sentence the model can act on, e.g.
 *
 *   Unknown column "nme". Close names you can query: name (products)
 *
 * Rules that keep it from leaking:
 *   - Visibility is schema discovery's (store/introspect.h, the same list
 *     list_tables shows): close names are only ever names the caller can
 *     see, and a table the caller may not see (dbmcp's own tables, a view
 *     the guard refuses, a PostgreSQL relation the query role may not
 *     read) is answered exactly as a table that does not exist. For that,
 *     every table the statement names after FROM or JOIN (or TABLE on
 *     PostgreSQL) is looked up first: the first one not visible is
 *     reported as unknown, whatever the engine said (a missing table is
 *     the first thing both engines report, before any column).
 *   - Every echoed token or name is escaped (core/text_safe: control and
 *     bidirectional characters become visible escapes) and cut to
 *     SQL_FAILURE_NAME_SHOWN bytes.
 *   - The engine's own message stays in err->message (operator log and
 *     audit row), with the class appended.
 *
 * Time and size limits are named with their value and setting.
 */
#ifndef DBMCP_TOOLS_SQL_FAILURE_H
#define DBMCP_TOOLS_SQL_FAILURE_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"
#include "tools/sql_admission.h"

/* Bytes of one echoed name or token (escaped) before it is cut. */
#define SQL_FAILURE_NAME_SHOWN 64
/* Close names offered at most. */
#define SQL_FAILURE_SUGGESTIONS 3

/* Who wrote the SQL and the limits it ran under. */
typedef struct sql_failure_context {
    const char *sql;             /* the text as written (without dbmcp's tag) */
    sql_dialect dialect;         /* how to read it */
    int operator_sql;            /* a report tool or template: the agent cannot edit it */
    int timeout_ms;              /* the time limit in force */
    const char *timeout_setting; /* its setting ("query.timeout_ms", "report.timeout_ms") */
    size_t memory_bytes;         /* the memory budget (query.max_memory_bytes); 0: unknown */
    int value_bytes;             /* the value budget (query.max_value_bytes); 0: none */
    const char *functions;       /* the function allowlist (CSV) to suggest from; may be NULL */
} sql_failure_context;

/* Replace err->public_message, for the failure rc of c->sql on query
 * connection db, with the sentence for the agent; f is the store's class
 * (store_last_failure, read right after the failing call). Reads db's
 * schema (introspect_list, introspect_columns) within a time limit of
 * its own, so call it after the statement's call has ended and its
 * guards are lifted; the handle's time limit is 0 afterwards. Appends the
 * class to err->message. Returns rc. */
int sql_failure_explain(store *db, int rc, const store_failure *f, const sql_failure_context *c,
                        dbmcp_error *err);

#endif
