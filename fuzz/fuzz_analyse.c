/*
 * fuzz_analyse.c — libFuzzer target for prompt analysis and plan selection
 * (agent/analyse, agent/plan): the user's message is the one input of the
 * orchestrator that nobody controls.
 *
 * Each input is a question. With the demo's entity rules the target checks:
 *   - agent_analyse_rules either refuses (over AGENT_QUESTION_MAX bytes) or
 *     returns at most AGENT_ENTITIES_MAX entities whose spans lie inside the
 *     question, do not overlap, are ordered by start, and whose text is the
 *     question's bytes at that span and holds the value;
 *   - the analysis serialises to JSON;
 *   - plan selection always chooses a plan (a default exists), the same one
 *     twice, and argument templates give an object.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/analyse.h"
#include "agent/plan.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_analyse: %s\n", what);
    abort();
}

static const agent_entity_rule rules[] = {
    {"date_iso", "date", "([0-9]{4}-[0-1][0-9]-[0-3][0-9])", 1, 0, 30},
    {"date_de", "date", "([0-3]?[0-9]\\.[0-1]?[0-9]\\.[0-9]{4})", 1, 0, 30},
    {"amount_eur", "amount",
     "([0-9]{1,3}(\\.[0-9]{3})+(,[0-9]{1,2})?|[0-9]+(,[0-9]{1,2})?) ?(€|EUR|Euro)", 1, 0, 25},
    {"quarter", "quarter", "(^|[^A-Za-z0-9])(Q[1-4]|[1-4]\\. Quartal)([^0-9]|$)", 2, 0, 20},
    {"tarifgebiet", "tarifgebiet", "(Tarifgebiet West|Bayern|Hamburg|Berlin|Bundesgebiet)", 1, 1,
     15},
    {"sales_region", "region", "(^|[^A-Za-z])(Nord|Süd|West|Ost|Mitte)([^A-Za-z]|$)", 2, 1, 10},
    {"year", "year", "(^|[^0-9.-])(20[0-9]{2})([^0-9-]|$)", 2, 0, 10},
    {"empty", "nothing", "x*", 0, 0, 0},
};

static void check_entities(const agent_analysis *a, const char *q, size_t len)
{
    if (a->count > AGENT_ENTITIES_MAX)
        die("too many entities");
    for (size_t i = 0; i < a->count; i++) {
        const agent_entity *e = &a->entities[i];
        if (e->start >= e->end || e->end > len)
            die("entity span outside the question");
        if (strlen(e->text) != e->end - e->start ||
            memcmp(e->text, q + e->start, e->end - e->start))
            die("entity text is not the question's bytes");
        if (!strstr(e->text, e->value))
            die("entity value not inside its text");
        if (i > 0 && (a->entities[i - 1].start > e->start || a->entities[i - 1].end > e->start))
            die("entities overlap or are out of order");
    }
}

static agent_plan make_plan(const char *name, int is_default, agent_plan_rule *r, size_t n)
{
    agent_plan p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.description = (char *)"";
    p.interface = (char *)"i";
    p.is_default = is_default;
    p.rules = r;
    p.n_rules = n;
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *q = malloc(size + 1);
    if (!q)
        return 0;
    memcpy(q, data, size);
    q[size] = '\0';
    size_t len = strlen(q); /* the CLI and HTTP hand over C strings */
    agent_analysis a;
    memset(&a, 0, sizeof a);
    dbmcp_error err;
    int rc = agent_analyse_rules(rules, sizeof rules / sizeof rules[0], q, &a, &err);
    if (rc != 0 && !(rc == DBMCP_ETOOBIG && len > AGENT_QUESTION_MAX))
        die("analysis failed on a question of allowed size");
    if (rc == 0) {
        check_entities(&a, q, len);
        json_t *j = agent_analysis_to_json(&a);
        if (!j)
            die("analysis did not serialise");
        json_decref(j);
        agent_plan_rule r1[] = {{(char *)"keyword", (char *)"Umsatz", 2.0},
                                {(char *)"regex", (char *)"20(23|24|25)", 0.5}};
        agent_plan_rule r2[] = {{(char *)"concept", (char *)"tarifgebiet", 1.5},
                                {(char *)"keyword", (char *)"Straße", 1.0}};
        agent_plan plans[] = {make_plan("sales", 1, r1, 2), make_plan("tarif", 0, r2, 2)};
        agent_plan_set set = {plans, 2};
        agent_select_options opt = {NULL, NULL, 2.0, 0.25, NULL};
        agent_plan_choice c1, c2;
        if (agent_plan_select(&set, q, &a, &opt, &c1, &err) != 0 ||
            agent_plan_select(&set, q, &a, &opt, &c2, &err) != 0 || c1.plan != c2.plan)
            die("plan selection failed or changed its mind");
        json_t *tmpl = json_pack("{s:s, s:s, s:i}", "region", "{{entity.tarifgebiet}}", "q",
                                 "in {{entity.year}} {{entity.", "n", 1);
        json_t *args = agent_template_arguments(tmpl, &a);
        if (!json_is_object(args))
            die("template did not give an object");
        json_decref(args);
        json_decref(tmpl);
    }
    agent_analysis_free(&a);
    free(q);
    return 0;
}
