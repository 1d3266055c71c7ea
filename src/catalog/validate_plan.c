/*
 * validate_plan.c — the shape an execution plan must have before it is
 * written (`dbmcp plans add|update`): the plan's own fields, and each step,
 * selection rule, required entity and example question, every error naming
 * the element (steps[1].max_iterations) and what it must be. What only the
 * database knows (the interface, prompts and tools exist) is checked by the
 * store in the write's transaction (plans_admin.c). docs/plans.md holds the
 * semantics.
 */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"

#define PLAN_MAX_STEPS 64
#define PLAN_MAX_RULES 256
#define PLAN_MAX_REQUIRED 64
#define PLAN_MAX_EXAMPLES 256
#define PLAN_MAX_TEXT 2000 /* a rule's pattern, an example (the tables' CHECKs) */

/* Keys an element may have, NULL-terminated. */
static int check_keys(const char *what, const json_t *o, const char *const *allowed,
                      dbmcp_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)o, key, v) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, key) != 0)
            a++;
        if (!*a) {
            char list[256] = "";
            size_t used = 0;
            for (a = allowed; *a && used < sizeof list; a++)
                used +=
                    (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *a);
            return dbmcp_error_set(err, DBMCP_EINVAL, "%s: unknown key '%s'; its keys are: %s",
                                   what, key, list);
        }
    }
    return 0;
}

/* An optional string member: absent or null is fine (*out NULL). */
static int opt_string(const char *what, const json_t *o, const char *key, const char **out,
                      dbmcp_error *err)
{
    json_t *v = json_object_get(o, key);
    *out = json_string_value(v);
    if (v && !json_is_null(v) && !json_is_string(v))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s.%s must be a string", what, key);
    return 0;
}

static int one_of(const char *s, const char *const *choices)
{
    for (; *choices; choices++)
        if (strcmp(s, *choices) == 0)
            return 1;
    return 0;
}

/* An optional name member (a prompt, a tool). */
static int opt_name(const char *what, const json_t *o, const char *key, const char *label,
                    dbmcp_error *err)
{
    const char *s;
    int rc = opt_string(what, o, key, &s, err);
    if (!rc && s && catalog_validate_name(label, s, err))
        rc = dbmcp_error_prefix(err, what);
    return rc;
}

static int validate_step(size_t i, const json_t *step, dbmcp_error *err)
{
    static const char *const keys[] = {"kind",  "description", "tool_choice",
                                       "tools", "prompt",      "max_iterations",
                                       "tool",  "arguments",   NULL};
    static const char *const kinds[] = {"analyse", "tool", "llm", "save_episode", NULL};
    char what[32];
    snprintf(what, sizeof what, "steps[%zu]", i);
    if (!json_is_object(step))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s must be a JSON object", what);
    int rc = check_keys(what, step, keys, err);
    const char *kind = NULL, *s = NULL, *choice = NULL;
    if (!rc)
        rc = opt_string(what, step, "kind", &kind, err);
    if (!rc && (!kind || !one_of(kind, kinds)))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s.kind must be one of analyse, tool, llm, save_episode", what);
    if (!rc)
        rc = opt_string(what, step, "description", &s, err);
    if (!rc)
        rc = opt_string(what, step, "tool_choice", &choice, err);
    if (!rc && choice && !one_of(choice, (const char *const[]){"none", "auto", "required", NULL}) &&
        catalog_validate_name("tool", choice, err))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s.tool_choice must be none, auto, required or a tool name", what);
    if (!rc)
        rc = opt_name(what, step, "prompt", "prompt", err);
    if (rc)
        return rc;
    json_t *tools = json_object_get(step, "tools");
    if (tools && !json_is_null(tools)) {
        if (!json_is_array(tools))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "%s.tools must be an array of tool names (null: all tools of "
                                   "the interface)",
                                   what);
        size_t j;
        json_t *t;
        json_array_foreach (tools, j, t)
            if (!json_is_string(t) || catalog_validate_name("tool", json_string_value(t), err))
                return dbmcp_error_set(err, DBMCP_EINVAL, "%s.tools[%zu] is not a tool name", what,
                                       j);
    }
    json_t *max = json_object_get(step, "max_iterations");
    if (max &&
        (!json_is_integer(max) || json_integer_value(max) < 1 || json_integer_value(max) > 32))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s.max_iterations must be a whole number from 1 to 32", what);
    const char *tool = NULL;
    if ((rc = opt_string(what, step, "tool", &tool, err)))
        return rc;
    json_t *args = json_object_get(step, "arguments");
    if (strcmp(kind, "tool") != 0) {
        if (tool || (args && !json_is_null(args)))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "%s: only a step of kind tool takes \"tool\" and \"arguments\"",
                                   what);
        return 0;
    }
    if (!tool)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: a tool step needs \"tool\" (a tool name)",
                               what);
    if (catalog_validate_name("tool", tool, err))
        return dbmcp_error_prefix(err, what);
    if (args && !json_is_null(args) && !json_is_object(args))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s.arguments must be a JSON object (values may be "
                               "\"{{entity.KIND}}\")",
                               what);
    return 0;
}

static int validate_rule(size_t i, const json_t *rule, dbmcp_error *err)
{
    static const char *const keys[] = {"kind", "pattern", "weight", NULL};
    static const char *const kinds[] = {"keyword", "regex", "concept", NULL};
    char what[32];
    snprintf(what, sizeof what, "rules[%zu]", i);
    if (!json_is_object(rule))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s must be a JSON object", what);
    const char *kind = NULL, *pattern = NULL;
    int rc = check_keys(what, rule, keys, err);
    if (!rc)
        rc = opt_string(what, rule, "kind", &kind, err);
    if (!rc && (!kind || !one_of(kind, kinds)))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s.kind must be one of keyword, regex, concept",
                               what);
    if (!rc)
        rc = opt_string(what, rule, "pattern", &pattern, err);
    if (rc)
        return rc;
    if (!pattern || !*pattern || strlen(pattern) > PLAN_MAX_TEXT)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s.pattern must be 1 to %d characters", what,
                               PLAN_MAX_TEXT);
    json_t *weight = json_object_get(rule, "weight");
    if (weight && !json_is_number(weight))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s.weight must be a number", what);
    if (strcmp(kind, "regex") == 0) {
        regex_t re;
        int code = regcomp(&re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
        if (code) {
            char why[128];
            regerror(code, &re, why, sizeof why);
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "%s.pattern is not a POSIX extended regular expression: %s",
                                   what, why);
        }
        regfree(&re);
    }
    return 0;
}

static int validate_required(size_t i, const json_t *req, dbmcp_error *err)
{
    static const char *const keys[] = {"entity", "question", NULL};
    char what[40];
    snprintf(what, sizeof what, "required_entities[%zu]", i);
    if (!json_is_object(req))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s must be a JSON object", what);
    const char *entity = NULL, *question = NULL;
    int rc = check_keys(what, req, keys, err);
    if (!rc)
        rc = opt_string(what, req, "entity", &entity, err);
    if (!rc)
        rc = opt_string(what, req, "question", &question, err);
    if (!rc && (!entity || !*entity || strlen(entity) > 128))
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "%s.entity must be 1 to 128 characters (an entity kind or concept)",
                             what);
    return rc;
}

/* Member key, when present and not null, must be an array of at most max
 * elements; *out gets it (NULL when absent). */
static int opt_array(const json_t *plan, const char *key, size_t max, json_t **out,
                     dbmcp_error *err)
{
    *out = json_object_get(plan, key);
    if (json_is_null(*out))
        *out = NULL;
    if (*out && !json_is_array(*out))
        return dbmcp_error_set(err, DBMCP_EINVAL, "\"%s\" must be an array", key);
    if (*out && json_array_size(*out) > max)
        return dbmcp_error_set(err, DBMCP_EINVAL, "\"%s\" has %zu elements; at most %zu", key,
                               json_array_size(*out), max);
    return 0;
}

int catalog_validate_plan(const json_t *plan, dbmcp_error *err)
{
    const char *name = json_string_value(json_object_get(plan, "name"));
    int rc = catalog_validate_name("plan", name, err);
    if (rc)
        return rc;
    const char *iface = json_string_value(json_object_get(plan, "interface"));
    if (!iface)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "plan '%s': \"interface\" is required (the interface whose tools "
                               "the plan uses)",
                               name);
    if ((rc = catalog_validate_name("interface", iface, err)) ||
        (rc = opt_name("plan", plan, "system_prompt", "prompt", err)) ||
        (rc = opt_name("plan", plan, "extended_prompt", "prompt", err)))
        return rc;
    json_t *steps, *rules, *required, *examples;
    if ((rc = opt_array(plan, "steps", PLAN_MAX_STEPS, &steps, err)) ||
        (rc = opt_array(plan, "rules", PLAN_MAX_RULES, &rules, err)) ||
        (rc = opt_array(plan, "required_entities", PLAN_MAX_REQUIRED, &required, err)) ||
        (rc = opt_array(plan, "examples", PLAN_MAX_EXAMPLES, &examples, err)))
        return rc;
    if (json_array_size(steps) == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "plan '%s': \"steps\" needs at least one step (e.g. {\"kind\": "
                               "\"llm\"})",
                               name);
    size_t i;
    json_t *v;
    json_array_foreach (steps, i, v)
        if ((rc = validate_step(i, v, err)))
            return rc;
    json_array_foreach (rules, i, v)
        if ((rc = validate_rule(i, v, err)))
            return rc;
    json_array_foreach (required, i, v) {
        if ((rc = validate_required(i, v, err)))
            return rc;
        for (size_t j = 0; j < i; j++)
            if (json_equal(json_object_get(v, "entity"),
                           json_object_get(json_array_get(required, j), "entity")))
                return dbmcp_error_set(err, DBMCP_EINVAL,
                                       "required_entities[%zu]: entity '%s' is already listed", i,
                                       json_string_value(json_object_get(v, "entity")));
    }
    json_array_foreach (examples, i, v) {
        const char *text = json_string_value(v);
        if (!text || !*text || strlen(text) > PLAN_MAX_TEXT)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "examples[%zu] must be a string of 1 to %d "
                                   "characters",
                                   i, PLAN_MAX_TEXT);
    }
    return 0;
}
