/*
 * embed_builtin.c — the offline lexical embedder ("builtin-lexical-v1").
 *
 * A text becomes the multiset of its features: every token of
 * text_tokenize (German and English stems, CJK bigrams) as a word
 * unigram, every pair of consecutive tokens as a word bigram, and every
 * character trigram of each token with begin and end marks ("^ha", "hau",
 * "aus", "us$"), so words that share parts (Haus / Hauses / Rathaus)
 * share features. Each distinct feature hashes (64-bit, seeded per kind)
 * to one of `dim` buckets with a sign taken from another bit of the hash
 * (signed feature hashing keeps collisions from adding up), weighted by
 * its kind and by 1 + ln(count) (sublinear term frequency); the vector
 * is then L2-normalised. A text without tokens embeds as all zeros.
 *
 * The output depends only on the text, the dimension and textnorm: it is
 * the same on every machine and run. Changing any of this is a new model
 * name (v2), since stored vectors would no longer compare.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "core/vector.h"
#include "search/embed_internal.h"

#define BUILTIN_MIN_DIM 16

enum { FEAT_WORD = 0, FEAT_BIGRAM = 1, FEAT_TRIGRAM = 2 };
static const float feature_weight[3] = {1.0f, 0.7f, 0.35f};

typedef struct builtin {
    int langs; /* TEXT_LANG_* stemmed */
} builtin;

/* Features of one text: hashes with the kind in the low two bits. */
typedef struct features {
    uint64_t *h; /* owned */
    size_t n, cap;
    uint64_t prev; /* hash of the previous position's token */
    int have_prev; /* a previous token exists */
    int oom;       /* allocation failed */
} features;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_bytes(const char *s, size_t n, uint64_t seed)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return mix64(h);
}

static void feature_add(features *f, uint64_t h, int kind)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        uint64_t *grown = realloc(f->h, cap * sizeof *grown);
        if (!grown) {
            f->oom = 1;
            return;
        }
        f->h = grown;
        f->cap = cap;
    }
    f->h[f->n++] = (h & ~(uint64_t)3) | (uint64_t)kind;
}

/* Character trigrams of a token with begin (0x110000) and end (0x110001)
 * marks; a one-character token gives one trigram (^ c $). */
static void add_trigrams(features *f, const char *tok, size_t len)
{
    uint32_t cp[72];
    size_t n = 0;
    cp[n++] = 0x110000;
    for (size_t i = 0; i < len && n < 70;) {
        int32_t c;
        size_t step = text_utf8_decode(tok + i, len - i, &c);
        if (step == 0) /* textnorm emits valid UTF-8; be safe anyway */
            step = 1, c = (unsigned char)tok[i];
        cp[n++] = (uint32_t)c;
        i += step;
    }
    cp[n++] = 0x110001;
    for (size_t i = 0; i + 2 < n; i++) {
        uint64_t h = mix64(((uint64_t)cp[i] << 42) ^ ((uint64_t)cp[i + 1] << 21) ^ cp[i + 2] ^
                           0x7472696772616d73ULL);
        feature_add(f, h, FEAT_TRIGRAM);
    }
}

static int on_token(void *ctx, const char *tok, size_t len, size_t start, size_t end, int colocated)
{
    features *f = ctx;
    (void)start, (void)end;
    uint64_t h = hash_bytes(tok, len, 0x776f7264);
    feature_add(f, h, FEAT_WORD);
    if (colocated)
        return f->oom; /* another language's stem: same position, no new context */
    if (f->have_prev)
        feature_add(f, mix64(f->prev * 31 + h + 0x626967726d), FEAT_BIGRAM);
    f->prev = h;
    f->have_prev = 1;
    add_trigrams(f, tok, len);
    return f->oom;
}

/* Sort f->h ascending: LSD radix sort, 8 bits a pass, a pass skipped when
 * every key has the same byte there. The order is that of any correct
 * sort (equal keys are equal values), so the vector, whose float sums
 * run in this order, is the same as with qsort; this is a third of the
 * cost of qsort's comparison callbacks on a chunk's few hundred keys.
 * Returns 0, or -1 when the work buffer cannot be allocated. */
static int features_sort(features *f)
{
    size_t n = f->n;
    if (n < 2)
        return 0;
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    uint64_t *src = f->h, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(src[i] >> shift) & 0xff]++;
        if (count[(src[0] >> shift) & 0xff] == n)
            continue; /* one value in this byte: the order stays */
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != f->h)
        memcpy(f->h, src, n * sizeof *src);
    free(tmp);
    return 0;
}

/* Sort the features, hash them into out[dim] with sublinear tf, normalise.
 * Returns 0, or -1 when out of memory. */
static int features_to_vector(features *f, int dim, float *out)
{
    memset(out, 0, (size_t)dim * sizeof *out);
    if (features_sort(f))
        return -1;
    for (size_t i = 0; i < f->n;) {
        size_t j = i + 1;
        while (j < f->n && f->h[j] == f->h[i])
            j++;
        uint64_t h = f->h[i];
        float w = feature_weight[h & 3] * (1.0f + logf((float)(j - i)));
        size_t bucket = (size_t)((h >> 32) % (uint64_t)dim);
        out[bucket] += (h >> 2) & 1 ? w : -w;
        i = j;
    }
    /* Text without features (only punctuation, say) stays the zero vector:
     * cosine distance 1 to everything. The weights are finite, so NaN or
     * infinity cannot come out of here. */
    vec_fault fault = vec_normalize(out, dim, NULL);
    assert(fault == VEC_OK || fault == VEC_ZERO);
    (void)fault;
    return 0;
}

static int builtin_embed(embedder *e, const char *const *texts, size_t n, float *out,
                         dbmcp_error *err)
{
    builtin *b = e->impl;
    int dim = embedder_dim(e);
    text_stemmers *stemmers = text_stemmers_new(b->langs);
    features f = {0};
    int rc = stemmers ? 0 : DBMCP_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) {
        f.n = 0;
        f.have_prev = 0;
        rc = text_tokenize_with(stemmers, texts[i], strlen(texts[i]), on_token, &f);
        if (f.oom || rc || features_to_vector(&f, dim, out + i * (size_t)dim))
            rc = DBMCP_ENOMEM;
    }
    free(f.h);
    text_stemmers_free(stemmers);
    if (rc)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory while embedding");
    return 0;
}

static void builtin_free(void *impl)
{
    free(impl);
}

static const embedder_ops builtin_ops = {builtin_embed, NULL, builtin_free};

int embedder_builtin_init(embedder *e, const embedder_config *cfg, dbmcp_error *err)
{
    int dim = cfg->dim ? cfg->dim : EMBED_BUILTIN_DIM;
    if (dim < BUILTIN_MIN_DIM || dim > EMBED_MAX_DIM)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "embed.dim is %d; the builtin embedder needs %d to %d", dim,
                               BUILTIN_MIN_DIM, EMBED_MAX_DIM);
    builtin *b = calloc(1, sizeof *b);
    if (!b)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    b->langs = TEXT_LANG_DEFAULT;
    e->ops = &builtin_ops;
    e->impl = b;
    atomic_store(&e->dim, dim);
    strcpy(e->model_base, "builtin-lexical-v1");
    return 0;
}
