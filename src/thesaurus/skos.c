/*
 * skos.c — SKOS (Turtle or RDF/XML) to concepts, through raptor2.
 *
 * The whole document is parsed into a triple list first (a syntax error
 * anywhere aborts before anything is written), then read in two passes:
 * the concepts (subjects typed skos:Concept or carrying a SKOS label or
 * relation, in order of first appearance; --limit keeps the first N),
 * then their labels, notes and relations. The scheme's URI and title come
 * from the first skos:ConceptScheme. Relation targets outside the file
 * become concepts without labels. Network and file access from inside the
 * document (RDF/XML external entities, imports) is denied.
 *
 * raptor2 and libxml2 are opened on the first import (core/optlib.h), not
 * linked: most processes never import SKOS.
 */
#include <limits.h>
#include <raptor2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/optlib.h"
#include "core/xml_lib.h"
#include "thesaurus/internal.h"

#define SKOS_NS "http://www.w3.org/2004/02/skos/core#"
#define RDF_TYPE "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#define SKOS_TRIPLES_MAX 4000000L
#define SKOS_CHUNK 65536

/* raptor2's functions under their own names and types; raptor_new_world()
 * is a macro for raptor_new_world_internal(RAPTOR_VERSION). */
#define RAPTOR_SYMBOLS(X)                                                                          \
    X(raptor_new_world_internal)                                                                   \
    X(raptor_world_open)                                                                           \
    X(raptor_world_set_log_handler)                                                                \
    X(raptor_free_world)                                                                           \
    X(raptor_new_parser)                                                                           \
    X(raptor_parser_set_option)                                                                    \
    X(raptor_parser_set_statement_handler)                                                         \
    X(raptor_parser_parse_start)                                                                   \
    X(raptor_parser_parse_chunk)                                                                   \
    X(raptor_free_parser)                                                                          \
    X(raptor_new_uri)                                                                              \
    X(raptor_uri_as_string)                                                                        \
    X(raptor_free_uri)

static struct {
    RAPTOR_SYMBOLS(OPTLIB_SLOT)
} raptor_api;

#define RAPTOR_SYMBOL(fn) OPTLIB_SYMBOL(raptor_api, fn)
static const optlib_symbol raptor_symbols[] = {RAPTOR_SYMBOLS(RAPTOR_SYMBOL)};
static const char *const raptor_sonames[] = {"libraptor2.so.0", NULL};
static optlib raptor_lib = {
    .feature = "SKOS import",
    .sonames = raptor_sonames,
    .package = "libraptor2-0",
    .symbols = raptor_symbols,
    .n_symbols = OPTLIB_COUNT(raptor_symbols),
};

typedef struct triple {
    char *s, *p, *o; /* owned; blank nodes as "_:id" */
    char *lang;      /* owned literal language, lower case; NULL for non-literals */
    int literal;
} triple;

typedef struct skos_doc {
    triple *t;
    size_t n, cap;
    int oom, too_many;
    int failed;        /* an error was logged */
    char message[600]; /* the first error, with its location */
} skos_doc;

static char *term_text(const raptor_term *t)
{
    switch (t->type) {
    case RAPTOR_TERM_TYPE_URI:
        return strdup((const char *)raptor_api.raptor_uri_as_string(t->value.uri));
    case RAPTOR_TERM_TYPE_LITERAL: return strdup((const char *)t->value.literal.string);
    case RAPTOR_TERM_TYPE_BLANK: {
        size_t l = strlen((const char *)t->value.blank.string);
        char *s = malloc(l + 3);
        if (s) {
            memcpy(s, "_:", 2);
            memcpy(s + 2, t->value.blank.string, l + 1);
        }
        return s;
    }
    default: return strdup("");
    }
}

static char *lower_dup(const char *s)
{
    char *d = strdup(s);
    for (char *p = d; p && *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return d;
}

static void on_statement(void *ctx, raptor_statement *st)
{
    skos_doc *d = ctx;
    if (d->oom || d->too_many)
        return;
    if ((long)d->n >= SKOS_TRIPLES_MAX) {
        d->too_many = 1;
        return;
    }
    if (d->n == d->cap) {
        size_t ncap = d->cap ? d->cap * 2 : 1024;
        triple *p = realloc(d->t, ncap * sizeof *p);
        if (!p) {
            d->oom = 1;
            return;
        }
        d->t = p;
        d->cap = ncap;
    }
    triple *t = &d->t[d->n++];
    memset(t, 0, sizeof *t);
    t->s = term_text(st->subject);
    t->p = term_text(st->predicate);
    t->o = term_text(st->object);
    t->literal = st->object->type == RAPTOR_TERM_TYPE_LITERAL;
    if (t->literal && st->object->value.literal.language)
        t->lang = lower_dup((const char *)st->object->value.literal.language);
    if (!t->s || !t->p || !t->o || (t->literal && st->object->value.literal.language && !t->lang))
        d->oom = 1;
}

static void on_log(void *ctx, raptor_log_message *m)
{
    skos_doc *d = ctx;
    if (m->level < RAPTOR_LOG_LEVEL_ERROR || d->failed)
        return;
    d->failed = 1;
    const raptor_locator *loc = m->locator;
    const char *text = m->text ? m->text : "syntax error";
    if (loc && loc->line > 0 && loc->column > 0)
        snprintf(d->message, sizeof d->message, "line %d, column %d: %s", loc->line, loc->column,
                 text);
    else if (loc && loc->line > 0)
        snprintf(d->message, sizeof d->message, "line %d: %s", loc->line, text);
    else
        snprintf(d->message, sizeof d->message, "%s", text);
}

static void doc_free(skos_doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->t[i].s);
        free(d->t[i].p);
        free(d->t[i].o);
        free(d->t[i].lang);
    }
    free(d->t);
}

/* Raptor reports XML errors without their position; libxml2 (which it
 * uses underneath) gives line and column, so RDF/XML is checked for
 * well-formedness first. No network, no external entities. */
static int check_xml(const char *data, size_t n, const char *name, dbmcp_error *err)
{
    if (n > INT_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "document too large");
    xmlParserCtxtPtr ctx = xml_api.xmlNewParserCtxt();
    if (!ctx)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    xmlDocPtr doc = xml_api.xmlCtxtReadMemory(
        ctx, data, (int)n, name, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc = 0;
    if (!doc) {
        const xmlError *e = xml_api.xmlCtxtGetLastError(ctx);
        char msg[400];
        snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "not well-formed XML");
        size_t l = strlen(msg);
        while (l > 0 && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
            msg[--l] = '\0';
        if (e && e->line > 0)
            rc =
                dbmcp_error_set(err, DBMCP_EINVAL, "line %d, column %d: %s", e->line, e->int2, msg);
        else
            rc = dbmcp_error_set(err, DBMCP_EINVAL, "%s", msg);
    }
    xml_api.xmlFreeDoc(doc);
    xml_api.xmlFreeParserCtxt(ctx);
    return rc;
}

static int parse_document(const char *data, size_t n, const char *name, int rdfxml, skos_doc *d,
                          dbmcp_error *err)
{
    int rc = optlib_open(&raptor_lib, err);
    if (!rc && rdfxml && !(rc = xml_lib_open(err)))
        rc = check_xml(data, n, name, err);
    if (rc)
        return rc;
    raptor_world *world = raptor_api.raptor_new_world_internal(RAPTOR_VERSION);
    if (!world || raptor_api.raptor_world_open(world))
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot initialise raptor");
    raptor_api.raptor_world_set_log_handler(world, d, on_log);
    raptor_parser *p = raptor_api.raptor_new_parser(world, rdfxml ? "rdfxml" : "turtle");
    if (!p) {
        raptor_api.raptor_free_world(world);
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot create the raptor parser");
    }
    raptor_api.raptor_parser_set_option(p, RAPTOR_OPTION_NO_NET, NULL, 1);
    raptor_api.raptor_parser_set_option(p, RAPTOR_OPTION_NO_FILE, NULL, 1);
    raptor_api.raptor_parser_set_option(p, RAPTOR_OPTION_LOAD_EXTERNAL_ENTITIES, NULL, 0);
    raptor_api.raptor_parser_set_statement_handler(p, d, on_statement);
    char base[300];
    snprintf(base, sizeof base, "file:///%.250s", name);
    for (char *c = base + 8; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-' || *c == '_'))
            *c = '_';
    raptor_uri *base_uri = raptor_api.raptor_new_uri(world, (const unsigned char *)base);
    if (!base_uri || raptor_api.raptor_parser_parse_start(p, base_uri))
        d->failed = d->failed ? 1 : (snprintf(d->message, sizeof d->message, "cannot start"), 1);
    for (size_t off = 0; !d->failed && !d->oom && !d->too_many;) {
        size_t len = n - off < SKOS_CHUNK ? n - off : SKOS_CHUNK;
        int end = off + len == n;
        if (raptor_api.raptor_parser_parse_chunk(p, (const unsigned char *)data + off, len, end) &&
            !d->failed) {
            d->failed = 1;
            snprintf(d->message, sizeof d->message, "syntax error");
        }
        off += len;
        if (end)
            break;
    }
    if (d->oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    else if (d->too_many)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG, "more than %ld triples", SKOS_TRIPLES_MAX);
    else if (d->failed)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "%s", d->message);
    if (base_uri)
        raptor_api.raptor_free_uri(base_uri);
    raptor_api.raptor_free_parser(p);
    raptor_api.raptor_free_world(world);
    return rc;
}

/* --- a small string set (concept URIs) ----------------------------------------- */

typedef struct uri_set {
    const char **slots; /* borrowed from the triples */
    size_t cap, count;
} uri_set;

static size_t hash_str(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static int set_has(const uri_set *s, const char *k)
{
    if (!s->cap)
        return 0;
    for (size_t i = hash_str(k) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
        if (strcmp(s->slots[i], k) == 0)
            return 1;
    return 0;
}

/* Add k; returns 1 when added, 0 when present, -1 when out of memory. */
static int set_add(uri_set *s, const char *k)
{
    if (set_has(s, k))
        return 0;
    if ((s->count + 1) * 2 > s->cap) {
        uri_set bigger = {calloc(s->cap ? s->cap * 2 : 64, sizeof(char *)),
                          s->cap ? s->cap * 2 : 64, 0};
        if (!bigger.slots)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i])
                set_add(&bigger, s->slots[i]);
        free(s->slots);
        *s = bigger;
    }
    size_t i = hash_str(k) & (s->cap - 1);
    while (s->slots[i])
        i = (i + 1) & (s->cap - 1);
    s->slots[i] = k;
    s->count++;
    return 1;
}

/* --- mapping ---------------------------------------------------------------------- */

/* The SKOS local name of a predicate, or NULL when not in the SKOS namespace. */
static const char *skos_name(const char *p)
{
    size_t l = sizeof SKOS_NS - 1;
    return strncmp(p, SKOS_NS, l) == 0 ? p + l : NULL;
}

static int is_concept_predicate(const char *name)
{
    static const char *const names[] = {"prefLabel",  "altLabel",  "hiddenLabel",
                                        "broader",    "narrower",  "related",
                                        "definition", "scopeNote", NULL};
    for (int i = 0; name && names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static int is_title_predicate(const char *p)
{
    return strcmp(p, "http://purl.org/dc/terms/title") == 0 ||
           strcmp(p, "http://purl.org/dc/elements/1.1/title") == 0 ||
           strcmp(p, "http://www.w3.org/2000/01/rdf-schema#label") == 0 ||
           strcmp(p, SKOS_NS "prefLabel") == 0;
}

/* Concepts in order of first appearance, at most limit (<= 0: all). */
static int collect_concepts(const skos_doc *d, long limit, uri_set *set, const char ***order,
                            size_t *n)
{
    size_t cap = 0;
    for (size_t i = 0; i < d->n; i++) {
        const triple *t = &d->t[i];
        int concept = is_concept_predicate(skos_name(t->p)) ||
                      (strcmp(t->p, RDF_TYPE) == 0 && strcmp(t->o, SKOS_NS "Concept") == 0);
        if (!concept || set_has(set, t->s))
            continue;
        if (limit > 0 && (long)*n >= limit)
            continue;
        if (set_add(set, t->s) < 0)
            return DBMCP_ENOMEM;
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            const char **p = realloc(*order, cap * sizeof *p);
            if (!p)
                return DBMCP_ENOMEM;
            *order = p;
        }
        (*order)[(*n)++] = t->s;
    }
    return 0;
}

static int write_scheme_meta(thesaurus_writer *w, const skos_doc *d, const char *lang,
                             dbmcp_error *err)
{
    const char *uri = NULL, *title = NULL;
    for (size_t i = 0; i < d->n && !uri; i++)
        if (strcmp(d->t[i].p, RDF_TYPE) == 0 && strcmp(d->t[i].o, SKOS_NS "ConceptScheme") == 0)
            uri = d->t[i].s;
    for (size_t i = 0; uri && i < d->n; i++) {
        const triple *t = &d->t[i];
        if (strcmp(t->s, uri) != 0 || !t->literal || !is_title_predicate(t->p))
            continue;
        if (!title || (lang && t->lang && strcmp(t->lang, lang) == 0))
            title = t->o;
    }
    return uri ? thesaurus_writer_scheme_meta(w, uri, title, err) : 0;
}

typedef struct skos_import {
    thesaurus_writer *w;
    const char *lang; /* for untagged literals */
    thesaurus_import_stats *stats;
    uri_set concepts;
    int limited; /* a --limit applies: no stubs for targets past it */
} skos_import;

static int concept_id(skos_import *im, const char *uri, int64_t *id, dbmcp_error *err)
{
    int created;
    int rc = thesaurus_writer_concept(im->w, uri, id, &created, err);
    if (!rc && created)
        im->stats->concepts++;
    return rc;
}

static int write_triple(skos_import *im, const triple *t, dbmcp_error *err)
{
    const char *name = skos_name(t->p);
    if (!set_has(&im->concepts, t->s) || strcmp(t->p, RDF_TYPE) == 0)
        return 0; /* the scheme's own triples, concepts past the limit, types */
    if (!name) {
        im->stats->skipped++; /* dct:, rdfs: and other vocabularies */
        return 0;
    }
    int64_t from;
    int rc = concept_id(im, t->s, &from, err);
    if (rc)
        return rc;
    const char *lang = t->lang ? t->lang : im->lang;
    static const char *const label_names[] = {"prefLabel", "altLabel", "hiddenLabel"};
    for (int k = 0; k < 3; k++)
        if (strcmp(name, label_names[k]) == 0)
            return t->literal ? thesaurus_add_label(im->w, from, lang, (thesaurus_label_kind)k,
                                                    t->o, im->stats, err)
                              : (im->stats->skipped++, 0);
    static const char *const note_names[] = {"definition", "scopeNote", "note", "example", NULL};
    for (int k = 0; note_names[k]; k++)
        if (strcmp(name, note_names[k]) == 0)
            return t->literal ? thesaurus_writer_note(im->w, from, name, lang, t->o, err)
                              : (im->stats->skipped++, 0);
    thesaurus_relation rel;
    if (thesaurus_relation_parse(name, &rel) || rel == THESAURUS_ANY || t->literal) {
        im->stats->skipped += strcmp(name, "inScheme") != 0 && strcmp(name, "topConceptOf") != 0;
        return 0;
    }
    if (im->limited && !set_has(&im->concepts, t->o)) {
        im->stats->skipped++; /* its target lies past the limit */
        return 0;
    }
    int64_t to;
    rc = concept_id(im, t->o, &to, err);
    int added = 0;
    if (!rc)
        rc = thesaurus_writer_relation(im->w, from, rel, to, &added, err);
    if (!rc && added)
        im->stats->relations++;
    return rc;
}

int thesaurus_import_skos(thesaurus_writer *w, const char *data, size_t n, const char *name,
                          int rdfxml, const thesaurus_import_options *opt,
                          thesaurus_import_stats *stats, dbmcp_error *err)
{
    skos_doc d = {0};
    int rc = parse_document(data, n, name, rdfxml, &d, err);
    skos_import im = {
        .w = w, .lang = opt->lang ? opt->lang : "", .stats = stats, .limited = opt->limit > 0};
    const char **order = NULL;
    size_t norder = 0;
    if (!rc && collect_concepts(&d, opt->limit, &im.concepts, &order, &norder))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc && norder == 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "no SKOS concepts (skos:Concept, skos:prefLabel…) in the document");
    if (!rc)
        rc = write_scheme_meta(w, &d, opt->lang, err);
    for (size_t i = 0; !rc && i < norder; i++) {
        int64_t id;
        rc = concept_id(&im, order[i], &id, err);
    }
    for (size_t i = 0; !rc && i < d.n; i++)
        rc = write_triple(&im, &d.t[i], err);
    free(order);
    free(im.concepts.slots);
    doc_free(&d);
    return rc;
}
