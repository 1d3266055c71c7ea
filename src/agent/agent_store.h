/*
 * agent_store.h — the orchestrator's rows as agent structs. The SQL is in
 * store/plans_store.c (plans and their steps/rules/examples/required
 * entities, entity rules, runs and LLM call records, each with its
 * dbmcp_audit row, method "llm"); this module turns the rows it reads into
 * agent_plan_set and agent_entity_rule values and forwards the writes, on
 * the catalog (read-write) connection.
 *
 * Ownership: loaded structs are owned by the caller and released with the
 * matching _free (plan.h, or agent_entity_rules_free here).
 */
#ifndef DBMCP_AGENT_AGENT_STORE_H
#define DBMCP_AGENT_AGENT_STORE_H

#include <stddef.h>

#include "agent/analyse.h"
#include "agent/plan.h"
#include "core/error.h"
#include "store/plans_store.h"
#include "store/store.h"

/* --- loading -------------------------------------------------------------- */

/* Enabled entity rules by priority (desc), then name. Strings are malloc'd
 * (free with agent_entity_rules_free). */
int agent_store_entity_rules(store *db, agent_entity_rule **out, size_t *n, dbmcp_error *err);
void agent_entity_rules_free(agent_entity_rule *rules, size_t n);

/* Every enabled plan with its steps, rules, required entities and examples. */
int agent_store_plans(store *db, agent_plan_set *out, dbmcp_error *err);

/* The text of a prompt: the "text" of every text content block of its
 * messages, joined by blank lines; *out malloc'd. DBMCP_ENOTFOUND when the
 * prompt does not exist or is disabled. */
int agent_store_prompt_text(store *db, const char *name, char **out, dbmcp_error *err);

/* --- runs ------------------------------------------------------------------ */

/* The row of a new run and how it ended (fields: store/plans_store.h). */
typedef plans_run_row agent_run_row;
typedef plans_run_end agent_run_end;

int agent_store_run_start(store *db, const agent_run_row *row, dbmcp_error *err);
int agent_store_run_finish(store *db, const char *run_id, const agent_run_end *end,
                           dbmcp_error *err);

/* --- LLM calls -------------------------------------------------------------- */

/* One LLM call with its audit identity (fields: store/plans_store.h). */
typedef plans_llm_call_row agent_llm_call_row;

/* Write the dbmcp_audit row (method "llm", target "provider/model") and
 * then the dbmcp_llm_calls row (two short transactions). */
int agent_store_llm_call(store *db, const agent_llm_call_row *row, dbmcp_error *err);

#endif
