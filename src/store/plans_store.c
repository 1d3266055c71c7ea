/*
 * plans_store.c — the SQL of the orchestrator's tables (see plans_store.h).
 * Every statement is fixed text with :named parameters on the catalog
 * connection; the times it records are bound from the C clock
 * (ids_now_iso), never left to an engine's column default.
 */
#include "store/plans_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/text_safe.h"
#include "store/registry.h"

/* Fills a row struct from the current row and hands it to the caller's
 * callback, which call (one of the *_call structs below) holds. */
typedef int (*row_fn)(store_stmt *st, void *call);

/* Run a SELECT (with :plan bound when plan is not NULL), calling each(st,
 * call) for every row until one returns nonzero. */
static int each_row(store *db, const char *sql, const char *plan, row_fn each, void *call,
                    dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    if (plan)
        store_bind_text(st, ":plan", plan);
    int step = STORE_DONE;
    while (!rc && (step = store_step(st, err)) == STORE_ROW)
        rc = each(st, call);
    if (!rc && step < 0)
        rc = step;
    store_finalize(st);
    if (rc == DBMCP_ENOMEM)
        dbmcp_error_set(err, DBMCP_ENOMEM, "orchestrator tables: out of memory");
    return rc;
}

static int int_col(store_stmt *st, int i)
{
    return (int)store_column_int(st, i);
}

/* --- reads ----------------------------------------------------------------------- */

typedef struct entity_rule_call {
    plans_entity_rule_fn fn;
    void *ctx;
} entity_rule_call;

static int entity_rule_each(store_stmt *st, void *call)
{
    entity_rule_call *c = call;
    plans_entity_rule_row r = {store_column_text(st, 0), store_column_text(st, 1),
                               store_column_text(st, 2), int_col(st, 3),
                               int_col(st, 4),           int_col(st, 5)};
    return c->fn(c->ctx, &r);
}

int plans_store_entity_rules_each(store *db, plans_entity_rule_fn fn, void *ctx, dbmcp_error *err)
{
    return each_row(db,
                    "SELECT name, kind, pattern, value_group, case_sensitive, priority"
                    " FROM dbmcp_entity_rules WHERE enabled = 1 ORDER BY priority DESC, name",
                    NULL, entity_rule_each, &(entity_rule_call){fn, ctx}, err);
}

typedef struct plan_call {
    plans_plan_fn fn;
    void *ctx;
} plan_call;

static int plan_each(store_stmt *st, void *call)
{
    plan_call *c = call;
    plans_plan_row r = {store_column_text(st, 0),
                        store_column_text(st, 1),
                        store_column_text(st, 2),
                        store_column_text(st, 3),
                        store_column_text(st, 4),
                        int_col(st, 5),
                        int_col(st, 6)};
    return c->fn(c->ctx, &r);
}

int plans_store_plans_each(store *db, plans_plan_fn fn, void *ctx, dbmcp_error *err)
{
    return each_row(db,
                    "SELECT name, description, interface, system_prompt, extended_prompt,"
                    " priority, is_default FROM dbmcp_plans WHERE enabled = 1 ORDER BY name",
                    NULL, plan_each, &(plan_call){fn, ctx}, err);
}

typedef struct step_call {
    plans_step_fn fn;
    void *ctx;
} step_call;

static int step_each(store_stmt *st, void *call)
{
    step_call *c = call;
    plans_step_row r = {
        int_col(st, 0),           store_column_text(st, 1), store_column_text(st, 2),
        store_column_text(st, 3), store_column_text(st, 4), store_column_text(st, 5),
        int_col(st, 6),           store_column_text(st, 7), store_column_text(st, 8)};
    return c->fn(c->ctx, &r);
}

int plans_store_steps_each(store *db, const char *plan, plans_step_fn fn, void *ctx,
                           dbmcp_error *err)
{
    return each_row(db,
                    "SELECT step_no, kind, description, tool_choice, tools, prompt,"
                    " max_iterations, tool, arguments FROM dbmcp_plan_steps"
                    " WHERE plan = :plan ORDER BY step_no",
                    plan, step_each, &(step_call){fn, ctx}, err);
}

typedef struct rule_call {
    plans_rule_fn fn;
    void *ctx;
} rule_call;

static int rule_each(store_stmt *st, void *call)
{
    rule_call *c = call;
    plans_rule_row r = {store_column_text(st, 0), store_column_text(st, 1),
                        store_column_double(st, 2)};
    return c->fn(c->ctx, &r);
}

int plans_store_rules_each(store *db, const char *plan, plans_rule_fn fn, void *ctx,
                           dbmcp_error *err)
{
    return each_row(db,
                    "SELECT kind, pattern, weight FROM dbmcp_plan_rules WHERE plan = :plan"
                    " ORDER BY rule_no",
                    plan, rule_each, &(rule_call){fn, ctx}, err);
}

typedef struct required_call {
    plans_required_fn fn;
    void *ctx;
} required_call;

static int required_each(store_stmt *st, void *call)
{
    required_call *c = call;
    plans_required_row r = {store_column_text(st, 0), store_column_text(st, 1)};
    return c->fn(c->ctx, &r);
}

int plans_store_required_each(store *db, const char *plan, plans_required_fn fn, void *ctx,
                              dbmcp_error *err)
{
    return each_row(db,
                    "SELECT entity, question FROM dbmcp_plan_required_entities"
                    " WHERE plan = :plan ORDER BY entity",
                    plan, required_each, &(required_call){fn, ctx}, err);
}

typedef struct example_call {
    plans_example_fn fn;
    void *ctx;
} example_call;

static int example_each(store_stmt *st, void *call)
{
    example_call *c = call;
    return c->fn(c->ctx, store_column_text(st, 0));
}

int plans_store_examples_each(store *db, const char *plan, plans_example_fn fn, void *ctx,
                              dbmcp_error *err)
{
    return each_row(db,
                    "SELECT text FROM dbmcp_plan_examples WHERE plan = :plan"
                    " ORDER BY example_no",
                    plan, example_each, &(example_call){fn, ctx}, err);
}

/* --- runs ------------------------------------------------------------------------- */

static int exec_bound(store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err) < 0 ? err->code : 0;
    store_finalize(st);
    return rc;
}

int plans_store_run_start(store *db, const plans_run_row *row, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db,
                           "INSERT INTO dbmcp_runs (id, session_id, plan, selection, principal,"
                           " interface, user_id, agent_id, question, analysis, started_at)"
                           " VALUES (:id, :session, :plan, :selection, :principal, :interface,"
                           " :user, :agent, :question, :analysis, :now)",
                           &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
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
    store_bind_text(st, ":now", now);
    return exec_bound(st, err);
}

int plans_store_run_finish(store *db, const char *run_id, const plans_run_end *end,
                           dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(
        db,
        "UPDATE dbmcp_runs SET status = :status, status_detail = :detail, answer = :answer,"
        " llm_calls = :llm, tool_calls = :tools, tokens_in = :tin, tokens_out = :tout,"
        " ended_at = :now WHERE id = :id",
        &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    store_bind_text(st, ":status", end->status);
    store_bind_text(st, ":detail", end->detail);
    store_bind_text(st, ":answer", end->answer);
    store_bind_int(st, ":llm", end->llm_calls);
    store_bind_int(st, ":tools", end->tool_calls);
    store_bind_int(st, ":tin", end->tokens_in);
    store_bind_int(st, ":tout", end->tokens_out);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":id", run_id);
    return exec_bound(st, err);
}

/* --- LLM calls ----------------------------------------------------------------------- */

static void copy_field(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

static int audit_llm_row(store *db, const plans_llm_call_row *row, const char *now,
                         dbmcp_error *err)
{
    reg_audit_row a;
    memset(&a, 0, sizeof a);
    copy_field(a.call_id, sizeof a.call_id, row->call_id);
    copy_field(a.ts, sizeof a.ts, now);
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

int plans_store_llm_call(store *db, const plans_llm_call_row *row, dbmcp_error *err)
{
    char now[32];
    ids_now_iso(now);
    int rc = audit_llm_row(db, row, now, err);
    if (rc)
        return rc;
    store_stmt *st = NULL;
    rc = store_prepare(
        db,
        "INSERT INTO dbmcp_llm_calls (call_id, run_id, step_no, iteration, purpose,"
        " provider, model, tokens_in, tokens_out, latency_ms, attempts, finish_reason,"
        " repaired, error_class, ts) VALUES (:call_id, :run, :step, :iter, :purpose,"
        " :provider, :model, :tin, :tout, :latency, :attempts, :finish, :repaired,"
        " :class, :now)",
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
    store_bind_text(st, ":now", now);
    return exec_bound(st, err);
}
