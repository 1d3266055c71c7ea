/*
 * fts_query.h — turning a person's or a model's free-text query into a
 * SQLite FTS5 MATCH expression that cannot inject FTS5 syntax.
 *
 * The query syntax (docs/text.md):
 *
 *   word                 a term; by default a row matches when ANY term
 *                        matches (OR), and bm25 ranks rows holding more of
 *                        them higher. Requiring every word makes recall
 *                        collapse on real questions.
 *   "two words"          a phrase: the words in this order, adjacent.
 *                        An unterminated quote runs to the end of the query.
 *   +word  +"a phrase"   required: every match must hold it (AND).
 *   -word  -"a phrase"   excluded: no match may hold it (NOT). A '-' before
 *                        a digit is part of the word ("-5"), and a '-'
 *                        inside a word is not an operator ("e-mail").
 *
 * A plain optional word (not quoted, no operator) that the tokenizer
 * splits into several tokens counts as one optional term per token: a
 * Chinese or Japanese run becomes its character bigrams, "Caroline's"
 * becomes caroline OR s, "e-mail" e OR mail. So a question written
 * without spaces ("黑豹队的防守丢了多少分") matches on its bigrams and
 * BM25 ranks the rows holding more (and rarer) of them first, instead of
 * asking for the whole question as one phrase, which no row contains.
 * Quoted ("東京都") or with + or - such a word stays one phrase: its
 * tokens adjacent, in order. Each optional token is emitted once (folded
 * form), at most FTS_QUERY_MAX_TOKENS of them; later ones are dropped.
 *
 * A plain optional function word — "the", "is", "what", "how", "der",
 * "wie" (the English and German list of search/content_words.h) — is left
 * out when the query has any other word to search for: it matches nearly
 * every row, and question words, rare in documents, gave a passage that
 * shares only "how" and "did" with a question a high BM25 (measured in
 * bench/retrieval: LoCoMo tuning half MRR 0.416 with them, 0.465
 * without). A query of function words only keeps them; quoted, a
 * function word is always searched ("\"the who\"").
 *
 * Everything else is text. FTS5 operators and punctuation (AND, OR, NOT,
 * NEAR(...), '*', '^', ':', '(', ')', '{', '}') are never operators: each
 * term is emitted as an FTS5 string ("..." with '"' doubled), and the FTS5
 * tokenizer (the "dbmcp" tokenizer, store/sqlite_fts.h) splits, folds and
 * stems its text the same way it did the documents. Terms are separated by
 * white space (any Unicode space or control character) and by '"'. A term
 * with no searchable word in it (only punctuation, say) is dropped.
 *
 * The generated expression, for required R, optional O (after the split
 * above) and excluded E:
 *   only optional:        O1 OR O2 ...
 *   with required:        R1 AND R2 ... [AND (O1 OR ... OR R1)]
 *                         (the optional group holds R1 too, so it is always
 *                         true and only adds the optional terms to bm25)
 *   with excluded:        (<the above>) NOT (E1 OR E2 ...)
 * With FTS_QUERY_ALL_TERMS every plain term is required.
 *
 * Limits: the query is at most FTS_QUERY_MAX_BYTES bytes of valid UTF-8
 * with at most FTS_QUERY_MAX_TERMS terms (phrases count as one). Errors
 * (err->message == err->public_message, fit for the agent; callers may add
 * the field name with dbmcp_error_prefix):
 *   DBMCP_ETOOBIG  "query is N bytes; the limit is 4096"
 *                  "query has N terms; the limit is 64"
 *   DBMCP_EINVAL   "query is not valid UTF-8 (byte N)"
 *                  "query has no searchable words"
 *                  "query has only excluded words; add a word to search for"
 *
 * Thread-safe; no global state. Ownership: the caller frees *match with
 * free(), a parsed fts_query with fts_query_free and an fts_match with
 * fts_match_free.
 */
#ifndef DBMCP_SEARCH_FTS_QUERY_H
#define DBMCP_SEARCH_FTS_QUERY_H

#include <stddef.h>

#include "core/error.h"

#define FTS_QUERY_MAX_BYTES 4096
#define FTS_QUERY_MAX_TERMS 64
#define FTS_QUERY_MAX_TOKENS 256 /* optional strings in one expression, after splitting */

/* Flags for fts_query_build / fts_query_parse. */
#define FTS_QUERY_ALL_TERMS 0x1 /* plain terms are required (AND), not OR */

typedef enum fts_term_kind {
    FTS_TERM_ANY = 0,  /* optional: any-term match, ranks higher when present */
    FTS_TERM_REQUIRED, /* +term: must be present */
    FTS_TERM_EXCLUDED  /* -term: must be absent */
} fts_term_kind;

typedef struct fts_term {
    fts_term_kind kind;
    int phrase; /* 1 when the user wrote it in double quotes */
    char *text; /* owned; the term's text as written, without quotes/operator */
} fts_term;

typedef struct fts_query {
    fts_term *terms; /* owned; in query order, empty terms dropped */
    size_t count;
} fts_query;

/* Parse query[0..n) into terms (no SQL). Returns 0, DBMCP_ETOOBIG,
 * DBMCP_EINVAL (not UTF-8, no searchable words, only excluded words) or
 * DBMCP_ENOMEM; on failure *out is empty. */
int fts_query_parse(const char *query, size_t n, int flags, fts_query *out, dbmcp_error *err);
void fts_query_free(fts_query *q);

/* A query turned into an FTS5 expression, with its phrases in the order
 * FTS5 numbers them (phrase i of the expression is phrases[i]), so that
 * per-phrase statistics can be counted and a backend without FTS5 can
 * rebuild the same match (store/search_index.h). */
typedef struct fts_match {
    char *expression;     /* owned: the MATCH expression */
    int positive;         /* phrases before the excluded group, the repeat of the first
                             required one (which only keeps the optional group true) not
                             counted: the ones a matching row can hold (coverage) */
    char **phrases;       /* owned: the text of each phrase, without quotes */
    fts_term_kind *kinds; /* owned: how each takes part (that repeat: FTS_TERM_ANY) */
    size_t count;         /* phrases */
} fts_match;

/* Build the match of query[0..n) into *out (fts_match_free releases it).
 * The expression is bound as a parameter of `tbl MATCH :q`, never pasted
 * into SQL. Returns 0 or the errors of fts_query_parse; *out is empty on
 * failure. */
int fts_match_build(const char *query, size_t n, int flags, fts_match *out, dbmcp_error *err);
void fts_match_free(fts_match *m);

/* The expression alone: a new NUL-terminated string in *match (caller
 * frees); *positive (may be NULL) gets fts_match's positive. */
int fts_query_build(const char *query, size_t n, int flags, char **match, int *positive,
                    dbmcp_error *err);

#endif
