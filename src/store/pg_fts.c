/*
 * pg_fts.c — dbmcp's tokens as PostgreSQL tsvectors and tsqueries (see
 * pg_fts.h): the literal writer, the query compiler, the hit counter over
 * a row's tsvector text, and the statements that keep the index in step.
 */
#include "store/pg_fts.h"
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "store/dialect.h"

#define PG_MAX_POS 16383  /* PostgreSQL's MAXENTRYPOS - 1: larger positions are stored as this */
#define PG_MAX_NUMPOS 256 /* positions a lexeme keeps */

int pg_fts_applies(const store *db)
{
    return strcmp(store_dialect(db), "postgres") == 0;
}

/* A lexeme quoted by the input rules of tsvector and tsquery: in single
 * quotes, a quote or backslash escaped by a backslash. */
static void add_lexeme(strbuf *b, const char *s, size_t n)
{
    strbuf_add(b, "'", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'' || s[i] == '\\')
            strbuf_add(b, "\\", 1);
        strbuf_add(b, s + i, 1);
    }
    strbuf_add(b, "'", 1);
}

static int finish_text(strbuf *b, char **out)
{
    if (!b->oom && !b->data)
        strbuf_add(b, "", 0);
    if (b->oom) {
        strbuf_free(b);
        *out = NULL;
        return DBMCP_ENOMEM;
    }
    *out = b->data;
    return 0;
}

/* --- tokens with positions ------------------------------------------------- */

typedef struct ptoken {
    char *text; /* owned, NUL-terminated */
    size_t len;
    int pos; /* 1-based; colocated tokens share one */
} ptoken;

typedef struct ptokens {
    ptoken *t;
    size_t n, cap;
    int pos; /* last position given */
    int oom;
} ptokens;

static int collect_token(void *ctx, const char *tok, size_t len, size_t start, size_t end,
                         int colocated)
{
    (void)start, (void)end;
    ptokens *p = ctx;
    if (!colocated || p->pos == 0)
        p->pos++;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        ptoken *grown = realloc(p->t, cap * sizeof *grown);
        if (!grown)
            return p->oom = 1;
        p->t = grown;
        p->cap = cap;
    }
    char *copy = strndup(tok, len);
    if (!copy)
        return p->oom = 1;
    p->t[p->n++] = (ptoken){copy, len, p->pos};
    return 0;
}

static void ptokens_free(ptokens *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->t[i].text);
    free(p->t);
    *p = (ptokens){0};
}

/* Tokenise text into p, positions continuing from p->pos. */
static int tokenize_into(text_stemmers *stemmers, const char *text, ptokens *p)
{
    if (!text || !*text)
        return 0;
    int rc = text_tokenize_with(stemmers, text, strlen(text), collect_token, p);
    return p->oom || rc < 0 ? DBMCP_ENOMEM : 0;
}

static int by_text_then_pos(const void *a, const void *b)
{
    const ptoken *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static void write_vector(strbuf *b, ptokens *p)
{
    if (p->n == 0)
        return; /* no tokens: an empty vector (and no qsort of a NULL array) */
    qsort(p->t, p->n, sizeof *p->t, by_text_then_pos);
    for (size_t i = 0; i < p->n;) {
        size_t j = i;
        if (b->len)
            strbuf_add(b, " ", 1);
        add_lexeme(b, p->t[i].text, p->t[i].len);
        int last = 0, kept = 0;
        for (; j < p->n && p->t[j].len == p->t[i].len &&
               memcmp(p->t[j].text, p->t[i].text, p->t[i].len) == 0;
             j++) {
            int pos = p->t[j].pos > PG_MAX_POS ? PG_MAX_POS : p->t[j].pos;
            if (pos == last || kept == PG_MAX_NUMPOS)
                continue;
            char num[16];
            snprintf(num, sizeof num, "%c%d", kept ? ',' : ':', pos);
            strbuf_str(b, num);
            last = pos;
            kept++;
        }
        i = j;
    }
}

int pg_fts_vector(const char *const *cols, size_t n, char **out)
{
    *out = NULL;
    text_stemmers *stemmers = text_stemmers_new(TEXT_LANG_DEFAULT);
    if (!stemmers)
        return DBMCP_ENOMEM;
    ptokens p = {0};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (p.pos > 0)
            p.pos++; /* a gap: no phrase spans two columns */
        rc = tokenize_into(stemmers, cols[i], &p);
    }
    text_stemmers_free(stemmers);
    strbuf b = {0};
    if (!rc)
        write_vector(&b, &p);
    ptokens_free(&p);
    if (rc) {
        strbuf_free(&b);
        return rc;
    }
    return finish_text(&b, out);
}

/* --- queries --------------------------------------------------------------- */

struct pg_fts_query {
    char *text;       /* the tsquery */
    ptokens *phrases; /* per phrase: its tokens, positions from 1 */
    size_t count;     /* phrases */
};

/* A never-matching operand for a phrase without tokens (no lexeme of
 * dbmcp's holds a space). */
#define NO_MATCH "' '"

/* Append phrase p as a tsquery operand: positions joined by <->, the
 * alternatives at one position in ( | ). */
static void write_phrase(strbuf *b, const ptokens *p)
{
    if (p->n == 0) {
        strbuf_str(b, NO_MATCH);
        return;
    }
    strbuf_add(b, "(", 1);
    for (size_t i = 0; i < p->n;) {
        size_t j = i;
        while (j < p->n && p->t[j].pos == p->t[i].pos)
            j++;
        if (i)
            strbuf_str(b, " <-> ");
        if (j - i > 1)
            strbuf_add(b, "(", 1);
        for (size_t k = i; k < j; k++) {
            if (k > i)
                strbuf_str(b, " | ");
            add_lexeme(b, p->t[k].text, p->t[k].len);
        }
        if (j - i > 1)
            strbuf_add(b, ")", 1);
        i = j;
    }
    strbuf_add(b, ")", 1);
}

/* Append the phrases of one kind joined by op; returns how many. */
static size_t write_group(strbuf *b, const pg_fts_query *q, const search_index_query *src,
                          search_index_phrase_kind kind, const char *op)
{
    size_t k = 0;
    for (size_t i = 0; i < q->count; i++) {
        if (src->kind[i] != kind)
            continue;
        if (k++)
            strbuf_str(b, op);
        write_phrase(b, &q->phrases[i]);
    }
    return k;
}

static size_t count_kind(const search_index_query *src, search_index_phrase_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < src->count; i++)
        n += src->kind[i] == kind;
    return n;
}

/* The expression fts_query.h describes: R1 & R2 … & (O1 | O2 …), or the
 * optional group alone, then & !(E1 | E2 …). */
static void write_query(strbuf *b, const pg_fts_query *q, const search_index_query *src)
{
    size_t required = count_kind(src, SEARCH_PHRASE_REQUIRED);
    size_t optional = count_kind(src, SEARCH_PHRASE_OPTIONAL);
    size_t excluded = count_kind(src, SEARCH_PHRASE_EXCLUDED);
    strbuf_add(b, "(", 1);
    if (required)
        write_group(b, q, src, SEARCH_PHRASE_REQUIRED, " & ");
    if (required && optional)
        strbuf_str(b, " & ");
    if (optional) {
        strbuf_add(b, "(", 1);
        write_group(b, q, src, SEARCH_PHRASE_OPTIONAL, " | ");
        strbuf_add(b, ")", 1);
    }
    if (!required && !optional)
        strbuf_str(b, NO_MATCH);
    strbuf_add(b, ")", 1);
    if (excluded) {
        strbuf_str(b, " & !(");
        write_group(b, q, src, SEARCH_PHRASE_EXCLUDED, " | ");
        strbuf_add(b, ")", 1);
    }
}

void pg_fts_query_free(pg_fts_query *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->count; i++)
        ptokens_free(&q->phrases[i]);
    free(q->phrases);
    free(q->text);
    free(q);
}

int pg_fts_query_build(const search_index_query *src, pg_fts_query **out)
{
    *out = NULL;
    pg_fts_query *q = calloc(1, sizeof *q);
    text_stemmers *stemmers = text_stemmers_new(TEXT_LANG_DEFAULT);
    if (q)
        q->phrases = calloc(src->count ? src->count : 1, sizeof *q->phrases);
    int rc = q && q->phrases && stemmers ? 0 : DBMCP_ENOMEM;
    if (q && q->phrases)
        q->count = src->count;
    for (size_t i = 0; i < src->count && !rc; i++)
        rc = tokenize_into(stemmers, src->phrases[i], &q->phrases[i]);
    text_stemmers_free(stemmers);
    if (!rc) {
        strbuf b = {0};
        write_query(&b, q, src);
        rc = finish_text(&b, &q->text);
    }
    if (rc) {
        pg_fts_query_free(q);
        return rc;
    }
    *out = q;
    return 0;
}

const char *pg_fts_query_text(const pg_fts_query *q)
{
    return q->text;
}

int pg_fts_phrase_tsquery(const char *phrase, char **out)
{
    *out = NULL;
    text_stemmers *stemmers = text_stemmers_new(TEXT_LANG_DEFAULT);
    if (!stemmers)
        return DBMCP_ENOMEM;
    ptokens p = {0};
    int rc = tokenize_into(stemmers, phrase, &p);
    text_stemmers_free(stemmers);
    strbuf b = {0};
    if (!rc)
        write_phrase(&b, &p);
    ptokens_free(&p);
    if (rc) {
        strbuf_free(&b);
        return rc;
    }
    return finish_text(&b, out);
}

/* --- hits from a row's tsvector text ------------------------------------------ */

typedef struct vlexeme {
    const char *s; /* unescaped, inside the parse buffer */
    size_t len;
    const int *pos; /* ascending */
    size_t npos;
} vlexeme;

typedef struct vparsed {
    char *buf;
    vlexeme *lex;
    size_t n;
    int *pos;
} vparsed;

/* Parse the output form of tsvector ('lex':1,2B 'other':3 …) in place. */
static int parse_vector(const char *text, vparsed *v)
{
    size_t len = strlen(text), words = 1, nums = 1;
    for (size_t i = 0; i < len; i++) {
        words += text[i] == ' ';
        nums += text[i] == ',' || text[i] == ':';
    }
    v->buf = strdup(text);
    v->lex = malloc(words * sizeof *v->lex);
    v->pos = malloc(nums * sizeof *v->pos);
    if (!v->buf || !v->lex || !v->pos)
        return DBMCP_ENOMEM;
    char *r = v->buf;
    size_t npos = 0;
    while (*r) {
        while (*r == ' ')
            r++;
        if (*r != '\'')
            break;
        char *w = ++r, *start = w;
        while (*r && !(*r == '\'' && r[1] != '\'')) {
            if (*r == '\\' && r[1])
                r++;
            else if (*r == '\'')
                r++; /* '' stands for ' */
            *w++ = *r++;
        }
        if (*r == '\'')
            r++;
        vlexeme *lx = &v->lex[v->n++];
        *lx = (vlexeme){start, (size_t)(w - start), v->pos + npos, 0};
        if (*r == ':') {
            do {
                r++;
                long p = strtol(r, &r, 10);
                while (*r >= 'A' && *r <= 'D')
                    r++;
                if (npos < nums)
                    v->pos[npos++] = (int)p;
                lx->npos++;
            } while (*r == ',');
        }
        while (*r && *r != ' ')
            r++;
    }
    return 0;
}

static void vparsed_free(vparsed *v)
{
    free(v->buf);
    free(v->lex);
    free(v->pos);
}

static const vlexeme *find_lexeme(const vparsed *v, const char *s, size_t len)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->lex[i].len == len && memcmp(v->lex[i].s, s, len) == 0)
            return &v->lex[i];
    return NULL;
}

static int has_pos(const vlexeme *lx, int pos)
{
    for (size_t i = 0; lx && i < lx->npos; i++)
        if (lx->pos[i] == pos)
            return 1;
    return 0;
}

/* Does the token group at phrase position k (1-based) occur at pos? */
static int group_at(const vparsed *v, const ptokens *p, int k, int pos)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].pos == k && has_pos(find_lexeme(v, p->t[i].text, p->t[i].len), pos))
            return 1;
    return 0;
}

/* Distinct start positions where phrase p occurs in v. */
static int phrase_count(const vparsed *v, const ptokens *p)
{
    if (p->n == 0)
        return 0;
    int last = p->t[p->n - 1].pos, count = 0;
    /* Candidate starts: positions of the alternatives of the first token. */
    int seen[PG_MAX_NUMPOS * 4];
    size_t nseen = 0;
    for (size_t i = 0; i < p->n && p->t[i].pos == 1; i++) {
        const vlexeme *lx = find_lexeme(v, p->t[i].text, p->t[i].len);
        for (size_t j = 0; lx && j < lx->npos; j++) {
            int start = lx->pos[j], dup = 0;
            for (size_t s = 0; s < nseen && !dup; s++)
                dup = seen[s] == start;
            if (dup)
                continue;
            if (nseen < sizeof seen / sizeof seen[0])
                seen[nseen++] = start;
            int ok = 1;
            for (int k = 2; k <= last && ok; k++)
                ok = group_at(v, p, k, start + k - 1);
            count += ok;
        }
    }
    return count;
}

size_t pg_fts_hits(const pg_fts_query *q, const char *tsvector_text, search_index_hit *hits)
{
    vparsed v = {0};
    size_t n = 0;
    if (tsvector_text && parse_vector(tsvector_text, &v) == 0)
        for (size_t i = 0; i < q->count; i++) {
            int c = phrase_count(&v, &q->phrases[i]);
            if (c > 0)
                hits[n++] = (search_index_hit){(int)i, c};
        }
    vparsed_free(&v);
    return n;
}

/* --- index maintenance ------------------------------------------------------ */

typedef struct pending_row {
    int64_t id;
    char *vector;
} pending_row;

/* Write rows with fragment id (:id, :v) and free their vectors. */
static int write_rows(store *db, dialect_fragment id, pending_row *rows, size_t n, dbmcp_error *err)
{
    char sql[256];
    store_stmt *st = NULL;
    int rc = dialect_format(db, id, sql, sizeof sql, err);
    if (!rc && n)
        rc = store_prepare_cached(db, sql, &st, err);
    for (size_t i = 0; i < n && !rc; i++) {
        store_bind_int(st, ":id", rows[i].id);
        store_bind_text(st, ":v", rows[i].vector);
        int step = store_step(st, err);
        rc = step < 0 ? step : 0;
        store_reset(st);
    }
    if (st)
        store_finalize(st);
    for (size_t i = 0; i < n; i++)
        free(rows[i].vector);
    return rc;
}

int pg_fts_index_chunks(store *db, size_t n, const int64_t *ids, const char *const *texts,
                        const char *const *headings, const char *title, dbmcp_error *err)
{
    pending_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *cols[3] = {texts[i], headings[i], title};
        rows[i].id = ids[i];
        if (pg_fts_vector(cols, 3, &rows[i].vector)) {
            for (size_t k = 0; k < i; k++)
                free(rows[k].vector);
            free(rows);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
    }
    int rc = write_rows(db, DIALECT_CHUNKS_FTS_INDEX, rows, n, err);
    free(rows);
    return rc;
}

int pg_fts_index_memory(store *db, int64_t id, const char *text, dbmcp_error *err)
{
    pending_row row = {id, NULL};
    const char *cols[1] = {text};
    if (pg_fts_vector(cols, 1, &row.vector))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    return write_rows(db, DIALECT_MEMORY_FTS_INDEX, &row, 1, err);
}
