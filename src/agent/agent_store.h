/*
 * agent_store.h — the orchestrator's tables (migration 0005): the one file
 * of agent/ that holds SQL, always through store.h on the catalog
 * (read-write) connection. Plans and their steps/rules/examples/required
 * entities, entity rules, runs and LLM call records (each with its
 * dbmcp_audit row, method "llm").
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

typedef struct agent_run_row {
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
} agent_run_row;

int agent_store_run_start(store *db, const agent_run_row *row, dbmcp_error *err);

typedef struct agent_run_end {
    const char *status; /* answered | asked | limit | error */
    const char *detail; /* may be NULL */
    const char *answer; /* may be NULL */
    int llm_calls, tool_calls;
    long tokens_in, tokens_out;
} agent_run_end;

int agent_store_run_finish(store *db, const char *run_id, const agent_run_end *end,
                           dbmcp_error *err);

/* --- LLM calls -------------------------------------------------------------- */

typedef struct agent_llm_call_row {
    char call_id[37];
    const char *run_id;
    int step_no;
    int iteration;
    const char *purpose; /* chat | summary */
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
} agent_llm_call_row;

/* Write the dbmcp_audit row (method "llm", target "provider/model") and
 * then the dbmcp_llm_calls row (two short transactions). */
int agent_store_llm_call(store *db, const agent_llm_call_row *row, dbmcp_error *err);

#endif
