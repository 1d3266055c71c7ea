/*
 * textnorm.c — the tokenizer and normaliser behind every text match in
 * dbmcp (contract in textnorm.h).
 *
 * The input is scanned once into runs: a run is a maximal stretch of
 * valid code points of one class (a spaced-script word, a Han/kana run or
 * a Hangul run), with combining marks attached to the run before them and
 * format characters skipped inside. A word run is normalised as a whole
 * (utf8proc: compatibility decomposition with case folding, then only
 * letters, marks and digits are kept and the result is composed, i.e.
 * NFKC_Casefold restricted to word characters) and stemmed. A CJK run is
 * cut into characters (a base plus its marks, so halfwidth ｶﾞ stays one
 * character), each normalised alone, and emitted as overlapping bigrams.
 * Offsets come from the run boundaries in the caller's bytes, so they
 * always sit on code point boundaries.
 */
#include "core/textnorm.h"

#include <assert.h>
#include <libstemmer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "core/error.h"

#define TOKEN_MAX_BYTES 64 /* longer tokens are cut at a character boundary */
#define STEM_BUF 160       /* a stem of a 64-byte word, with room to spare */

static const struct {
    int bit;
    const char *algorithm;
} LANGUAGES[] = {
    {TEXT_LANG_DE, "german"},
    {TEXT_LANG_EN, "english"},
};
#define N_LANGUAGES (sizeof LANGUAGES / sizeof LANGUAGES[0])

/* One remembered word: what emit_word found for it. Words repeat (Zipf),
 * and Snowball is the largest cost of tokenising after folding, so each
 * text_stemmers keeps the stems of the words it saw last, one slot per
 * hash value (once it has stemmed STEM_SLOTS_AFTER words); a slot is overwritten by the next word
 * that hashes there. */
typedef struct stem_slot {
    unsigned char word_len;                  /* 0: empty slot */
    unsigned char n;                         /* distinct stems */
    unsigned char changed;                   /* a stem differs from the word */
    unsigned char stem_len[N_LANGUAGES];     /* bytes of each stem */
    char word[TOKEN_MAX_BYTES];              /* the folded word */
    char stem[N_LANGUAGES][TOKEN_MAX_BYTES]; /* its distinct stems */
} stem_slot;
#define STEM_SLOTS 1024 /* a power of two */

struct text_stemmers {
    struct sb_stemmer *stemmer[N_LANGUAGES]; /* NULL for languages not asked for */
    stem_slot *slots;                        /* STEM_SLOTS, owned; NULL: not (yet) */
    size_t words;                            /* stemmed without slots so far */
};
/* Words stemmed before the slots are allocated: a short text (a query, a
 * memory item) never pays for them. */
#define STEM_SLOTS_AFTER 256

/* A growable UTF-32 work buffer (reused across words of one call). */
typedef struct norm_buf {
    utf8proc_int32_t *cp; /* owned */
    size_t cap;           /* in code points */
} norm_buf;

/* One character of a CJK run: input bytes and its folded form. */
typedef struct cjk_char {
    size_t start, end;   /* input offsets */
    size_t fold, fold_n; /* folded bytes in the run's fold buffer */
} cjk_char;

/* --- UTF-8 and classes ------------------------------------------------- */

size_t text_utf8_decode(const char *s, size_t n, int32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned c = u[0];
    if (c < 0x80) {
        *cp = (int32_t)c;
        return 1;
    }
    size_t len;
    int32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

size_t text_utf8_valid_prefix(const char *s, size_t n)
{
    size_t i = 0;
    int32_t cp;
    while (i < n) {
        size_t len = text_utf8_decode(s + i, n - i, &cp);
        if (!len)
            break;
        i += len;
    }
    return i;
}

static int is_han_or_kana(int32_t cp)
{
    return (cp >= 0x2E80 && cp <= 0x2FDF) ||   /* radicals */
           cp == 0x3005 || cp == 0x3006 ||     /* 々 〆 */
           cp == 0x3007 ||                     /* 〇 */
           (cp >= 0x3021 && cp <= 0x3029) ||   /* Hangzhou numerals */
           (cp >= 0x3038 && cp <= 0x303B) ||   /* more iteration marks */
           (cp >= 0x3040 && cp <= 0x30FF) ||   /* Hiragana, Katakana */
           (cp >= 0x31F0 && cp <= 0x31FF) ||   /* Katakana extensions */
           (cp >= 0x3400 && cp <= 0x4DBF) ||   /* Han extension A */
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* Han */
           (cp >= 0xF900 && cp <= 0xFAFF) ||   /* Han compatibility */
           (cp >= 0xFF66 && cp <= 0xFF9F) ||   /* halfwidth Katakana */
           (cp >= 0x1B000 && cp <= 0x1B16F) || /* kana supplement/extended */
           (cp >= 0x20000 && cp <= 0x3134F);   /* Han extensions B… */
}

static int is_hangul(int32_t cp)
{
    return (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3130 && cp <= 0x318F) ||
           (cp >= 0xA960 && cp <= 0xA97F) || (cp >= 0xAC00 && cp <= 0xD7FF) ||
           (cp >= 0xFFA0 && cp <= 0xFFDC);
}

static int is_word_category(int cat)
{
    return (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_NO);
}

static int is_mark(int32_t cp)
{
    if (cp >= 0 && cp < 0x80)
        return 0;
    int cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_MC ||
           cat == UTF8PROC_CATEGORY_ME || cp == 0xFF9E || cp == 0xFF9F;
}

/* ASCII letters and digits: the only ASCII code points of a word category
 * (none is ignorable, a mark, CJK or Hangul). */
static int is_ascii_alnum(int32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

text_char_class text_char_classify(int32_t cp)
{
    if (cp >= 0 && cp < 0x80) /* fast path, the same answer as below */
        return is_ascii_alnum(cp) ? TEXT_CHAR_WORD : TEXT_CHAR_SEPARATOR;
    const utf8proc_property_t *p = utf8proc_get_property(cp);
    int cat = p->category;
    if (cat == UTF8PROC_CATEGORY_CF || p->ignorable)
        return TEXT_CHAR_IGNORED;
    if (!is_word_category(cat) && cp != 0xFF9E && cp != 0xFF9F)
        return TEXT_CHAR_SEPARATOR;
    if (is_han_or_kana(cp))
        return TEXT_CHAR_CJK;
    if (is_hangul(cp))
        return TEXT_CHAR_HANGUL;
    return TEXT_CHAR_WORD;
}

int text_is_space(int32_t cp)
{
    int cat = utf8proc_category(cp);
    return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
           cat == UTF8PROC_CATEGORY_ZP || cat == UTF8PROC_CATEGORY_CC;
}

/* --- runs --------------------------------------------------------------- */

typedef struct run {
    size_t start, end;    /* input bytes of the run */
    text_char_class kind; /* WORD, CJK or HANGUL */
} run;

/* Find the next run at or after *pos; returns 0 at the end of the text. */
static int next_run(const char *s, size_t n, size_t *pos, run *r)
{
    size_t i = *pos;
    int32_t cp;
    int found = 0;
    while (i < n && !found) {
        size_t len = text_utf8_decode(s + i, n - i, &cp);
        if (!len) {
            i++;
            continue;
        }
        text_char_class c = text_char_classify(cp);
        if (c != TEXT_CHAR_SEPARATOR && c != TEXT_CHAR_IGNORED) {
            r->start = i;
            r->kind = c;
            found = 1;
        }
        i += len;
    }
    if (!found) {
        *pos = n;
        return 0;
    }
    while (i < n) {
        size_t len = text_utf8_decode(s + i, n - i, &cp);
        if (!len)
            break;
        text_char_class c = text_char_classify(cp);
        if (c != r->kind && c != TEXT_CHAR_IGNORED && !is_mark(cp))
            break;
        i += len;
    }
    r->end = i;
    *pos = i;
    return 1;
}

/* --- normalisation -------------------------------------------------------- */

static int buf_reserve(norm_buf *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    utf8proc_int32_t *grown = realloc(b->cp, cap * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    b->cp = grown;
    b->cap = cap;
    return 0;
}

/* The fast path of fold_bytes for ASCII: NFKC leaves ASCII alone, case
 * folding maps A-Z to a-z, and only letters and digits are word
 * characters. Writes the folded bytes to out (room for len) and returns
 * 1, or returns 0 without writing when s has a byte outside ASCII. */
static int ascii_fold(const char *s, size_t len, char *out, size_t *out_len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    size_t kept = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            out[kept++] = (char)(c - 'A' + 'a');
        else if (is_ascii_alnum(c))
            out[kept++] = c;
    }
    *out_len = kept;
    return 1;
}

/* NFKC_Casefold s[0..len) keeping only letters, marks and digits. The
 * UTF-8 result is left in b (as bytes at (char *)b->cp) and its length in
 * *out_len. Returns 0 or DBMCP_ENOMEM. */
static int fold_bytes(norm_buf *b, const char *s, size_t len, size_t *out_len)
{
    const utf8proc_option_t decompose = UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT |
                                        UTF8PROC_CASEFOLD | UTF8PROC_IGNORE;
    *out_len = 0;
    if (buf_reserve(b, len + 8))
        return DBMCP_ENOMEM;
    if (ascii_fold(s, len, (char *)b->cp, out_len))
        return 0;
    utf8proc_ssize_t count;
    for (;;) {
        count = utf8proc_decompose((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, b->cp,
                                   (utf8proc_ssize_t)b->cap, decompose);
        if (count < 0)
            return count == UTF8PROC_ERROR_NOMEM ? DBMCP_ENOMEM : 0;
        if ((size_t)count <= b->cap)
            break;
        if (buf_reserve(b, (size_t)count))
            return DBMCP_ENOMEM;
    }
    size_t kept = 0;
    for (utf8proc_ssize_t i = 0; i < count; i++)
        if (is_word_category(utf8proc_category(b->cp[i])))
            b->cp[kept++] = b->cp[i];
    if (!kept)
        return 0;
    utf8proc_ssize_t bytes =
        utf8proc_reencode(b->cp, (utf8proc_ssize_t)kept, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (bytes < 0)
        return 0;
    *out_len = (size_t)bytes;
    return 0;
}

/* Cut a UTF-8 token to at most TOKEN_MAX_BYTES at a character boundary. */
static size_t token_cut(const char *t, size_t len)
{
    if (len <= TOKEN_MAX_BYTES)
        return len;
    size_t cut = TOKEN_MAX_BYTES;
    while (cut > 0 && ((unsigned char)t[cut] & 0xC0) == 0x80)
        cut--;
    return cut;
}

/* --- stemmers ------------------------------------------------------------- */

text_stemmers *text_stemmers_new(int langs)
{
    text_stemmers *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < N_LANGUAGES; i++) {
        if (!(langs & LANGUAGES[i].bit))
            continue;
        s->stemmer[i] = sb_stemmer_new(LANGUAGES[i].algorithm, "UTF_8");
        if (!s->stemmer[i]) {
            text_stemmers_free(s);
            return NULL;
        }
    }
    return s;
}

void text_stemmers_free(text_stemmers *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < N_LANGUAGES; i++)
        sb_stemmer_delete(s->stemmer[i]);
    free(s->slots);
    free(s);
}

int text_lang_parse(const char *csv)
{
    if (!csv || !*csv)
        return TEXT_LANG_DEFAULT;
    int langs = TEXT_LANG_NONE;
    const char *p = csv;
    while (*p) {
        size_t len = strcspn(p, ", \t");
        if ((len == 2 && strncmp(p, "de", 2) == 0) || (len == 6 && strncmp(p, "german", 6) == 0))
            langs |= TEXT_LANG_DE;
        else if ((len == 2 && strncmp(p, "en", 2) == 0) ||
                 (len == 7 && strncmp(p, "english", 7) == 0))
            langs |= TEXT_LANG_EN;
        p += len;
        p += strspn(p, ", \t");
    }
    return langs;
}

/* --- tokenising ------------------------------------------------------------ */

typedef struct tokenizer {
    text_stemmers *stemmers; /* may be NULL: fold only */
    text_token_fn fn;
    void *ctx;
    const char *text;
    norm_buf buf;     /* folding work space */
    char *fold;       /* CJK run: folded characters, owned */
    size_t fold_cap;  /* bytes */
    cjk_char *chars;  /* CJK run: its characters, owned */
    size_t chars_cap; /* entries */
} tokenizer;

static size_t slot_of(const char *word, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)word[i]) * 16777619u;
    return h & (STEM_SLOTS - 1);
}

/* The distinct stems of word[0..len) in the languages of stemmers s into
 * slot (word included), as emit_word emits them. Returns 0 or
 * DBMCP_ENOMEM. */
static int stem_word(text_stemmers *s, const char *word, size_t len, stem_slot *slot)
{
    assert(len > 0 && len <= TOKEN_MAX_BYTES);
    slot->word_len = 0;
    slot->n = 0;
    slot->changed = 0;
    for (size_t i = 0; i < N_LANGUAGES; i++) {
        struct sb_stemmer *st = s->stemmer[i];
        if (!st)
            continue;
        const sb_symbol *stem = sb_stemmer_stem(st, (const sb_symbol *)word, (int)len);
        if (!stem)
            return DBMCP_ENOMEM;
        size_t sl = token_cut((const char *)stem, (size_t)sb_stemmer_length(st));
        if (sl == 0 || sl >= STEM_BUF) {
            stem = (const sb_symbol *)word;
            sl = len;
        }
        int dup = 0;
        for (size_t k = 0; k < slot->n; k++)
            dup |= slot->stem_len[k] == sl && memcmp(slot->stem[k], stem, sl) == 0;
        if (dup)
            continue;
        memcpy(slot->stem[slot->n], stem, sl);
        slot->stem_len[slot->n++] = (unsigned char)sl;
        slot->changed |= sl != len || memcmp(stem, word, len) != 0;
    }
    memcpy(slot->word, word, len);
    slot->word_len = (unsigned char)len;
    return 0;
}

/* Emit the stems of one folded word at [start, end). */
static int emit_word(tokenizer *t, const char *word, size_t len, size_t start, size_t end)
{
    if (!t->stemmers || len == 0)
        return t->fn(t->ctx, word, len, start, end, 0);
    text_stemmers *s = t->stemmers;
    if (!s->slots && ++s->words > STEM_SLOTS_AFTER)
        s->slots = calloc(STEM_SLOTS, sizeof *s->slots); /* NULL: stays uncached */
    stem_slot local, *slot = &local;
    if (s->slots)
        slot = &s->slots[slot_of(word, len)];
    if (slot == &local || slot->word_len != len || memcmp(slot->word, word, len) != 0) {
        int rc = stem_word(s, word, len, slot);
        if (rc)
            return rc;
    }
    if (!slot->changed)
        return t->fn(t->ctx, word, len, start, end, 0);
    for (size_t k = 0; k < slot->n; k++) {
        int rc = t->fn(t->ctx, slot->stem[k], slot->stem_len[k], start, end, k > 0);
        if (rc)
            return rc;
    }
    return 0;
}

static int word_run(tokenizer *t, const run *r)
{
    size_t len;
    int rc = fold_bytes(&t->buf, t->text + r->start, r->end - r->start, &len);
    if (rc || !len)
        return rc;
    const char *word = (const char *)t->buf.cp;
    return emit_word(t, word, token_cut(word, len), r->start, r->end);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 32;
    while (c < need)
        c *= 2;
    void *g = realloc(*p, c * size);
    if (!g)
        return DBMCP_ENOMEM;
    *p = g;
    *cap = c;
    return 0;
}

/* Nonzero when the 3-byte UTF-8 character at s (valid, one code point)
 * is one that NFKC_Casefold leaves unchanged and that a CJK run may hold:
 * the unified Han ideographs of the BMP and extension A, the hiragana and
 * katakana letters (those with a voicing mark recompose to themselves).
 * tests/unit/test_textnorm.c checks every one of them against utf8proc.
 * The fast path of cjk_chars: most Chinese and Japanese text is these. */
static int cjk_folds_to_itself(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    int32_t cp = ((int32_t)(u[0] & 0x0F) << 12) | ((int32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x30A1 && cp <= 0x30FA);
}

/* Split a CJK/Hangul run into normalised characters (t->chars); returns
 * the count in *count. */
static int cjk_chars(tokenizer *t, const run *r, size_t *count)
{
    size_t nchars = 0, fold_used = 0, i = r->start;
    int32_t cp;
    while (i < r->end) {
        size_t start = i;
        i += text_utf8_decode(t->text + i, r->end - i, &cp);
        while (i < r->end) {
            size_t len = text_utf8_decode(t->text + i, r->end - i, &cp);
            if (!is_mark(cp) && text_char_classify(cp) != TEXT_CHAR_IGNORED)
                break;
            i += len;
        }
        size_t flen;
        const char *folded = t->text + start;
        if (i - start != 3 || !cjk_folds_to_itself(folded)) {
            int rc = fold_bytes(&t->buf, t->text + start, i - start, &flen);
            if (rc)
                return rc;
            folded = (const char *)t->buf.cp;
        } else {
            flen = 3;
        }
        if (!flen)
            continue;
        if (grow((void **)&t->chars, &t->chars_cap, nchars + 1, sizeof *t->chars) ||
            grow((void **)&t->fold, &t->fold_cap, fold_used + flen, 1))
            return DBMCP_ENOMEM;
        memcpy(t->fold + fold_used, folded, flen);
        t->chars[nchars++] = (cjk_char){start, i, fold_used, flen};
        fold_used += flen;
    }
    *count = nchars;
    return 0;
}

static int cjk_run(tokenizer *t, const run *r)
{
    size_t n;
    int rc = cjk_chars(t, r, &n);
    if (rc || n == 0)
        return rc;
    if (n == 1) {
        const cjk_char *c = &t->chars[0];
        return t->fn(t->ctx, t->fold + c->fold, c->fold_n, c->start, c->end, 0);
    }
    for (size_t k = 0; k + 1 < n; k++) {
        const cjk_char *a = &t->chars[k], *b = &t->chars[k + 1];
        /* The folded characters are adjacent in t->fold. */
        size_t len = token_cut(t->fold + a->fold, a->fold_n + b->fold_n);
        rc = t->fn(t->ctx, t->fold + a->fold, len, a->start, b->end, 0);
        if (rc)
            return rc;
    }
    return 0;
}

int text_tokenize_with(text_stemmers *s, const char *text, size_t n, text_token_fn fn, void *ctx)
{
    tokenizer t = {.stemmers = s, .fn = fn, .ctx = ctx, .text = text};
    size_t pos = 0;
    run r;
    int rc = 0;
    while (rc == 0 && next_run(text, n, &pos, &r))
        rc = r.kind == TEXT_CHAR_WORD ? word_run(&t, &r) : cjk_run(&t, &r);
    free(t.buf.cp);
    free(t.fold);
    free(t.chars);
    return rc;
}

int text_tokenize(const char *text, size_t n, int langs, text_token_fn fn, void *ctx)
{
    text_stemmers *s = NULL;
    if (langs != TEXT_LANG_NONE && !(s = text_stemmers_new(langs)))
        return DBMCP_ENOMEM;
    int rc = text_tokenize_with(s, text, n, fn, ctx);
    text_stemmers_free(s);
    return rc;
}

static int count_position(void *ctx, const char *token, size_t len, size_t start, size_t end,
                          int colocated)
{
    (void)token, (void)len, (void)start, (void)end;
    *(int64_t *)ctx += !colocated;
    return 0;
}

int64_t text_token_count(const char *text, size_t n)
{
    int64_t count = 0;
    if (!text || !n)
        return 0;
    /* Positions do not depend on the stems: fold only, the cheapest way. */
    int rc = text_tokenize_with(NULL, text, n, count_position, &count);
    return rc < 0 ? rc : count;
}

/* --- folding for exact matching ------------------------------------------- */

char *text_fold(const char *text, size_t n)
{
    norm_buf b = {0};
    size_t cap = n + 16, used = 0, pos = 0;
    char *out = malloc(cap);
    run r;
    while (out && next_run(text, n, &pos, &r)) {
        size_t len;
        if (fold_bytes(&b, text + r.start, r.end - r.start, &len)) {
            free(out);
            out = NULL;
            break;
        }
        if (!len)
            continue;
        if (used + len + 2 > cap) {
            size_t c = (used + len + 2) * 2;
            char *g = realloc(out, c);
            if (!g) {
                free(out);
                out = NULL;
                break;
            }
            out = g;
            cap = c;
        }
        if (used)
            out[used++] = ' ';
        memcpy(out + used, b.cp, len);
        used += len;
    }
    free(b.cp);
    if (out)
        out[used] = '\0';
    return out;
}

static unsigned char folded(unsigned char c, int fold_ascii)
{
    return fold_ascii && c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

size_t text_edit_distance(const char *a, const char *b, int fold_ascii)
{
    size_t la = strlen(a), lb = strlen(b), row[TEXT_EDIT_DISTANCE_MAX + 1];
    if (la > TEXT_EDIT_DISTANCE_MAX || lb > TEXT_EDIT_DISTANCE_MAX)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        unsigned char ca = folded((unsigned char)a[i - 1], fold_ascii);
        for (size_t j = 1; j <= lb; j++) {
            size_t above = row[j];
            size_t best = diagonal + (ca != folded((unsigned char)b[j - 1], fold_ascii));
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}
