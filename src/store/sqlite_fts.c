/*
 * sqlite_fts.c — the "dbmcp" FTS5 tokenizer (contract in sqlite_fts.h).
 *
 * A thin adapter: FTS5 hands us text and a token callback, textnorm.c
 * does the work, and colocated stems become FTS5_TOKEN_COLOCATED. The
 * fts5_api pointer is fetched the documented way, `SELECT fts5(?1)` with
 * sqlite3_bind_pointer, because FTS5 is built into libsqlite3 and has no
 * exported symbol of its own.
 *
 * Beside the tokenizer: the auxiliary function dbmcp_phrase_hits(), the
 * per-phrase occurrence counts of a matching row that dbmcp's own BM25
 * needs (statistics restricted to the caller's scope; bm25() would count
 * every row of the table), and the scalar dbmcp_token_count().
 */
#include "store/sqlite_fts.h"

#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"

/* One tokenizer instance: the languages of one FTS5 table. */
typedef struct fts_tokenizer {
    int langs;               /* TEXT_LANG_* bits */
    text_stemmers *stemmers; /* owned; NULL when langs is TEXT_LANG_NONE */
} fts_tokenizer;

/* State of one xTokenize call. */
typedef struct fts_call {
    void *fts_ctx;                                          /* FTS5's own */
    int (*token)(void *, int, const char *, int, int, int); /* FTS5's xToken */
} fts_call;

static int parse_languages(const char **args, int n, int *langs)
{
    *langs = n > 0 ? TEXT_LANG_NONE : TEXT_LANG_DEFAULT;
    for (int i = 0; i < n; i++) {
        if (strcmp(args[i], "none") == 0)
            continue;
        int bit = text_lang_parse(args[i]);
        if (bit == TEXT_LANG_NONE || strchr(args[i], ',') || strchr(args[i], ' '))
            return SQLITE_ERROR;
        *langs |= bit;
    }
    return SQLITE_OK;
}

static int tokenizer_create(void *unused, const char **args, int n, Fts5Tokenizer **out)
{
    (void)unused;
    *out = NULL;
    int langs;
    if (parse_languages(args, n, &langs) != SQLITE_OK)
        return SQLITE_ERROR;
    fts_tokenizer *t = calloc(1, sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    t->langs = langs;
    if (langs != TEXT_LANG_NONE && !(t->stemmers = text_stemmers_new(langs))) {
        free(t);
        return SQLITE_NOMEM;
    }
    *out = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void tokenizer_delete(Fts5Tokenizer *tok)
{
    fts_tokenizer *t = (fts_tokenizer *)tok;
    if (!t)
        return;
    text_stemmers_free(t->stemmers);
    free(t);
}

static int emit(void *ctx, const char *token, size_t len, size_t start, size_t end, int colocated)
{
    fts_call *call = ctx;
    return call->token(call->fts_ctx, colocated ? FTS5_TOKEN_COLOCATED : 0, token, (int)len,
                       (int)start, (int)end);
}

static int tokenizer_tokenize(Fts5Tokenizer *tok, void *fts_ctx, int flags, const char *text, int n,
                              int (*token)(void *, int, const char *, int, int, int))
{
    fts_tokenizer *t = (fts_tokenizer *)tok;
    fts_call call = {fts_ctx, token};
    if (n <= 0 || !text)
        return SQLITE_OK;
    text_stemmers *stemmers = (flags & FTS5_TOKENIZE_PREFIX) ? NULL : t->stemmers;
    int rc = text_tokenize_with(stemmers, text, (size_t)n, emit, &call);
    if (rc < 0)
        return SQLITE_NOMEM;
    return rc;
}

static fts5_api *fts5_api_of(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    return api;
}

/* --- dbmcp_phrase_hits(): term frequencies of a matching row ------------------ */

/* dbmcp_phrase_hits(tbl): (phrase, count) int32 pairs of the current row,
 * ascending by phrase, only phrases that occur. Instances come from xInst,
 * which FTS5 reports in order of position, not of phrase; the counts are
 * gathered per phrase first. */
static void phrase_hits_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                           int argc, sqlite3_value **argv)
{
    (void)argc, (void)argv;
    int phrases = api->xPhraseCount(fts), insts = 0;
    int rc = api->xInstCount(fts, &insts);
    int32_t *counts = sqlite3_malloc64((size_t)(phrases > 0 ? phrases : 1) * 3 * sizeof *counts);
    if (rc != SQLITE_OK || !counts) {
        sqlite3_free(counts);
        sqlite3_result_error_code(ctx, rc != SQLITE_OK ? rc : SQLITE_NOMEM);
        return;
    }
    int32_t *pairs = counts + phrases;
    memset(counts, 0, (size_t)phrases * sizeof *counts);
    for (int i = 0; i < insts; i++) {
        int phrase, col, off;
        if ((rc = api->xInst(fts, i, &phrase, &col, &off)) != SQLITE_OK) {
            sqlite3_free(counts);
            sqlite3_result_error_code(ctx, rc);
            return;
        }
        if (phrase >= 0 && phrase < phrases)
            counts[phrase]++;
    }
    int n = 0;
    for (int p = 0; p < phrases; p++)
        if (counts[p]) {
            pairs[2 * n] = p;
            pairs[2 * n + 1] = counts[p];
            n++;
        }
    sqlite3_result_blob(ctx, pairs, n * 2 * (int)sizeof *pairs, SQLITE_TRANSIENT);
    sqlite3_free(counts);
}

/* dbmcp_token_count(text): token positions of text; 0 for NULL. */
static void token_count_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *text = (const char *)sqlite3_value_text(argv[0]);
    int64_t n = text ? text_token_count(text, (size_t)sqlite3_value_bytes(argv[0])) : 0;
    if (n < 0)
        sqlite3_result_error_nomem(ctx);
    else
        sqlite3_result_int64(ctx, n);
}

int sqlite_fts_register(sqlite3 *db)
{
    fts5_api *api = fts5_api_of(db);
    if (!api || api->iVersion < 2)
        return SQLITE_ERROR;
    fts5_tokenizer tokenizer = {tokenizer_create, tokenizer_delete, tokenizer_tokenize};
    int rc = api->xCreateTokenizer(api, SQLITE_FTS_TOKENIZER, NULL, &tokenizer, NULL);
    if (rc == SQLITE_OK)
        rc = api->xCreateFunction(api, SQLITE_FTS_PHRASE_HITS, NULL, phrase_hits_fn, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, SQLITE_FTS_TOKEN_COUNT, 1,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                     token_count_fn, NULL, NULL);
    return rc;
}
