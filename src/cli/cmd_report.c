/*
 * cmd_report.c — report tools from the command line: `tools add-report`
 * (a reviewed SQL file and a JSON Schema file become one SQL tool),
 * `audit top-queries` (the ad-hoc execute_query texts agents send most)
 * and `tools promote` (a disabled draft tool from one audited query).
 *
 * Every write goes through cli_tool_insert_checked, the validation and
 * insert path of `tools add` (admin.c): catalog rules, the handler SQL
 * prepared on a read-only connection, every :param a schema property or an
 * identity parameter, one transaction. A refusal exits 1 with the reason
 * and leaves the database unchanged. The audit reads are in
 * store/registry_audit.c; normalising and drafting SQL in
 * tools/report_draft.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "store/registry.h"
#include "tools/report_draft.h"

/* clang-format off */
#define DB_FLAG {"db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"}
/* clang-format on */

#define TOP_QUERIES_SCAN 100000 /* newest audited queries grouped by top-queries */
#define TOP_QUERIES_SHOWN 200   /* characters of a normalised query printed */

/* Annotations of every report tool: reviewed SQL on a read-only connection. */
static json_t *report_annotations(void)
{
    return json_pack("{s:b, s:b, s:b}", "readOnlyHint", 1, "idempotentHint", 1, "openWorldHint", 0);
}

/* --- add-report ------------------------------------------------------------------ */

/* Comma-separated interface names into *out (borrowing copies in *storage). */
static int parse_interfaces(cli_args *a, const char *list, reg_names *out, char **storage)
{
    memset(out, 0, sizeof *out);
    *storage = NULL;
    if (!list)
        return CLI_OK;
    *storage = strdup(list);
    out->v = calloc(strlen(list) / 2 + 2, sizeof *out->v);
    if (!*storage || !out->v)
        return cli_fail(&(dbmcp_error){DBMCP_ENOMEM, "out of memory", ""});
    for (char *save = NULL, *tok = strtok_r(*storage, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        dbmcp_error err;
        if (catalog_validate_name("interface", tok, &err))
            return cli_usage_error(a->cmd, "--interface: %s", err.message);
        out->v[out->n++] = tok;
    }
    return CLI_OK;
}

/* Drop trailing whitespace and one trailing ';' (SQL files often end so). */
static void trim_sql(char *sql)
{
    size_t len = strlen(sql);
    while (len && strchr(" \t\r\n", sql[len - 1]))
        len--;
    if (len && sql[len - 1] == ';')
        len--;
    while (len && strchr(" \t\r\n", sql[len - 1]))
        len--;
    sql[len] = '\0';
}

/* The `--` comment lines opening the SQL file, joined (malloc'd), or NULL. */
static char *leading_comment(const char *sql)
{
    char *text = NULL;
    size_t len = 0;
    const char *p = sql;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (strncmp(p, "--", 2) != 0)
            break;
        p += 2;
        while (*p == '-' || *p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, "\r\n");
        if (n) {
            char *grown = realloc(text, len + n + 2);
            if (!grown)
                break;
            text = grown;
            if (len)
                text[len++] = ' ';
            memcpy(text + len, p, n);
            len += n;
            text[len] = '\0';
        }
        p += n;
    }
    return text;
}

/* No property may look like an identity parameter: the SQL handler binds
 * :_user_id, :_agent_id and :_principal from the caller, whatever the
 * arguments say, so such a property would only mislead. */
static int check_reserved_properties(const char *name, const json_t *schema, dbmcp_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)json_object_get(schema, "properties"), key, v) {
        if (key[0] == '_')
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "tool '%s': input_schema property '%s': names starting with _ "
                                   "are reserved for identity parameters (:_user_id, :_agent_id, "
                                   ":_principal), which are filled from the caller and never "
                                   "from arguments",
                                   name, key);
    }
    return 0;
}

/* Every required property must be used by the SQL (else the model must
 * send a value that changes nothing); optional properties the SQL ignores
 * only earn a warning. */
static int check_schema_against_sql(const char *name, const json_t *schema, const json_t *used,
                                    dbmcp_error *err)
{
    const char *key;
    json_t *v;
    size_t i;
    json_array_foreach (json_object_get(schema, "required"), i, v) {
        const char *req = json_string_value(v);
        if (req && !json_object_get(used, req))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "tool '%s': required property '%s' is not used by the SQL (no "
                                   ":%s); use it or drop it from \"required\"",
                                   name, req, req);
    }
    json_object_foreach ((json_t *)json_object_get(schema, "properties"), key, v) {
        if (!json_object_get(used, key))
            fprintf(stderr,
                    "dbmcp: warning: tool '%s': optional property '%s' is not used by the SQL "
                    "(no :%s); a value sent for it changes nothing\n",
                    name, key, key);
    }
    return 0;
}

/* The description: --description, else the schema's, else the SQL file's
 * leading comment (malloc'd), or NULL. */
static char *report_description(cli_args *a, const json_t *schema, const char *sql)
{
    if (cli_flag(a, "description"))
        return strdup(cli_flag(a, "description"));
    const char *d = json_string_value(json_object_get(schema, "description"));
    return d ? strdup(d) : leading_comment(sql);
}

/* The catalog's rules for the row (name, description, schema, annotations),
 * checked before the SQL so a broken schema is named as such. */
static int validate_row(const json_t *row, dbmcp_error *err)
{
    reg_tool t = {0};
    t.name = (char *)json_string_value(json_object_get(row, "name"));
    t.title = (char *)json_string_value(json_object_get(row, "title"));
    t.description = (char *)json_string_value(json_object_get(row, "description"));
    t.input_schema = json_object_get(row, "input_schema");
    t.annotations = json_object_get(row, "annotations");
    t.handler_kind = (char *)json_string_value(json_object_get(row, "handler_kind"));
    t.handler = (char *)json_string_value(json_object_get(row, "handler"));
    t.enabled = 1;
    return catalog_validate_tool(&t, NULL, err);
}

static int add_report(cli_args *a, store *db, const char *name, char *sql, json_t *schema,
                      const reg_names *ifaces, dbmcp_error *err)
{
    char *description = report_description(a, schema, sql);
    if (!description)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool '%s': a description is required (models choose tools by "
                               "it): give --description, a \"description\" in the schema file, "
                               "or open the SQL file with -- comment lines",
                               name);
    json_t *row =
        json_pack("{s:s, s:s, s:O, s:o, s:s, s:s, s:b}", "name", name, "description", description,
                  "input_schema", schema, "annotations", report_annotations(), "handler_kind",
                  "sql", "handler", sql, "enabled", 1);
    free(description);
    if (!row)
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool '%s': the SQL or a flag is not valid UTF-8",
                               name);
    if (cli_flag(a, "title"))
        json_object_set_new(row, "title", json_string(cli_flag(a, "title")));
    json_t *used = NULL;
    int rc = validate_row(row, err);
    if (!rc)
        rc = check_reserved_properties(name, schema, err);
    if (!rc)
        rc = cli_tool_sql_params(a, name, sql, schema, &used, err);
    if (!rc)
        rc = check_schema_against_sql(name, schema, used, err);
    if (!rc)
        rc = cli_tool_insert_checked(a, db, row, ifaces, err);
    json_decref(used);
    json_decref(row);
    if (rc == DBMCP_EEXISTS) {
        size_t used_len = strlen(err->message);
        snprintf(err->message + used_len, sizeof err->message - used_len,
                 "; see it with `dbmcp tools show %s`, or remove it before adding it again: "
                 "`dbmcp tools remove %s`",
                 name, name);
    }
    return rc;
}

/* An argument value for a property in a hint: its default, first enum
 * value or example, else a value of its type (new ref). */
static json_t *example_value(const json_t *property)
{
    json_t *v = json_object_get(property, "default");
    if (!v)
        v = json_array_get(json_object_get(property, "enum"), 0);
    if (!v)
        v = json_array_get(json_object_get(property, "examples"), 0);
    if (v)
        return json_incref(v);
    const char *type = json_string_value(json_object_get(property, "type"));
    if (!type)
        return json_string("");
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        json_t *min = json_object_get(property, "minimum");
        return json_is_number(min) ? json_incref(min) : json_integer(0);
    }
    if (strcmp(type, "boolean") == 0)
        return json_false();
    if (strcmp(type, "array") == 0)
        return json_array();
    if (strcmp(type, "object") == 0)
        return json_object();
    return json_string("");
}

/* After add-report: a `dbmcp call` that works when pasted (the required
 * arguments filled from the schema, the interface named), or, when no
 * interface lists the tool, the command that adds it to one. */
static void print_try_hint(const char *name, const json_t *schema, const char *listed_in,
                           const char *iface)
{
    if (!iface) {
        fprintf(stderr,
                "dbmcp: report tool '%s' added (in no interface yet); expose it with "
                "`dbmcp interfaces add-tool default %s%s`\n",
                name, name, cli_hint_db());
        return;
    }
    json_t *args = json_object();
    const json_t *properties = json_object_get(schema, "properties");
    size_t i;
    json_t *req;
    json_array_foreach (json_object_get(schema, "required"), i, req) {
        const char *key = json_string_value(req);
        if (key)
            json_object_set_new(args, key, example_value(json_object_get(properties, key)));
    }
    char *text = json_dumps(args, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(args);
    char args_word[2048], iface_word[200];
    fprintf(
        stderr,
        "dbmcp: report tool '%s' added to %s; try it with `dbmcp call %s %s --interface %s%s`\n",
        name, listed_in, name, cli_shell_word(text ? text : "{}", args_word, sizeof args_word),
        cli_shell_word(iface, iface_word, sizeof iface_word), cli_hint_db());
    free(text);
}

static int run_add_report(cli_args *a)
{
    const char *name = a->argv[0];
    dbmcp_error err;
    if (catalog_validate_name("tool", name, &err))
        return cli_usage_error(a->cmd, "%s", err.message);
    if (!cli_flag(a, "sql") || !cli_flag(a, "schema"))
        return cli_usage_error(a->cmd, "--sql FILE and --schema FILE are required");
    reg_names ifaces;
    char *iface_storage = NULL;
    int rc = parse_interfaces(a, cli_flag(a, "interface"), &ifaces, &iface_storage);
    char *sql = NULL;
    json_t *schema = NULL;
    if (rc == CLI_OK && (cli_read_text_file(cli_flag(a, "sql"), &sql, &err) ||
                         cli_read_json_object(cli_flag(a, "schema"), &schema, &err)))
        rc = cli_fail(&err);
    store *db = NULL;
    if (rc == CLI_OK && !(db = cli_open_catalog(a)))
        rc = CLI_FAIL;
    if (rc == CLI_OK) {
        trim_sql(sql);
        if (add_report(a, db, name, sql, schema, ifaces.n ? &ifaces : NULL, &err))
            rc = cli_fail(&err);
        else
            print_try_hint(name, schema, ifaces.n ? cli_flag(a, "interface") : NULL,
                           ifaces.n ? ifaces.v[0] : NULL);
    }
    store_close(db);
    json_decref(schema);
    free(sql);
    free(ifaces.v);
    free(iface_storage);
    return rc;
}

static const cli_flag_spec add_report_flags[] = {
    DB_FLAG,
    {"sql", "FILE", "the query: one read-only statement with :named parameters (- = stdin)"},
    {"schema", "FILE", "JSON Schema of the arguments (root type object)"},
    {"description", "TEXT", "what the tool answers (default: the schema's, or the SQL's -- lines)"},
    {"title", "T", "human-readable title"},
    {"interface", "A,B", "interfaces that list the tool (comma-separated; each must exist)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_tools_add_report = {
    "tools add-report",
    "Add a report tool: reviewed SQL with named parameters and a JSON Schema",
    "NAME --sql FILE --schema FILE [--description TEXT] [--title T] [--interface A,B] "
    "[--db PATH]",
    "Checks everything before saving, and saves nothing when a check fails (exit 1):\n"
    "  - the SQL prepares as ONE statement on a read-only connection to the database,\n"
    "    writes nothing, returns rows and reads no dbmcp_* table (a trailing ';' is\n"
    "    dropped);\n"
    "  - the schema passes the `tools add` rules (strict JSON Schema subset, root type\n"
    "    object);\n"
    "  - every :param of the SQL is a schema property, or one of :_user_id, :_agent_id,\n"
    "    :_principal, which are filled from the caller's identity and can never come\n"
    "    from arguments (properties starting with _ are therefore refused);\n"
    "  - every required property is used by the SQL (a required value that changes\n"
    "    nothing is refused); an optional property the SQL ignores only warns.\n"
    "Optional parameters arrive as NULL when omitted (unless the schema gives a\n"
    "default), so write `(:region IS NULL OR region = :region)`.\n"
    "\n"
    "The description is --description, else the schema's top-level \"description\", else\n"
    "the `--` comment lines that open the SQL file. The tool is saved enabled, with\n"
    "handler_kind sql and annotations readOnlyHint, idempotentHint, openWorldHint false,\n"
    "in one transaction with its interface memberships. Change it later with\n"
    "`dbmcp tools show NAME` / `dbmcp tools update NAME --file F.json`.",
    1,
    1,
    add_report_flags,
    run_add_report,
};

/* --- audit top-queries ---------------------------------------------------------------- */

typedef struct query_group {
    char *key;          /* normalised text (owned) */
    long count;         /* calls */
    char last_call[64]; /* newest call id */
    char last_ts[40];   /* newest call time */
} query_group;

typedef struct top_state {
    json_t *index; /* normalised text → group index */
    query_group *groups;
    size_t n, cap;
    long calls;
    int oom;
} top_state;

static void group_query(void *ctx, const char *call_id, const char *ts, const char *sql_text)
{
    top_state *s = ctx;
    char *key = report_sql_normalize(sql_text);
    if (!key) {
        s->oom = 1;
        return;
    }
    s->calls++;
    json_t *at = json_object_get(s->index, key);
    query_group *g;
    if (at) {
        g = &s->groups[json_integer_value(at)];
        free(key);
    } else {
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 64;
            query_group *grown = realloc(s->groups, cap * sizeof *grown);
            if (!grown) {
                free(key);
                s->oom = 1;
                return;
            }
            s->groups = grown;
            s->cap = cap;
        }
        json_object_set_new(s->index, key, json_integer((json_int_t)s->n));
        g = &s->groups[s->n++];
        memset(g, 0, sizeof *g);
        g->key = key;
    }
    g->count++;
    snprintf(g->last_call, sizeof g->last_call, "%s", call_id ? call_id : "-");
    snprintf(g->last_ts, sizeof g->last_ts, "%s", ts ? ts : "-");
}

/* Most calls first; ties: most recently used first, then by the text (the
 * keys are distinct), so the listing never depends on qsort's order. */
static int compare_groups(const void *pa, const void *pb)
{
    const query_group *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count < b->count ? 1 : -1;
    int by_time = strcmp(b->last_ts, a->last_ts);
    return by_time ? by_time : strcmp(a->key, b->key);
}

/* Print text cut at max characters (UTF-8 aware) with "…"; the SQL is an
 * agent's, so control characters are escaped first. */
static void print_cut(const char *raw, size_t max)
{
    const char *text = cli_safe(raw);
    size_t chars = 0;
    const char *p = text;
    for (; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80 && chars++ == max)
            break;
    }
    printf("%.*s%s\n", (int)(p - text), text, *p ? "…" : "");
}

static int run_top_queries(cli_args *a)
{
    int limit = 20;
    char since_buf[32];
    const char *since = NULL;
    if (cli_int_flag(a, "limit", 1, 1000000, &limit) ||
        cli_time_flag(a, "since", since_buf, &since))
        return CLI_USAGE;
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    top_state s = {json_object(), NULL, 0, 0, 0, 0};
    dbmcp_error err;
    int rc =
        reg_audit_sql_texts(db, "execute_query", since, TOP_QUERIES_SCAN, group_query, &s, &err);
    store_close(db);
    if (!rc && s.oom)
        rc = dbmcp_error_set(&err, DBMCP_ENOMEM, "out of memory");
    if (!rc && s.n == 0) {
        fprintf(stderr, "dbmcp: no successful execute_query calls with recorded SQL%s%s\n",
                since ? " since " : "", since ? since : "");
    } else if (!rc) {
        qsort(s.groups, s.n, sizeof *s.groups, compare_groups);
        printf("%5s  %-24s  %-36s  %s\n", "CALLS", "LAST USED", "LAST CALL ID", "QUERY");
        for (size_t i = 0; i < s.n && (int)i < limit; i++) {
            printf("%5ld  %-24s  %-36s  ", s.groups[i].count, cli_safe(s.groups[i].last_ts),
                   cli_safe(s.groups[i].last_call));
            print_cut(s.groups[i].key, TOP_QUERIES_SHOWN);
        }
        fprintf(stderr,
                "dbmcp: %zu distinct quer%s in %ld call%s; draft a report tool from the first "
                "with `dbmcp tools promote %s --name top_query_1%s`\n",
                s.n, s.n == 1 ? "y" : "ies", s.calls, s.calls == 1 ? "" : "s",
                cli_safe(s.groups[0].last_call), cli_hint_db());
    }
    for (size_t i = 0; i < s.n; i++)
        free(s.groups[i].key);
    free(s.groups);
    json_decref(s.index);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec top_queries_flags[] = {
    DB_FLAG,
    {"since", "TIME", "only calls at or after this UTC time (e.g. 2026-12-01 or 2026-12-01T09:00)"},
    {"limit", "N", "most frequent N queries (default 20)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_audit_top_queries = {
    "audit top-queries",
    "The ad-hoc execute_query texts agents send most: candidates for report tools",
    "[--since TIME] [--limit N] [--db PATH]",
    "Groups the SQL text of successful execute_query calls (dbmcp_audit.sql_text, kept\n"
    "while the setting audit.sql_text is on; the newest 100000 calls are read) by a\n"
    "normalised form: comments dropped, whitespace collapsed, keywords upper-case and\n"
    "other unquoted words lower-case, every literal replaced by ? (a list of them by one\n"
    "?). So `region = 'Nord'` and `region='Süd'` count as one query.\n"
    "\n"
    "Columns: CALLS, LAST USED (time of the newest call), LAST CALL ID (give it to\n"
    "`dbmcp tools promote`), QUERY (the normalised text, cut at 200 characters).",
    0,
    0,
    top_queries_flags,
    run_top_queries,
};

/* --- tools promote -------------------------------------------------------------------- */

/* The audited call must be an execute_query call with SQL text. */
static int check_promotable(const reg_audit_call *call, dbmcp_error *err)
{
    if (!call->method || strcmp(call->method, "tools/call") != 0 || !call->target ||
        strcmp(call->target, "execute_query") != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "call %s was %s%s%s, not an execute_query call; only ad-hoc "
                               "execute_query queries can be promoted",
                               call->call_id, call->method ? call->method : "?",
                               call->target ? " of " : "", call->target ? call->target : "");
    if (!call->sql_text || !*call->sql_text)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "call %s has no recorded SQL text (the setting audit.sql_text "
                               "was off, or the call failed before running SQL)",
                               call->call_id);
    return 0;
}

static json_t *draft_row(cli_args *a, const char *name, const reg_audit_call *call,
                         const report_draft *d)
{
    char description[400];
    if (cli_flag(a, "description"))
        snprintf(description, sizeof description, "%s", cli_flag(a, "description"));
    else
        snprintf(description, sizeof description,
                 "DRAFT promoted from execute_query call %s (%s). Review the SQL, the "
                 "parameters and this description before enabling.",
                 call->call_id, call->ts ? call->ts : "?");
    json_t *row =
        json_pack("{s:s, s:s, s:O, s:o, s:s, s:s, s:b}", "name", name, "description", description,
                  "input_schema", d->input_schema, "annotations", report_annotations(),
                  "handler_kind", "sql", "handler", d->sql, "enabled", 0);
    if (row && cli_flag(a, "title"))
        json_object_set_new(row, "title", json_string(cli_flag(a, "title")));
    return row;
}

static void print_next_steps(const char *name, int n_params)
{
    const char *db = cli_hint_db();
    fprintf(stderr,
            "dbmcp: draft tool '%s' saved DISABLED, in no interface, with %d parameter%s.\n"
            "Next steps:\n"
            "  1. review it:   `dbmcp tools show %s%s`\n"
            "  2. edit it:     `dbmcp tools show %s%s > %s.json`  (fix SQL, names, schema, "
            "description)\n"
            "                  `dbmcp tools update %s --file %s.json%s`\n"
            "  3. enable it:   `dbmcp tools enable %s%s`\n"
            "  4. expose it:   `dbmcp interfaces add-tool default %s%s` (or another interface)\n",
            name, n_params, n_params == 1 ? "" : "s", name, db, name, db, name, name, name, db,
            name, db, name, db);
}

static int promote(cli_args *a, store *db, const char *call_id, const char *name, dbmcp_error *err)
{
    reg_audit_call call;
    int rc = reg_audit_call_get(db, call_id, &call, err);
    if (!rc)
        rc = check_promotable(&call, err);
    report_draft d = {0};
    if (!rc)
        rc = report_draft_from_sql(call.sql_text, &d, err);
    json_t *row = rc ? NULL : draft_row(a, name, &call, &d);
    if (!rc && !row)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "the draft could not be built (invalid UTF-8?)");
    if (!rc)
        rc = cli_tool_insert_checked(a, db, row, NULL, err);
    if (!rc) {
        json_object_set_new(row, "interfaces", json_array());
        char *text = json_dumps(row, JSON_INDENT(2));
        printf("%s\n", text ? text : "{}");
        free(text);
        print_next_steps(name, d.n_params);
    } else if (rc == DBMCP_EEXISTS) {
        size_t used = strlen(err->message);
        snprintf(err->message + used, sizeof err->message - used,
                 "; choose another --name (drafts never overwrite a tool)");
    }
    json_decref(row);
    report_draft_free(&d);
    reg_audit_call_free(&call);
    return rc;
}

static int run_promote(cli_args *a)
{
    const char *name = cli_flag(a, "name");
    dbmcp_error err;
    if (!name)
        return cli_usage_error(a->cmd, "--name NAME is required (the new tool's name)");
    if (catalog_validate_name("tool", name, &err))
        return cli_usage_error(a->cmd, "--name: %s", err.message);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    int rc = promote(a, db, a->argv[0], name, &err);
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec promote_flags[] = {
    DB_FLAG,
    {"name", "NAME", "name of the new (disabled) tool"},
    {"description", "TEXT", "description (default: a DRAFT note naming the call)"},
    {"title", "T", "human-readable title"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_tools_promote = {
    "tools promote",
    "Draft a disabled report tool from one audited execute_query call",
    "CALL_ID --name NAME [--description TEXT] [--title T] [--db PATH]",
    "Takes the SQL text the audit log kept for CALL_ID (see `dbmcp audit top-queries`)\n"
    "and turns the literals of its filtering clauses (WHERE, HAVING, JOIN … ON, LIMIT,\n"
    "OFFSET; not the select list, GROUP BY, ORDER BY or function arguments) into named\n"
    "parameters, named after what they are compared with: `region = 'Nord'` → :region,\n"
    "`year >= 2024` → :year_min, `d < '2025-01-01'` → :d_to, `x BETWEEN 1 AND 9` →\n"
    ":x_min/:x_max, `x IN ('a', 'b')` → :x/:x_2, `LIMIT 10` → :limit, else :p1, :p2 ….\n"
    "Each gets a schema with the literal's type, the literal as default and example,\n"
    "and a description of the comparison.\n"
    "\n"
    "The draft passes the same checks as `tools add` (SQL prepared on a read-only\n"
    "connection, parameters matching the schema) and is saved DISABLED and in no\n"
    "interface; it prints as JSON on stdout, the next steps on stderr. Refused: calls\n"
    "of other tools, calls without recorded SQL, a name already taken.",
    1,
    1,
    promote_flags,
    run_promote,
};
