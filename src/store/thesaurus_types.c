/*
 * thesaurus_types.c — names of the thesaurus vocabulary and the _free
 * functions of the value types in thesaurus_types.h.
 */
#include "store/thesaurus_types.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

const char *thesaurus_label_kind_name(thesaurus_label_kind k)
{
    switch (k) {
    case THESAURUS_PREF: return "pref";
    case THESAURUS_ALT: return "alt";
    default: return "hidden";
    }
}

const char *thesaurus_relation_name(thesaurus_relation r)
{
    switch (r) {
    case THESAURUS_BROADER: return "broader";
    case THESAURUS_NARROWER: return "narrower";
    case THESAURUS_RELATED: return "related";
    default: return "any";
    }
}

int thesaurus_relation_parse(const char *name, thesaurus_relation *out)
{
    static const thesaurus_relation all[] = {THESAURUS_BROADER, THESAURUS_NARROWER,
                                             THESAURUS_RELATED, THESAURUS_ANY};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, thesaurus_relation_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return DBMCP_EINVAL;
}

/* --- free functions ---------------------------------------------------------------- */

void thesaurus_strings_free(thesaurus_strings *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i]);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void thesaurus_ref_free(thesaurus_ref *r)
{
    free(r->uri);
    free(r->pref_label);
    memset(r, 0, sizeof *r);
}

void thesaurus_refs_free(thesaurus_refs *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->count; i++)
        thesaurus_ref_free(&r->items[i]);
    free(r->items);
    memset(r, 0, sizeof *r);
}

void thesaurus_concept_free(thesaurus_concept *c)
{
    if (!c)
        return;
    thesaurus_ref_free(&c->ref);
    free(c->scheme);
    for (size_t i = 0; i < c->nlabels; i++) {
        free(c->labels[i].label);
        free(c->labels[i].lang);
    }
    free(c->labels);
    for (size_t i = 0; i < c->nnotes; i++) {
        free(c->notes[i].kind);
        free(c->notes[i].lang);
        free(c->notes[i].text);
    }
    free(c->notes);
    for (size_t i = 0; i < c->nedges; i++)
        thesaurus_ref_free(&c->edges[i].target);
    free(c->edges);
    memset(c, 0, sizeof *c);
}

void thesaurus_stats_free(thesaurus_stats *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nschemes; i++) {
        free(s->schemes[i].name);
        free(s->schemes[i].uri);
        free(s->schemes[i].source);
        free(s->schemes[i].format);
        free(s->schemes[i].imported_at);
    }
    free(s->schemes);
    memset(s, 0, sizeof *s);
}
