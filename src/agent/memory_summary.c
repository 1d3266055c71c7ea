/*
 * memory_summary.c — the LLM summary of an expired memory session
 * (memory_summary.h).
 */
#include "agent/memory_summary.h"

#include <stdlib.h>
#include <string.h>

#include "agent/agent_store.h"
#include "core/log.h"
#include "core/textnorm.h"
#include "llm/llm.h"
#include "store/registry.h"

static const char fixed_instruction[] =
    "Summarise the following conversation between a user and an assistant in at most 120 "
    "words, in the language of the conversation. Keep every figure, name, date and open "
    "question exactly; drop pleasantries and repetitions. Answer with the summary only.";

/* The instruction: memory.summary_prompt, memory_summary, context_summary,
 * else the fixed text. New string or NULL. */
static char *instruction(store *db)
{
    char *named = reg_setting_get(db, "memory.summary_prompt");
    const char *names[] = {named, "memory_summary", "context_summary"};
    char *text = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names && !text; i++) {
        dbmcp_error perr;
        if (names[i] && *names[i] && agent_store_prompt_text(db, names[i], &text, &perr) != 0)
            text = NULL;
        if (text && !*text) {
            free(text);
            text = NULL;
        }
    }
    free(named);
    return text ? text : strdup(fixed_instruction);
}

/* "role: text" lines, at most MEM_SUMMARY_INPUT_MAX bytes. New string or NULL. */
static char *transcript(const char *const *roles, const char *const *texts, size_t n)
{
    static const char cut[] = "\n[…]";
    char *buf = malloc(MEM_SUMMARY_INPUT_MAX + sizeof cut);
    if (!buf)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const char *role = roles[i] ? roles[i] : "";
        const char *text = texts[i] ? texts[i] : "";
        size_t need = strlen(role) + 2 + strlen(text) + 1;
        if (used + need > MEM_SUMMARY_INPUT_MAX) {
            size_t room = MEM_SUMMARY_INPUT_MAX - used;
            char *line = malloc(need + 1);
            if (line) {
                snprintf(line, need + 1, "%s: %s\n", role, text);
                size_t keep = text_utf8_valid_prefix(line, room);
                memcpy(buf + used, line, keep);
                used += keep;
                free(line);
            }
            memcpy(buf + used, cut, sizeof cut);
            return buf;
        }
        used += (size_t)snprintf(buf + used, need + 1, "%s: %s\n", role, text);
    }
    buf[used] = '\0';
    return buf;
}

static int configured(store *db, llm_config *cfg, dbmcp_error *err)
{
    json_t *settings = NULL;
    int rc = reg_settings_all(db, &settings, err);
    if (!rc)
        rc = llm_config_load(cfg, settings, err);
    json_decref(settings);
    if (rc)
        return dbmcp_error_prefix(err, "memory summary: LLM configuration");
    dbmcp_error cerr;
    if (llm_config_check(cfg, &cerr) != 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "memory summary: no LLM configured (%s)",
                               cerr.message);
    return 0;
}

int agent_memory_summary(store *db, const char *const *roles, const char *const *texts, size_t n,
                         char **out, dbmcp_error *err)
{
    *out = NULL;
    llm_config cfg;
    int rc = configured(db, &cfg, err);
    if (rc)
        return rc;
    char *system = instruction(db), *user = transcript(roles, texts, n);
    llm_request req;
    llm_request_init(&req);
    req.max_tokens = 400;
    if (!system || !user || !llm_request_add(&req, LLM_ROLE_SYSTEM, system) ||
        !llm_request_add(&req, LLM_ROLE_USER, user))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "memory summary: out of memory");
    free(system);
    free(user);
    llm_response resp;
    memset(&resp, 0, sizeof resp);
    if (!rc) {
        llm_error lerr;
        llm_error_clear(&lerr);
        if (llm_chat(&cfg, &req, &resp, &lerr) != 0)
            rc = dbmcp_error_set(err, lerr.base.code ? lerr.base.code : DBMCP_EIO,
                                 "memory summary: %s/%s: %s (%s, %d attempts)",
                                 llm_provider_name(cfg.provider), cfg.model,
                                 llm_error_kind_name(lerr.kind), lerr.base.message, lerr.attempts);
    }
    if (!rc) {
        const char *s = resp.message.content ? resp.message.content : "";
        while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
            s++;
        size_t len = strlen(s);
        while (len && strchr(" \n\r\t", s[len - 1]))
            len--;
        if (len > MEM_SUMMARY_OUTPUT_MAX)
            len = text_utf8_valid_prefix(s, MEM_SUMMARY_OUTPUT_MAX);
        if (!len)
            rc = dbmcp_error_set(err, DBMCP_EIO, "memory summary: %s/%s answered with no text",
                                 llm_provider_name(cfg.provider), cfg.model);
        else if (!(*out = strndup(s, len)))
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "memory summary: out of memory");
        else
            log_msg(LOG_DEBUG, "memory", "LLM summary by %s/%s: %zu bytes, %d attempts",
                    llm_provider_name(cfg.provider), cfg.model, len, resp.attempts);
    }
    llm_response_free(&resp);
    llm_request_free(&req);
    return rc;
}
