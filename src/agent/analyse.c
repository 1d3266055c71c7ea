/*
 * analyse.c — prompt analysis: regex entity rules and thesaurus labels
 * found in a question (see analyse.h).
 *
 * Regex rules use POSIX extended expressions (regex.h), the dialect the
 * JSON Schema validator uses for "pattern" too, so one regex language is
 * documented for the whole catalog. Overlaps between rules are resolved
 * greedily over all candidate matches sorted by priority, length and
 * position, which is independent of the order the rules were loaded in.
 */
#include "agent/analyse.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/agent_store.h"
#include "core/log.h"
#include "thesaurus/thesaurus.h"

typedef struct candidate {
    const agent_entity_rule *rule;
    size_t start, end;             /* the match without its boundary characters */
    size_t value_start, value_end; /* capture group */
} candidate;

/* Characters a pattern matches around a value only to find its edges
 * (spaces, brackets, separators); "%" and "€" belong to the text. */
static int boundary_char(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || (c && strchr(",;:.!?()[]{}\"'", c));
}

static char *dup_range(const char *s, size_t start, size_t end)
{
    char *out = malloc(end - start + 1);
    if (!out)
        return NULL;
    memcpy(out, s + start, end - start);
    out[end - start] = '\0';
    return out;
}

int agent_analysis_add(agent_analysis *a, const char *kind, const char *value, const char *text,
                       size_t start, size_t end, const char *source, int priority,
                       const char *const *broader, size_t n_broader)
{
    if (a->count >= AGENT_ENTITIES_MAX)
        return 0;
    agent_entity *grown = realloc(a->entities, (a->count + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    a->entities = grown;
    agent_entity *e = &a->entities[a->count];
    memset(e, 0, sizeof *e);
    e->kind = strdup(kind ? kind : "");
    e->value = strdup(value ? value : "");
    e->text = strdup(text ? text : "");
    e->source = strdup(source ? source : "");
    e->start = start;
    e->end = end;
    e->priority = priority;
    if (n_broader > AGENT_BROADER_MAX)
        n_broader = AGENT_BROADER_MAX;
    if (n_broader) {
        e->broader = calloc(n_broader, sizeof *e->broader);
        for (size_t i = 0; e->broader && i < n_broader; i++)
            e->broader[e->n_broader++] = strdup(broader[i] ? broader[i] : "");
    }
    a->count++;
    if (!e->kind || !e->value || !e->text || !e->source || (n_broader && !e->broader))
        return DBMCP_ENOMEM;
    return 0;
}

static int note_rule_error(agent_analysis *a, const char *rule, const char *why)
{
    char **grown = realloc(a->rule_errors, (a->n_rule_errors + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    a->rule_errors = grown;
    size_t n = strlen(rule) + strlen(why) + 3;
    char *msg = malloc(n);
    if (!msg)
        return DBMCP_ENOMEM;
    snprintf(msg, n, "%s: %s", rule, why);
    a->rule_errors[a->n_rule_errors++] = msg;
    return 0;
}

/* Append the matches of one compiled rule to *cands. */
static int collect_matches(const agent_entity_rule *rule, const regex_t *re, const char *q,
                           candidate **cands, size_t *n)
{
    regmatch_t m[10];
    size_t pos = 0, len = strlen(q);
    int found = 0;
    while (pos <= len && found < AGENT_RULE_MATCHES_MAX) {
        int flags = pos > 0 ? REG_NOTBOL : 0;
        if (regexec(re, q + pos, 10, m, flags) != 0)
            break;
        size_t s = pos + (size_t)m[0].rm_so, e = pos + (size_t)m[0].rm_eo;
        int g = rule->value_group;
        size_t vs = s, ve = e;
        if (g > 0 && m[g].rm_so >= 0) {
            vs = pos + (size_t)m[g].rm_so;
            ve = pos + (size_t)m[g].rm_eo;
        }
        size_t ts = s, te = e;
        while (ts < vs && boundary_char(q[ts]))
            ts++;
        while (te > ve && boundary_char(q[te - 1]))
            te--;
        if (e > s && ve > vs) {
            candidate *grown = realloc(*cands, (*n + 1) * sizeof *grown);
            if (!grown)
                return DBMCP_ENOMEM;
            *cands = grown;
            grown[(*n)++] = (candidate){rule, ts, te, vs, ve};
            found++;
        }
        /* Resume after the text, not after a trailing boundary character,
         * so "2023 2024" gives both years; an empty match advances one byte. */
        pos = te > s ? te : s + 1;
    }
    return 0;
}

static int candidate_rank(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (a->rule->priority != b->rule->priority)
        return a->rule->priority > b->rule->priority ? -1 : 1;
    size_t la = a->end - a->start, lb = b->end - b->start;
    if (la != lb)
        return la > lb ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return strcmp(a->rule->name, b->rule->name);
}

static int candidate_by_start(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return strcmp(a->rule->name, b->rule->name);
}

/* Keep the best candidates that overlap no better one; result by start. */
static size_t resolve_overlaps(candidate *c, size_t n)
{
    if (n == 0)
        return 0;
    qsort(c, n, sizeof *c, candidate_rank);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int overlaps = 0;
        for (size_t j = 0; j < kept && !overlaps; j++)
            overlaps = c[i].start < c[j].end && c[j].start < c[i].end;
        if (!overlaps)
            c[kept++] = c[i];
    }
    qsort(c, kept, sizeof *c, candidate_by_start);
    return kept;
}

int agent_analyse_rules(const agent_entity_rule *rules, size_t n, const char *question,
                        agent_analysis *out, dbmcp_error *err)
{
    if (!question)
        return dbmcp_error_set(err, DBMCP_EINVAL, "question: missing");
    if (strlen(question) > AGENT_QUESTION_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "question: longer than %d bytes",
                               AGENT_QUESTION_MAX);
    candidate *cands = NULL;
    size_t n_cands = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        regex_t re;
        int flags = REG_EXTENDED | (rules[i].case_sensitive ? 0 : REG_ICASE);
        int crc = regcomp(&re, rules[i].pattern, flags);
        if (crc != 0) {
            char why[256];
            regerror(crc, &re, why, sizeof why);
            log_msg(LOG_WARN, "agent", "entity rule %s skipped: %s", rules[i].name, why);
            rc = note_rule_error(out, rules[i].name, why);
            continue;
        }
        if ((size_t)rules[i].value_group > re.re_nsub) {
            regfree(&re);
            rc = note_rule_error(out, rules[i].name, "value_group names no capture group");
            continue;
        }
        rc = collect_matches(&rules[i], &re, question, &cands, &n_cands);
        regfree(&re);
    }
    size_t kept = rc ? 0 : resolve_overlaps(cands, n_cands);
    for (size_t i = 0; i < kept && !rc; i++) {
        const candidate *c = &cands[i];
        size_t s = c->start, e = c->end;
        char *value = dup_range(question, c->value_start, c->value_end);
        char *text = dup_range(question, s, e);
        rc = value && text ? agent_analysis_add(out, c->rule->kind, value, text, s, e,
                                                c->rule->name, c->rule->priority, NULL, 0)
                           : DBMCP_ENOMEM;
        free(value);
        free(text);
    }
    free(cands);
    if (rc == DBMCP_ENOMEM)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "prompt analysis: out of memory");
    return rc;
}

/* Preferred labels of the broader concepts of one concept. */
static size_t broader_labels(store *db, int64_t id, char **labels)
{
    thesaurus_concept c;
    memset(&c, 0, sizeof c);
    dbmcp_error err;
    size_t n = 0;
    if (thesaurus_concept_get(db, id, NULL, &c, &err) != 0)
        return 0;
    for (size_t i = 0; i < c.nedges && n < AGENT_BROADER_MAX; i++)
        if (c.edges[i].kind == THESAURUS_BROADER && c.edges[i].target.pref_label)
            labels[n++] = strdup(c.edges[i].target.pref_label);
    thesaurus_concept_free(&c);
    return n;
}

static int analyse_thesaurus(store *db, const char *question, agent_analysis *out)
{
    thesaurus_match_list ml;
    memset(&ml, 0, sizeof ml);
    dbmcp_error terr;
    if (thesaurus_match_text(db, question, &ml, &terr) != 0) {
        /* No thesaurus tables or no concepts: the analysis goes on without. */
        log_msg(LOG_DEBUG, "agent", "thesaurus matching skipped: %s", terr.message);
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < ml.count && !rc; i++) {
        const thesaurus_match *m = &ml.items[i];
        char *broader[AGENT_BROADER_MAX];
        size_t nb = broader_labels(db, m->concept_id, broader);
        char *text = dup_range(question, m->start, m->end);
        rc = text ? agent_analysis_add(out, "concept", m->pref_label, text, m->start, m->end,
                                       m->uri, 0, (const char *const *)broader, nb)
                  : DBMCP_ENOMEM;
        free(text);
        for (size_t j = 0; j < nb; j++)
            free(broader[j]);
    }
    thesaurus_match_list_free(&ml);
    return rc;
}

int agent_analyse(store *db, const char *question, agent_analysis *out, dbmcp_error *err)
{
    agent_entity_rule *rules = NULL;
    size_t n = 0;
    int rc = agent_store_entity_rules(db, &rules, &n, err);
    if (rc)
        return rc;
    rc = agent_analyse_rules(rules, n, question, out, err);
    agent_entity_rules_free(rules, n);
    if (!rc && analyse_thesaurus(db, question, out) != 0)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "prompt analysis: out of memory");
    return rc;
}

const agent_entity *agent_analysis_find(const agent_analysis *a, const char *name)
{
    for (size_t i = 0; a && name && i < a->count; i++) {
        const agent_entity *e = &a->entities[i];
        if (strcasecmp(e->kind, name) == 0 || strcasecmp(e->value, name) == 0 ||
            strcasecmp(e->source, name) == 0)
            return e;
        for (size_t j = 0; j < e->n_broader; j++)
            if (strcasecmp(e->broader[j], name) == 0)
                return e;
    }
    return NULL;
}

json_t *agent_analysis_to_json(const agent_analysis *a)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < a->count; i++) {
        const agent_entity *e = &a->entities[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "kind", e->kind, "value", e->value,
                              "text", e->text, "start", (json_int_t)e->start, "end",
                              (json_int_t)e->end, "source", e->source);
        if (o && e->n_broader) {
            json_t *b = json_array();
            for (size_t j = 0; b && j < e->n_broader; j++)
                json_array_append_new(b, json_string(e->broader[j]));
            json_object_set_new(o, "broader", b);
        }
        json_array_append_new(list, o);
    }
    return list ? json_pack("{s:o}", "entities", list) : NULL;
}

void agent_analysis_free(agent_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->count; i++) {
        agent_entity *e = &a->entities[i];
        free(e->kind);
        free(e->value);
        free(e->text);
        free(e->source);
        for (size_t j = 0; j < e->n_broader; j++)
            free(e->broader[j]);
        free(e->broader);
    }
    free(a->entities);
    for (size_t i = 0; i < a->n_rule_errors; i++)
        free(a->rule_errors[i]);
    free(a->rule_errors);
    memset(a, 0, sizeof *a);
}
