/*
 * run.h — one chat run: what `dbmcp chat` and POST /v1/chat execute
 * (docs/orchestrator.md, docs/plans.md).
 *
 *   1. open the working-memory session (a new one, or --session ID of the
 *      caller's scope) and store the user's message in it;
 *   2. analyse the message (analyse.h) and choose the plan (plan.h);
 *   3. record the run (dbmcp_runs) with the analysis;
 *   4. a required entity missing → the run ends with a question to the user,
 *      status "asked", without any LLM call;
 *   5. build the request: the plan's system prompt, its extended system
 *      prompt with the analysis as JSON, the session's earlier user and
 *      assistant turns, the message;
 *   6. run the plan's steps in order: analyse (recorded), tool
 *      (deterministic call, arguments templated from the entities), llm
 *      (loop.h), save_episode (memory episode);
 *   7. store the answer in the session and finish the run row.
 *
 * Tools run through a port the caller opens for the plan's interface (the
 * MCP server's dispatch: mcp/agent_port.h), so policy, caps and audit are
 * those of every other tool call.
 *
 * Ownership: agent_chat_result owns its strings and JSON;
 * agent_chat_result_free.
 */
#ifndef DBMCP_AGENT_RUN_H
#define DBMCP_AGENT_RUN_H

#include <jansson.h>

#include "agent/loop.h"
#include "core/error.h"
#include "llm/llm.h"
#include "store/store.h"

typedef struct agent_chat_request {
    const char *message;    /* the user's message (required) */
    const char *session_id; /* continue this session; NULL or "" = a new one */
    const char *plan;       /* plan override, or NULL */
    const char *interface;  /* only plans of this interface; NULL = any plan */
    const char *principal;  /* caller identity (audit, scope) */
    const char *user_id;    /* memory scope user (never empty) */
    const char *agent_id;   /* the key's agent, "" = any */
    const char *transport;  /* "cli" or "http" (audit) */
} agent_chat_request;

/* Opens a tool port for an interface with the caller's identity. */
typedef int (*agent_port_open_fn)(void *ctx, const char *interface, agent_tool_port *out,
                                  dbmcp_error *err);
typedef void (*agent_port_close_fn)(void *ctx, agent_tool_port *port);

typedef struct agent_env {
    store *db;             /* catalog connection (read-write), used by one thread */
    const llm_config *llm; /* NULL: llm_config_load from settings and environment */
    agent_port_open_fn port_open;
    agent_port_close_fn port_close;
    void *port_ctx;
} agent_env;

typedef struct agent_chat_result {
    char run_id[37];
    char session_id[37];
    char *plan;            /* chosen plan, or NULL */
    const char *selection; /* override | rules | vector | default (static), or NULL */
    agent_status status;
    char *answer;       /* what the user is shown (answer, question or honest ending) */
    json_t *analysis;   /* {"entities":[…]} */
    json_t *steps;      /* [{"step","kind","status"[,"detail"]}] */
    json_t *tool_calls; /* [{"step","name","arguments","status"}] */
    int llm_calls;
    int n_tool_calls;
    long tokens_in, tokens_out;
} agent_chat_result;

/* Run one chat. Returns 0 when the run happened (also when it ended with a
 * question, a limit or a provider error: see out->status and out->answer);
 * a negative code with err filled when it could not start (DBMCP_EINVAL:
 * empty or oversized message; DBMCP_ENOTFOUND: unknown session or plan, no
 * plan at all; DBMCP_ESTORE, DBMCP_ENOMEM). */
int agent_chat(const agent_env *env, const agent_chat_request *req, agent_chat_result *out,
               dbmcp_error *err);

/* {run_id, session, status, answer, plan, selection, steps, tool_calls,
 * analysis, usage:{llm_calls, tool_calls, tokens_in, tokens_out}}. New ref. */
json_t *agent_chat_result_json(const agent_chat_result *r);

void agent_chat_result_free(agent_chat_result *r);

#endif
