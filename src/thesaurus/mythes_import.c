/*
 * mythes_import.c — MyThes meanings to concepts.
 *
 * A meaning line is a synonym set: it becomes one concept whose first
 * synonym is the pref label and the others alt labels. MyThes repeats the
 * same set under every member's entry, so the concept URI is a hash of
 * the part of speech and the sorted match keys of the set
 * ("mythes:<scheme>/<16 hex digits>"): the repeats collapse into one
 * concept. Relation markers ("Geld (Oberbegriff)") name a word, not a
 * concept; they are resolved after the whole file is read to the first
 * concept of this scheme that has the word as a label, else to a stub
 * concept "mythes:<scheme>/term/<key>" labelled with the word. Antonyms
 * have no SKOS relation and are counted as skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thesaurus/internal.h"
#include "thesaurus/mythes.h"

typedef struct deferred_edge {
    int64_t from;
    thesaurus_relation kind;
    char *term;
} deferred_edge;

typedef struct mythes_import {
    thesaurus_writer *w;
    const char *scheme;
    const char *lang;
    thesaurus_import_stats *stats;
    deferred_edge *edges;
    size_t nedges, cap;
} mythes_import;

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The concept URI of a synonym set: hash of pos and the sorted keys. */
static int synset_uri(const mythes_import *im, const char *pos, char **keys, size_t n, char *uri,
                      size_t size)
{
    qsort(keys, n, sizeof *keys, cmp_str);
    uint64_t h = fnv1a(14695981039346656037ULL, pos, strlen(pos) + 1);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(keys[i], keys[i - 1]) != 0)
            h = fnv1a(h, keys[i], strlen(keys[i]) + 1);
    return snprintf(uri, size, "mythes:%s/%016llx", im->scheme, (unsigned long long)h) < (int)size
               ? 0
               : DBMCP_ETOOBIG;
}

static int defer_edge(mythes_import *im, int64_t from, thesaurus_relation kind, const char *term)
{
    if (im->nedges == im->cap) {
        size_t ncap = im->cap ? im->cap * 2 : 256;
        deferred_edge *p = realloc(im->edges, ncap * sizeof *p);
        if (!p)
            return DBMCP_ENOMEM;
        im->edges = p;
        im->cap = ncap;
    }
    char *t = strdup(term);
    if (!t)
        return DBMCP_ENOMEM;
    im->edges[im->nedges++] = (deferred_edge){from, kind, t};
    return 0;
}

/* The synonyms of a meaning (the entry word first when the set lacks it). */
typedef struct synset {
    const char *labels[MYTHES_TERMS_MAX + 1];
    char *keys[MYTHES_TERMS_MAX + 1];
    size_t n;
} synset;

static void synset_free(synset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->keys[i]);
}

static int synset_add(synset *s, const char *label)
{
    char *key;
    int ntokens;
    if (thesaurus_key(label, strlen(label), &key, &ntokens))
        return DBMCP_ENOMEM;
    if (ntokens == 0) {
        free(key);
        return 0;
    }
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->keys[i], key) == 0) {
            free(key);
            return 0;
        }
    s->labels[s->n] = label;
    s->keys[s->n++] = key;
    return 0;
}

static int build_synset(const mythes_meaning *m, synset *s)
{
    s->n = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < m->nterms; i++)
        if (m->terms[i].kind == MYTHES_SYNONYM)
            rc = synset_add(s, m->terms[i].text);
    if (rc || !*m->entry)
        return rc;
    /* The entry word, when no synonym has its key, leads the set. */
    size_t before = s->n;
    rc = synset_add(s, m->entry);
    if (!rc && s->n > before) {
        const char *l = s->labels[s->n - 1];
        char *k = s->keys[s->n - 1];
        memmove(&s->labels[1], &s->labels[0], before * sizeof s->labels[0]);
        memmove(&s->keys[1], &s->keys[0], before * sizeof s->keys[0]);
        s->labels[0] = l;
        s->keys[0] = k;
    }
    return rc;
}

static int write_synset(mythes_import *im, const mythes_meaning *m, const synset *s,
                        dbmcp_error *err)
{
    char uri[512];
    char *sorted[MYTHES_TERMS_MAX + 1];
    memcpy(sorted, s->keys, s->n * sizeof *sorted);
    if (synset_uri(im, m->pos, sorted, s->n, uri, sizeof uri))
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "line %ld: scheme name too long", m->line);
    int64_t id;
    int created, rc = thesaurus_writer_concept(im->w, uri, &id, &created, err);
    if (rc || !created)
        return rc; /* a repeat of a set already written */
    im->stats->concepts++;
    for (size_t i = 0; !rc && i < s->n; i++)
        rc = thesaurus_add_label(im->w, id, im->lang, i == 0 ? THESAURUS_PREF : THESAURUS_ALT,
                                 s->labels[i], im->stats, err);
    static const thesaurus_relation kinds[] = {THESAURUS_RELATED, THESAURUS_BROADER,
                                               THESAURUS_NARROWER, THESAURUS_RELATED};
    for (size_t i = 0; !rc && i < m->nterms; i++) {
        mythes_term_kind k = m->terms[i].kind;
        if (k == MYTHES_SYNONYM)
            continue;
        if (k == MYTHES_ANTONYM)
            im->stats->skipped++;
        else if (defer_edge(im, id, kinds[k], m->terms[i].text))
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    return rc;
}

static int on_meaning(void *ctx, const mythes_meaning *m, dbmcp_error *err)
{
    mythes_import *im = ctx;
    synset s;
    int rc = build_synset(m, &s);
    if (rc) {
        synset_free(&s);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    if (s.n > 0)
        rc = write_synset(im, m, &s, err);
    else
        im->stats->skipped++;
    synset_free(&s);
    if (rc && rc != DBMCP_ENOMEM) {
        char where[32];
        snprintf(where, sizeof where, "line %ld", m->line);
        dbmcp_error_prefix(err, where);
    }
    return rc;
}

/* The concept a relation marker names: a labelled concept of this scheme,
 * else a stub created for the word. */
static int resolve_term(mythes_import *im, const char *term, int64_t *id, dbmcp_error *err)
{
    char *key;
    int ntokens;
    if (thesaurus_key(term, strlen(term), &key, &ntokens))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = 0;
    *id = 0;
    if (ntokens > 0)
        rc = thesaurus_writer_find(im->w, key, id, err);
    if (!rc && !*id && ntokens > 0) {
        char uri[1200];
        snprintf(uri, sizeof uri, "mythes:%s/term/%.1000s", im->scheme, key);
        int created;
        rc = thesaurus_writer_concept(im->w, uri, id, &created, err);
        if (!rc && created) {
            im->stats->concepts++;
            rc = thesaurus_add_label(im->w, *id, im->lang, THESAURUS_PREF, term, im->stats, err);
        }
    }
    free(key);
    return rc;
}

static int write_deferred(mythes_import *im, dbmcp_error *err)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < im->nedges; i++) {
        int64_t to;
        rc = resolve_term(im, im->edges[i].term, &to, err);
        if (rc || !to)
            continue;
        int added;
        rc =
            thesaurus_writer_relation(im->w, im->edges[i].from, im->edges[i].kind, to, &added, err);
        if (!rc && added)
            im->stats->relations++;
    }
    return rc;
}

/* "th_de_DE_v2" → "de"; NULL when the name has no such part. */
static const char *guess_lang(const char *name, char out[8])
{
    const char *p = strstr(name, "th_");
    if (!p || strlen(p) < 5 || p[3] < 'a' || p[3] > 'z' || p[4] < 'a' || p[4] > 'z')
        return NULL;
    out[0] = p[3];
    out[1] = p[4];
    out[2] = '\0';
    return out;
}

int thesaurus_import_mythes(thesaurus_writer *w, const char *data, size_t n, const char *name,
                            const thesaurus_import_options *opt, thesaurus_import_stats *stats,
                            dbmcp_error *err)
{
    char guessed[8];
    mythes_import im = {.w = w, .stats = stats};
    im.scheme = opt->scheme && *opt->scheme ? opt->scheme : name;
    im.lang = opt->lang ? opt->lang : guess_lang(name, guessed);
    if (!im.lang)
        im.lang = "";
    int rc = mythes_parse(data, n, opt->limit, on_meaning, &im, err);
    if (!rc)
        rc = write_deferred(&im, err);
    for (size_t i = 0; i < im.nedges; i++)
        free(im.edges[i].term);
    free(im.edges);
    return rc;
}
