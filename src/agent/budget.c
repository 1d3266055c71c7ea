/*
 * budget.c — token estimates and context pruning (see budget.h).
 *
 * Messages are edited in place inside the llm_request: a stub replaces a
 * tool message's content; a summarised or dropped stretch [a, b) is freed
 * and replaced by one user message, the rest shifted down. Stretch ends are
 * chosen so that a tool message never starts the remainder (the assistant
 * message that called it is always in the same stretch).
 */
#include "agent/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int agent_tokens_text(const char *s)
{
    if (!s)
        return 0;
    long ascii = 0, other = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80)
            ascii++;
        else if ((*p & 0xC0) != 0x80)
            other++; /* a lead byte: one code point */
    }
    long t = (ascii + 3) / 4 + (other + 1) / 2;
    return t > 0x3fffffff ? 0x3fffffff : (int)t;
}

int agent_tokens_message(const llm_message *m)
{
    long t = AGENT_TOKENS_PER_MESSAGE + agent_tokens_text(m->content);
    for (size_t i = 0; i < m->tool_call_count; i++)
        t += AGENT_TOKENS_PER_MESSAGE + agent_tokens_text(m->tool_calls[i].name) +
             agent_tokens_text(m->tool_calls[i].arguments) + agent_tokens_text(m->tool_calls[i].id);
    if (m->tool_call_id)
        t += agent_tokens_text(m->tool_call_id);
    return t > 0x3fffffff ? 0x3fffffff : (int)t;
}

long agent_tokens_messages(const llm_request *req)
{
    long t = 0;
    for (size_t i = 0; i < req->message_count; i++)
        t += agent_tokens_message(&req->messages[i]);
    return t;
}

/* First index of the latest round: the last assistant message with tool
 * calls, when only its tool results follow it; else message_count. */
static size_t latest_round(const llm_request *req)
{
    size_t i = req->message_count;
    while (i > 0 && req->messages[i - 1].role == LLM_ROLE_TOOL)
        i--;
    if (i > 0 && req->messages[i - 1].role == LLM_ROLE_ASSISTANT &&
        req->messages[i - 1].tool_call_count > 0)
        return i - 1;
    return req->message_count;
}

static long total(const llm_request *req, const agent_budget *b)
{
    return agent_tokens_messages(req) + b->tools_tokens;
}

static int stub_tool_results(llm_request *req, const agent_budget *b, long limit,
                             agent_budget_report *rep)
{
    size_t end = latest_round(req);
    for (size_t i = b->pinned_prefix; i < end && total(req, b) > limit; i++) {
        llm_message *m = &req->messages[i];
        if (m->role != LLM_ROLE_TOOL || !m->content || strncmp(m->content, "[tool result", 12) == 0)
            continue;
        char stub[256];
        snprintf(stub, sizeof stub,
                 "[tool result of %s omitted to fit the context window (about %d tokens); call "
                 "the tool again if you still need it]",
                 m->name ? m->name : "the tool", agent_tokens_text(m->content));
        if (agent_tokens_text(stub) >= agent_tokens_text(m->content))
            continue;
        char *copy = strdup(stub);
        if (!copy)
            return DBMCP_ENOMEM;
        free(m->content);
        m->content = copy;
        rep->stubbed++;
    }
    return 0;
}

/* The oldest stretch [*a, *b) that may be replaced: earlier turns before
 * the question, else completed rounds between the question and the latest
 * round. A stretch never ends right before a tool message. 0 when none. */
static int find_stretch(const llm_request *req, const agent_budget *b, size_t *a, size_t *e)
{
    size_t ranges[2][2] = {{b->pinned_prefix, b->question_index},
                           {b->question_index + 1, latest_round(req)}};
    for (int r = 0; r < 2; r++) {
        size_t start = ranges[r][0], end = ranges[r][1];
        if (end > req->message_count)
            end = req->message_count;
        while (end > start && end < req->message_count && req->messages[end].role == LLM_ROLE_TOOL)
            end--;
        /* A lone summary or note is not worth replacing again. */
        if (end > start + 1 || (end == start + 1 && req->messages[start].role != LLM_ROLE_USER)) {
            *a = start;
            *e = end;
            return 1;
        }
    }
    return 0;
}

/* Replace messages [a, e) by one user message holding text (owned). */
static void replace_stretch(llm_request *req, agent_budget *b, size_t a, size_t e, char *text)
{
    for (size_t i = a; i < e; i++)
        llm_message_free(&req->messages[i]);
    llm_message *m = &req->messages[a];
    memset(m, 0, sizeof *m);
    m->role = LLM_ROLE_USER;
    m->content = text;
    size_t removed = e - a - 1;
    memmove(&req->messages[a + 1], &req->messages[e],
            (req->message_count - e) * sizeof *req->messages);
    req->message_count -= removed;
    if (b->question_index >= e)
        b->question_index -= removed;
}

static char *summary_text(const char *summary, size_t n)
{
    const char *fmt = "[Summary of %zu earlier messages, written to fit the context window]\n%s";
    size_t len = strlen(fmt) + strlen(summary) + 24;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, fmt, n, summary);
    return out;
}

static char *drop_text(size_t n)
{
    char *out = malloc(128);
    if (out)
        snprintf(out, 128, "[%zu earlier messages were dropped to fit the context window]", n);
    return out;
}

int agent_budget_fit(llm_request *req, agent_budget *b, agent_summarise_fn summarise, void *ctx,
                     agent_budget_report *rep, dbmcp_error *err)
{
    memset(rep, 0, sizeof *rep);
    long limit = b->window - b->reply_reserve;
    rep->before = rep->after = total(req, b);
    if (rep->before <= limit)
        return 0;
    if (stub_tool_results(req, b, limit, rep) != 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "context budget: out of memory");
    size_t a, e;
    while (total(req, b) > limit && find_stretch(req, b, &a, &e)) {
        char *text = NULL;
        if (summarise) {
            dbmcp_error serr;
            dbmcp_error_clear(&serr);
            char *summary = summarise(ctx, &req->messages[a], e - a, &serr);
            if (summary) {
                text = summary_text(summary, e - a);
                free(summary);
                rep->summarised += text != NULL;
            }
        }
        if (!text) {
            text = drop_text(e - a);
            rep->dropped += text != NULL;
        }
        if (!text)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "context budget: out of memory");
        replace_stretch(req, b, a, e, text);
    }
    rep->after = total(req, b);
    if (rep->after > limit)
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "the conversation needs about %ld tokens but the context window "
                               "leaves %ld after the reply reserve, even after pruning",
                               rep->after, limit);
    return 0;
}
