/*
 * analyse.h — prompt analysis: the entities of a user's question, found
 * before any LLM call, from two sources:
 *
 *   regex rules   rows of dbmcp_entity_rules (POSIX extended regular
 *                 expressions, case-insensitive unless the rule says so);
 *                 the rule's kind ("date", "amount", "tarifgebiet", …) is
 *                 the entity's kind, the capture group value_group its value.
 *                 Where matches of several rules overlap, the higher
 *                 priority wins, then the longer match, then the earlier one,
 *                 then the rule name.
 *   thesaurus     every concept label found in the question
 *                 (thesaurus_match_text over normalised text): kind
 *                 "concept", value the preferred label, with the preferred
 *                 labels of the concept's broader concepts.
 *
 * The result goes into dbmcp_runs.analysis and, as JSON, into the extended
 * system prompt; plan selection and required entities read it.
 *
 * Ownership: an agent_analysis owns every string in it; release it with
 * agent_analysis_free (safe on a zeroed struct, callable twice).
 */
#ifndef DBMCP_AGENT_ANALYSE_H
#define DBMCP_AGENT_ANALYSE_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

#define AGENT_QUESTION_MAX (32 * 1024) /* bytes of a question the analysis reads */
#define AGENT_ENTITIES_MAX 256         /* entities kept per analysis */
#define AGENT_RULE_MATCHES_MAX 32      /* matches one rule may contribute */
#define AGENT_BROADER_MAX 8            /* broader labels kept per concept entity */

/* One row of dbmcp_entity_rules (borrowed strings when built by hand). */
typedef struct agent_entity_rule {
    const char *name;
    const char *kind;
    const char *pattern;
    int value_group;    /* capture group giving the value; 0 = the whole match */
    int case_sensitive; /* 0: REG_ICASE */
    int priority;
} agent_entity_rule;

typedef struct agent_entity {
    char *kind;   /* rule kind, or "concept" */
    char *value;  /* capture group text, or the concept's preferred label */
    char *text;   /* the question's text [start, end) */
    size_t start; /* byte offsets into the question */
    size_t end;
    char *source;   /* rule name, or concept URI */
    int priority;   /* the rule's priority (0 for concepts) */
    char **broader; /* concepts: preferred labels of broader concepts */
    size_t n_broader;
} agent_entity;

typedef struct agent_analysis {
    agent_entity *entities; /* regex entities by start, then concepts by start */
    size_t count;
    char **rule_errors; /* rules skipped because their pattern does not compile */
    size_t n_rule_errors;
} agent_analysis;

/* --- analysis ------------------------------------------------------------ */

/* Apply regex rules to question (NUL-terminated, at most AGENT_QUESTION_MAX
 * bytes: longer is DBMCP_ETOOBIG) and append the surviving matches to out
 * (which may already hold entities). A rule whose pattern does not compile
 * is skipped and named in out->rule_errors. Returns 0 or a negative code. */
int agent_analyse_rules(const agent_entity_rule *rules, size_t n, const char *question,
                        agent_analysis *out, dbmcp_error *err);

/* The whole analysis against the catalog: the enabled rules of
 * dbmcp_entity_rules, then the thesaurus (a database without thesaurus
 * tables or concepts simply adds none). */
int agent_analyse(store *db, const char *question, agent_analysis *out, dbmcp_error *err);

/* Append one entity (strings copied; broader may be NULL). 0 or
 * DBMCP_ENOMEM; beyond AGENT_ENTITIES_MAX entities it is ignored. */
int agent_analysis_add(agent_analysis *a, const char *kind, const char *value, const char *text,
                       size_t start, size_t end, const char *source, int priority,
                       const char *const *broader, size_t n_broader);

/* The first entity that satisfies `name`: its kind, its value, its source
 * (concept URI) or one of its broader labels equals name (ASCII
 * case-insensitive). NULL when none. Borrowed. */
const agent_entity *agent_analysis_find(const agent_analysis *a, const char *name);

/* {"entities":[{"kind","value","text","start","end","source"[,"broader"]}…]}
 * as a new reference (NULL when out of memory). */
json_t *agent_analysis_to_json(const agent_analysis *a);

void agent_analysis_free(agent_analysis *a);

#endif
