/*
 * agent_store.c — SQL of the orchestrator (see agent_store.h). Every
 * statement is fixed text with :named parameters on the catalog connection.
 */
#include "agent/agent_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/text_safe.h"
#include "store/registry.h"

static char *col_dup(store_stmt *st, int i)
{
    const char *v = store_column_text(st, i);
    return v ? strdup(v) : NULL;
}

static json_t *col_json(store_stmt *st, int i)
{
    return json_parse_text(store_column_text(st, i));
}

/* Run a prepared SELECT, calling fn for every row. */
typedef int (*row_fn)(store_stmt *st, void *ctx);

static int each_row(store *db, const char *sql, const char *plan, row_fn fn, void *ctx,
                    dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (plan)
        store_bind_text(st, ":plan", plan);
    int step;
    while (!rc && (step = store_step(st, err)) == STORE_ROW)
        rc = fn(st, ctx);
    if (!rc && step < 0)
        rc = step;
    store_finalize(st);
    if (rc == DBMCP_ENOMEM)
        dbmcp_error_set(err, DBMCP_ENOMEM, "orchestrator tables: out of memory");
    return rc;
}

/* --- entity rules ------------------------------------------------------------ */

typedef struct rule_acc {
    agent_entity_rule *items;
    size_t n;
} rule_acc;

static int rule_row(store_stmt *st, void *ctx)
{
    rule_acc *acc = ctx;
    agent_entity_rule *grown = realloc(acc->items, (acc->n + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    acc->items = grown;
    agent_entity_rule *r = &grown[acc->n++];
    r->name = col_dup(st, 0);
    r->kind = col_dup(st, 1);
    r->pattern = col_dup(st, 2);
    r->value_group = (int)store_column_int(st, 3);
    r->case_sensitive = (int)store_column_int(st, 4);
    r->priority = (int)store_column_int(st, 5);
    return r->name && r->kind && r->pattern ? 0 : DBMCP_ENOMEM;
}

int agent_store_entity_rules(store *db, agent_entity_rule **out, size_t *n, dbmcp_error *err)
{
    rule_acc acc = {NULL, 0};
    int rc = each_row(db,
                      "SELECT name, kind, pattern, value_group, case_sensitive, priority"
                      " FROM dbmcp_entity_rules WHERE enabled = 1 ORDER BY priority DESC, name",
                      NULL, rule_row, &acc, err);
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

static int plan_row(store_stmt *st, void *ctx)
{
    agent_plan_set *set = ctx;
    agent_plan *grown = realloc(set->plans, (set->count + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    set->plans = grown;
    agent_plan *p = &grown[set->count++];
    memset(p, 0, sizeof *p);
    p->name = col_dup(st, 0);
    p->description = col_dup(st, 1);
    p->interface = col_dup(st, 2);
    p->system_prompt = col_dup(st, 3);
    p->extended_prompt = col_dup(st, 4);
    p->priority = (int)store_column_int(st, 5);
    p->is_default = (int)store_column_int(st, 6);
    return p->name && p->description && p->interface ? 0 : DBMCP_ENOMEM;
}

static int step_row(store_stmt *st, void *ctx)
{
    agent_plan *p = ctx;
    agent_step *grown = realloc(p->steps, (p->n_steps + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->steps = grown;
    agent_step *s = &grown[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->step_no = (int)store_column_int(st, 0);
    if (agent_step_kind_parse(store_column_text(st, 1), &s->kind) != 0)
        s->kind = AGENT_STEP_LLM;
    s->description = col_dup(st, 2);
    s->tool_choice = col_dup(st, 3);
    s->tools = col_json(st, 4);
    s->prompt = col_dup(st, 5);
    s->max_iterations = (int)store_column_int(st, 6);
    s->tool = col_dup(st, 7);
    s->arguments = col_json(st, 8);
    return s->description && s->tool_choice ? 0 : DBMCP_ENOMEM;
}

static int rule_plan_row(store_stmt *st, void *ctx)
{
    agent_plan *p = ctx;
    agent_plan_rule *grown = realloc(p->rules, (p->n_rules + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->rules = grown;
    agent_plan_rule *r = &grown[p->n_rules++];
    r->kind = col_dup(st, 0);
    r->pattern = col_dup(st, 1);
    r->weight = store_column_double(st, 2);
    return r->kind && r->pattern ? 0 : DBMCP_ENOMEM;
}

static int required_row(store_stmt *st, void *ctx)
{
    agent_plan *p = ctx;
    agent_required *grown = realloc(p->required, (p->n_required + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->required = grown;
    agent_required *r = &grown[p->n_required++];
    r->entity = col_dup(st, 0);
    r->question = col_dup(st, 1);
    return r->entity ? 0 : DBMCP_ENOMEM;
}

static int example_row(store_stmt *st, void *ctx)
{
    agent_plan *p = ctx;
    char **grown = realloc(p->examples, (p->n_examples + 1) * sizeof *grown);
    if (!grown)
        return DBMCP_ENOMEM;
    p->examples = grown;
    grown[p->n_examples] = col_dup(st, 0);
    return grown[p->n_examples++] ? 0 : DBMCP_ENOMEM;
}

static int plan_details(store *db, agent_plan *p, dbmcp_error *err)
{
    int rc = each_row(db,
                      "SELECT step_no, kind, description, tool_choice, tools, prompt,"
                      " max_iterations, tool, arguments FROM dbmcp_plan_steps"
                      " WHERE plan = :plan ORDER BY step_no",
                      p->name, step_row, p, err);
    if (!rc)
        rc = each_row(db,
                      "SELECT kind, pattern, weight FROM dbmcp_plan_rules WHERE plan = :plan"
                      " ORDER BY rule_no",
                      p->name, rule_plan_row, p, err);
    if (!rc)
        rc = each_row(db,
                      "SELECT entity, question FROM dbmcp_plan_required_entities"
                      " WHERE plan = :plan ORDER BY entity",
                      p->name, required_row, p, err);
    if (!rc)
        rc = each_row(db,
                      "SELECT text FROM dbmcp_plan_examples WHERE plan = :plan"
                      " ORDER BY example_no",
                      p->name, example_row, p, err);
    return rc;
}

int agent_store_plans(store *db, agent_plan_set *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = each_row(db,
                      "SELECT name, description, interface, system_prompt, extended_prompt,"
                      " priority, is_default FROM dbmcp_plans WHERE enabled = 1 ORDER BY name",
                      NULL, plan_row, out, err);
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

/* --- runs ------------------------------------------------------------------------- */

static int exec_bound(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err) < 0 ? err->code : 0;
    store_finalize(st);
    return rc;
}

int agent_store_run_start(store *db, const agent_run_row *row, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_runs (id, session_id, plan, selection, principal,"
                           " interface, user_id, agent_id, question, analysis) VALUES (:id,"
                           " :session, :plan, :selection, :principal, :interface, :user, :agent,"
                           " :question, :analysis)",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", row->id);
    store_bind_text(st, ":session", row->session_id);
    store_bind_text(st, ":plan", row->plan);
    store_bind_text(st, ":selection", row->selection);
    store_bind_text(st, ":principal", row->principal);
    store_bind_text(st, ":interface", row->interface);
    store_bind_text(st, ":user", row->user_id);
    store_bind_text(st, ":agent", row->agent_id);
    store_bind_text(st, ":question", row->question);
    store_bind_text(st, ":analysis", row->analysis);
    return exec_bound(st, err);
}

int agent_store_run_finish(store *db, const char *run_id, const agent_run_end *end,
                           dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(
        db,
        "UPDATE dbmcp_runs SET status = :status, status_detail = :detail, answer = :answer,"
        " llm_calls = :llm, tool_calls = :tools, tokens_in = :tin, tokens_out = :tout,"
        " ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = :id",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":status", end->status);
    store_bind_text(st, ":detail", end->detail);
    store_bind_text(st, ":answer", end->answer);
    store_bind_int(st, ":llm", end->llm_calls);
    store_bind_int(st, ":tools", end->tool_calls);
    store_bind_int(st, ":tin", end->tokens_in);
    store_bind_int(st, ":tout", end->tokens_out);
    store_bind_text(st, ":id", run_id);
    return exec_bound(st, err);
}

/* --- LLM calls ----------------------------------------------------------------------- */

static void copy_field(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

static int audit_llm_row(store *db, const agent_llm_call_row *row, dbmcp_error *err)
{
    reg_audit_row a;
    memset(&a, 0, sizeof a);
    copy_field(a.call_id, sizeof a.call_id, row->call_id);
    ids_now_iso(a.ts);
    copy_field(a.principal, sizeof a.principal, row->principal);
    copy_field(a.interface, sizeof a.interface, row->interface);
    copy_field(a.user_id, sizeof a.user_id, row->user_id);
    copy_field(a.agent_id, sizeof a.agent_id, row->agent_id);
    copy_field(a.client_name, sizeof a.client_name, "dbmcp-agent");
    copy_field(a.model, sizeof a.model, row->model);
    copy_field(a.transport, sizeof a.transport, row->transport ? row->transport : "agent");
    copy_field(a.method, sizeof a.method, "llm");
    size_t tl = strlen(row->provider) + strlen(row->model) + 2;
    char *target = malloc(tl);
    if (target)
        snprintf(target, tl, "%s/%s", row->provider, row->model);
    /* the bounds of mcp/audit.h (AUDIT_TARGET_MAX, AUDIT_DETAIL_MAX): a
     * provider's error text is not ours to store whole */
    a.target = text_safe_bound(target, 512, 0);
    free(target);
    a.status = row->error_class ? "error" : "ok";
    a.error_class = row->error_class;
    a.error_detail = text_safe_bound(row->error_detail, 4096, 0);
    a.duration_ms = row->latency_ms;
    a.bytes_out = (int64_t)row->bytes_out;
    a.rows_out = -1;
    int rc = reg_audit_insert(db, &a, 1, err);
    free(a.target);
    free(a.error_detail);
    return rc;
}

int agent_store_llm_call(store *db, const agent_llm_call_row *row, dbmcp_error *err)
{
    int rc = audit_llm_row(db, row, err);
    if (rc)
        return rc;
    store_stmt *st = NULL;
    rc = store_prepare(
        db,
        "INSERT INTO dbmcp_llm_calls (call_id, run_id, step_no, iteration, purpose,"
        " provider, model, tokens_in, tokens_out, latency_ms, attempts, finish_reason,"
        " repaired, error_class) VALUES (:call_id, :run, :step, :iter, :purpose,"
        " :provider, :model, :tin, :tout, :latency, :attempts, :finish, :repaired,"
        " :class)",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":call_id", row->call_id);
    store_bind_text(st, ":run", row->run_id);
    store_bind_int(st, ":step", row->step_no);
    store_bind_int(st, ":iter", row->iteration);
    store_bind_text(st, ":purpose", row->purpose ? row->purpose : "chat");
    store_bind_text(st, ":provider", row->provider);
    store_bind_text(st, ":model", row->model);
    if (row->tokens_in >= 0)
        store_bind_int(st, ":tin", row->tokens_in);
    else
        store_bind_null(st, ":tin");
    if (row->tokens_out >= 0)
        store_bind_int(st, ":tout", row->tokens_out);
    else
        store_bind_null(st, ":tout");
    store_bind_double(st, ":latency", row->latency_ms);
    store_bind_int(st, ":attempts", row->attempts > 0 ? row->attempts : 1);
    store_bind_text(st, ":finish", row->finish_reason);
    store_bind_int(st, ":repaired", row->repaired ? 1 : 0);
    store_bind_text(st, ":class", row->error_class);
    return exec_bound(st, err);
}
