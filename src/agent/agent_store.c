/*
 * agent_store.c — the orchestrator's rows as agent structs (see
 * agent_store.h). No SQL here: store/plans_store.c reads and writes the
 * rows; this file copies what it reads into the structs of plan.h and
 * analyse.h.
 */
#include "agent/agent_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "store/registry.h"

static char *dup_or_null(const char *v)
{
    return v ? strdup(v) : NULL;
}

/* --- entity rules ------------------------------------------------------------ */

typedef struct rule_acc {
    agent_entity_rule *items;
    size_t n;
} rule_acc;

static int rule_row(void *ctx, const plans_entity_rule_row *row)
{
    rule_acc *acc = ctx;
    agent_entity_rule *grown = realloc(acc->items, (acc->n + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    acc->items = grown;
    agent_entity_rule *r = &grown[acc->n++];
    r->name = dup_or_null(row->name);
    r->kind = dup_or_null(row->kind);
    r->pattern = dup_or_null(row->pattern);
    r->value_group = row->value_group;
    r->case_sensitive = row->case_sensitive;
    r->priority = row->priority;
    return r->name && r->kind && r->pattern ? 0 : DBMCP_ENOMEM;
}

int agent_store_entity_rules(store *db, agent_entity_rule **out, size_t *n, dbmcp_error *err)
{
    rule_acc acc = {NULL, 0};
    int rc = plans_store_entity_rules_each(db, rule_row, &acc, err);
    if (rc) {
        agent_entity_rules_free(acc.items, acc.n);
        return dbmcp_error_prefix(err, "entity rules");
    }
    *out = acc.items;
    *n = acc.n;
    return 0;
}

void agent_entity_rules_free(agent_entity_rule *rules, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)rules[i].name);
        free((char *)rules[i].kind);
        free((char *)rules[i].pattern);
    }
    free(rules);
}

/* --- plans ---------------------------------------------------------------------- */

static int plan_row(void *ctx, const plans_plan_row *row)
{
    agent_plan_set *set = ctx;
    agent_plan *grown = realloc(set->plans, (set->count + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    set->plans = grown;
    agent_plan *p = &grown[set->count++];
    memset(p, 0, sizeof *p);
    p->name = dup_or_null(row->name);
    p->description = dup_or_null(row->description);
    p->interface = dup_or_null(row->interface);
    p->system_prompt = dup_or_null(row->system_prompt);
    p->extended_prompt = dup_or_null(row->extended_prompt);
    p->priority = row->priority;
    p->is_default = row->is_default;
    return p->name && p->description && p->interface ? 0 : DBMCP_ENOMEM;
}

static int step_row(void *ctx, const plans_step_row *row)
{
    agent_plan *p = ctx;
    agent_step *grown = realloc(p->steps, (p->n_steps + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->steps = grown;
    agent_step *s = &grown[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->step_no = row->step_no;
    if (agent_step_kind_parse(row->kind, &s->kind) != 0)
        s->kind = AGENT_STEP_LLM;
    s->description = dup_or_null(row->description);
    s->tool_choice = dup_or_null(row->tool_choice);
    s->tools = json_parse_text(row->tools);
    s->prompt = dup_or_null(row->prompt);
    s->max_iterations = row->max_iterations;
    s->tool = dup_or_null(row->tool);
    s->arguments = json_parse_text(row->arguments);
    return s->description && s->tool_choice ? 0 : DBMCP_ENOMEM;
}

static int rule_plan_row(void *ctx, const plans_rule_row *row)
{
    agent_plan *p = ctx;
    agent_plan_rule *grown = realloc(p->rules, (p->n_rules + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->rules = grown;
    agent_plan_rule *r = &grown[p->n_rules++];
    r->kind = dup_or_null(row->kind);
    r->pattern = dup_or_null(row->pattern);
    r->weight = row->weight;
    return r->kind && r->pattern ? 0 : DBMCP_ENOMEM;
}

static int required_row(void *ctx, const plans_required_row *row)
{
    agent_plan *p = ctx;
    agent_required *grown = realloc(p->required, (p->n_required + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->required = grown;
    agent_required *r = &grown[p->n_required++];
    r->entity = dup_or_null(row->entity);
    r->question = dup_or_null(row->question);
    return r->entity ? 0 : DBMCP_ENOMEM;
}

static int example_row(void *ctx, const char *text)
{
    agent_plan *p = ctx;
    char **grown = realloc(p->examples, (p->n_examples + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->examples = grown;
    grown[p->n_examples] = dup_or_null(text);
    return grown[p->n_examples++] ? 0 : DBMCP_ENOMEM;
}

static int plan_details(store *db, agent_plan *p, dbmcp_error *err)
{
    int rc = plans_store_steps_each(db, p->name, step_row, p, err);
    if (!rc)
        rc = plans_store_rules_each(db, p->name, rule_plan_row, p, err);
    if (!rc)
        rc = plans_store_required_each(db, p->name, required_row, p, err);
    if (!rc)
        rc = plans_store_examples_each(db, p->name, example_row, p, err);
    return rc;
}

int agent_store_plans(store *db, agent_plan_set *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = plans_store_plans_each(db, plan_row, out, err);
    for (size_t i = 0; !rc && i < out->count; i++)
        rc = plan_details(db, &out->plans[i], err);
    if (rc) {
        agent_plan_set_free(out);
        return dbmcp_error_prefix(err, "plans");
    }
    return 0;
}

/* --- prompts ------------------------------------------------------------------------ */

int agent_store_prompt_text(store *db, const char *name, char **out, dbmcp_error *err)
{
    reg_prompt p;
    memset(&p, 0, sizeof p);
    *out = NULL;
    int rc = reg_prompt_get(db, name, &p, err);
    if (rc)
        return rc;
    if (!p.enabled) {
        reg_prompt_free(&p);
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "prompt '%s' is disabled", name);
    }
    size_t cap = 1, len = 0;
    char *text = calloc(1, 1);
    size_t i;
    json_t *m;
    json_array_foreach (p.messages, i, m) {
        const char *t = json_get_str(json_get_obj(m, "content"), "text");
        if (!t || !text)
            continue;
        size_t tl = strlen(t);
        char *grown = realloc(text, cap + tl + 2);
        if (!grown) {
            free(text);
            text = NULL;
            continue;
        }
        text = grown;
        cap += tl + 2;
        if (len)
            len += (size_t)sprintf(text + len, "\n\n");
        memcpy(text + len, t, tl + 1);
        len += tl;
    }
    reg_prompt_free(&p);
    if (!text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "prompt '%s': out of memory", name);
    *out = text;
    return 0;
}

/* --- runs and LLM calls -------------------------------------------------------- */

int agent_store_run_start(store *db, const agent_run_row *row, dbmcp_error *err)
{
    return plans_store_run_start(db, row, err);
}

int agent_store_run_finish(store *db, const char *run_id, const agent_run_end *end,
                           dbmcp_error *err)
{
    return plans_store_run_finish(db, run_id, end, err);
}

int agent_store_llm_call(store *db, const agent_llm_call_row *row, dbmcp_error *err)
{
    return plans_store_llm_call(db, row, err);
}
