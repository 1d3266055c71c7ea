/*
 * postgres_sql.h — private to the PostgreSQL driver (store/postgres*.c) and
 * its unit test: statement text as PostgreSQL's extended protocol wants it.
 *
 * store.h's statements name their parameters (:year); PostgreSQL numbers
 * them ($1). pg_sql_rewrite turns one into the other with a scanner that
 * knows where a colon is not a parameter: inside '…', E'…' (backslash
 * escapes), "…" identifiers, $tag$…$tag$ bodies, -- and nested slash-star
 * comments, and in :: casts and := / => named arguments. The same name used
 * twice is the same $n. It also refuses what store_prepare refuses before
 * the server sees it: an empty text, more than one statement (a ';' at the
 * top level followed by more than whitespace and comments) and PostgreSQL's
 * own $n parameters, which would collide with the ones it assigns.
 *
 * Pure code: no libpq, no I/O, so every case is unit-tested alone.
 *
 * Ownership: pg_sql_rewrite fills a pg_sql the caller releases with
 * pg_sql_free.
 */
#ifndef DBMCP_STORE_POSTGRES_SQL_H
#define DBMCP_STORE_POSTGRES_SQL_H

#include <stddef.h>

#include "core/error.h"

/* PostgreSQL's bound on the parameters of one statement (a 16-bit count). */
#define PG_SQL_MAX_PARAMS 65535

/* What the text alone says about a statement, for decisions that must not
 * cost a round trip (see postgres.c: whether a statement may be cancelled
 * half-read without losing a change). */
typedef enum pg_sql_kind {
    PG_SQL_QUERY = 0, /* SELECT, VALUES, TABLE, SHOW, or WITH with no INSERT/UPDATE/DELETE/MERGE */
    PG_SQL_EXPLAIN,   /* EXPLAIN …: see pg_sql_explain_target */
    PG_SQL_OTHER      /* anything else: DML, DDL, utility statements */
} pg_sql_kind;

/* One rewritten statement. */
typedef struct pg_sql {
    char *text;       /* the statement with $n for :names, trailing ';' and comments cut; owned */
    char **names;     /* names[i] is the ":name" of $(i+1), in order of first use; owned */
    int n_names;      /* entries of names */
    pg_sql_kind kind; /* from the first keyword (and the DML keywords of a WITH) */
} pg_sql;

/* Rewrite sql into out. backslash_quotes: the server has
 * standard_conforming_strings off, so plain '…' strings take backslash
 * escapes too. 0, or DBMCP_EINVAL (empty, several statements, $n
 * parameters), DBMCP_ETOOBIG (more than PG_SQL_MAX_PARAMS names) or
 * DBMCP_ENOMEM with err filled; out is then empty. */
int pg_sql_rewrite(const char *sql, int backslash_quotes, pg_sql *out, dbmcp_error *err);
/* Release what pg_sql_rewrite allocated; the struct itself is the caller's. */
void pg_sql_free(pg_sql *s);

/* For an EXPLAIN statement's text: the offset of the statement it explains
 * (after EXPLAIN and its options), and *analyze set when the options ask
 * for ANALYZE (the explained statement then runs). -1 when text does not
 * start with EXPLAIN. */
long pg_sql_explain_target(const char *text, int *analyze);

#endif
