/*
 * pg_fts.h — full-text search on PostgreSQL with dbmcp's own tokens.
 *
 * SQLite indexes text with the FTS5 tokenizer "dbmcp" (store/sqlite_fts.h),
 * which calls core/textnorm.h. PostgreSQL keeps, per indexed row, a
 * tsvector in dbmcp_chunks_fts / dbmcp_mem_fts (rowid, doc; GIN index)
 * holding exactly those tokens, computed here in C and written as a
 * tsvector literal with positions ('tok':1 'alt':1 'next':2), never
 * PostgreSQL's own parser or stemmer. So a phrase, a count of occurrences
 * and a row's length are the same on both engines, and so are BM25 scores.
 *
 * Columns. An FTS5 row has columns (chunks: text, heading, title) and a
 * phrase never spans two of them. The tsvector has one position space:
 * each column starts one position after the previous column's last token
 * plus one, so a gap no phrase (`a <-> b`) can cross separates them.
 *
 * Queries. The FTS5 expression of search/fts_query.h is rebuilt from its
 * phrase list (search_index_query: phrases and kinds, in FTS5's order) as
 * a tsquery, bound as text and cast (CAST(:q AS tsquery)): a phrase's
 * tokens joined by <->, colocated stems as (a | b) at their position;
 * required phrases joined by &, the optional ones as one | group, the
 * excluded ones as & !( … | … ). Per-phrase occurrence counts of a
 * matching row (what dbmcp_phrase_hits returns on SQLite) are counted in C
 * from the row's tsvector text.
 *
 * Limits of PostgreSQL's tsvector (exact below them): positions above
 * 16383 are stored as 16383 and a lexeme keeps at most 256 positions; the
 * literal written here follows the same rules so a very long row (more
 * than 16383 tokens) matches phrases near its end less exactly than FTS5.
 *
 * Ownership: returned strings and pg_fts_query are the caller's, freed
 * with free() and pg_fts_query_free.
 */
#ifndef DBMCP_STORE_PG_FTS_H
#define DBMCP_STORE_PG_FTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/search_index.h"
#include "store/store.h"

/* Nonzero when db's full text is kept by this module (PostgreSQL). */
int pg_fts_applies(const store *db);

/* --- pure text code --------------------------------------------------------- */

/* The tsvector literal of the columns cols[0..n) (NULL entries are empty)
 * tokenised as the FTS5 tokenizer does, into *out (caller frees). 0 or
 * DBMCP_ENOMEM. */
int pg_fts_vector(const char *const *cols, size_t n, char **out);

/* A compiled keyword query: the tsquery text and, per phrase, its token
 * positions with their alternatives, for counting hits. */
typedef struct pg_fts_query pg_fts_query;

/* Compile q (its phrases and kinds; q->match is not read). 0,
 * DBMCP_ENOMEM. */
int pg_fts_query_build(const search_index_query *q, pg_fts_query **out);
/* The tsquery text of a compiled query (valid while it lives). */
const char *pg_fts_query_text(const pg_fts_query *q);
void pg_fts_query_free(pg_fts_query *q);

/* The tsquery of one phrase alone into *out (caller frees). 0 or
 * DBMCP_ENOMEM. */
int pg_fts_phrase_tsquery(const char *phrase, char **out);

/* The phrase hits of a row from its tsvector's text form (tsvector::text):
 * (phrase, count) of every phrase that occurs, ascending by phrase, into
 * hits (room for the query's phrase count). Returns how many. */
size_t pg_fts_hits(const pg_fts_query *q, const char *tsvector_text, search_index_hit *hits);

/* --- index maintenance ---------------------------------------------------- */

/* Index n chunks: chunk ids[i] with its text texts[i], its heading
 * headings[i] (may be NULL) and its document's title. */
int pg_fts_index_chunks(store *db, size_t n, const int64_t *ids, const char *const *texts,
                        const char *const *headings, const char *title, dbmcp_error *err);
/* Index memory item id with text. */
int pg_fts_index_memory(store *db, int64_t id, const char *text, dbmcp_error *err);

#endif
