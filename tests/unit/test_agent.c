/*
 * test_agent.c — tests for prompt analysis, plan selection, argument
 * templates and the context budget of the orchestrator (agent/analyse,
 * agent/plan, agent/budget).
 *
 * The cases are data: every .json file in tests/cases/agent holds
 * {"kind": K, …, "cases": [CASE, …]} and is checked by K's runner:
 *
 *   analyse   "rules": [{name, kind, pattern, value_group?, case_sensitive?,
 *             priority?}]; CASE {question, entities: [{kind, value, text?}] in
 *             order, rule_errors?: n}
 *   select    "plans": [{name, interface?, priority?, is_default?, rules:
 *             [[kind, pattern, weight]], required?: [entity]}]; CASE
 *             {question, entities?: [{kind, value, source?, broader?}],
 *             override?, interface?, similarity?: [per plan], plan, how,
 *             error?: true, missing?: entity|null}
 *   template  "entities": [{kind, value}]; CASE {template, expect}
 *   tokens    CASE {text, tokens}
 *   budget    CASE {window, reserve, tools_tokens?, pinned, question,
 *             messages: [{role, content?, tool_calls?: [[id, name, args]],
 *             tool_call_id?, name?}], summary?: text|null (what the
 *             summariser returns; absent: no summariser), expect: {error?:
 *             "toobig", stubbed?, summarised?, dropped?, roles?: [..],
 *             contains?: {index: text}, question_index?}}
 *
 * Every case has a "description", printed when it fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/analyse.h"
#include "agent/budget.h"
#include "agent/plan.h"
#include "case_files.h"
#include "core/jsonutil.h"

#define CASES_MIN 60 /* a lost file fails the test */

static int int_or(const json_t *o, const char *key, int def)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

/* --- analyse ------------------------------------------------------------------ */

static char *check_analyse(const agent_entity_rule *rules, size_t n, const json_t *c, char *why,
                           size_t size)
{
    agent_analysis a;
    memset(&a, 0, sizeof a);
    dbmcp_error err;
    if (agent_analyse_rules(rules, n, json_get_str(c, "question"), &a, &err) != 0) {
        snprintf(why, size, "analysis failed: %.300s", err.message);
        return why;
    }
    const json_t *want = json_object_get(c, "entities");
    char *problem = NULL;
    if (json_array_size(want) != a.count) {
        snprintf(why, size, "%zu entities, expected %zu (first: %s=%s)", a.count,
                 json_array_size(want), a.count ? a.entities[0].kind : "-",
                 a.count ? a.entities[0].value : "-");
        problem = why;
    }
    for (size_t i = 0; !problem && i < a.count; i++) {
        const json_t *w = json_array_get(want, i);
        const char *text = json_get_str(w, "text");
        if (strcmp(a.entities[i].kind, json_get_str(w, "kind")) != 0 ||
            strcmp(a.entities[i].value, json_get_str(w, "value")) != 0 ||
            (text && strcmp(a.entities[i].text, text) != 0)) {
            snprintf(why, size, "entity %zu is %s=%s (%s), expected %s=%s", i, a.entities[i].kind,
                     a.entities[i].value, a.entities[i].text, json_get_str(w, "kind"),
                     json_get_str(w, "value"));
            problem = why;
        }
    }
    if (!problem && (int)a.n_rule_errors != int_or(c, "rule_errors", 0)) {
        snprintf(why, size, "%zu rule errors", a.n_rule_errors);
        problem = why;
    }
    agent_analysis_free(&a);
    return problem;
}

static void run_analyse(const char *name, const json_t *doc, case_tally *tally)
{
    const json_t *jr = json_object_get(doc, "rules");
    size_t n = json_array_size(jr);
    agent_entity_rule *rules = calloc(n ? n : 1, sizeof *rules);
    assert_non_null(rules);
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(jr, i);
        rules[i] = (agent_entity_rule){json_get_str(r, "name"),        json_get_str(r, "kind"),
                                       json_get_str(r, "pattern"),     int_or(r, "value_group", 0),
                                       int_or(r, "case_sensitive", 0), int_or(r, "priority", 0)};
    }
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get(doc, "cases"), i, c) {
        char why[512];
        tally->cases++;
        char *problem = check_analyse(rules, n, c, why, sizeof why);
        case_tally_outcome(tally, name, c, problem != NULL, problem ? problem : "");
    }
    free(rules);
}

/* --- select ----------------------------------------------------------------------- */

static void plans_from_json(const json_t *jp, agent_plan_set *set)
{
    set->count = json_array_size(jp);
    set->plans = calloc(set->count, sizeof *set->plans);
    assert_non_null(set->plans);
    for (size_t i = 0; i < set->count; i++) {
        const json_t *p = json_array_get(jp, i);
        agent_plan *pl = &set->plans[i];
        pl->name = strdup(json_get_str(p, "name"));
        pl->description = strdup("");
        pl->interface = strdup(json_get_str(p, "interface") ? json_get_str(p, "interface") : "i");
        pl->priority = int_or(p, "priority", 0);
        pl->is_default = json_is_true(json_object_get(p, "is_default"));
        const json_t *rules = json_object_get(p, "rules");
        pl->n_rules = json_array_size(rules);
        pl->rules = calloc(pl->n_rules + 1, sizeof *pl->rules);
        for (size_t j = 0; j < pl->n_rules; j++) {
            const json_t *r = json_array_get(rules, j);
            pl->rules[j].kind = strdup(json_string_value(json_array_get(r, 0)));
            pl->rules[j].pattern = strdup(json_string_value(json_array_get(r, 1)));
            pl->rules[j].weight = json_number_value(json_array_get(r, 2));
        }
        const json_t *req = json_object_get(p, "required");
        pl->n_required = json_array_size(req);
        pl->required = calloc(pl->n_required + 1, sizeof *pl->required);
        for (size_t j = 0; j < pl->n_required; j++)
            pl->required[j].entity = strdup(json_string_value(json_array_get(req, j)));
    }
}

static void entities_from_json(const json_t *je, agent_analysis *a)
{
    size_t i;
    json_t *e;
    json_array_foreach (je, i, e) {
        const json_t *jb = json_object_get(e, "broader");
        const char *broader[AGENT_BROADER_MAX];
        size_t nb = 0;
        for (; nb < json_array_size(jb) && nb < AGENT_BROADER_MAX; nb++)
            broader[nb] = json_string_value(json_array_get(jb, nb));
        const char *source = json_get_str(e, "source");
        assert_int_equal(agent_analysis_add(a, json_get_str(e, "kind"), json_get_str(e, "value"),
                                            json_get_str(e, "value"), 0, 0, source ? source : "", 0,
                                            broader, nb),
                         0);
    }
}

static char *check_select(const agent_plan_set *set, const json_t *c, char *why, size_t size)
{
    agent_analysis a;
    memset(&a, 0, sizeof a);
    entities_from_json(json_object_get(c, "entities"), &a);
    const json_t *js = json_object_get(c, "similarity");
    double sim[32] = {0};
    for (size_t i = 0; i < json_array_size(js) && i < 32; i++)
        sim[i] = json_number_value(json_array_get(js, i));
    agent_select_options opt = {json_get_str(c, "override"), json_get_str(c, "interface"), 2.0,
                                0.25, js ? sim : NULL};
    agent_plan_choice choice;
    dbmcp_error err;
    int rc = agent_plan_select(set, json_get_str(c, "question"), &a, &opt, &choice, &err);
    char *problem = NULL;
    if (json_is_true(json_object_get(c, "error"))) {
        if (rc == 0) {
            snprintf(why, size, "chose %s, expected an error", choice.plan->name);
            problem = why;
        }
    } else if (rc != 0) {
        snprintf(why, size, "error: %.300s", err.message);
        problem = why;
    } else if (strcmp(choice.plan->name, json_get_str(c, "plan")) != 0 ||
               strcmp(choice.how, json_get_str(c, "how")) != 0) {
        snprintf(why, size, "chose %s (%s, rules %.2f), expected %s (%s)", choice.plan->name,
                 choice.how, choice.rule_score, json_get_str(c, "plan"), json_get_str(c, "how"));
        problem = why;
    } else if (json_object_get(c, "missing")) {
        const agent_required *m = agent_plan_missing(choice.plan, &a);
        const char *want = json_get_str(c, "missing");
        if ((m == NULL) != (want == NULL) || (m && strcmp(m->entity, want) != 0)) {
            snprintf(why, size, "missing %s, expected %s", m ? m->entity : "none",
                     want ? want : "none");
            problem = why;
        }
    }
    agent_analysis_free(&a);
    return problem;
}

static void run_select(const char *name, const json_t *doc, case_tally *tally)
{
    agent_plan_set set;
    memset(&set, 0, sizeof set);
    plans_from_json(json_object_get(doc, "plans"), &set);
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get(doc, "cases"), i, c) {
        char why[512];
        tally->cases++;
        char *problem = check_select(&set, c, why, sizeof why);
        case_tally_outcome(tally, name, c, problem != NULL, problem ? problem : "");
    }
    agent_plan_set_free(&set);
}

/* --- template and tokens -------------------------------------------------------------- */

static void run_template(const char *name, const json_t *doc, case_tally *tally)
{
    agent_analysis a;
    memset(&a, 0, sizeof a);
    entities_from_json(json_object_get(doc, "entities"), &a);
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get(doc, "cases"), i, c) {
        tally->cases++;
        json_t *got = agent_template_arguments(json_object_get(c, "template"), &a);
        int ok = got && json_equal(got, json_object_get(c, "expect"));
        char *dump = json_dump_compact(got);
        char why[512];
        snprintf(why, sizeof why, "got %s", dump ? dump : "NULL");
        case_tally_outcome(tally, name, c, !ok, why);
        free(dump);
        json_decref(got);
    }
    agent_analysis_free(&a);
}

static void run_tokens(const char *name, const json_t *doc, case_tally *tally)
{
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get(doc, "cases"), i, c) {
        tally->cases++;
        int got = agent_tokens_text(json_get_str(c, "text"));
        char why[64];
        snprintf(why, sizeof why, "%d tokens", got);
        case_tally_outcome(tally, name, c, got != int_or(c, "tokens", -1), why);
    }
}

/* --- budget ------------------------------------------------------------------------------ */

static llm_role role_parse(const char *s)
{
    return strcmp(s, "system") == 0      ? LLM_ROLE_SYSTEM
           : strcmp(s, "assistant") == 0 ? LLM_ROLE_ASSISTANT
           : strcmp(s, "tool") == 0      ? LLM_ROLE_TOOL
                                         : LLM_ROLE_USER;
}

static void request_from_json(const json_t *jm, llm_request *req)
{
    llm_request_init(req);
    size_t i;
    json_t *m;
    json_array_foreach (jm, i, m) {
        llm_role role = role_parse(json_get_str(m, "role"));
        if (role == LLM_ROLE_TOOL) {
            assert_int_equal(llm_request_add_tool_result(req, json_get_str(m, "tool_call_id"),
                                                         json_get_str(m, "name"),
                                                         json_get_str(m, "content")),
                             0);
            continue;
        }
        llm_message *msg = llm_request_add(req, role, json_get_str(m, "content"));
        assert_non_null(msg);
        size_t j;
        json_t *tc;
        json_array_foreach (json_object_get(m, "tool_calls"), j, tc)
            assert_non_null(llm_message_add_tool_call(msg, json_string_value(json_array_get(tc, 0)),
                                                      json_string_value(json_array_get(tc, 1)),
                                                      json_string_value(json_array_get(tc, 2))));
    }
}

static char *summariser(void *ctx, const llm_message *messages, size_t n, dbmcp_error *err)
{
    const json_t *summary = ctx;
    (void)messages;
    assert_true(n > 0);
    if (!json_is_string(summary)) {
        dbmcp_error_set(err, DBMCP_EIO, "summary failed");
        return NULL;
    }
    return strdup(json_string_value(summary));
}

/* Every tool call answered by a later tool message with its id, every tool
 * message answering a call made before it and not yet answered. */
static int calls_paired(const llm_request *req)
{
    for (size_t i = 0; i < req->message_count; i++) {
        const llm_message *m = &req->messages[i];
        for (size_t j = 0; j < m->tool_call_count; j++) {
            int answered = 0;
            for (size_t k = i + 1; k < req->message_count && !answered; k++)
                answered = req->messages[k].role == LLM_ROLE_TOOL &&
                           strcmp(req->messages[k].tool_call_id, m->tool_calls[j].id) == 0;
            if (!answered)
                return 0;
        }
        if (m->role != LLM_ROLE_TOOL)
            continue;
        int called = 0;
        for (size_t k = i; k > 0 && !called; k--)
            for (size_t j = 0; j < req->messages[k - 1].tool_call_count && !called; j++)
                called = strcmp(req->messages[k - 1].tool_calls[j].id, m->tool_call_id) == 0;
        if (!called)
            return 0;
    }
    return 1;
}

static char *check_budget(const json_t *c, char *why, size_t size)
{
    llm_request req;
    request_from_json(json_object_get(c, "messages"), &req);
    agent_budget b = {int_or(c, "window", 0), int_or(c, "reserve", 0), int_or(c, "tools_tokens", 0),
                      (size_t)int_or(c, "pinned", 0), (size_t)int_or(c, "question", 0)};
    const json_t *summary = json_object_get(c, "summary");
    agent_budget_report rep;
    dbmcp_error err;
    int rc = agent_budget_fit(&req, &b, summary ? summariser : NULL, (void *)summary, &rep, &err);
    const json_t *e = json_object_get(c, "expect");
    char *problem = NULL;
    const char *want_error = json_get_str(e, "error");
    if ((rc == DBMCP_ETOOBIG) != (want_error != NULL) || (rc && rc != DBMCP_ETOOBIG)) {
        snprintf(why, size, "rc %d (%.300s), after %ld", rc, rc ? err.message : "ok", rep.after);
        problem = why;
    } else if (rep.stubbed != int_or(e, "stubbed", rep.stubbed) ||
               rep.summarised != int_or(e, "summarised", rep.summarised) ||
               rep.dropped != int_or(e, "dropped", rep.dropped)) {
        snprintf(why, size, "stubbed %d, summarised %d, dropped %d (%ld → %ld)", rep.stubbed,
                 rep.summarised, rep.dropped, rep.before, rep.after);
        problem = why;
    } else if (!want_error && rep.after > b.window - b.reply_reserve) {
        snprintf(why, size, "%ld tokens left over the limit", rep.after);
        problem = why;
    }
    const json_t *roles = json_object_get(e, "roles");
    if (!problem && roles) {
        int same = json_array_size(roles) == req.message_count;
        for (size_t i = 0; same && i < req.message_count; i++)
            same = strcmp(llm_role_name(req.messages[i].role),
                          json_string_value(json_array_get(roles, i))) == 0;
        if (!same) {
            snprintf(why, size, "%zu messages, roles differ", req.message_count);
            problem = why;
        }
    }
    const char *key;
    json_t *text;
    json_object_foreach (json_object_get(e, "contains"), key, text) {
        size_t at = (size_t)atoi(key);
        const char *content = at < req.message_count ? req.messages[at].content : NULL;
        if (!problem && (!content || !strstr(content, json_string_value(text)))) {
            snprintf(why, size, "message %zu is %.200s", at, content ? content : "(none)");
            problem = why;
        }
    }
    if (!problem && !calls_paired(&req)) {
        snprintf(why, size, "a tool call lost its answer or an answer its call");
        problem = why;
    }
    if (!problem && json_object_get(e, "question_index") &&
        b.question_index != (size_t)int_or(e, "question_index", -1)) {
        snprintf(why, size, "question index %zu", b.question_index);
        problem = why;
    }
    llm_request_free(&req);
    return problem;
}

static void run_budget(const char *name, const json_t *doc, case_tally *tally)
{
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get(doc, "cases"), i, c) {
        char why[512];
        tally->cases++;
        char *problem = check_budget(c, why, sizeof why);
        case_tally_outcome(tally, name, c, problem != NULL, problem ? problem : "");
    }
}

/* --- the runner ------------------------------------------------------------------------------ */

static void run_file(const char *name, const json_t *doc, case_tally *tally)
{
    const char *kind = json_get_str(doc, "kind");
    if (kind && strcmp(kind, "analyse") == 0)
        run_analyse(name, doc, tally);
    else if (kind && strcmp(kind, "select") == 0)
        run_select(name, doc, tally);
    else if (kind && strcmp(kind, "template") == 0)
        run_template(name, doc, tally);
    else if (kind && strcmp(kind, "tokens") == 0)
        run_tokens(name, doc, tally);
    else if (kind && strcmp(kind, "budget") == 0)
        run_budget(name, doc, tally);
    else {
        tally->failures++;
        print_error("%s: unknown kind %s\n", name, kind ? kind : "(none)");
    }
}

static void test_agent_cases(void **state)
{
    (void)state;
    case_tally tally = {0, 0, 0};
    case_files_run("agent", 0, run_file, &tally);
    print_message("agent cases: %d run, %d failed, %d pending\n", tally.cases, tally.failures,
                  tally.pending);
    assert_true(tally.cases >= CASES_MIN);
    assert_int_equal(tally.failures, 0);
}

/* An oversized question is refused with a size error, not analysed. */
static void test_question_too_long(void **state)
{
    (void)state;
    size_t n = AGENT_QUESTION_MAX + 1;
    char *q = malloc(n + 1);
    assert_non_null(q);
    memset(q, 'a', n);
    q[n] = '\0';
    agent_entity_rule rule = {"r", "k", "a+", 0, 0, 0};
    agent_analysis a;
    memset(&a, 0, sizeof a);
    dbmcp_error err;
    assert_int_equal(agent_analyse_rules(&rule, 1, q, &a, &err), DBMCP_ETOOBIG);
    assert_int_equal(a.count, 0);
    agent_analysis_free(&a);
    free(q);
}

/* A rule matching everywhere contributes at most AGENT_RULE_MATCHES_MAX
 * entities; empty matches never loop. */
static void test_match_bounds(void **state)
{
    (void)state;
    char q[200];
    memset(q, 'x', sizeof q - 1);
    q[sizeof q - 1] = '\0';
    agent_entity_rule rules[] = {{"each", "x", "x", 0, 0, 0}, {"empty", "e", "y*", 0, 0, 0}};
    agent_analysis a;
    memset(&a, 0, sizeof a);
    dbmcp_error err;
    assert_int_equal(agent_analyse_rules(rules, 2, q, &a, &err), 0);
    assert_int_equal(a.count, AGENT_RULE_MATCHES_MAX);
    json_t *j = agent_analysis_to_json(&a);
    assert_int_equal(json_array_size(json_object_get(j, "entities")), AGENT_RULE_MATCHES_MAX);
    json_decref(j);
    agent_analysis_free(&a);
    agent_analysis_free(&a); /* twice is safe */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_cases),
        cmocka_unit_test(test_question_too_long),
        cmocka_unit_test(test_match_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
