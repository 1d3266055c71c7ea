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

/* The auxiliary function dbmcp_phrase_hits(tbl): for the current row of a
 * MATCH, how often each phrase of the expression occurs in it (over all
 * columns), as a BLOB of int32 pairs (phrase index, count) in ascending
 * phrase order, phrases that do not occur left out:
 *
 *   SELECT rowid, dbmcp_phrase_hits(t) FROM t WHERE t MATCH :q
 *
 * The term frequencies of BM25 (search/bm25.h), which dbmcp computes itself
 * from statistics of the caller's scope rather than with bm25(), whose
 * statistics span every row of the table (store/search_index.h). */
#define SQLITE_FTS_PHRASE_HITS "dbmcp_phrase_hits"

/* The scalar SQL function dbmcp_token_count(text): the token positions the
 * "dbmcp" tokenizer gives text (text_token_count, core/textnorm.h); 0 for
 * NULL. Migrations use it to fill the length column of indexed rows. */
#define SQLITE_FTS_TOKEN_COUNT "dbmcp_token_count"

/* Register the "dbmcp" tokenizer, dbmcp_phrase_hits() and
 * dbmcp_token_count() on db (store_open does this for every handle).
 * Returns an SQLite result code; SQLITE_ERROR when this SQLite has no
 * FTS5. */
int sqlite_fts_register(sqlite3 *db);

#endif
