/*
 * chunk.c — splitting a document into search chunks (contract in chunk.h).
 *
 * The text is tokenised once with textnorm (folding only) into an array
 * of token offsets whose starts ascend; the tokens of a byte range are
 * those starting inside it (a CJK bigram cut in two counts where it
 * starts), counted with two binary searches. Every cut is a token start,
 * a token end, a line or paragraph boundary or a sentence end, extended
 * or trimmed only over white space and punctuation, so a cut never falls
 * inside a word or a UTF-8 sequence. Bytes that are not valid UTF-8 count
 * as one-byte separators.
 *
 * CHUNK_TOKENS slides a window of max_tokens tokens by max_tokens -
 * overlap. CHUNK_STRUCTURE walks lines: a markdown heading (outside ```
 * fences) closes the current chunk and starts a section; blank lines end
 * paragraphs; paragraphs are packed greedily up to max_tokens; a longer
 * paragraph is cut into sentences and a longer sentence into pieces of
 * max_tokens tokens at token starts.
 */
#include "search/chunk.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core/textnorm.h"

#define CHUNK_MAX_TOKENS_LIMIT 100000 /* max_tokens above this is refused */
#define HEADING_MAX_BYTES 512         /* recorded headings are cut here */

typedef struct token_span {
    uint32_t start, end; /* byte offsets of one token */
} token_span;

/* Everything one chunk_split call works on. */
typedef struct splitter {
    const char *text;
    size_t n;
    const chunk_options *opt;
    token_span *tokens; /* owned; starts ascend */
    size_t ntokens;
    size_t cap;
    chunk_list *out;
    size_t out_cap;
    int oom;
    /* CHUNK_STRUCTURE packing state */
    size_t pack_start, pack_end; /* the chunk being packed, when packing */
    int packing;
    const char *heading; /* current section heading (in heading_buf) or NULL */
    size_t scan_pos;     /* CHUNK_TOKENS: next line to scan for headings */
    int scan_fenced;     /* CHUNK_TOKENS: the scan is inside a ``` fence */
    char heading_buf[HEADING_MAX_BYTES + 1];
} splitter;

/* --- characters ---------------------------------------------------------- */

/* Length of the character at i (1 for an invalid byte). */
static size_t char_len(const splitter *sp, size_t i)
{
    int32_t cp;
    size_t len = text_utf8_decode(sp->text + i, sp->n - i, &cp);
    return len ? len : 1;
}

/* Start of the character that ends at pos (pos > floor). */
static size_t char_before(const splitter *sp, size_t floor, size_t pos)
{
    int32_t cp;
    for (size_t k = 1; k <= 4 && pos >= floor + k; k++) {
        size_t p = pos - k;
        if (((unsigned char)sp->text[p] & 0xC0) == 0x80)
            continue;
        return text_utf8_decode(sp->text + p, sp->n - p, &cp) == k ? p : pos - 1;
    }
    return pos - 1;
}

/* Nonzero when the character at i is white space. */
static int space_at(const splitter *sp, size_t i)
{
    int32_t cp;
    return text_utf8_decode(sp->text + i, sp->n - i, &cp) && text_is_space(cp);
}

/* Narrow [*a, *b) to exclude white space at both ends. */
static void trim(const splitter *sp, size_t *a, size_t *b)
{
    while (*a < *b && space_at(sp, *a))
        *a += char_len(sp, *a);
    while (*b > *a) {
        size_t p = char_before(sp, *a, *b);
        if (!space_at(sp, p))
            break;
        *b = p;
    }
}

/* --- tokens ------------------------------------------------------------- */

static int collect_token(void *ctx, const char *t, size_t len, size_t start, size_t end,
                         int colocated)
{
    (void)t, (void)len;
    splitter *sp = ctx;
    if (colocated)
        return 0;
    if (sp->ntokens == sp->cap) {
        size_t c = sp->cap ? sp->cap * 2 : 256;
        token_span *g = realloc(sp->tokens, c * sizeof *g);
        if (!g)
            return DBMCP_ENOMEM;
        sp->tokens = g;
        sp->cap = c;
    }
    sp->tokens[sp->ntokens++] = (token_span){(uint32_t)start, (uint32_t)end};
    return 0;
}

/* Index of the first token starting at or after pos. */
static size_t first_token_from(const splitter *sp, size_t pos)
{
    size_t lo = 0, hi = sp->ntokens;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->tokens[mid].start < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Tokens starting inside [a, b): each token counts in exactly one of
 * several disjoint ranges, and a range that starts at a token start
 * (every cut does) counts at least one. */
static int count_tokens(const splitter *sp, size_t a, size_t b)
{
    return (int)(first_token_from(sp, b) - first_token_from(sp, a));
}

/* --- output --------------------------------------------------------------- */

/* Add chunk [a, b) (trimmed) with its token count (counted when < 0). */
static void emit_chunk(splitter *sp, size_t a, size_t b, int tokens, const char *heading)
{
    trim(sp, &a, &b);
    if (tokens < 0)
        tokens = count_tokens(sp, a, b);
    if (sp->oom || tokens == 0)
        return;
    chunk_list *l = sp->out;
    if (l->count == sp->out_cap) {
        size_t c = sp->out_cap ? sp->out_cap * 2 : 16;
        chunk *g = realloc(l->items, c * sizeof *g);
        if (!g) {
            sp->oom = 1;
            return;
        }
        l->items = g;
        sp->out_cap = c;
    }
    char *h = NULL;
    if (heading && !(h = strdup(heading))) {
        sp->oom = 1;
        return;
    }
    l->items[l->count++] = (chunk){a, b, h, tokens};
}

/* --- markdown --------------------------------------------------------------- */

/* Nonzero when line [a, b) is an ATX heading; its text goes to dst
 * (HEADING_MAX_BYTES + 1 bytes). */
static int heading_line(const splitter *sp, size_t a, size_t b, char *dst)
{
    const char *s = sp->text;
    size_t i = a, level = 0;
    while (i < b && s[i] == '#' && level < 7)
        i++, level++;
    if (level == 0 || level > 6 || (i < b && s[i] != ' ' && s[i] != '\t'))
        return 0;
    size_t ha = i, hb = b;
    trim(sp, &ha, &hb);
    while (hb > ha && s[hb - 1] == '#')
        hb--;
    trim(sp, &ha, &hb);
    size_t len = hb - ha;
    if (len > HEADING_MAX_BYTES) {
        len = HEADING_MAX_BYTES;
        while (len > 0 && ((unsigned char)s[ha + len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(dst, s + ha, len);
    dst[len] = '\0';
    return 1;
}

static int fence_line(const splitter *sp, size_t a, size_t b)
{
    size_t i = a;
    while (i < b && i - a < 3 && sp->text[i] == ' ')
        i++;
    return b - i >= 3 &&
           (memcmp(sp->text + i, "```", 3) == 0 || memcmp(sp->text + i, "~~~", 3) == 0);
}

/* The nearest heading at or before pos (CHUNK_TOKENS with markdown). The
 * scan resumes where the last call stopped: pos only grows. */
static const char *heading_before(splitter *sp, size_t pos)
{
    char line[HEADING_MAX_BYTES + 1];
    while (sp->scan_pos < sp->n && sp->scan_pos <= pos) {
        size_t a = sp->scan_pos;
        const char *nl = memchr(sp->text + a, '\n', sp->n - a);
        size_t b = nl ? (size_t)(nl - sp->text) : sp->n;
        size_t ta = a, tb = b;
        trim(sp, &ta, &tb);
        if (fence_line(sp, a, b)) {
            sp->scan_fenced = !sp->scan_fenced;
        } else if (!sp->scan_fenced && heading_line(sp, ta, tb, line)) {
            memcpy(sp->heading_buf, line, sizeof line);
            sp->heading = sp->heading_buf;
        }
        sp->scan_pos = b + 1;
    }
    return sp->heading;
}

/* --- CHUNK_TOKENS --------------------------------------------------------- */

static void split_tokens(splitter *sp)
{
    size_t max = (size_t)sp->opt->max_tokens, step = max - (size_t)sp->opt->overlap;
    for (size_t a = 0; a < sp->ntokens && !sp->oom; a += step) {
        size_t b = a + max < sp->ntokens ? a + max : sp->ntokens;
        size_t start = sp->tokens[a].start, end = sp->tokens[b - 1].end;
        /* Take along the punctuation that follows, up to the next token. */
        size_t limit = b < sp->ntokens ? sp->tokens[b].start : sp->n;
        while (end < limit && !space_at(sp, end))
            end += char_len(sp, end);
        const char *heading = sp->opt->markdown ? heading_before(sp, start) : NULL;
        emit_chunk(sp, start, end, (int)(b - a), heading);
        if (b == sp->ntokens)
            break;
    }
}

/* --- CHUNK_STRUCTURE ------------------------------------------------------ */

static void pack_flush(splitter *sp)
{
    if (sp->packing)
        emit_chunk(sp, sp->pack_start, sp->pack_end, -1, sp->heading);
    sp->packing = 0;
}

/* Add [a, b) (at most max_tokens tokens) to the chunk being packed. */
static void pack(splitter *sp, size_t a, size_t b)
{
    trim(sp, &a, &b);
    if (a >= b)
        return;
    if (sp->packing && count_tokens(sp, sp->pack_start, b) > sp->opt->max_tokens)
        pack_flush(sp);
    if (!sp->packing) {
        sp->pack_start = a;
        sp->packing = 1;
    }
    sp->pack_end = b;
}

/* The token to cut before when token k would overflow a piece that begins
 * with token first: k, or up to a quarter piece earlier a token that
 * follows white space, so "e.g." is not cut after "e.". */
static size_t cut_token(const splitter *sp, size_t first, size_t k)
{
    size_t back = (size_t)sp->opt->max_tokens / 4;
    for (size_t j = k; j > first && k - j <= back; j--) {
        size_t s = sp->tokens[j].start;
        if (s > 0 && space_at(sp, char_before(sp, 0, s)))
            return j;
    }
    return k;
}

/* Cut an over-long sentence [a, b) at token starts. */
static void split_words(splitter *sp, size_t a, size_t b)
{
    size_t max = (size_t)sp->opt->max_tokens;
    size_t first = first_token_from(sp, a), piece = a;
    for (size_t k = first; k < sp->ntokens && sp->tokens[k].start < b; k++) {
        if (k - first == max) {
            size_t cut = cut_token(sp, first, k);
            pack(sp, piece, sp->tokens[cut].start);
            piece = sp->tokens[cut].start;
            first = cut;
        }
    }
    pack(sp, piece, b);
}

static int sentence_end_cp(int32_t cp)
{
    return cp == '.' || cp == '!' || cp == '?' || cp == 0x3002 /* 。 */ || cp == 0xFF01 /* ！ */ ||
           cp == 0xFF1F /* ？ */ || cp == 0xFF0E /* ． */ || cp == 0xFF61 /* ｡ */ ||
           cp == 0x2026 /* … */;
}

static int closing_cp(int32_t cp)
{
    int cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_PE || cat == UTF8PROC_CATEGORY_PF || cp == '"' || cp == '\'';
}

/* Nonzero when the first character after the white space at j is a
 * lowercase letter: "e.g. the" goes on, "Ende. Der" does not. */
static int lowercase_follows(const splitter *sp, size_t j, size_t b)
{
    int32_t cp;
    while (j < b && space_at(sp, j))
        j += char_len(sp, j);
    return j < b && text_utf8_decode(sp->text + j, b - j, &cp) &&
           utf8proc_category(cp) == UTF8PROC_CATEGORY_LL;
}

/* End of the sentence starting at a within [a, b): after its final
 * punctuation and closing quotes; b when none. */
static size_t sentence_end(const splitter *sp, size_t a, size_t b)
{
    size_t i = a;
    int32_t cp;
    while (i < b) {
        size_t len = text_utf8_decode(sp->text + i, b - i, &cp);
        if (!len || !sentence_end_cp(cp)) {
            i += len ? len : 1;
            continue;
        }
        int wide = cp >= 0x2000; /* CJK and fullwidth stops need no space after them */
        int period = cp == '.';
        size_t j = i + len;
        while (j < b && (len = text_utf8_decode(sp->text + j, b - j, &cp)) &&
               (sentence_end_cp(cp) || closing_cp(cp)))
            j += len;
        if (j >= b || wide || (space_at(sp, j) && !(period && lowercase_follows(sp, j, b))))
            return j;
        i = j;
    }
    return b;
}

static void split_paragraph(splitter *sp, size_t a, size_t b)
{
    if (count_tokens(sp, a, b) <= sp->opt->max_tokens) {
        pack(sp, a, b);
        return;
    }
    while (a < b && !sp->oom) {
        size_t e = sentence_end(sp, a, b);
        if (count_tokens(sp, a, e) <= sp->opt->max_tokens)
            pack(sp, a, e);
        else
            split_words(sp, a, e);
        a = e;
    }
}

static void split_structure(splitter *sp)
{
    char pending[HEADING_MAX_BYTES + 1];
    size_t para = 0; /* start of the open paragraph */
    int in_para = 0, fenced = 0;
    for (size_t a = 0; a < sp->n && !sp->oom;) {
        const char *nl = memchr(sp->text + a, '\n', sp->n - a);
        size_t b = nl ? (size_t)(nl - sp->text) : sp->n;
        size_t ta = a, tb = b;
        trim(sp, &ta, &tb);
        int fence = sp->opt->markdown && fence_line(sp, a, b);
        int heading = sp->opt->markdown && !fenced && !fence && heading_line(sp, ta, tb, pending);
        if (ta == tb || heading) {
            if (in_para)
                split_paragraph(sp, para, a);
            in_para = 0;
        }
        if (heading) {
            pack_flush(sp);
            memcpy(sp->heading_buf, pending, sizeof pending);
            sp->heading = sp->heading_buf;
            split_paragraph(sp, ta, tb);
        } else if (ta != tb && !in_para) {
            para = a;
            in_para = 1;
        }
        fenced ^= fence;
        a = b + 1;
    }
    if (in_para)
        split_paragraph(sp, para, sp->n);
    pack_flush(sp);
}

/* --- API -------------------------------------------------------------------- */

void chunk_options_default(chunk_options *o)
{
    o->strategy = CHUNK_STRUCTURE;
    o->max_tokens = 200;
    o->overlap = 40;
    o->markdown = 1;
}

static int check_options(const chunk_options *o, dbmcp_error *err)
{
    if (o->strategy != CHUNK_TOKENS && o->strategy != CHUNK_STRUCTURE)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "strategy must be \"tokens\" or \"structure\" (got %d)",
                               (int)o->strategy);
    if (o->max_tokens <= 0 || o->max_tokens > CHUNK_MAX_TOKENS_LIMIT)
        return dbmcp_error_set(err, DBMCP_EINVAL, "max_tokens must be between 1 and %d (got %d)",
                               CHUNK_MAX_TOKENS_LIMIT, o->max_tokens);
    if (o->strategy == CHUNK_TOKENS && (o->overlap < 0 || o->overlap >= o->max_tokens))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "overlap must be at least 0 and less than max_tokens (%d); got %d",
                               o->max_tokens, o->overlap);
    return 0;
}

int chunk_split(const char *text, size_t n, const chunk_options *o, chunk_list *out,
                dbmcp_error *err)
{
    out->items = NULL;
    out->count = 0;
    chunk_options defaults;
    if (!o) {
        chunk_options_default(&defaults);
        o = &defaults;
    }
    int rc = check_options(o, err);
    if (rc)
        return rc;
    if (n > UINT32_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "text is %zu bytes; the limit is %u", n,
                               (unsigned)UINT32_MAX);
    if (!text)
        n = 0;
    splitter sp = {.text = text, .n = n, .opt = o, .out = out};
    if (n && text_tokenize(text, n, TEXT_LANG_NONE, collect_token, &sp))
        sp.oom = 1;
    if (!sp.oom && o->strategy == CHUNK_TOKENS)
        split_tokens(&sp);
    else if (!sp.oom)
        split_structure(&sp);
    free(sp.tokens);
    if (sp.oom) {
        chunk_list_free(out);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    return 0;
}

void chunk_list_free(chunk_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i].heading);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}
