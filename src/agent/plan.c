/*
 * plan.c — plan selection by rules and vector similarity, required
 * entities and argument templates (see plan.h).
 */
#include "agent/plan.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/textnorm.h"

static const char *const step_kind_names[] = {"analyse", "tool", "llm", "save_episode"};

const char *agent_step_kind_name(agent_step_kind k)
{
    return (unsigned)k < 4 ? step_kind_names[k] : "llm";
}

int agent_step_kind_parse(const char *name, agent_step_kind *out)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, step_kind_names[i]) == 0) {
            *out = (agent_step_kind)i;
            return 0;
        }
    return -1;
}

const agent_plan *agent_plan_find(const agent_plan_set *set, const char *name)
{
    for (size_t i = 0; name && i < set->count; i++)
        if (strcmp(set->plans[i].name, name) == 0)
            return &set->plans[i];
    return NULL;
}

/* --- rules -------------------------------------------------------------------- */

/* Keyword rule: the folded keyword occurs in the folded question. */
static int keyword_matches(const char *folded_q, const char *keyword)
{
    char *k = text_fold(keyword, strlen(keyword));
    int hit = k && *k && folded_q && strstr(folded_q, k) != NULL;
    free(k);
    return hit;
}

static int regex_matches(const char *question, const char *pattern)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
        return 0;
    int hit = regexec(&re, question, 0, NULL, 0) == 0;
    regfree(&re);
    return hit;
}

static double score_with_folded(const agent_plan *plan, const char *question, const char *folded,
                                const agent_analysis *analysis)
{
    double score = 0;
    for (size_t i = 0; i < plan->n_rules; i++) {
        const agent_plan_rule *r = &plan->rules[i];
        int hit = 0;
        if (strcmp(r->kind, "keyword") == 0)
            hit = keyword_matches(folded, r->pattern);
        else if (strcmp(r->kind, "regex") == 0)
            hit = regex_matches(question, r->pattern);
        else if (strcmp(r->kind, "concept") == 0)
            hit = agent_analysis_find(analysis, r->pattern) != NULL;
        if (hit)
            score += r->weight;
    }
    return score;
}

double agent_plan_rule_score(const agent_plan *plan, const char *question,
                             const agent_analysis *analysis)
{
    char *folded = text_fold(question, strlen(question));
    double s = score_with_folded(plan, question, folded, analysis);
    free(folded);
    return s;
}

/* --- selection ------------------------------------------------------------------ */

static int candidate(const agent_plan *p, const agent_select_options *opt)
{
    return !opt->interface || strcmp(p->interface, opt->interface) == 0;
}

/* a beats b on ties: higher priority, then name. */
static int better_tie(const agent_plan *a, const agent_plan *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    return strcmp(a->name, b->name) < 0;
}

static int select_default(const agent_plan_set *set, const agent_select_options *opt,
                          agent_plan_choice *out)
{
    const agent_plan *best = NULL;
    for (int pass = 0; pass < 2 && !best; pass++)
        for (size_t i = 0; i < set->count; i++) {
            const agent_plan *p = &set->plans[i];
            if (!candidate(p, opt) || (pass == 0 && !p->is_default))
                continue;
            if (!best || better_tie(p, best))
                best = p;
        }
    out->plan = best;
    out->how = "default";
    return best ? 0 : -1;
}

int agent_plan_select(const agent_plan_set *set, const char *question,
                      const agent_analysis *analysis, const agent_select_options *opt,
                      agent_plan_choice *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (opt->override) {
        const agent_plan *p = agent_plan_find(set, opt->override);
        if (!p || !candidate(p, opt))
            return dbmcp_error_set(err, DBMCP_ENOTFOUND,
                                   "plan '%s' does not exist or is disabled%s", opt->override,
                                   opt->interface ? " for this interface" : "");
        out->plan = p;
        out->how = "override";
        out->rule_score = agent_plan_rule_score(p, question, analysis);
        return 0;
    }
    char *folded = text_fold(question, strlen(question));
    const agent_plan *best = NULL;
    double best_total = 0, best_rule = 0, best_sim = 0;
    for (size_t i = 0; i < set->count; i++) {
        const agent_plan *p = &set->plans[i];
        if (!candidate(p, opt))
            continue;
        double rule = score_with_folded(p, question, folded, analysis);
        double sim = opt->similarity ? opt->similarity[i] : 0;
        double total = rule + (sim >= opt->vector_min ? opt->vector_weight * sim : 0);
        if (total <= 0)
            continue;
        if (!best || total > best_total || (total == best_total && better_tie(p, best))) {
            best = p;
            best_total = total;
            best_rule = rule;
            best_sim = sim;
        }
    }
    free(folded);
    if (best) {
        out->plan = best;
        out->how = best_rule > 0 ? "rules" : "vector";
        out->rule_score = best_rule;
        out->similarity = best_sim;
        return 0;
    }
    if (select_default(set, opt, out) != 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no enabled plan%s",
                               opt->interface ? " for this interface" : "");
    return 0;
}

const agent_required *agent_plan_missing(const agent_plan *plan, const agent_analysis *analysis)
{
    for (size_t i = 0; i < plan->n_required; i++)
        if (!agent_analysis_find(analysis, plan->required[i].entity))
            return &plan->required[i];
    return NULL;
}

/* --- argument templates ----------------------------------------------------------- */

/* "{{entity.KIND}}" or "{{number:entity.KIND}}" as the whole string:
 * the kind into kind[], *numeric set. 0 when s is not such a placeholder. */
static int whole_placeholder(const char *s, char *kind, size_t size, int *numeric)
{
    size_t n = strlen(s);
    if (n < 13 || strncmp(s, "{{", 2) != 0 || strcmp(s + n - 2, "}}") != 0)
        return 0;
    const char *p = s + 2;
    *numeric = strncmp(p, "number:", 7) == 0;
    if (*numeric)
        p += 7;
    if (strncmp(p, "entity.", 7) != 0)
        return 0;
    p += 7;
    size_t k = (size_t)(s + n - 2 - p);
    if (k == 0 || k >= size || memchr(p, '}', k))
        return 0;
    memcpy(kind, p, k);
    kind[k] = '\0';
    return 1;
}

/* Replace every {{entity.KIND}} inside s; missing entities become "". */
static char *replace_inline(const char *s, const agent_analysis *a)
{
    size_t cap = strlen(s) + 1, len = 0;
    char *out = malloc(cap);
    while (out && *s) {
        const char *open = strncmp(s, "{{entity.", 9) == 0 ? s : NULL;
        const char *close = open ? strstr(open, "}}") : NULL;
        const char *piece = s;
        size_t plen = 1;
        if (close && close - open - 9 < 128) {
            char kind[128];
            memcpy(kind, open + 9, (size_t)(close - open - 9));
            kind[close - open - 9] = '\0';
            const agent_entity *e = agent_analysis_find(a, kind);
            piece = e ? e->value : "";
            plen = strlen(piece);
            s = close + 2;
        } else {
            s++;
        }
        if (len + plen + 1 > cap) {
            cap = (len + plen + 1) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + len, piece, plen);
        len += plen;
    }
    if (out)
        out[len] = '\0';
    return out;
}

static json_t *fill_value(const json_t *v, const agent_analysis *a, int *drop)
{
    *drop = 0;
    if (json_is_string(v)) {
        char kind[128];
        int numeric = 0;
        const char *s = json_string_value(v);
        if (whole_placeholder(s, kind, sizeof kind, &numeric)) {
            const agent_entity *e = agent_analysis_find(a, kind);
            if (!e) {
                *drop = 1;
                return NULL;
            }
            if (numeric) {
                char *end = NULL;
                double d = strtod(e->value, &end);
                if (end && *end == '\0' && end != e->value)
                    return d == (double)(json_int_t)d ? json_integer((json_int_t)d) : json_real(d);
            }
            return json_string(e->value);
        }
        char *r = replace_inline(s, a);
        json_t *out = r ? json_string(r) : NULL;
        free(r);
        return out;
    }
    if (json_is_object(v)) {
        json_t *out = json_object();
        const char *key;
        json_t *member;
        json_object_foreach ((json_t *)v, key, member) {
            int d = 0;
            json_t *f = fill_value(member, a, &d);
            if (!d && f)
                json_object_set_new(out, key, f);
        }
        return out;
    }
    if (json_is_array(v)) {
        json_t *out = json_array();
        size_t i;
        json_t *item;
        json_array_foreach (v, i, item) {
            int d = 0;
            json_t *f = fill_value(item, a, &d);
            if (!d && f)
                json_array_append_new(out, f);
        }
        return out;
    }
    return json_deep_copy(v);
}

json_t *agent_template_arguments(const json_t *tmpl, const agent_analysis *analysis)
{
    if (!json_is_object(tmpl))
        return json_object();
    int drop = 0;
    return fill_value(tmpl, analysis, &drop);
}

/* --- free -------------------------------------------------------------------------- */

static void plan_free(agent_plan *p)
{
    free(p->name);
    free(p->description);
    free(p->interface);
    free(p->system_prompt);
    free(p->extended_prompt);
    for (size_t i = 0; i < p->n_steps; i++) {
        agent_step *s = &p->steps[i];
        free(s->description);
        free(s->tool_choice);
        json_decref(s->tools);
        free(s->prompt);
        free(s->tool);
        json_decref(s->arguments);
    }
    free(p->steps);
    for (size_t i = 0; i < p->n_rules; i++) {
        free(p->rules[i].kind);
        free(p->rules[i].pattern);
    }
    free(p->rules);
    for (size_t i = 0; i < p->n_required; i++) {
        free(p->required[i].entity);
        free(p->required[i].question);
    }
    free(p->required);
    for (size_t i = 0; i < p->n_examples; i++)
        free(p->examples[i]);
    free(p->examples);
}

void agent_plan_set_free(agent_plan_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++)
        plan_free(&set->plans[i]);
    free(set->plans);
    memset(set, 0, sizeof *set);
}
