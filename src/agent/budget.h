/*
 * budget.h — keeping a conversation inside the model's context window.
 *
 * Tokens are estimated, not counted with the model's tokenizer (dbmcp does
 * not ship one): ASCII text at 4 characters per token, other code points at
 * 2 per token (CJK runs close to 1), plus AGENT_TOKENS_PER_MESSAGE for the
 * framing of every message; tool calls add their name and argument text.
 * The estimate errs on the large side for German and English prose.
 *
 * Before each request the loop calls agent_budget_fit. When the estimate
 * of the messages plus the tool definitions exceeds window - reply_reserve:
 *   1. old tool results become stubs ("[tool result omitted …]"), oldest
 *      first; the results the model has not seen yet (the latest round) are
 *      never stubbed;
 *   2. then the oldest complete stretch of messages (earlier turns of the
 *      chat, then earlier tool rounds of this run) is replaced by one
 *      summary message written by `summarise` (the loop asks the model with
 *      the summary prompt); without a summariser, or when it fails, the
 *      stretch is dropped and a note says so;
 *   3. if it still does not fit: DBMCP_ETOOBIG.
 * Never touched: the leading system messages (pinned_prefix), the user's
 * question (question_index) and the latest round (an assistant message with
 * tool calls and its answers), so no tool call is ever left unanswered and
 * no answer loses its call.
 */
#ifndef DBMCP_AGENT_BUDGET_H
#define DBMCP_AGENT_BUDGET_H

#include <stddef.h>

#include "core/error.h"
#include "llm/llm.h"

#define AGENT_TOKENS_PER_MESSAGE 4

/* Estimated tokens of text (NULL is 0). */
int agent_tokens_text(const char *s);
/* Estimated tokens of one message (content, tool calls, framing). */
int agent_tokens_message(const llm_message *m);
/* Sum over req->messages. */
long agent_tokens_messages(const llm_request *req);

typedef struct agent_budget {
    long window;           /* model context window in tokens */
    long reply_reserve;    /* kept free for the reply */
    long tools_tokens;     /* estimated tokens of req->tools */
    size_t pinned_prefix;  /* leading messages never touched (system prompts) */
    size_t question_index; /* the user's question in this run (never touched) */
} agent_budget;

/* Summary of messages[0..n) as malloc'd text, or NULL with err filled. */
typedef char *(*agent_summarise_fn)(void *ctx, const llm_message *messages, size_t n,
                                    dbmcp_error *err);

typedef struct agent_budget_report {
    long before;    /* estimate before fitting (messages + tools) */
    long after;     /* estimate after */
    int stubbed;    /* tool results replaced by stubs */
    int summarised; /* stretches replaced by a summary */
    int dropped;    /* stretches dropped (no summary) */
} agent_budget_report;

/* Fit req->messages into the budget in place (see above). b->question_index
 * is updated when messages before it are replaced. summarise may be NULL.
 * Returns 0 (report filled) or DBMCP_ETOOBIG / DBMCP_ENOMEM. */
int agent_budget_fit(llm_request *req, agent_budget *b, agent_summarise_fn summarise, void *ctx,
                     agent_budget_report *report, dbmcp_error *err);

#endif
