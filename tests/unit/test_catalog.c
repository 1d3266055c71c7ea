/*
 * test_catalog.c — unit tests for catalog/: the checks every registry row
 * passes before it is written, prompt rendering, the tool allowlist, and
 * URI-template matching in a snapshot loaded from a real database.
 *
 * Validation cases are tables of rows written as JSON text, so adding a
 * case is one line. The snapshot tests build a temporary SQLite database
 * under $TMPDIR the way `dbmcp init` does (migrate, seed base and
 * conformance), enable the conformance interface and load it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "store/migrate.h"
#include "store/store.h"

static json_t *json_from(const char *text)
{
    if (!text)
        return NULL;
    json_error_t error;
    json_t *value = json_loads(text, JSON_DECODE_ANY, &error);
    if (!value)
        fail_msg("bad JSON in test: %s: %s", error.text, text);
    return value;
}

/* Report a case whose outcome differs from the table; returns 1 when it did. */
static int outcome_differs(const char *what, const char *case_name, int rc, const dbmcp_error *err,
                           const char *error_contains)
{
    int ok = error_contains ? rc == DBMCP_EINVAL && err->code == DBMCP_EINVAL &&
                                  strstr(err->message, error_contains) != NULL
                            : rc == 0;
    if (!ok)
        print_error("%s '%s': expected %s%s, got rc %d: %s\n", what, case_name,
                    error_contains ? "an error containing " : "success",
                    error_contains ? error_contains : "", rc, rc ? err->message : "");
    return !ok;
}

/* ----- catalog_validate_tool ----- */

#define EMPTY_OBJECT_SCHEMA "{\"type\":\"object\",\"properties\":{}}"

typedef struct tool_case {
    const char *name;
    const char *description;
    const char *input_schema;  /* JSON text, or NULL */
    const char *output_schema; /* JSON text, or NULL */
    const char *annotations;   /* JSON text, or NULL */
    const char *handler_kind;
    const char *handler;
    const char *error_contains; /* NULL: must be accepted */
} tool_case;

static const tool_case tool_cases[] = {
    {"echo", "Return the text.",
     "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}", NULL,
     "{\"readOnlyHint\":true,\"title\":\"Echo\"}", "builtin", "echo", NULL},
    {"report.sales-2024", "Sales by region.", EMPTY_OBJECT_SCHEMA,
     "{\"type\":\"object\",\"properties\":{\"rows\":{\"type\":\"array\"}}}", NULL, "sql",
     "SELECT 1", NULL},
    {"", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, "builtin", "echo", "tool name is required"},
    {"has space", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, "builtin", "echo",
     "may only contain letters"},
    {"arr", "x", "{\"type\":\"array\"}", NULL, NULL, "builtin", "echo", "input_schema"},
    {"no_type", "x", "{\"properties\":{}}", NULL, NULL, "builtin", "echo", "input_schema"},
    {"not_object", "x", "[]", NULL, NULL, "builtin", "echo", "input_schema"},
    {"typo", "x", "{\"type\":\"object\",\"requird\":[\"a\"]}", NULL, NULL, "builtin", "echo",
     "unknown keyword \"requird\""},
    {"nested_typo", "x",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"maxLen\":3}}}", NULL, NULL,
     "builtin", "echo", "unknown keyword \"maxLen\""},
    {"bad_output", "x", EMPTY_OBJECT_SCHEMA, "{\"type\":\"string\"}", NULL, "builtin", "echo",
     "output_schema"},
    {"no_schema", "x", NULL, NULL, NULL, "builtin", "echo", "input_schema is required"},
    {"no_description", NULL, EMPTY_OBJECT_SCHEMA, NULL, NULL, "builtin", "echo",
     "a description is required"},
    {"empty_description", "", EMPTY_OBJECT_SCHEMA, NULL, NULL, "builtin", "echo",
     "a description is required"},
    {"python", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, "python", "print(1)",
     "handler kind must be 'builtin' or 'sql'"},
    {"no_kind", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, NULL, "echo", "handler kind must be"},
    {"no_handler", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, "sql", "", "handler is required"},
    {"unknown_builtin", "x", EMPTY_OBJECT_SCHEMA, NULL, NULL, "builtin", "nonesuch",
     "no builtin handler named 'nonesuch'"},
    {"hint_unknown", "x", EMPTY_OBJECT_SCHEMA, NULL, "{\"fastHint\":true}", "builtin", "echo",
     "unknown hint 'fastHint'"},
    {"hint_type", "x", EMPTY_OBJECT_SCHEMA, NULL, "{\"readOnlyHint\":\"yes\"}", "builtin", "echo",
     "'readOnlyHint' has the wrong type"},
    {"hint_title_type", "x", EMPTY_OBJECT_SCHEMA, NULL, "{\"title\":true}", "builtin", "echo",
     "'title' has the wrong type"},
    {"hints_array", "x", EMPTY_OBJECT_SCHEMA, NULL, "[\"readOnlyHint\"]", "builtin", "echo",
     "annotations must be a JSON object"},
};

static int builtin_exists(const char *name)
{
    return strcmp(name, "echo") == 0 || strcmp(name, "server_info") == 0;
}

static void test_validate_tool(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof tool_cases / sizeof tool_cases[0]; i++) {
        const tool_case *c = &tool_cases[i];
        reg_tool t = {0};
        t.name = (char *)c->name;
        t.description = (char *)c->description;
        t.input_schema = json_from(c->input_schema);
        t.output_schema = json_from(c->output_schema);
        t.annotations = json_from(c->annotations);
        t.handler_kind = (char *)c->handler_kind;
        t.handler = (char *)c->handler;
        dbmcp_error err;
        dbmcp_error_clear(&err);
        int rc = catalog_validate_tool(&t, builtin_exists, &err);
        failures += outcome_differs("tool", c->name, rc, &err, c->error_contains);
        json_decref(t.input_schema);
        json_decref(t.output_schema);
        json_decref(t.annotations);
    }
    assert_int_equal(failures, 0);
}

/* Without a builtin_exists callback any builtin name is accepted. */
static void test_validate_tool_any_builtin(void **state)
{
    (void)state;
    reg_tool t = {0};
    t.name = "later";
    t.description = "Registered before its handler is built.";
    t.input_schema = json_from(EMPTY_OBJECT_SCHEMA);
    t.handler_kind = "builtin";
    t.handler = "not_yet_written";
    dbmcp_error err;
    assert_int_equal(catalog_validate_tool(&t, NULL, &err), 0);
    json_decref(t.input_schema);
}

/* ----- catalog_validate_prompt ----- */

#define TEXT_MESSAGE(text)                                                                         \
    "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"" text "\"}}]"

typedef struct prompt_case {
    const char *name;
    const char *kind;
    const char *arguments; /* JSON text */
    const char *messages;  /* JSON text */
    const char *error_contains;
} prompt_case;

static const prompt_case prompt_cases[] = {
    {"plain", "user", "[]", TEXT_MESSAGE("Hello."), NULL},
    {"with_args", "system",
     "[{\"name\":\"region\",\"required\":true},{\"name\":\"year\",\"description\":\"Year\"}]",
     TEXT_MESSAGE("Sales in {{region}} for {{ year }}."), NULL},
    {"assistant_turn", "extended_system", "[]",
     "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hi\"}},"
     "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Hello\"}}]",
     NULL},
    {"image", "user", "[]",
     "[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":"
     "\"image/png\"}}]",
     NULL},
    {"undeclared", "user", "[{\"name\":\"region\"}]", TEXT_MESSAGE("{{region}} and {{year}}"),
     "placeholder {{year}} is not a declared argument"},
    {"unclosed", "user", "[{\"name\":\"region\"}]", TEXT_MESSAGE("{{region"), "unclosed '{{'"},
    {"duplicate", "user", "[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"a\"}]",
     TEXT_MESSAGE("{{a}}"), "argument 'a' declared twice"},
    {"nameless_argument", "user", "[{\"description\":\"no name\"}]", TEXT_MESSAGE("x"),
     "argument 0 needs a string \"name\""},
    {"required_string", "user", "[{\"name\":\"a\",\"required\":\"yes\"}]", TEXT_MESSAGE("x"),
     "\"required\" must be a boolean"},
    {"arguments_object", "user", "{}", TEXT_MESSAGE("x"), "arguments must be an array"},
    {"role_system", "user", "[]",
     "[{\"role\":\"system\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}]",
     "message 0: role must be user or assistant"},
    {"role_missing", "user", "[]", "[{\"content\":{\"type\":\"text\",\"text\":\"x\"}}]",
     "role must be user or assistant"},
    {"content_string", "user", "[]", "[{\"role\":\"user\",\"content\":\"x\"}]",
     "content must be an object with a type"},
    {"no_messages", "user", "[]", "[]", "messages must be a non-empty array"},
    {"bad_kind", "developer", "[]", TEXT_MESSAGE("x"),
     "kind must be system, extended_system or user"},
    {"bad name!", "user", "[]", TEXT_MESSAGE("x"), "may only contain letters"},
};

static void test_validate_prompt(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof prompt_cases / sizeof prompt_cases[0]; i++) {
        const prompt_case *c = &prompt_cases[i];
        reg_prompt p = {0};
        p.name = (char *)c->name;
        p.kind = (char *)c->kind;
        p.description = "test";
        p.arguments = json_from(c->arguments);
        p.messages = json_from(c->messages);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        int rc = catalog_validate_prompt(&p, &err);
        failures += outcome_differs("prompt", c->name, rc, &err, c->error_contains);
        json_decref(p.arguments);
        json_decref(p.messages);
    }
    assert_int_equal(failures, 0);
}

/* ----- catalog_validate_plan ----- */

typedef struct plan_case {
    const char *label;
    const char *plan; /* JSON text */
    const char *error_contains;
} plan_case;

#define PLAN(rest) "{\"name\":\"p\",\"interface\":\"chatbot\"," rest "}"
#define LLM_STEP "\"steps\":[{\"kind\":\"llm\"}]"

static const plan_case plan_cases[] = {
    {"minimal", PLAN(LLM_STEP), NULL},
    {"full",
     PLAN("\"system_prompt\":\"s\",\"extended_prompt\":null,\"priority\":3,"
          "\"steps\":[{\"kind\":\"analyse\"},{\"kind\":\"tool\",\"tool\":\"t\","
          "\"arguments\":{\"region\":\"{{entity.region}}\"}},{\"kind\":\"llm\",\"tools\":[\"t\"],"
          "\"tool_choice\":\"t\",\"max_iterations\":32},{\"kind\":\"save_episode\"}],"
          "\"rules\":[{\"kind\":\"regex\",\"pattern\":\"Q[1-4]\",\"weight\":2}],"
          "\"required_entities\":[{\"entity\":\"region\",\"question\":\"Which?\"}],"
          "\"examples\":[\"a question\"]"),
     NULL},
    {"no name", "{\"interface\":\"chatbot\"," LLM_STEP "}", "plan name is required"},
    {"bad name", "{\"name\":\"a b\",\"interface\":\"chatbot\"," LLM_STEP "}", "may only contain"},
    {"no interface", "{\"name\":\"p\"," LLM_STEP "}", "\"interface\" is required"},
    {"no steps", PLAN("\"steps\":[]"), "needs at least one step"},
    {"steps not array", PLAN("\"steps\":{}"), "\"steps\" must be an array"},
    {"step kind", PLAN("\"steps\":[{\"kind\":\"think\"}]"), "steps[0].kind must be one of"},
    {"step key", PLAN("\"steps\":[{\"kind\":\"llm\",\"tol\":1}]"), "unknown key 'tol'"},
    {"iterations", PLAN("\"steps\":[{\"kind\":\"llm\",\"max_iterations\":0}]"), "from 1 to 32"},
    {"tool choice", PLAN("\"steps\":[{\"kind\":\"llm\",\"tool_choice\":\"a b\"}]"),
     "tool_choice must be none, auto, required or a tool name"},
    {"tools not names", PLAN("\"steps\":[{\"kind\":\"llm\",\"tools\":[1]}]"),
     "steps[0].tools[0] is not a tool name"},
    {"tool step no tool", PLAN("\"steps\":[{\"kind\":\"tool\"}]"), "needs \"tool\""},
    {"tool on llm", PLAN("\"steps\":[{\"kind\":\"llm\",\"tool\":\"t\"}]"),
     "only a step of kind tool"},
    {"arguments array", PLAN("\"steps\":[{\"kind\":\"tool\",\"tool\":\"t\",\"arguments\":[]}]"),
     "arguments must be a JSON object"},
    {"rule kind", PLAN(LLM_STEP ",\"rules\":[{\"kind\":\"vibe\",\"pattern\":\"x\"}]"),
     "rules[0].kind must be one of"},
    {"rule regex", PLAN(LLM_STEP ",\"rules\":[{\"kind\":\"regex\",\"pattern\":\"(\"}]"),
     "not a POSIX extended regular expression"},
    {"rule empty", PLAN(LLM_STEP ",\"rules\":[{\"kind\":\"keyword\",\"pattern\":\"\"}]"),
     "pattern must be 1 to 2000 characters"},
    {"rule weight",
     PLAN(LLM_STEP ",\"rules\":[{\"kind\":\"keyword\",\"pattern\":\"x\","
                   "\"weight\":\"high\"}]"),
     "weight must be a number"},
    {"entity twice",
     PLAN(LLM_STEP ",\"required_entities\":[{\"entity\":\"y\"},{\"entity\":\"y\"}]"),
     "entity 'y' is already listed"},
    {"entity missing", PLAN(LLM_STEP ",\"required_entities\":[{\"question\":\"?\"}]"),
     "entity must be 1 to 128 characters"},
    {"example empty", PLAN(LLM_STEP ",\"examples\":[\"\"]"),
     "examples[0] must be a string of 1 to 2000 characters"},
};

static void test_validate_plan(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof plan_cases / sizeof plan_cases[0]; i++) {
        const plan_case *c = &plan_cases[i];
        json_t *plan = json_from(c->plan);
        assert_non_null(plan);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        int rc = catalog_validate_plan(plan, &err);
        failures += outcome_differs("plan", c->label, rc, &err, c->error_contains);
        json_decref(plan);
    }
    assert_int_equal(failures, 0);
}

/* ----- catalog_prompt_render ----- */

/* A prompt with a required and an optional argument, and a message with no
 * text that rendering must leave alone. */
static reg_prompt render_prompt(void)
{
    reg_prompt p = {0};
    p.name = "sales";
    p.kind = "user";
    p.description = "Sales report";
    p.arguments = json_from("[{\"name\":\"region\",\"required\":true},"
                            "{\"name\":\"year\",\"required\":false}]");
    p.messages = json_from("[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                           "\"text\":\"Sales in {{region}} for {{ year }}; again {{region}}.\"}},"
                           "{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"AA==\","
                           "\"mimeType\":\"image/png\"}}]");
    dbmcp_error err;
    assert_int_equal(catalog_validate_prompt(&p, &err), 0);
    return p;
}

static void render_prompt_free(reg_prompt *p)
{
    json_decref(p->arguments);
    json_decref(p->messages);
}

static const char *rendered_text(const json_t *messages, size_t i)
{
    return json_string_value(
        json_object_get(json_object_get(json_array_get(messages, i), "content"), "text"));
}

static void test_render_substitutes(void **state)
{
    (void)state;
    reg_prompt p = render_prompt();
    json_t *original = json_deep_copy(p.messages);
    json_t *args = json_from("{\"region\":\"Nord\",\"year\":\"2024\"}");
    json_t *out = NULL;
    dbmcp_error err;
    assert_int_equal(catalog_prompt_render(&p, args, &out, &err), 0);
    assert_non_null(out);
    assert_string_equal(rendered_text(out, 0), "Sales in Nord for 2024; again Nord.");
    assert_true(json_equal(json_array_get(out, 1), json_array_get(original, 1)));
    assert_true(json_equal(p.messages, original)); /* the prompt itself is untouched */
    json_decref(out);
    json_decref(args);
    json_decref(original);
    render_prompt_free(&p);
}

/* A value is inserted as it is: braces in it are not placeholders again. */
static void test_render_value_not_reexpanded(void **state)
{
    (void)state;
    reg_prompt p = render_prompt();
    json_t *args = json_from("{\"region\":\"{{year}}\",\"year\":\"\\u00dcberall\"}");
    json_t *out = NULL;
    dbmcp_error err;
    assert_int_equal(catalog_prompt_render(&p, args, &out, &err), 0);
    assert_string_equal(rendered_text(out, 0), "Sales in {{year}} for \xc3\x9c"
                                               "berall; again {{year}}.");
    json_decref(out);
    json_decref(args);
    render_prompt_free(&p);
}

static void test_render_optional_missing_is_empty(void **state)
{
    (void)state;
    reg_prompt p = render_prompt();
    json_t *args = json_from("{\"region\":\"S\\u00fcd\"}");
    json_t *out = NULL;
    dbmcp_error err;
    assert_int_equal(catalog_prompt_render(&p, args, &out, &err), 0);
    assert_string_equal(rendered_text(out, 0), "Sales in S\xc3\xbc"
                                               "d for ; again S\xc3\xbc"
                                               "d.");
    json_decref(out);
    json_decref(args);
    render_prompt_free(&p);
}

typedef struct render_refusal {
    const char *args; /* JSON text, or NULL for no arguments at all */
    const char *error_contains;
} render_refusal;

static const render_refusal render_refusals[] = {
    {NULL, "missing required argument 'region'"},
    {"{}", "missing required argument 'region'"},
    {"{\"year\":\"2024\"}", "missing required argument 'region'"},
    {"{\"region\":\"Nord\",\"colour\":\"red\"}", "unknown argument 'colour'"},
    {"{\"region\":7}", "argument 'region' must be a string"},
    {"{\"region\":\"Nord\",\"year\":2024}", "argument 'year' must be a string"},
    {"{\"region\":null}", "argument 'region' must be a string"},
};

static void test_render_refusals(void **state)
{
    (void)state;
    reg_prompt p = render_prompt();
    int failures = 0;
    for (size_t i = 0; i < sizeof render_refusals / sizeof render_refusals[0]; i++) {
        const render_refusal *c = &render_refusals[i];
        json_t *args = json_from(c->args);
        json_t *out = (json_t *)&p; /* must be reset to NULL */
        dbmcp_error err;
        dbmcp_error_clear(&err);
        int rc = catalog_prompt_render(&p, args, &out, &err);
        failures +=
            outcome_differs("render", c->args ? c->args : "(null)", rc, &err, c->error_contains);
        if (out != NULL) {
            print_error("render '%s': *out not NULL after a refusal\n", c->args);
            failures++;
        }
        json_decref(args);
    }
    render_prompt_free(&p);
    assert_int_equal(failures, 0);
}

/* ----- catalog_name_allowed ----- */

typedef struct allow_case {
    const char *list;
    const char *name;
    int allowed;
} allow_case;

static const allow_case allow_cases[] = {
    {NULL, "echo", 1},
    {"", "echo", 1},
    {"echo", "echo", 1},
    {"echo,server_info", "server_info", 1},
    {"echo,server_info", "echo", 1},
    {" echo , server_info ", "server_info", 1},
    {"echo,,server_info", "server_info", 1},
    {"echo", "ech", 0},
    {"ech", "echo", 0},
    {"echoes", "echo", 0},
    {"echo", "echoes", 0},
    {"echo,server_info", "server", 0},
    {"server_info", "info", 0},
    {"Echo", "echo", 0},
    {",", "echo", 0},
};

static void test_name_allowed(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof allow_cases / sizeof allow_cases[0]; i++) {
        const allow_case *c = &allow_cases[i];
        int got = catalog_name_allowed(c->list, c->name) != 0;
        if (got != c->allowed) {
            print_error("catalog_name_allowed(\"%s\", \"%s\") = %d, expected %d\n",
                        c->list ? c->list : "(null)", c->name, got, c->allowed);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ----- snapshots from a real database ----- */

/* The database and the conformance interface's snapshot. */
typedef struct snapshot_fixture {
    char dir[512];
    char path[600];
    store *db;
    catalog_snapshot *snap;
} snapshot_fixture;

static int fixture_remove(snapshot_fixture *f)
{
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    catalog_snapshot_unref(f->snap);
    store_close(f->db);
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", f->path, suffixes[i]);
        unlink(file);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static int snapshot_setup(void **state)
{
    snapshot_fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/dbmcp-catalog-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/catalog.db", f->dir);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_open(f->path, STORE_READWRITE | STORE_CREATE, &f->db, &err);
    if (!rc)
        rc = store_migrate(f->db, NULL, &err);
    if (!rc)
        rc = store_seed(f->db, "base", &err);
    if (!rc)
        rc = store_seed(f->db, "conformance", &err);
    if (!rc)
        rc = store_exec(f->db, "UPDATE dbmcp_interfaces SET enabled = 1 WHERE name = 'conformance'",
                        &err);
    if (!rc)
        rc = catalog_snapshot_load(f->db, "conformance", NULL, &f->snap, &err);
    if (rc) {
        print_error("snapshot fixture: %s\n", err.message);
        fixture_remove(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int snapshot_teardown(void **state)
{
    return fixture_remove(*state);
}

static void test_snapshot_contents(void **state)
{
    snapshot_fixture *f = *state;
    assert_string_equal(f->snap->iface.name, "conformance");
    assert_true(f->snap->iface.enabled);
    assert_true(f->snap->n_tools > 0);
    assert_true(f->snap->n_templates >= 1);
    assert_non_null(catalog_find_tool(f->snap, "test_simple_text"));
    assert_null(catalog_find_tool(f->snap, "echo")); /* only in the default interface */
    assert_null(catalog_find_tool(f->snap, NULL));
    assert_non_null(catalog_find_prompt(f->snap, "test_prompt_with_arguments"));
    assert_non_null(catalog_find_resource(f->snap, "test://static-text"));
    assert_non_null(catalog_find_template_by_uri_template(f->snap, "test://template/{id}/data"));
    assert_int_equal(f->snap->refs, 1);
    assert_ptr_equal(catalog_snapshot_ref(f->snap), f->snap);
    assert_int_equal(f->snap->refs, 2);
    catalog_snapshot_unref(f->snap);
    assert_int_equal(f->snap->refs, 1);
}

static void test_match_template(void **state)
{
    snapshot_fixture *f = *state;
    json_t *vars = NULL;
    const reg_template *t = catalog_match_template(f->snap, "test://template/123/data", &vars);
    assert_non_null(t);
    assert_string_equal(t->uri_template, "test://template/{id}/data");
    json_t *expected = json_from("{\"id\":\"123\"}");
    assert_true(json_equal(vars, expected));
    json_decref(expected);
    json_decref(vars);
}

static void test_match_template_percent_decoded(void **state)
{
    snapshot_fixture *f = *state;
    json_t *vars = NULL;
    assert_non_null(catalog_match_template(f->snap, "test://template/a%20b%2Fc/data", &vars));
    assert_string_equal(json_string_value(json_object_get(vars, "id")), "a b/c");
    json_decref(vars);
}

static void test_match_template_misses(void **state)
{
    snapshot_fixture *f = *state;
    static const char *misses[] = {
        "test://template/123",            /* literal tail missing */
        "test://template/123/dat",        /* literal tail short */
        "test://template/123/data/extra", /* text after the template */
        "test://template//data",          /* empty variable */
        "test://template/1/2/data",       /* a variable never spans '/' */
        "test://other/123/data",          /* another path */
        "test://template/",               /* nothing after the prefix */
        "TEST://template/123/data",       /* literals match exactly */
        "",
    };
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        json_t *vars = (json_t *)f; /* must be reset to NULL */
        const reg_template *t = catalog_match_template(f->snap, misses[i], &vars);
        if (t || vars)
            fail_msg("'%s' matched %s", misses[i], t ? t->uri_template : "(vars set)");
    }
    json_t *vars = (json_t *)f;
    assert_null(catalog_match_template(f->snap, NULL, &vars));
    assert_null(vars);
}

/* The allowlist narrows a snapshot's tools; a disabled interface loads empty;
 * a missing one is not found. */
static void test_snapshot_load_variants(void **state)
{
    snapshot_fixture *f = *state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    catalog_snapshot *s = NULL;
    assert_int_equal(
        catalog_snapshot_load(f->db, "conformance", "test_simple_text, echo", &s, &err), 0);
    assert_int_equal(s->n_tools, 1);
    assert_string_equal(s->tools[0].name, "test_simple_text");
    assert_true(s->n_prompts > 0); /* the allowlist is about tools only */
    catalog_snapshot_unref(s);

    assert_int_equal(store_exec(f->db,
                                "UPDATE dbmcp_interfaces SET enabled = 0 WHERE name = "
                                "'conformance'",
                                &err),
                     0);
    assert_int_equal(catalog_snapshot_load(f->db, "conformance", NULL, &s, &err), 0);
    assert_false(s->iface.enabled);
    assert_int_equal(s->n_tools, 0);
    assert_int_equal(s->n_prompts, 0);
    assert_int_equal(s->n_resources, 0);
    assert_int_equal(s->n_templates, 0);
    json_t *vars = NULL;
    assert_null(catalog_match_template(s, "test://template/123/data", &vars));
    catalog_snapshot_unref(s);

    s = (catalog_snapshot *)f;
    assert_int_equal(catalog_snapshot_load(f->db, "nonesuch", NULL, &s, &err), DBMCP_ENOTFOUND);
    assert_null(s);
}

/* The conformance prompts pass validation and render as the suite expects. */
static void test_render_conformance_prompts(void **state)
{
    snapshot_fixture *f = *state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    for (size_t i = 0; i < f->snap->n_prompts; i++)
        if (catalog_validate_prompt(&f->snap->prompts[i], &err) != 0)
            fail_msg("seeded prompt refused: %s", err.message);
    const reg_prompt *p = catalog_find_prompt(f->snap, "test_prompt_with_arguments");
    json_t *args = json_from("{\"arg1\":\"a\",\"arg2\":\"b\"}");
    json_t *out = NULL;
    assert_int_equal(catalog_prompt_render(p, args, &out, &err), 0);
    assert_string_equal(rendered_text(out, 0), "Prompt with arguments: arg1='a', arg2='b'");
    json_decref(out);
    json_decref(args);

    p = catalog_find_prompt(f->snap, "test_prompt_with_embedded_resource");
    args = json_from("{\"resourceUri\":\"test://static-text\"}");
    assert_int_equal(catalog_prompt_render(p, args, &out, &err), 0);
    json_t *resource =
        json_object_get(json_object_get(json_array_get(out, 0), "content"), "resource");
    assert_string_equal(json_string_value(json_object_get(resource, "uri")), "test://static-text");
    json_decref(out);
    json_decref(args);
}

#define SNAPSHOT_TEST(fn) cmocka_unit_test_setup_teardown(fn, snapshot_setup, snapshot_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_tool),
        cmocka_unit_test(test_validate_tool_any_builtin),
        cmocka_unit_test(test_validate_prompt),
        cmocka_unit_test(test_validate_plan),
        cmocka_unit_test(test_render_substitutes),
        cmocka_unit_test(test_render_value_not_reexpanded),
        cmocka_unit_test(test_render_optional_missing_is_empty),
        cmocka_unit_test(test_render_refusals),
        cmocka_unit_test(test_name_allowed),
        SNAPSHOT_TEST(test_snapshot_contents),
        SNAPSHOT_TEST(test_match_template),
        SNAPSHOT_TEST(test_match_template_percent_decoded),
        SNAPSHOT_TEST(test_match_template_misses),
        SNAPSHOT_TEST(test_snapshot_load_variants),
        SNAPSHOT_TEST(test_render_conformance_prompts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
