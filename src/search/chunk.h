/*
 * chunk.h — splitting a document's text into chunks for search.
 *
 * Two strategies:
 *   CHUNK_TOKENS     windows of about max_tokens tokens with `overlap`
 *                    tokens shared between neighbours;
 *   CHUNK_STRUCTURE  headings start a chunk; paragraphs are packed
 *                    together up to max_tokens; an over-long paragraph
 *                    is split at sentence ends (. ! ? and 。！？ and
 *                    their fullwidth forms), an over-long sentence at
 *                    word boundaries.
 * Tokens are counted as textnorm.h sees them (a CJK bigram is a token,
 * counted in the chunk where it starts).
 * A cut never falls inside a UTF-8 sequence or inside a word (a run of
 * letters/digits in a spaced script); in CJK text any character boundary
 * is a word boundary. Every chunk records its byte offsets into the
 * source and, with `markdown`, the heading it sits under: the text of the
 * nearest "#" line above it (above the window's start for CHUNK_TOKENS),
 * without the marks, at most 512 bytes.
 *
 * White space at either end of a chunk is trimmed; a stretch without any
 * token (punctuation only) makes no chunk. docs/text.md has the details.
 *
 * Ownership: chunk_split fills a chunk_list the caller frees with
 * chunk_list_free. The input is not modified and should be valid UTF-8
 * (ingestion checks that first); invalid bytes are treated as separators,
 * never cut through. Texts over 4 GiB are refused (DBMCP_ETOOBIG).
 */
#ifndef DBMCP_SEARCH_CHUNK_H
#define DBMCP_SEARCH_CHUNK_H

#include <stddef.h>

#include "core/error.h"

typedef enum chunk_strategy { CHUNK_TOKENS = 0, CHUNK_STRUCTURE } chunk_strategy;

typedef struct chunk_options {
    chunk_strategy strategy;
    int max_tokens; /* 1..100000; default 200 */
    int overlap;    /* CHUNK_TOKENS only; 0 <= overlap < max_tokens; default 40 */
    int markdown;   /* nonzero: "# " lines outside ``` fences are headings */
} chunk_options;

typedef struct chunk {
    size_t start, end; /* byte offsets [start, end) into the source */
    char *heading;     /* owned; nearest heading above, or NULL */
    int tokens;        /* tokens starting inside [start, end), 1..max_tokens */
} chunk;

typedef struct chunk_list {
    chunk *items;
    size_t count;
} chunk_list;

/* Defaults: CHUNK_STRUCTURE, 200 tokens, overlap 40, markdown on. */
void chunk_options_default(chunk_options *o);
/* Split text[0..n) (o NULL: the defaults). Returns 0, DBMCP_EINVAL (bad
 * options; the message names the field), DBMCP_ETOOBIG or DBMCP_ENOMEM;
 * on failure *out is empty. */
int chunk_split(const char *text, size_t n, const chunk_options *o, chunk_list *out,
                dbmcp_error *err);
void chunk_list_free(chunk_list *l);

#endif
