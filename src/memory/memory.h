/*
 * memory.h — agent memory in three tiers, kept in dbmcp's own tables.
 *
 *   working    sessions of one (user, agent) and their messages (role
 *              user/assistant/tool/system, content, tool_call_id, tool name,
 *              an assistant's tool calls as the OpenAI array);
 *              a session idle longer than memory.session_idle_s expires and
 *              becomes an episode candidate (never silently deleted);
 *   episodic   episodes: task type, description, status
 *              success/failed/partial, start, end, summary, links to the
 *              session they came from;
 *   semantic   knowledge: category, key, value, effective_from/effective_to;
 *              a new value for a key closes the old version (effective_to =
 *              now) instead of overwriting it; reads may ask "as of" a time.
 *
 * Every searchable text (a message's content, an episode's description and
 * summary, a knowledge "key: value") is one memory item, stored once per
 * scope and tier by its normalised content hash (de-duplication), indexed by
 * FTS5 at once and embedded later by the background worker
 * (memory/worker.h) from a durable job table. Until then it is found by
 * keyword.
 *
 * Scope: every call takes a mem_scope. The caller derives it from the
 * caller's identity (never from tool arguments): user_id is fixed by the
 * API key or the local principal; agent_id is the key's agent, or — when
 * the key allows any agent of its user — the agent the caller asked for
 * (mem_scope_resolve). No function reads or writes a row outside the scope
 * it is given.
 *
 * Threading: each function uses the store handle it is given; a handle is
 * used by one thread at a time (store.h). Writes are one transaction each
 * (the caller must not hold one open).
 *
 * Ownership: strings in result structs are owned by the struct and freed by
 * its _free function. Input structs are borrowed for the call.
 *
 * Errors: DBMCP_EINVAL (bad role/status/time, err names the field and the
 * rule), DBMCP_ETOOBIG (content over memory.max_content_bytes),
 * DBMCP_ENOTFOUND (unknown session/episode/knowledge in this scope),
 * DBMCP_EDENIED (agent not allowed by the key), DBMCP_ESTORE.
 */
#ifndef DBMCP_MEMORY_MEMORY_H
#define DBMCP_MEMORY_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "store/store.h"

#define MEM_ID_MAX 129              /* user/agent id buffer (128 bytes + NUL) */
#define MEM_DEFAULT_AGENT "default" /* agent of a key that allows any agent and names none */

/* --- scope ----------------------------------------------------------------- */

typedef struct mem_scope {
    char user_id[MEM_ID_MAX];  /* never empty */
    char agent_id[MEM_ID_MAX]; /* never empty */
} mem_scope;

/* The scope a caller may use: key_user (never empty) and key_agent (the
 * API key's agent, "" or NULL = any agent of that user) from the identity;
 * requested_agent from the arguments (NULL or "" = the key's agent, or
 * MEM_DEFAULT_AGENT). A key bound to an agent may not name another one:
 * DBMCP_EDENIED "agent: this API key may only use agent 'x'". */
int mem_scope_resolve(const char *key_user, const char *key_agent, const char *requested_agent,
                      mem_scope *out, dbmcp_error *err);

/* --- settings -------------------------------------------------------------- */

/* Recall defaults chosen on the tuning half of bench/retrieval (LoCoMo
 * conversations 1-5): the builtin lexical embedder's list lowered hybrid
 * recall at every weight tried (0.1 to 1), so hybrid recall is keyword
 * recall with it; the floor is the largest in steps of 0.05 that cost at
 * most 0.015 of recall@10. */
#define MEM_VECTOR_WEIGHT_BUILTIN 0.0
#define MEM_MIN_RELEVANCE 0.15

typedef struct mem_config {
    long max_content_bytes;       /* memory.max_content_bytes (65536) */
    long session_idle_s;          /* memory.session_idle_s (1800): idle → expired */
    long episode_retention_s;     /* memory.episode_retention_s (7776000 = 90 d):
                                     older episodes keep summary, drop raw messages */
    long knowledge_keep_versions; /* memory.knowledge_keep_versions (10) closed versions kept per
                                     key */
    long knowledge_retention_s;   /* memory.knowledge_retention_s (0 = keep by count only) */
    double half_life_s;           /* memory.recency_half_life_s (604800 = 7 d) */
    double frequency_weight;      /* memory.frequency_weight (0.1) */
    double recency_weight; /* memory.recency_weight (0.3): share of the score recency governs */
    double rrf_k;          /* memory.rrf_k (60) */
    double vector_weight_builtin; /* memory.vector_weight.builtin: RRF weight of the vector
                                     list with the builtin lexical embedder (keyword: 1;
                                     0 = keyword side alone) */
    double vector_weight_http;    /* memory.vector_weight.http (1.0): with an http embedder */
    double min_relevance;         /* memory.min_relevance: relevance floor 0..1 of recall */
    long max_results;             /* memory.max_results (50): cap of every search */
    long keyword_rows_max;        /* memory.keyword_rows_max (100000): matching items of the
                                     scope recall reads and ranks by keyword, newest first */
    long job_max_attempts;        /* memory.job_max_attempts (8) */
    long job_backoff_s;           /* memory.job_backoff_s (5): first retry delay, doubles */
    long job_lease_s;             /* memory.job_lease_s (300): how long a replica's claim on
                                     a batch of jobs lasts; a dead replica's jobs are taken
                                     again after it */
    double vector_refresh_s;      /* memory.vector_refresh_s (10): how often new vectors are
                                     published to searches (each publication rebuilds the index) */
    long ann_min_vectors;         /* memory.ann_min_vectors (100000): vectors of the scope from
                                     which recall's vector side uses the HNSW graph; -1 = never */
    long ann_ef;                  /* memory.ann_ef (64): graph candidates per search */
} mem_config;

/* Defaults above. */
void mem_config_default(mem_config *c);
/* Defaults overridden by rows of dbmcp_settings (unparsable values ignored). */
void mem_config_load(store *db, mem_config *c);

/* --- working memory --------------------------------------------------------- */

/* Open a session. session_id NULL or "": a new session (UUID into out_id).
 * Otherwise continue that session of this scope (DBMCP_ENOTFOUND when it
 * does not exist in the scope; DBMCP_EINVAL when it was compacted into an
 * episode). An expired but not yet compacted session is revived. */
int mem_session_open(store *db, const mem_scope *scope, const mem_config *cfg,
                     const char *session_id, char out_id[37], dbmcp_error *err);
/* The most recent session of the scope still active (idle < session_idle_s),
 * or a new one when none: what a chat loop calls to "continue". */
int mem_session_continue(store *db, const mem_scope *scope, const mem_config *cfg, char out_id[37],
                         dbmcp_error *err);

typedef struct mem_message_in {
    const char *role;         /* "user" | "assistant" | "tool" | "system" */
    const char *content;      /* UTF-8, <= max_content_bytes; "" allowed for tool calls */
    const char *tool_call_id; /* NULL unless role tool, or assistant calling tools */
    const char *tool_name;    /* NULL or the tool called/answering */
    const char *metadata;     /* NULL or a JSON object text (stored as is) */
    const char *tool_calls;   /* NULL, or role assistant only: a JSON array text of at most
                                 MEM_TOOL_CALLS_MAX calls in the OpenAI shape {"id",
                                 "type":"function", "function":{"name", "arguments": string}},
                                 at most MEM_TOOL_CALLS_BYTES (stored compact) */
} mem_message_in;

#define MEM_TOOL_CALLS_MAX 128
#define MEM_TOOL_CALLS_BYTES (1L << 20)

/* The input rules of mem_message_save alone (role, sizes, UTF-8,
 * metadata), without touching the database: check before opening a
 * session for the message. */
int mem_message_check(const mem_config *cfg, const mem_message_in *m, dbmcp_error *err);
/* Append a message to a session of this scope (it must exist: use
 * mem_session_open first). *out_id receives the message id; *deduplicated
 * (may be NULL) is 1 when the content was already stored in this scope
 * (the message row then shares it) or when it repeats the session's last
 * message exactly (same role, tool_call_id, tool_calls, content: the existing id is
 * returned, nothing new is written). */
int mem_message_save(store *db, const mem_scope *scope, const mem_config *cfg,
                     const char *session_id, const mem_message_in *m, int64_t *out_id,
                     int *deduplicated, dbmcp_error *err);

typedef struct mem_message {
    int64_t id;
    char *role;
    char *content;
    char *tool_call_id; /* may be NULL */
    char *tool_name;    /* may be NULL */
    char *metadata;     /* may be NULL */
    char *created_at;   /* ISO-8601 UTC */
    char *tool_calls;   /* assistant: JSON array text of its tool calls, else NULL */
} mem_message;

typedef struct mem_message_list {
    mem_message *items;
    size_t count;
    int compacted; /* 1 when raw messages were dropped by retention */
} mem_message_list;

/* The session's messages in order (oldest first); limit > 0 keeps only the
 * last `limit`. DBMCP_ENOTFOUND when the session is not in this scope. */
int mem_session_history(store *db, const mem_scope *scope, const char *session_id, int limit,
                        mem_message_list *out, dbmcp_error *err);
void mem_message_list_free(mem_message_list *l);

/* --- episodic memory -------------------------------------------------------- */

typedef struct mem_episode_in {
    const char *session_id;  /* NULL or a session of this scope (linked derived_from) */
    const char *task_type;   /* free text, e.g. "report", "sql" (may be NULL) */
    const char *description; /* required */
    const char *status;      /* "success" | "failed" | "partial" */
    const char *summary;     /* may be NULL */
    const char *started_at;  /* ISO-8601 or NULL (= the session's start, or now) */
    const char *ended_at;    /* ISO-8601 or NULL (= now) */
    const char *metadata;    /* NULL or JSON object text */
} mem_episode_in;

/* Save an episode; *deduplicated = 1 when the same description+summary was
 * already an episode of this scope (its id is returned). */
int mem_episode_save(store *db, const mem_scope *scope, const mem_config *cfg,
                     const mem_episode_in *e, int64_t *out_id, int *deduplicated, dbmcp_error *err);

/* --- semantic memory --------------------------------------------------------- */

typedef struct mem_knowledge_in {
    const char *category;   /* e.g. user_preference, domain_rule, api_schema */
    const char *key;        /* required */
    const char *value;      /* required */
    int64_t source_episode; /* 0 = none; else an episode of this scope */
    const char *metadata;   /* NULL or JSON object text */
} mem_knowledge_in;

/* Save a value for (category, key): when the current version holds the
 * same normalised value nothing changes (*deduplicated = 1, its id
 * returned); otherwise the current version is closed (effective_to = now)
 * and a new one opens (linked supersedes). */
int mem_knowledge_save(store *db, const mem_scope *scope, const mem_config *cfg,
                       const mem_knowledge_in *k, int64_t *out_id, int *deduplicated,
                       dbmcp_error *err);

/* Forget (category, key) (category NULL = every category): close the
 * current versions (effective_to = now, closed_by forget; as-of reads of
 * the past still see them), or with erase delete every version and its
 * links for good. *count receives the versions closed or deleted;
 * DBMCP_ENOTFOUND when there was nothing to forget. */
int mem_knowledge_forget(store *db, const mem_scope *scope, const char *category, const char *key,
                         int erase, int64_t *count, dbmcp_error *err);

/* --- links -------------------------------------------------------------------------- */

/* Node kinds: "session", "message", "episode", "knowledge". Both ends must
 * exist in the scope (DBMCP_ENOTFOUND names the end otherwise); relation is
 * 1..64 bytes of [a-z0-9_]. *existed = 1 when the edge was there. */
int mem_link(store *db, const mem_scope *scope, const char *src_kind, const char *src_id,
             const char *dst_kind, const char *dst_id, const char *relation, int64_t *id,
             int *existed, dbmcp_error *err);

/* --- helpers shared by the memory module and its tools ----------------------------- */

/* Check an ISO-8601 time ("2026-12-02", "2026-12-02T13:41", "…:12",
 * "…:12.345", with "Z" or "±HH:MM", default UTC) and write it as UTC
 * "YYYY-MM-DDTHH:MM:SS.mmmZ" into out. DBMCP_EINVAL names `field` and the
 * rule. */
int mem_time_normalize(const char *field, const char *in, char out[32], dbmcp_error *err);
/* The normalised form of a text as stored and de-duplicated: Unicode NFC,
 * CRLF → LF, leading and trailing white space removed. New string (caller
 * frees) or NULL with err: DBMCP_EINVAL "`field`: not valid UTF-8",
 * DBMCP_ETOOBIG "`field` is N bytes; the limit is M (setting
 * memory.max_content_bytes)". */
char *mem_text_normalize(const char *field, const char *text, long max_bytes, dbmcp_error *err);
/* Now minus `seconds` as "YYYY-MM-DDTHH:MM:SS.mmmZ" into out. */
void mem_time_ago(double seconds, char out[32]);
/* Hex BLAKE2b-128 of s into out[33]. */
void mem_hash_hex(const char *s, size_t n, char out[33]);

/* --- the memory log ------------------------------------------------------------ */

/* Record one memory access (scope, operation, target, result count,
 * duration) in dbmcp_memory_log. Failures are logged, never returned. */
void mem_log(store *db, const mem_scope *scope, const char *operation, const char *target,
             int64_t results, double ms);

#endif
