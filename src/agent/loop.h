/*
 * loop.h — the tool-calling loop of one plan step (docs/orchestrator.md).
 *
 * Each iteration: fit the conversation into the context budget, send it
 * with the step's tools (OpenAI function format, generated from each
 * tool's inputSchema) and tool_choice, record the LLM call (dbmcp_audit row
 * with method "llm" + dbmcp_llm_calls row), then:
 *   - tool calls: every call of the message (parallel calls included) is
 *     answered, in order, by one role-tool message with its tool_call_id.
 *     Arguments that did not parse, an unknown tool or arguments that fail
 *     the tool's schema (strict validator) get a message saying exactly what
 *     to fix — a correction, bounded per run; valid calls run through the
 *     port, i.e. the server's one dispatch path (policy, caps, audit). A
 *     forced tool_choice (required or a name) applies to the first request
 *     of the step only; then it becomes auto, so the model can answer.
 *   - otherwise the message's text ends the step.
 * Limits (iterations per step, corrections, total tokens, wall time), a
 * content filter, an output cut at the length limit and provider errors end
 * the run with an honest message instead of an answer.
 *
 * The loop never calls the MCP layer itself: the caller hands it an
 * agent_tool_port (mcp/agent_port.h implements it over mcp_handle).
 *
 * Ownership: agent_loop owns tool_log and catalog; agent_loop_free.
 */
#ifndef DBMCP_AGENT_LOOP_H
#define DBMCP_AGENT_LOOP_H

#include <jansson.h>

#include "agent/budget.h"
#include "agent/plan.h"
#include "core/error.h"
#include "llm/llm.h"
#include "store/store.h"

#define AGENT_TOOL_RESULT_MAX_DEFAULT 16384 /* bytes of one tool result shown to the model */

/* The server's tools as the caller sees them. */
typedef struct agent_tool_port {
    /* MCP Tool objects ({name, description, inputSchema, …}) of the interface
     * (new reference to an array), or NULL with err. */
    json_t *(*list)(void *ctx, dbmcp_error *err);
    /* One tools/call through the server's dispatch: the CallToolResult (new
     * reference), or NULL with err for a protocol-level refusal. model names
     * the LLM for the audit row. */
    json_t *(*call)(void *ctx, const char *name, json_t *args, const char *model, dbmcp_error *err);
    void *ctx;
} agent_tool_port;

typedef struct agent_limits {
    int max_corrections;  /* agent.max_corrections (3): invalid tool calls per run */
    long max_tokens;      /* agent.max_tokens (200000): tokens in + out per run */
    double max_seconds;   /* agent.max_seconds (300): wall time per run */
    long context_window;  /* agent.context_window (32768) */
    long reply_reserve;   /* agent.reply_reserve (4096) */
    long tool_result_max; /* agent.tool_result_max_bytes (16384) */
} agent_limits;

typedef enum agent_status {
    AGENT_RUNNING = 0,
    AGENT_ANSWERED, /* the model answered */
    AGENT_ASKED,    /* a required entity is missing: the answer is a question */
    AGENT_LIMIT,    /* a limit ended the run: the answer says which */
    AGENT_ERROR     /* the provider or the database failed: the answer says so */
} agent_status;

/* "running", "answered", "asked", "limit", "error". */
const char *agent_status_name(agent_status s);

typedef struct agent_loop {
    /* set by the caller */
    const llm_config *llm;
    agent_tool_port port;
    store *db; /* catalog connection: LLM call records */
    const char *run_id;
    const char *principal, *interface, *user_id, *agent_id, *transport; /* audit */
    agent_limits limits;
    int stream;                 /* ask for SSE */
    const char *summary_prompt; /* system text for summaries (NULL: built-in) */
    size_t pinned_prefix;       /* system messages at the head of the request */
    size_t question_index;      /* the user's question */
    /* Called with each assistant message that calls tools and each tool
     * result as it joins the conversation, before budget edits (NULL: not
     * called): what run.c stores in the chat's memory session. */
    void (*on_message)(void *ctx, const llm_message *m);
    void *on_message_ctx;
    /* kept by the loop */
    json_t *catalog;  /* MCP tools of the interface (owned), loaded on first use */
    json_t *tool_log; /* [{step, name, arguments, status, call_id?}] (owned) */
    int llm_calls, tool_calls, corrections;
    long tokens_in, tokens_out;
    double started_ms;
    int step_no, iteration;
    agent_budget_report last_budget;
} agent_loop;

typedef struct agent_outcome {
    agent_status status; /* AGENT_ANSWERED when the step produced text */
    char *text;          /* answer or honest ending (malloc'd), may be NULL */
    char *detail;        /* operator detail (malloc'd) or NULL */
} agent_outcome;

/* Load limits from settings (agent.*); unset or invalid values keep the
 * defaults above. */
void agent_limits_load(store *db, agent_limits *out);

/* Run one llm step on req (which holds the system prompts, history and
 * question; assistant and tool messages are appended). Returns 0 with
 * *out filled (status ANSWERED, LIMIT or ERROR); a negative code only for
 * an internal failure (out of memory). */
int agent_loop_step(agent_loop *loop, llm_request *req, const agent_step *step, agent_outcome *out,
                    dbmcp_error *err);

/* One deterministic tool call (kind tool): runs it through the port and
 * appends an assistant message with the call and the tool's answer to req,
 * so the model sees it as context. 0, or a negative code. */
int agent_loop_tool_step(agent_loop *loop, llm_request *req, const agent_step *step, json_t *args,
                         dbmcp_error *err);

/* The OpenAI `tools` array for the names in `only` (NULL = all of catalog):
 * {"type":"function","function":{name, description, parameters}}. New ref. */
json_t *agent_tools_openai(const json_t *catalog, const json_t *only);

void agent_outcome_free(agent_outcome *o);
void agent_loop_free(agent_loop *loop);

#endif
