/*
 * memory_summary.h — the LLM summary of an expired memory session, the
 * summariser `dbmcp memory compact` and the compaction schedule of
 * `dbmcp serve` give mem_compact (memory/compact.h: mem_summary_fn).
 *
 * "Configured" means llm_config_load (settings llm.*, environment
 * DBMCP_LLM_*) and llm_config_check succeed: a URL and a model are set.
 * The instruction is the prompt named by the setting memory.summary_prompt,
 * else the prompt memory_summary, else context_summary (the orchestrator's),
 * else a fixed instruction; it is sent as the system message, the session's
 * messages ("role: text" lines, at most MEM_SUMMARY_INPUT_MAX bytes; the
 * rest is cut and marked) as one user message. The answer is trimmed and
 * cut at MEM_SUMMARY_OUTPUT_MAX bytes (on a UTF-8 boundary).
 */
#ifndef DBMCP_AGENT_MEMORY_SUMMARY_H
#define DBMCP_AGENT_MEMORY_SUMMARY_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

#define MEM_SUMMARY_INPUT_MAX ((size_t)32 * 1024)
#define MEM_SUMMARY_OUTPUT_MAX ((size_t)2000)

/* A mem_summary_fn. 0 with *out (malloc'd, non-empty); DBMCP_ENOTFOUND when
 * no provider is configured; any other code with err naming the failure
 * (configuration error, the provider's normalised error, an empty answer).
 * Makes one llm_chat call (with its retries). */
int agent_memory_summary(store *db, const char *const *roles, const char *const *texts, size_t n,
                         char **out, dbmcp_error *err);

#endif
