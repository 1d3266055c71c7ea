/*
 * plan.h — execution plans as C structs and how one is chosen for a
 * question (docs/plans.md).
 *
 * Selection, in this order:
 *   1. an override (`dbmcp chat --plan NAME`, "plan" in POST /v1/chat) names
 *      the plan; an unknown or disabled name is an error, never a fallback;
 *   2. otherwise every candidate plan gets a rule score: the sum of the
 *      weights of its dbmcp_plan_rules that match — keyword: the pattern
 *      occurs in the question (case folded, NFKC); regex: POSIX extended,
 *      case-insensitive; concept: an entity of the analysis has that kind,
 *      value, concept URI or broader label — plus vector_weight times the
 *      best cosine similarity between the question and the plan's
 *      description and examples, when that similarity reaches vector_min;
 *   3. the best total wins (ties: higher priority, then name); "rules" when
 *      a rule matched, "vector" when only the similarity counted;
 *   4. no plan scored: the default plan (is_default, highest priority),
 *      else the highest-priority candidate ("default").
 *
 * Ownership: agent_plan_set owns everything in it; agent_plan_set_free.
 */
#ifndef DBMCP_AGENT_PLAN_H
#define DBMCP_AGENT_PLAN_H

#include <jansson.h>
#include <stddef.h>

#include "agent/analyse.h"
#include "core/error.h"

typedef enum agent_step_kind {
    AGENT_STEP_ANALYSE = 0,
    AGENT_STEP_TOOL,
    AGENT_STEP_LLM,
    AGENT_STEP_SAVE_EPISODE
} agent_step_kind;

typedef struct agent_step {
    int step_no;
    agent_step_kind kind;
    char *description;
    char *tool_choice; /* none | auto | required | a tool name */
    json_t *tools;     /* array of tool names narrowing the interface, or NULL = all */
    char *prompt;      /* optional user-kind prompt added at this step, or NULL */
    int max_iterations;
    char *tool;        /* kind tool: the tool to call */
    json_t *arguments; /* kind tool: argument template (object), or NULL */
} agent_step;

typedef struct agent_plan_rule {
    char *kind; /* keyword | regex | concept */
    char *pattern;
    double weight;
} agent_plan_rule;

typedef struct agent_required {
    char *entity;   /* entity kind or concept */
    char *question; /* what to ask when missing, or NULL */
} agent_required;

typedef struct agent_plan {
    char *name;
    char *description;
    char *interface;
    char *system_prompt;   /* prompt name or NULL */
    char *extended_prompt; /* prompt name or NULL */
    int priority;
    int is_default;
    agent_step *steps; /* by step_no */
    size_t n_steps;
    agent_plan_rule *rules;
    size_t n_rules;
    agent_required *required;
    size_t n_required;
    char **examples;
    size_t n_examples;
} agent_plan;

typedef struct agent_plan_set {
    agent_plan *plans; /* enabled plans, by name */
    size_t count;
} agent_plan_set;

/* How a plan was chosen, with the scores that decided it. */
typedef struct agent_plan_choice {
    const agent_plan *plan; /* borrowed from the set; NULL when the set is empty */
    const char *how;        /* "override", "rules", "vector" or "default" (static) */
    double rule_score;      /* of the chosen plan */
    double similarity;      /* best cosine of the chosen plan, 0 when not computed */
} agent_plan_choice;

/* Tunables (settings agent.vector_weight, agent.vector_min). */
typedef struct agent_select_options {
    const char *override;  /* plan name, or NULL */
    const char *interface; /* only plans of this interface are candidates; NULL = all */
    double vector_weight;  /* default 2.0; 0 turns vector similarity off */
    double vector_min;     /* default 0.2 */
    /* Similarity of the question to each plan (filled by the caller from the
     * embedder; NULL = no vectors): similarity[i] belongs to set->plans[i]. */
    const double *similarity;
} agent_select_options;

/* Choose a plan. DBMCP_ENOTFOUND when the override names no enabled plan
 * (of the interface, when one is given) or when there is no candidate at
 * all. */
int agent_plan_select(const agent_plan_set *set, const char *question,
                      const agent_analysis *analysis, const agent_select_options *opt,
                      agent_plan_choice *out, dbmcp_error *err);

/* The rule score of one plan for a question (exposed for tests and for the
 * run's record). */
double agent_plan_rule_score(const agent_plan *plan, const char *question,
                             const agent_analysis *analysis);

/* The first required entity of plan the analysis does not satisfy, or NULL. */
const agent_required *agent_plan_missing(const agent_plan *plan, const agent_analysis *analysis);

/* "analyse", "tool", "llm", "save_episode"; parse returns -1 when unknown. */
const char *agent_step_kind_name(agent_step_kind k);
int agent_step_kind_parse(const char *name, agent_step_kind *out);

/* Find a plan by name in the set (NULL when absent). */
const agent_plan *agent_plan_find(const agent_plan_set *set, const char *name);

/* Fill a tool step's argument template from the analysis: a string value
 * that is exactly "{{entity.KIND}}" becomes that entity's value (a number
 * when the template says "{{number:entity.KIND}}"); one that names a
 * missing entity removes the member; other strings get every placeholder
 * replaced in place. Returns a new object, or NULL when out of memory. */
json_t *agent_template_arguments(const json_t *tmpl, const agent_analysis *analysis);

void agent_plan_set_free(agent_plan_set *set);

#endif
