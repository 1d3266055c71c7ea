/*
 * run.c — one chat run from message to answer (see run.h): memory session,
 * analysis, plan choice, required entities, request assembly, the plan's
 * steps, the run record.
 */
#include "agent/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_store.h"
#include "agent/analyse.h"
#include "agent/plan.h"
#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "memory/memory.h"
#include "search/embed.h"
#include "store/registry.h"

#define HISTORY_MESSAGES_DEFAULT 20

/* Everything one run holds while it executes. */
typedef struct run_state {
    const agent_env *env;
    const agent_chat_request *req;
    agent_chat_result *out;
    mem_scope scope;
    mem_config mem;
    agent_analysis analysis;
    agent_plan_set plans;
    const agent_plan *plan;
    llm_config llm;
    llm_request conv;
    agent_loop loop;
    agent_tool_port port;
    int port_open;
    int question_saved; /* the user's message is in the session */
    char *detail;       /* operator detail of how the run ended (dbmcp_runs.status_detail) */
} run_state;

/* --- small helpers ---------------------------------------------------------------- */

static double setting_double(store *db, const char *key, double def)
{
    char *v = reg_setting_get(db, key);
    if (!v)
        return def;
    char *end = NULL;
    double d = strtod(v, &end);
    if (!end || end == v || *end)
        d = def;
    free(v);
    return d;
}

static void step_note(run_state *rs, const agent_step *s, const char *status, const char *detail)
{
    json_t *e = json_pack("{s:i, s:s, s:s}", "step", s->step_no, "kind",
                          agent_step_kind_name(s->kind), "status", status);
    if (e && detail)
        json_object_set_new(e, "detail", json_string(detail));
    json_array_append_new(rs->out->steps, e);
}

static void save_turn(run_state *rs, const mem_message_in *m)
{
    int64_t id = 0;
    dbmcp_error err;
    if (mem_message_save(rs->env->db, &rs->scope, &rs->mem, rs->out->session_id, m, &id, NULL,
                         &err) != 0)
        log_msg(LOG_WARN, "agent", "run %s: %s message not saved to session %s: %s",
                rs->out->run_id, m->role, rs->out->session_id, err.message);
}

static void save_message(run_state *rs, const char *role, const char *content, const char *metadata)
{
    mem_message_in m = {role, content ? content : "", NULL, NULL, metadata, NULL};
    save_turn(rs, &m);
}

/* The user's message, once, before the first turn that answers it. */
static void save_question(run_state *rs)
{
    if (rs->question_saved)
        return;
    rs->question_saved = 1;
    save_message(rs, "user", rs->req->message, NULL);
}

/* agent_loop.on_message: an assistant message with its tool calls, or a
 * tool result, stored as the loop appends it. */
static void store_turn(void *ctx, const llm_message *lm)
{
    run_state *rs = ctx;
    save_question(rs);
    json_t *wire = lm->role == LLM_ROLE_ASSISTANT ? llm_message_to_json(lm) : NULL;
    json_t *calls = wire ? json_object_get(wire, "tool_calls") : NULL;
    char *calls_text = json_array_size(calls) > 0 ? json_dump_compact(calls) : NULL;
    json_decref(wire);
    int tool = lm->role == LLM_ROLE_TOOL;
    char meta[80];
    snprintf(meta, sizeof meta, "{\"run_id\":\"%s\"}", rs->out->run_id);
    mem_message_in m = {tool ? "tool" : "assistant",
                        lm->content ? lm->content : "",
                        tool ? lm->tool_call_id : NULL,
                        tool ? lm->name : NULL,
                        meta,
                        calls_text};
    save_turn(rs, &m);
    free(calls_text);
}

/* --- plan choice ------------------------------------------------------------------- */

/* Cosine of the question with each plan's description and examples (the
 * best one per plan); NULL when vectors are off or unavailable. */
static double *plan_similarity(run_state *rs, double weight)
{
    if (weight <= 0 || rs->plans.count == 0)
        return NULL;
    embedder *e = NULL;
    dbmcp_error err;
    if (embedder_open_from_settings(rs->env->db, &e, &err) != 0) {
        log_msg(LOG_WARN, "agent", "plan selection without vectors: %s", err.message);
        return NULL;
    }
    size_t n = 1;
    for (size_t i = 0; i < rs->plans.count; i++)
        n += 1 + rs->plans.plans[i].n_examples;
    const char **texts = calloc(n, sizeof *texts);
    size_t *owner = calloc(n, sizeof *owner);
    double *sim = calloc(rs->plans.count, sizeof *sim);
    float *vec = NULL;
    int dim = embedder_probe(e, &err) == 0 ? embedder_dim(e) : 0;
    if (texts && owner && sim && dim > 0)
        vec = malloc(n * (size_t)dim * sizeof *vec);
    int ok = vec != NULL;
    if (ok) {
        size_t k = 0;
        texts[k++] = rs->req->message;
        for (size_t i = 0; i < rs->plans.count; i++) {
            owner[k] = i;
            texts[k++] = rs->plans.plans[i].description;
            for (size_t j = 0; j < rs->plans.plans[i].n_examples; j++) {
                owner[k] = i;
                texts[k++] = rs->plans.plans[i].examples[j];
            }
        }
        ok = embedder_embed(e, texts, n, vec, &err) == 0;
        if (!ok)
            log_msg(LOG_WARN, "agent", "plan selection without vectors: %s", err.message);
    }
    for (size_t k = 1; ok && k < n; k++) {
        double dot = 0;
        for (int d = 0; d < dim; d++)
            dot += (double)vec[d] * vec[k * (size_t)dim + (size_t)d];
        if (dot > sim[owner[k]])
            sim[owner[k]] = dot;
    }
    free(vec);
    free(texts);
    free(owner);
    embedder_free(e);
    if (!ok) {
        free(sim);
        return NULL;
    }
    return sim;
}

static int choose_plan(run_state *rs, dbmcp_error *err)
{
    int rc = agent_store_plans(rs->env->db, &rs->plans, err);
    if (rc)
        return rc;
    agent_select_options opt = {0};
    opt.override = rs->req->plan && *rs->req->plan ? rs->req->plan : NULL;
    opt.interface = rs->req->interface && *rs->req->interface ? rs->req->interface : NULL;
    opt.vector_weight = setting_double(rs->env->db, "agent.vector_weight", 2.0);
    opt.vector_min = setting_double(rs->env->db, "agent.vector_min", 0.25);
    double *sim = opt.override ? NULL : plan_similarity(rs, opt.vector_weight);
    opt.similarity = sim;
    agent_plan_choice choice;
    rc = agent_plan_select(&rs->plans, rs->req->message, &rs->analysis, &opt, &choice, err);
    free(sim);
    if (rc)
        return rc;
    rs->plan = choice.plan;
    rs->out->plan = strdup(choice.plan->name);
    rs->out->selection = choice.how;
    log_msg(LOG_DEBUG, "agent", "run %s: plan %s (%s, rules %.2f, similarity %.2f)",
            rs->out->run_id, choice.plan->name, choice.how, choice.rule_score, choice.similarity);
    return rs->out->plan ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "chat: out of memory");
}

/* --- the request ------------------------------------------------------------------- */

static char *prompt_or(store *db, const char *name, const char *fallback)
{
    char *text = NULL;
    dbmcp_error err;
    if (name && agent_store_prompt_text(db, name, &text, &err) != 0)
        log_msg(LOG_WARN, "agent", "prompt %s not used: %s", name, err.message);
    return text ? text : (fallback ? strdup(fallback) : NULL);
}

static char *extended_prompt(run_state *rs)
{
    char *base = prompt_or(rs->env->db, rs->plan->extended_prompt, "");
    char *analysis = json_dumps(rs->out->analysis, JSON_COMPACT);
    const char *fmt = "%s%sPlan: %s. %s\n\nPrompt analysis of the user's message (entities found "
                      "before you were asked; use them as tool arguments where they fit):\n%s";
    size_t n = strlen(fmt) + (base ? strlen(base) : 0) + strlen(rs->plan->name) +
               strlen(rs->plan->description) + (analysis ? strlen(analysis) : 2) + 8;
    char *text = malloc(n);
    if (text)
        snprintf(text, n, fmt, base ? base : "", base && *base ? "\n\n" : "", rs->plan->name,
                 rs->plan->description, analysis ? analysis : "{}");
    free(base);
    free(analysis);
    return text;
}

/* 1 when the tool messages msgs[a..e) answer every call of calls, each
 * once, and nothing else. */
static int calls_answered(const json_t *calls, const mem_message *msgs, size_t a, size_t e)
{
    if (e - a != json_array_size(calls))
        return 0;
    size_t i;
    json_t *c;
    json_array_foreach (calls, i, c) {
        const char *id = json_get_str(c, "id");
        int hits = 0;
        for (size_t k = a; k < e; k++)
            hits += id && msgs[k].tool_call_id && strcmp(msgs[k].tool_call_id, id) == 0;
        if (hits != 1)
            return 0;
    }
    return 1;
}

static void wire_add(json_t *out, const char *role, const char *content)
{
    json_array_append_new(out, json_pack("{s:s, s:s}", "role", role, "content", content));
}

/* The session's turns in the OpenAI wire shape: user messages, assistant
 * messages (with their tool calls when every call is answered by the tool
 * messages right after them, else their text alone), those tool results.
 * Tool messages whose call is not in the window, system messages and empty
 * texts are left out, so the replay is always a valid conversation. */
static json_t *history_wire(const mem_message_list *list)
{
    json_t *out = json_array();
    for (size_t i = 0; out && i < list->count; i++) {
        const mem_message *m = &list->items[i];
        int has_text = m->content && *m->content;
        if (strcmp(m->role, "user") == 0 && has_text)
            wire_add(out, "user", m->content);
        if (strcmp(m->role, "assistant") != 0)
            continue;
        json_t *calls = json_parse_text(m->tool_calls);
        size_t e = i + 1;
        while (e < list->count && strcmp(list->items[e].role, "tool") == 0)
            e++;
        if (json_array_size(calls) > 0 && calls_answered(calls, list->items, i + 1, e)) {
            json_array_append_new(out,
                                  json_pack("{s:s, s:s?, s:O}", "role", "assistant", "content",
                                            has_text ? m->content : NULL, "tool_calls", calls));
            for (size_t k = i + 1; k < e; k++) {
                const mem_message *t = &list->items[k];
                json_t *o = json_pack("{s:s, s:s, s:s}", "role", "tool", "tool_call_id",
                                      t->tool_call_id, "content", t->content ? t->content : "");
                if (o && t->tool_name)
                    json_object_set_new(o, "name", json_string(t->tool_name));
                json_array_append_new(out, o);
            }
            i = e - 1;
        } else if (has_text) {
            wire_add(out, "assistant", m->content);
        }
        json_decref(calls);
    }
    return out;
}

/* Earlier turns of the session, tool rounds included (history_wire). */
static void add_history(run_state *rs)
{
    long limit =
        (long)setting_double(rs->env->db, "agent.history_messages", HISTORY_MESSAGES_DEFAULT);
    if (limit <= 0)
        return;
    mem_message_list list;
    memset(&list, 0, sizeof list);
    dbmcp_error err;
    if (mem_session_history(rs->env->db, &rs->scope, rs->out->session_id, (int)limit, &list,
                            &err) != 0) {
        log_msg(LOG_WARN, "agent", "session history not loaded: %s", err.message);
        return;
    }
    json_t *wire = history_wire(&list);
    mem_message_list_free(&list);
    size_t before = rs->conv.message_count;
    if (!wire || llm_request_add_json(&rs->conv, wire, &err) != 0) {
        log_msg(LOG_WARN, "agent", "session history not loaded: %s",
                wire ? err.message : "out of memory");
        /* Never half a history: a cut round would leave a call unanswered. */
        while (rs->conv.message_count > before)
            llm_message_free(&rs->conv.messages[--rs->conv.message_count]);
    }
    json_decref(wire);
}

static int build_request(run_state *rs, dbmcp_error *err)
{
    llm_request_init(&rs->conv);
    char *system = prompt_or(rs->env->db, rs->plan->system_prompt,
                             "You are a helpful assistant. Use the tools you are given for "
                             "facts; never invent figures.");
    char *extended = extended_prompt(rs);
    int ok = system && extended && llm_request_add(&rs->conv, LLM_ROLE_SYSTEM, system) &&
             llm_request_add(&rs->conv, LLM_ROLE_SYSTEM, extended);
    free(system);
    free(extended);
    if (!ok)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "chat: out of memory");
    rs->loop.pinned_prefix = rs->conv.message_count;
    add_history(rs);
    rs->loop.question_index = rs->conv.message_count;
    if (!llm_request_add(&rs->conv, LLM_ROLE_USER, rs->req->message))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "chat: out of memory");
    return 0;
}

/* --- steps -------------------------------------------------------------------------- */

static int has_later_llm_step(const agent_plan *p, size_t i)
{
    for (size_t j = i + 1; j < p->n_steps; j++)
        if (p->steps[j].kind == AGENT_STEP_LLM)
            return 1;
    return 0;
}

static int open_port(run_state *rs, dbmcp_error *err)
{
    if (rs->port_open)
        return 0;
    int rc = rs->env->port_open(rs->env->port_ctx, rs->plan->interface, &rs->port, err);
    if (rc)
        return rc;
    rs->port_open = 1;
    rs->loop.port = rs->port;
    return 0;
}

static void save_episode(run_state *rs, const agent_step *s)
{
    const char *status = rs->out->status == AGENT_ANSWERED ? "success"
                         : rs->out->status == AGENT_ASKED  ? "partial"
                                                           : "failed";
    char meta[160];
    snprintf(meta, sizeof meta, "{\"run_id\":\"%s\",\"plan\":\"%s\"}", rs->out->run_id,
             rs->plan->name);
    mem_episode_in e = {rs->out->session_id,
                        rs->plan->name,
                        rs->req->message,
                        status,
                        rs->out->answer,
                        NULL,
                        NULL,
                        meta};
    int64_t id = 0;
    dbmcp_error err;
    int rc = mem_episode_save(rs->env->db, &rs->scope, &rs->mem, &e, &id, NULL, &err);
    step_note(rs, s, rc ? "error" : "done", rc ? err.message : NULL);
}

static void set_answer(run_state *rs, agent_status st, char *text)
{
    free(rs->out->answer);
    rs->out->answer = text;
    rs->out->status = st;
}

/* Run one llm step. *stop set when the run must end here. */
static int run_llm_step(run_state *rs, size_t i, int *stop, dbmcp_error *err)
{
    const agent_step *s = &rs->plan->steps[i];
    if (s->prompt) {
        char *text = prompt_or(rs->env->db, s->prompt, NULL);
        if (text)
            llm_request_add(&rs->conv, LLM_ROLE_USER, text);
        free(text);
    }
    agent_outcome oc;
    int rc = agent_loop_step(&rs->loop, &rs->conv, s, &oc, err);
    if (rc)
        return rc;
    step_note(rs, s, agent_status_name(oc.status), oc.detail);
    int later = has_later_llm_step(rs->plan, i);
    int iterations_out =
        oc.status == AGENT_LIMIT && oc.detail && strncmp(oc.detail, "step ", 5) == 0;
    int go_on = oc.status == AGENT_ANSWERED || (iterations_out && later);
    if (!go_on || oc.status == AGENT_ANSWERED) {
        set_answer(rs, oc.status, oc.text);
        oc.text = NULL;
    }
    if (!go_on && oc.detail) {
        log_msg(LOG_INFO, "agent", "run %s ended in step %d: %s", rs->out->run_id, s->step_no,
                oc.detail);
        free(rs->detail);
        rs->detail = strdup(oc.detail);
    }
    *stop = !go_on;
    /* The next llm step sees this step's answer. */
    if (go_on && oc.status == AGENT_ANSWERED && later)
        llm_request_add(&rs->conv, LLM_ROLE_ASSISTANT, rs->out->answer);
    agent_outcome_free(&oc);
    return 0;
}

static int run_steps(run_state *rs, dbmcp_error *err)
{
    int rc = 0, stop = 0;
    for (size_t i = 0; i < rs->plan->n_steps && !rc && !stop; i++) {
        const agent_step *s = &rs->plan->steps[i];
        switch (s->kind) {
        case AGENT_STEP_ANALYSE: {
            char detail[64];
            snprintf(detail, sizeof detail, "%zu entities", rs->analysis.count);
            step_note(rs, s, "done", detail);
            break;
        }
        case AGENT_STEP_TOOL: {
            if (!s->tool) {
                step_note(rs, s, "skipped", "no tool named");
                break;
            }
            if ((rc = open_port(rs, err)) != 0)
                break;
            json_t *args = agent_template_arguments(s->arguments, &rs->analysis);
            rc = agent_loop_tool_step(&rs->loop, &rs->conv, s, args, err);
            json_decref(args);
            step_note(rs, s, rc ? "error" : "done", s->tool);
            break;
        }
        case AGENT_STEP_LLM:
            if ((rc = open_port(rs, err)) != 0)
                break;
            rc = run_llm_step(rs, i, &stop, err);
            break;
        case AGENT_STEP_SAVE_EPISODE: break; /* after the answer is known, below */
        }
    }
    if (rc)
        return rc;
    if (!rs->out->answer)
        set_answer(rs, AGENT_ERROR,
                   strdup("This plan has no step that asks the language model, so there is no "
                          "answer."));
    for (size_t i = 0; i < rs->plan->n_steps; i++)
        if (rs->plan->steps[i].kind == AGENT_STEP_SAVE_EPISODE)
            save_episode(rs, &rs->plan->steps[i]);
    return 0;
}

/* --- the run -------------------------------------------------------------------------- */

static int open_session(run_state *rs, dbmcp_error *err)
{
    int rc = mem_scope_resolve(rs->req->user_id, rs->req->agent_id, NULL, &rs->scope, err);
    if (rc)
        return rc;
    mem_config_load(rs->env->db, &rs->mem);
    const char *sid = rs->req->session_id && *rs->req->session_id ? rs->req->session_id : NULL;
    rc = mem_session_open(rs->env->db, &rs->scope, &rs->mem, sid, rs->out->session_id, err);
    if (rc == DBMCP_ENOTFOUND)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "session '%s' does not exist for this user",
                               sid ? sid : "");
    return rc;
}

static char *ask_for(const agent_required *r)
{
    if (r->question && *r->question)
        return strdup(r->question);
    size_t n = strlen(r->entity) + 96;
    char *q = malloc(n);
    if (q)
        snprintf(q, n, "To answer this I need the %s. Please name it.", r->entity);
    return q;
}

static int start_run(run_state *rs, dbmcp_error *err)
{
    char *analysis = json_dumps(rs->out->analysis, JSON_COMPACT);
    agent_run_row row = {rs->out->run_id,    rs->out->session_id,
                         rs->plan->name,     rs->out->selection,
                         rs->req->principal, rs->plan->interface,
                         rs->scope.user_id,  rs->scope.agent_id,
                         rs->req->message,   analysis};
    int rc = agent_store_run_start(rs->env->db, &row, err);
    free(analysis);
    return rc;
}

static void finish_run(run_state *rs, const char *detail)
{
    agent_run_end end = {agent_status_name(rs->out->status),
                         detail,
                         rs->out->answer,
                         rs->loop.llm_calls,
                         rs->loop.tool_calls,
                         rs->loop.tokens_in,
                         rs->loop.tokens_out};
    dbmcp_error err;
    if (agent_store_run_finish(rs->env->db, rs->out->run_id, &end, &err) != 0)
        log_msg(LOG_ERROR, "agent", "run %s not finished in dbmcp_runs: %s", rs->out->run_id,
                err.message);
}

static int configure_llm(run_state *rs, dbmcp_error *err)
{
    if (rs->env->llm) {
        rs->llm = *rs->env->llm;
    } else {
        json_t *settings = NULL;
        int rc = reg_settings_all(rs->env->db, &settings, err);
        if (!rc)
            rc = llm_config_load(&rs->llm, settings, err);
        json_decref(settings);
        if (rc)
            return rc;
    }
    return llm_config_check(&rs->llm, err);
}

static int run_plan(run_state *rs, dbmcp_error *err)
{
    const agent_required *missing = agent_plan_missing(rs->plan, &rs->analysis);
    if (missing) {
        set_answer(rs, AGENT_ASKED, ask_for(missing));
        json_array_append_new(rs->out->steps,
                              json_pack("{s:i, s:s, s:s, s:s}", "step", 0, "kind", "analyse",
                                        "status", "asked", "detail", missing->entity));
        for (size_t i = 0; i < rs->plan->n_steps; i++)
            if (rs->plan->steps[i].kind == AGENT_STEP_SAVE_EPISODE)
                save_episode(rs, &rs->plan->steps[i]);
        return 0;
    }
    dbmcp_error cerr;
    dbmcp_error_clear(&cerr);
    if (configure_llm(rs, &cerr) != 0) {
        log_msg(LOG_ERROR, "agent", "run %s: language model not configured: %s", rs->out->run_id,
                cerr.message);
        set_answer(rs, AGENT_ERROR,
                   strdup("The language model is not configured, so I cannot answer. (The "
                          "operator sets DBMCP_LLM_URL, DBMCP_LLM_MODEL and the key.)"));
        rs->detail = strdup(cerr.message);
        return 0;
    }
    rs->loop.llm = &rs->llm;
    rs->loop.db = rs->env->db;
    rs->loop.run_id = rs->out->run_id;
    rs->loop.principal = rs->req->principal;
    rs->loop.interface = rs->plan->interface;
    rs->loop.user_id = rs->scope.user_id;
    rs->loop.agent_id = rs->scope.agent_id;
    rs->loop.transport = rs->req->transport;
    rs->loop.on_message = store_turn;
    rs->loop.on_message_ctx = rs;
    agent_limits_load(rs->env->db, &rs->loop.limits);
    char *stream = reg_setting_get(rs->env->db, "agent.stream");
    const char *env_stream = getenv("DBMCP_LLM_STREAM");
    rs->loop.stream = (env_stream && strcmp(env_stream, "1") == 0) ||
                      (!env_stream && stream && strcmp(stream, "true") == 0);
    free(stream);
    char *summary_name = reg_setting_get(rs->env->db, "agent.summary_prompt");
    char *summary = prompt_or(rs->env->db, summary_name ? summary_name : "context_summary", NULL);
    free(summary_name);
    rs->loop.summary_prompt = summary;
    int rc = build_request(rs, err);
    if (!rc)
        rc = run_steps(rs, err);
    rs->loop.summary_prompt = NULL;
    free(summary);
    return rc;
}

int agent_chat(const agent_env *env, const agent_chat_request *req, agent_chat_result *out,
               dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!req->message || !*req->message)
        return dbmcp_error_set(err, DBMCP_EINVAL, "message: must not be empty");
    if (strlen(req->message) > AGENT_QUESTION_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "message: longer than %d bytes",
                               AGENT_QUESTION_MAX);
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.env = env;
    rs.req = req;
    rs.out = out;
    ids_uuid(out->run_id);
    out->steps = json_array();
    int rc = agent_analyse(env->db, req->message, &rs.analysis, err);
    if (!rc) {
        out->analysis = agent_analysis_to_json(&rs.analysis);
        rc = choose_plan(&rs, err);
    }
    if (!rc)
        rc = open_session(&rs, err);
    if (!rc)
        rc = start_run(&rs, err);
    if (!rc) {
        rc = run_plan(&rs, err);
        if (rc)
            set_answer(&rs, AGENT_ERROR, strdup("The chat failed inside dbmcp; see the log."));
        /* The question is saved with the first tool round (store_turn) or
         * here, after the history was loaded, so the history sent to the
         * model holds earlier turns only (the question is added once, last). */
        save_question(&rs);
        char meta[200];
        snprintf(meta, sizeof meta, "{\"run_id\":\"%s\",\"status\":\"%s\"}", out->run_id,
                 agent_status_name(out->status));
        save_message(&rs, "assistant", out->answer, meta);
        finish_run(&rs, rc ? err->message : rs.detail);
        rc = 0;
    }
    out->tool_calls = rs.loop.tool_log ? json_incref(rs.loop.tool_log) : json_array();
    out->llm_calls = rs.loop.llm_calls;
    out->n_tool_calls = rs.loop.tool_calls;
    out->tokens_in = rs.loop.tokens_in;
    out->tokens_out = rs.loop.tokens_out;
    if (rs.port_open && env->port_close)
        env->port_close(env->port_ctx, &rs.port);
    agent_loop_free(&rs.loop);
    llm_request_free(&rs.conv);
    agent_plan_set_free(&rs.plans);
    agent_analysis_free(&rs.analysis);
    free(rs.detail);
    return rc;
}

json_t *agent_chat_result_json(const agent_chat_result *r)
{
    return json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:O?, s:O?, s:O?, s:{s:i, s:i, s:I, s:I}}",
                     "run_id", r->run_id, "session", r->session_id, "status",
                     agent_status_name(r->status), "answer", r->answer, "plan", r->plan,
                     "selection", r->selection, "steps", r->steps, "tool_calls", r->tool_calls,
                     "analysis", r->analysis, "usage", "llm_calls", r->llm_calls, "tool_calls",
                     r->n_tool_calls, "tokens_in", (json_int_t)r->tokens_in, "tokens_out",
                     (json_int_t)r->tokens_out);
}

void agent_chat_result_free(agent_chat_result *r)
{
    if (!r)
        return;
    free(r->plan);
    free(r->answer);
    json_decref(r->analysis);
    json_decref(r->steps);
    json_decref(r->tool_calls);
    memset(r, 0, sizeof *r);
}
