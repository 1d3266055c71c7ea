/*
 * sqlite_fts.h — private to store/: the "dbmcp" FTS5 tokenizer, which
 * makes SQLite full-text search see text the way core/textnorm.h does
 * (NFKC + case folding, Snowball stems, CJK bigrams).
 *
 *   CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'dbmcp de en');
 *
 * Arguments are stemming languages: "de"/"german", "en"/"english", or
 * "none" (fold only); no argument means both German and English. An
 * unknown argument makes CREATE VIRTUAL TABLE fail. Every stem of a word
 * is indexed at one position (FTS5_TOKEN_COLOCATED); query text gets the
 * same treatment, so a query word matches a document word when any of
 * their stems agree ("Arbeitszeit" finds "Arbeitszeiten", "payment" finds
 * "payments"). Prefix queries ("arbeitsz*") fold without stemming, since
 * a stem of a prefix is not a prefix of the stem.
 *
 * Thread-safety: a tokenizer instance belongs to one FTS5 table of one
 * connection and keeps its own stemmers; a connection is used by one
 * thread at a time (store.h), so no locking is needed.
 */
#ifndef DBMCP_STORE_SQLITE_FTS_H
#define DBMCP_STORE_SQLITE_FTS_H

#include <sqlite3.h>

/* The tokenizer's name in CREATE VIRTUAL TABLE … tokenize = '…'. */
#define SQLITE_FTS_TOKENIZER "dbmcp"

/* The auxiliary function dbmcp_coverage(tbl [, n]): for the current row of
 * a MATCH, the idf-weighted share of the first n phrases of the expression
 * (all when n is absent or < 1) that occur in the row, 0..1, with idf as
 * bm25() computes it:
 *
 *   SELECT rowid, bm25(t), dbmcp_coverage(t, 3) FROM t WHERE t MATCH :q
 *
 * bm25 orders the rows of one query; coverage says how much of the query
 * a row holds, comparable across queries (search/engine.h's relevance
 * floor). */
#define SQLITE_FTS_COVERAGE "dbmcp_coverage"

/* The scalar SQL function dbmcp_token_count(text): the token positions the
 * "dbmcp" tokenizer gives text (text_token_count, core/textnorm.h); 0 for
 * NULL. Migrations use it to fill the length column of indexed rows. */
#define SQLITE_FTS_TOKEN_COUNT "dbmcp_token_count"

/* Register the "dbmcp" tokenizer, dbmcp_coverage() and dbmcp_token_count()
 * on db (store_open does this for every handle). Returns an SQLite result
 * code; SQLITE_ERROR when this SQLite has no FTS5. */
int sqlite_fts_register(sqlite3 *db);

#endif
