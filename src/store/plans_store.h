/*
 * plans_store.h — the orchestrator's tables on the catalog (read-write)
 * connection: plans with their steps, rules, required entities and example
 * questions (0001_core.sql, 0005_orchestrator.sql), entity rules, one row
 * per chat run and one row per LLM call (with its dbmcp_audit row, method
 * "llm"). agent/ turns these rows into its own structs (agent_store.c);
 * nothing here knows what a plan means.
 *
 * Reads hand each row to a callback as a struct of borrowed values: the
 * strings belong to the statement and are valid during the call only
 * (copy what you keep). A callback returns 0 to go on, or a negative
 * dbmcp_code to stop the scan, which then returns that code.
 *
 * Writes take their values from the caller's structs and keep none of them;
 * the times they record (started_at, ended_at, ts) are bound from the C
 * clock as UTC ISO-8601 text with milliseconds, like the schema's defaults.
 */
#ifndef DBMCP_STORE_PLANS_STORE_H
#define DBMCP_STORE_PLANS_STORE_H

#include <stddef.h>

#include "core/error.h"
#include "store/registry.h"
#include "store/store.h"

/* --- rows as read (borrowed) ------------------------------------------------ */

/* One enabled row of dbmcp_entity_rules. */
typedef struct plans_entity_rule_row {
    const char *name;
    const char *kind;
    const char *pattern;
    int value_group;    /* capture group giving the value; 0 = the whole match */
    int case_sensitive; /* 0 or 1 */
    int priority;
} plans_entity_rule_row;

/* One enabled row of dbmcp_plans. */
typedef struct plans_plan_row {
    const char *name;
    const char *description;
    const char *interface;
    const char *system_prompt;   /* prompt name or NULL */
    const char *extended_prompt; /* prompt name or NULL */
    int priority;
    int is_default; /* 0 or 1 */
} plans_plan_row;

/* One row of dbmcp_plan_steps. */
typedef struct plans_step_row {
    int step_no;
    const char *kind; /* analyse | tool | llm | save_episode */
    const char *description;
    const char *tool_choice; /* none | auto | required | a tool name */
    const char *tools;       /* JSON array text, or NULL = all tools */
    const char *prompt;      /* user-kind prompt name, or NULL */
    int max_iterations;
    const char *tool;      /* kind tool: the tool to call, or NULL */
    const char *arguments; /* kind tool: JSON object text, or NULL */
} plans_step_row;

/* One row of dbmcp_plan_rules. */
typedef struct plans_rule_row {
    const char *kind; /* keyword | regex | concept */
    const char *pattern;
    double weight;
} plans_rule_row;

/* One row of dbmcp_plan_required_entities. */
typedef struct plans_required_row {
    const char *entity;
    const char *question; /* NULL: the caller's generated question */
} plans_required_row;

typedef int (*plans_entity_rule_fn)(void *ctx, const plans_entity_rule_row *row);
typedef int (*plans_plan_fn)(void *ctx, const plans_plan_row *row);
typedef int (*plans_step_fn)(void *ctx, const plans_step_row *row);
typedef int (*plans_rule_fn)(void *ctx, const plans_rule_row *row);
typedef int (*plans_required_fn)(void *ctx, const plans_required_row *row);
typedef int (*plans_example_fn)(void *ctx, const char *text);

/* --- reads ---------------------------------------------------------------------- */

/* Enabled entity rules by priority (highest first), then name. */
int plans_store_entity_rules_each(store *db, plans_entity_rule_fn fn, void *ctx, dbmcp_error *err);
/* Enabled plans by name. */
int plans_store_plans_each(store *db, plans_plan_fn fn, void *ctx, dbmcp_error *err);
/* The steps of plan by step_no. */
int plans_store_steps_each(store *db, const char *plan, plans_step_fn fn, void *ctx,
                           dbmcp_error *err);
/* The rules of plan by rule_no. */
int plans_store_rules_each(store *db, const char *plan, plans_rule_fn fn, void *ctx,
                           dbmcp_error *err);
/* The required entities of plan by entity. */
int plans_store_required_each(store *db, const char *plan, plans_required_fn fn, void *ctx,
                              dbmcp_error *err);
/* The example questions of plan by example_no. */
int plans_store_examples_each(store *db, const char *plan, plans_example_fn fn, void *ctx,
                              dbmcp_error *err);

/* --- runs ------------------------------------------------------------------------- */

/* A new dbmcp_runs row (status 'running', started now). */
typedef struct plans_run_row {
    const char *id;
    const char *session_id;
    const char *plan;      /* may be NULL */
    const char *selection; /* may be NULL */
    const char *principal;
    const char *interface;
    const char *user_id;
    const char *agent_id;
    const char *question;
    const char *analysis; /* JSON text or NULL */
} plans_run_row;

int plans_store_run_start(store *db, const plans_run_row *row, dbmcp_error *err);

/* How a run ended. */
typedef struct plans_run_end {
    const char *status; /* answered | asked | limit | error */
    const char *detail; /* may be NULL */
    const char *answer; /* may be NULL */
    int llm_calls, tool_calls;
    long tokens_in, tokens_out;
} plans_run_end;

/* Record the end of run run_id (ended now). */
int plans_store_run_finish(store *db, const char *run_id, const plans_run_end *end,
                           dbmcp_error *err);

/* --- LLM calls --------------------------------------------------------------------- */

typedef struct plans_llm_call_row {
    char call_id[37];
    const char *run_id;
    int step_no;
    int iteration;
    const char *purpose; /* chat | summary; NULL = chat */
    const char *provider;
    const char *model;
    int tokens_in, tokens_out; /* < 0: not reported (NULL) */
    double latency_ms;
    int attempts;              /* HTTP attempts of the call (>= 1) */
    const char *finish_reason; /* NULL on error */
    int repaired;
    const char *error_class;  /* NULL on success */
    const char *error_detail; /* operator detail, may be NULL */
    /* audit identity */
    const char *principal, *interface, *user_id, *agent_id, *transport;
    size_t bytes_out; /* size of the answer text + tool call arguments */
} plans_llm_call_row;

/* Write the dbmcp_audit row (method "llm", target "provider/model",
 * client "dbmcp-agent", transport "agent" unless given) and then the
 * dbmcp_llm_calls row, both stamped now (two short transactions). */
int plans_store_llm_call(store *db, const plans_llm_call_row *row, dbmcp_error *err);

/* --- admin (plans_admin.c): `dbmcp plans …` ---------------------------------- */

/* The plan `name` (enabled or not) as one new JSON object: name,
 * description, interface, system_prompt, extended_prompt (absent when
 * NULL), priority, is_default, enabled, steps [{kind, description,
 * tool_choice, tools, prompt, max_iterations, tool, arguments}] by step_no,
 * rules [{kind, pattern, weight}] by rule_no, required_entities [{entity,
 * question}] and examples ["text"]. DBMCP_ENOTFOUND "no plan named 'x'". */
int plans_admin_get(store *db, const char *name, json_t **out, dbmcp_error *err);
/* Every plan's name, in order (release with reg_names_free). */
int plans_admin_names(store *db, reg_names *out, dbmcp_error *err);
/* Insert (key NULL) or replace the plan keyed key (renames refused) from
 * an object of the plans_admin_get shape that catalog_validate_plan
 * accepted: the row and all its steps, rules, required entities and
 * examples (array order numbers them), in one transaction. The interface,
 * the prompts (of the right kind) and the tools it names must exist; the
 * first that does not is the error. DBMCP_EEXISTS / DBMCP_ENOTFOUND for the
 * plan itself. */
int plans_admin_write(store *db, const char *key, const json_t *plan, dbmcp_error *err);

#endif
