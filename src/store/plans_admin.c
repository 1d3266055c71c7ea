/*
 * plans_admin.c — the admin reads and writes of execution plans: one plan
 * with its steps, selection rules, required entities and example questions
 * as one JSON object (the file shape of `dbmcp plans add|show|update`), and
 * the write of such an object in one transaction. Enable, disable, removal
 * and the stamps are the registry's (REG_PLAN in registry_admin.c).
 *
 * The JSON is checked by catalog_validate_plan before it gets here; this
 * file checks what only the database knows (the plan's interface, its
 * prompts and their kinds, the tools its steps name) and names the first
 * thing that is missing, inside the transaction, so a refused write leaves
 * the database as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "store/plans_store.h"
#include "store/registry_internal.h"

/* --- reads ------------------------------------------------------------------ */

/* Set key to column i as a string, unless it is NULL. */
static void put_col_str(json_t *o, const char *key, store_stmt *st, int i)
{
    const char *s = store_column_type(st, i) == STORE_NULL ? NULL : store_column_text(st, i);
    if (s)
        json_object_set_new(o, key, json_string(s));
}

/* Set key to column i parsed as JSON, unless it is NULL (or not JSON). */
static void put_col_json(json_t *o, const char *key, store_stmt *st, int i)
{
    json_t *v = registry_col_json(st, i);
    if (v)
        json_object_set_new(o, key, v);
}

typedef void (*plan_row_fn)(store_stmt *st, json_t *into);

/* Run sql with :key bound; per row, fn() fills a new object appended to
 * the array *out (new reference). */
static int rows_array(store *db, const char *sql, const char *key, plan_row_fn fn, json_t **out,
                      dbmcp_error *err)
{
    *out = json_array();
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":key", key);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        json_t *o = json_object();
        fn(st, o);
        json_array_append_new(*out, o);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static void step_row(store_stmt *st, json_t *o)
{
    put_col_str(o, "kind", st, 0);
    put_col_str(o, "description", st, 1);
    put_col_str(o, "tool_choice", st, 2);
    put_col_json(o, "tools", st, 3);
    put_col_str(o, "prompt", st, 4);
    json_object_set_new(o, "max_iterations", json_integer(store_column_int(st, 5)));
    put_col_str(o, "tool", st, 6);
    put_col_json(o, "arguments", st, 7);
}

static void rule_row(store_stmt *st, json_t *o)
{
    put_col_str(o, "kind", st, 0);
    put_col_str(o, "pattern", st, 1);
    json_object_set_new(o, "weight", json_real(store_column_double(st, 2)));
}

static void required_row(store_stmt *st, json_t *o)
{
    put_col_str(o, "entity", st, 0);
    put_col_str(o, "question", st, 1);
}

static void example_row(store_stmt *st, json_t *o)
{
    put_col_str(o, "text", st, 0);
}

/* The plan's own row into a new object; DBMCP_ENOTFOUND when missing. */
static int plan_row(store *db, const char *name, json_t **out, dbmcp_error *err)
{
    *out = NULL;
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT name, description, interface, system_prompt, extended_prompt,"
                           " priority, is_default, enabled FROM dbmcp_plans WHERE name = :key",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":key", name);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        json_t *o = json_object();
        put_col_str(o, "name", st, 0);
        put_col_str(o, "description", st, 1);
        put_col_str(o, "interface", st, 2);
        put_col_str(o, "system_prompt", st, 3);
        put_col_str(o, "extended_prompt", st, 4);
        json_object_set_new(o, "priority", json_integer(store_column_int(st, 5)));
        json_object_set_new(o, "is_default", json_boolean(store_column_int(st, 6)));
        json_object_set_new(o, "enabled", json_boolean(store_column_int(st, 7)));
        *out = o;
    }
    store_finalize(st);
    if (rc < 0)
        return rc;
    return *out ? 0 : dbmcp_error_set(err, DBMCP_ENOTFOUND, "no plan named '%s'", name);
}

int plans_admin_get(store *db, const char *name, json_t **out, dbmcp_error *err)
{
    json_t *plan = NULL, *steps = NULL, *rules = NULL, *required = NULL, *examples = NULL;
    int rc = plan_row(db, name, &plan, err);
    if (!rc)
        rc = rows_array(db,
                        "SELECT kind, description, tool_choice, tools, prompt, max_iterations,"
                        " tool, arguments FROM dbmcp_plan_steps WHERE plan = :key ORDER BY step_no",
                        name, step_row, &steps, err);
    if (!rc)
        rc = rows_array(db,
                        "SELECT kind, pattern, weight FROM dbmcp_plan_rules WHERE plan = :key"
                        " ORDER BY rule_no",
                        name, rule_row, &rules, err);
    if (!rc)
        rc = rows_array(db,
                        "SELECT entity, question FROM dbmcp_plan_required_entities"
                        " WHERE plan = :key ORDER BY entity",
                        name, required_row, &required, err);
    if (!rc)
        rc = rows_array(db,
                        "SELECT text FROM dbmcp_plan_examples WHERE plan = :key"
                        " ORDER BY example_no",
                        name, example_row, &examples, err);
    if (rc) {
        json_decref(plan);
        json_decref(steps);
        json_decref(rules);
        json_decref(required);
        json_decref(examples);
        *out = NULL;
        return rc;
    }
    /* Examples are plain strings in the file shape. */
    json_t *texts = json_array();
    size_t i;
    json_t *e;
    json_array_foreach (examples, i, e)
        json_array_append(texts, json_object_get(e, "text"));
    json_decref(examples);
    json_object_set_new(plan, "steps", steps);
    json_object_set_new(plan, "rules", rules);
    json_object_set_new(plan, "required_entities", required);
    json_object_set_new(plan, "examples", texts);
    *out = plan;
    return 0;
}

int plans_admin_names(store *db, reg_names *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    int rc =
        registry_collect_names(db, "SELECT name FROM dbmcp_plans ORDER BY name", NULL, out, err);
    if (rc)
        reg_names_free(out);
    return rc;
}

/* --- checks against the database ---------------------------------------------- */

/* 1 when sql (with :key bound) returns a row, 0 when not, or a negative code. */
static int exists(store *db, const char *sql, const char *key, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":key", key);
    rc = store_step(st, err);
    store_finalize(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

/* The prompt `name` (named by `what`) must exist with kind `kind`. */
static int check_prompt(store *db, const char *what, const char *name, const char *kind,
                        dbmcp_error *err)
{
    if (!name)
        return 0;
    store_stmt *st;
    int rc = store_prepare(db, "SELECT kind FROM dbmcp_prompts WHERE name = :key", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":key", name);
    rc = store_step(st, err);
    if (rc == STORE_DONE)
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND,
                             "%s: no prompt named '%s'; see `dbmcp prompts list`", what, name);
    else if (rc == STORE_ROW && strcmp(store_column_text(st, 0), kind) != 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "%s: prompt '%s' is of kind %s; it must be of kind %s", what, name,
                             store_column_text(st, 0), kind);
    else if (rc == STORE_ROW)
        rc = 0;
    store_finalize(st);
    return rc;
}

static int check_tool(store *db, const char *what, const char *name, dbmcp_error *err)
{
    int rc = exists(db, "SELECT 1 FROM dbmcp_tools WHERE name = :key", name, err);
    if (rc == 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND,
                               "%s: no tool named '%s'; see `dbmcp tools list`", what, name);
    return rc < 0 ? rc : 0;
}

/* Everything the plan names must exist. */
static int check_references(store *db, const json_t *plan, dbmcp_error *err)
{
    const char *iface = json_get_str(plan, "interface");
    int rc = exists(db, "SELECT 1 FROM dbmcp_interfaces WHERE name = :key", iface, err);
    if (rc == 0)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND,
                               "no interface named '%s'; see `dbmcp interfaces list`", iface);
    if (rc < 0)
        return rc;
    if ((rc = check_prompt(db, "system_prompt", json_get_str(plan, "system_prompt"), "system",
                           err)) ||
        (rc = check_prompt(db, "extended_prompt", json_get_str(plan, "extended_prompt"),
                           "extended_system", err)))
        return rc;
    size_t i;
    json_t *step;
    json_array_foreach (json_object_get(plan, "steps"), i, step) {
        char what[64];
        snprintf(what, sizeof what, "steps[%zu]", i);
        if ((rc = check_prompt(db, what, json_get_str(step, "prompt"), "user", err)))
            return rc;
        const char *tool = json_get_str(step, "tool");
        if (tool && (rc = check_tool(db, what, tool, err)))
            return rc;
        size_t j;
        json_t *t;
        json_array_foreach (json_object_get(step, "tools"), j, t) {
            snprintf(what, sizeof what, "steps[%zu].tools[%zu]", i, j);
            if ((rc = check_tool(db, what, json_string_value(t), err)))
                return rc;
        }
    }
    return 0;
}

/* --- writes --------------------------------------------------------------------- */

static void bind_json_text(store_stmt *st, const char *name, const json_t *v)
{
    char *text = v && !json_is_null(v) ? json_dump_compact(v) : NULL;
    store_bind_text(st, name, text);
    free(text);
}

/* Step a prepared write once and finalize it. */
static int step_once(store_stmt **st, dbmcp_error *err)
{
    int rc = store_step(*st, err);
    store_finalize(*st);
    *st = NULL;
    return rc < 0 ? rc : 0;
}

static int write_plan_row(store *db, const char *key, const json_t *plan, dbmcp_error *err)
{
    const char *sql =
        key ? "UPDATE dbmcp_plans SET description = :description, interface = :interface,"
              " system_prompt = :system_prompt, extended_prompt = :extended_prompt,"
              " priority = :priority, is_default = :is_default, enabled = :enabled,"
              " updated_at = :now WHERE name = :name"
            : "INSERT INTO dbmcp_plans (name, description, interface, system_prompt,"
              " extended_prompt, priority, is_default, enabled, created_at, updated_at)"
              " VALUES (:name, :description, :interface, :system_prompt, :extended_prompt,"
              " :priority, :is_default, :enabled, :now, :now)";
    store_stmt *st;
    int rc = store_prepare(db, sql, &st, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    const char *description = json_get_str(plan, "description");
    store_bind_text(st, ":name", json_get_str(plan, "name"));
    store_bind_text(st, ":description", description ? description : "");
    store_bind_text(st, ":interface", json_get_str(plan, "interface"));
    store_bind_text(st, ":system_prompt", json_get_str(plan, "system_prompt"));
    store_bind_text(st, ":extended_prompt", json_get_str(plan, "extended_prompt"));
    store_bind_int(st, ":priority", json_integer_value(json_object_get(plan, "priority")));
    store_bind_int(st, ":is_default", json_is_true(json_object_get(plan, "is_default")));
    store_bind_int(st, ":enabled", !json_is_false(json_object_get(plan, "enabled")));
    store_bind_text(st, ":now", now);
    return step_once(&st, err);
}

static int write_children(store *db, const char *name, const json_t *plan, dbmcp_error *err)
{
    static const char *const clear[] = {
        "DELETE FROM dbmcp_plan_steps WHERE plan = :key",
        "DELETE FROM dbmcp_plan_rules WHERE plan = :key",
        "DELETE FROM dbmcp_plan_required_entities WHERE plan = :key",
        "DELETE FROM dbmcp_plan_examples WHERE plan = :key",
    };
    const char *names[] = {":key"};
    const char *values[] = {name};
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof clear / sizeof clear[0]; i++)
        rc = registry_exec_bound(db, clear[i], names, values, 1, err);
    size_t i;
    json_t *v;
    store_stmt *st = NULL;
    json_array_foreach (json_object_get(plan, "steps"), i, v) {
        if (rc || (rc = store_prepare(db,
                                      "INSERT INTO dbmcp_plan_steps (plan, step_no, kind,"
                                      " description, tool_choice, tools, prompt, max_iterations,"
                                      " tool, arguments) VALUES (:plan, :no, :kind,"
                                      " :description, :tool_choice, :tools, :prompt, :max, :tool,"
                                      " :arguments)",
                                      &st, err)))
            break;
        const char *description = json_get_str(v, "description");
        const char *choice = json_get_str(v, "tool_choice");
        json_t *max = json_object_get(v, "max_iterations");
        store_bind_text(st, ":plan", name);
        store_bind_int(st, ":no", (int64_t)i + 1);
        store_bind_text(st, ":kind", json_get_str(v, "kind"));
        store_bind_text(st, ":description", description ? description : "");
        store_bind_text(st, ":tool_choice", choice ? choice : "auto");
        bind_json_text(st, ":tools", json_object_get(v, "tools"));
        store_bind_text(st, ":prompt", json_get_str(v, "prompt"));
        store_bind_int(st, ":max", json_is_integer(max) ? json_integer_value(max) : 4);
        store_bind_text(st, ":tool", json_get_str(v, "tool"));
        bind_json_text(st, ":arguments", json_object_get(v, "arguments"));
        rc = step_once(&st, err);
    }
    json_array_foreach (json_object_get(plan, "rules"), i, v) {
        if (rc || (rc = store_prepare(db,
                                      "INSERT INTO dbmcp_plan_rules (plan, rule_no, kind, pattern,"
                                      " weight) VALUES (:plan, :no, :kind, :pattern, :weight)",
                                      &st, err)))
            break;
        json_t *weight = json_object_get(v, "weight");
        store_bind_text(st, ":plan", name);
        store_bind_int(st, ":no", (int64_t)i + 1);
        store_bind_text(st, ":kind", json_get_str(v, "kind"));
        store_bind_text(st, ":pattern", json_get_str(v, "pattern"));
        store_bind_double(st, ":weight", weight ? json_number_value(weight) : 1.0);
        rc = step_once(&st, err);
    }
    json_array_foreach (json_object_get(plan, "required_entities"), i, v) {
        if (rc || (rc = store_prepare(db,
                                      "INSERT INTO dbmcp_plan_required_entities (plan, entity,"
                                      " question) VALUES (:plan, :entity, :question)",
                                      &st, err)))
            break;
        store_bind_text(st, ":plan", name);
        store_bind_text(st, ":entity", json_get_str(v, "entity"));
        store_bind_text(st, ":question", json_get_str(v, "question"));
        rc = step_once(&st, err);
    }
    json_array_foreach (json_object_get(plan, "examples"), i, v) {
        if (rc || (rc = store_prepare(db,
                                      "INSERT INTO dbmcp_plan_examples (plan, example_no, text)"
                                      " VALUES (:plan, :no, :text)",
                                      &st, err)))
            break;
        store_bind_text(st, ":plan", name);
        store_bind_int(st, ":no", (int64_t)i + 1);
        store_bind_text(st, ":text", json_string_value(v));
        rc = step_once(&st, err);
    }
    return rc;
}

int plans_admin_write(store *db, const char *key, const json_t *plan, dbmcp_error *err)
{
    const char *name = json_get_str(plan, "name");
    if (key && name && strcmp(key, name) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "plan '%s' cannot be renamed to '%s'; add the new one and remove "
                               "the old one",
                               key, name);
    if (!name)
        name = key;
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    rc = exists(db, "SELECT 1 FROM dbmcp_plans WHERE name = :key", name, err);
    if (rc == 0 && key)
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no plan named '%s'", key);
    else if (rc == 1 && !key)
        rc = dbmcp_error_set(err, DBMCP_EEXISTS, "plan '%s' already exists", name);
    else if (rc >= 0)
        rc = 0;
    if (!rc)
        rc = check_references(db, plan, err);
    if (!rc)
        rc = write_plan_row(db, key, plan, err);
    if (!rc)
        rc = write_children(db, name, plan, err);
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}
