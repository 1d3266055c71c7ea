/*
 * admin.c — catalog administration commands: list, show, add, update,
 * enable, disable and remove for interfaces, tools, prompts, resources and
 * resource templates.
 *
 * A write reads one JSON object from a file (or stdin), refuses unknown
 * keys and wrong types, merges it over the stored row for `update`, turns
 * it into a registry struct, runs the catalog validation (and, for SQL
 * handlers, a check against a read-only connection), then hands it to the
 * store, which writes row and memberships in one transaction. All SQL is in
 * store/registry_admin.c; this file only shapes JSON and prints.
 */
#include <assert.h>
#include <pwd.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "core/jsonutil.h"
#include "store/plans_store.h"
#include "store/registry.h"
#include "tools/tool.h"

/* Flag initialisers stay on one line (as in cmd_keys.c). */
/* clang-format off */
#define DB_FLAG {"db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"}
#define FILE_FLAG {"file", "F.json", "JSON object with the row's fields; - reads standard input"}
/* clang-format on */

/* Largest accepted file: resource contents arrive this way. */
#define ADMIN_MAX_FILE (64u << 20)

/* --- the JSON file shapes ------------------------------------------------- */

typedef enum field_type {
    FIELD_STRING,
    FIELD_OBJECT,
    FIELD_ARRAY,
    FIELD_BOOL,
    FIELD_INT,
    FIELD_NAMES, /* array of interface names: the membership */
    FIELD_STAMP  /* created_at / updated_at: printed by show, ignored on input */
} field_type;

typedef struct field_spec {
    const char *name;
    field_type type;
    int nullable; /* null accepted: clears the column */
} field_spec;

/* clang-format off */
#define STAMP_FIELDS {"created_at", FIELD_STAMP, 0}, {"updated_at", FIELD_STAMP, 0}
/* clang-format on */

static const field_spec interface_fields[] = {
    {"name", FIELD_STRING, 0},         {"title", FIELD_STRING, 1}, {"description", FIELD_STRING, 1},
    {"instructions", FIELD_STRING, 1}, {"enabled", FIELD_BOOL, 0}, STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

static const field_spec tool_fields[] = {
    {"name", FIELD_STRING, 0},
    {"title", FIELD_STRING, 1},
    {"description", FIELD_STRING, 0},
    {"input_schema", FIELD_OBJECT, 0},
    {"output_schema", FIELD_OBJECT, 1},
    {"annotations", FIELD_OBJECT, 1},
    {"handler_kind", FIELD_STRING, 0},
    {"handler", FIELD_STRING, 0},
    {"enabled", FIELD_BOOL, 0},
    {"interfaces", FIELD_NAMES, 0},
    STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

static const field_spec prompt_fields[] = {
    {"name", FIELD_STRING, 0},  {"title", FIELD_STRING, 1},     {"description", FIELD_STRING, 1},
    {"kind", FIELD_STRING, 0},  {"arguments", FIELD_ARRAY, 0},  {"messages", FIELD_ARRAY, 0},
    {"enabled", FIELD_BOOL, 0}, {"interfaces", FIELD_NAMES, 0}, STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

static const field_spec resource_fields[] = {
    {"uri", FIELD_STRING, 0},
    {"name", FIELD_STRING, 0},
    {"title", FIELD_STRING, 1},
    {"description", FIELD_STRING, 1},
    {"mime_type", FIELD_STRING, 0},
    {"text", FIELD_STRING, 0},
    {"blob_base64", FIELD_STRING, 0},
    {"annotations", FIELD_OBJECT, 1},
    {"enabled", FIELD_BOOL, 0},
    {"interfaces", FIELD_NAMES, 0},
    STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

static const field_spec template_fields[] = {
    {"uri_template", FIELD_STRING, 0},
    {"name", FIELD_STRING, 0},
    {"title", FIELD_STRING, 1},
    {"description", FIELD_STRING, 1},
    {"mime_type", FIELD_STRING, 0},
    {"handler_kind", FIELD_STRING, 0},
    {"handler", FIELD_STRING, 0},
    {"completions", FIELD_OBJECT, 1},
    {"enabled", FIELD_BOOL, 0},
    {"interfaces", FIELD_NAMES, 0},
    STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

static const field_spec plan_fields[] = {
    {"name", FIELD_STRING, 0},
    {"description", FIELD_STRING, 1},
    {"interface", FIELD_STRING, 0},
    {"system_prompt", FIELD_STRING, 1},
    {"extended_prompt", FIELD_STRING, 1},
    {"priority", FIELD_INT, 0},
    {"is_default", FIELD_BOOL, 0},
    {"enabled", FIELD_BOOL, 0},
    {"steps", FIELD_ARRAY, 0},
    {"rules", FIELD_ARRAY, 1},
    {"required_entities", FIELD_ARRAY, 1},
    {"examples", FIELD_ARRAY, 1},
    STAMP_FIELDS,
    {NULL, FIELD_STRING, 0},
};

/* How `list` shows one column: a member of the row's JSON, or the
 * row's interfaces. */
typedef enum column_kind {
    COL_TEXT,      /* a string member ("-" when absent) */
    COL_YES_NO,    /* a boolean member */
    COL_NUMBER,    /* an integer member */
    COL_COUNT,     /* the length of an array member */
    COL_INTERFACES /* the interfaces listing the row (pattern ones marked '*') */
} column_kind;

typedef struct column_spec {
    const char *header; /* NULL ends the list */
    const char *member;
    column_kind kind;
} column_spec;

/* What one write needs besides the row. */
typedef struct admin_ctx {
    cli_args *args; /* for the database URL of the read-only check */
    store *db;      /* the catalog connection */
} admin_ctx;

/* One kind of catalog row as the CLI sees it. */
typedef struct admin_kind {
    reg_kind kind;
    const char *word;      /* first word of its commands: "tools" */
    const char *key_field; /* JSON key holding the row's key: "name" */
    int key_is_name;       /* the key follows catalog_validate_name */
    const field_spec *fields;
    /* The stored row as its file shape (no interfaces, no stamps); new ref. */
    int (*load)(store *db, const char *key, json_t **out, dbmcp_error *err);
    /* Validate row (a merged file shape) and insert it (key NULL) or
     * update the row keyed key. */
    int (*save)(const admin_ctx *c, const json_t *row, const char *key, const reg_names *ifaces,
                dbmcp_error *err);
    /* All rows in key order as a new JSON array of their list shape (the
     * file shape; resources without content, with "bytes"). */
    int (*list)(store *db, json_t **rows, dbmcp_error *err);
    const column_spec *columns; /* what `list` prints, at most TABLE_MAX_COLS */
} admin_kind;

/* --- small JSON helpers ------------------------------------------------------ */

/* A string field, or NULL when absent or null. */
static char *str_field(const json_t *row, const char *key)
{
    return (char *)json_string_value(json_object_get(row, key));
}

/* A JSON field, or NULL when absent or null (borrowed). */
static json_t *json_field(const json_t *row, const char *key)
{
    json_t *v = json_object_get(row, key);
    return json_is_null(v) ? NULL : v;
}

/* "enabled": true unless the row says false. */
static int enabled_field(const json_t *row)
{
    return !json_is_false(json_object_get(row, "enabled"));
}

static void put_str(json_t *o, const char *key, const char *s)
{
    if (s)
        json_object_set_new(o, key, json_string(s));
}

static void put_json(json_t *o, const char *key, json_t *v)
{
    if (v)
        json_object_set(o, key, v);
}

static json_t *names_to_json(const reg_names *names)
{
    json_t *a = json_array();
    for (size_t i = 0; i < names->n; i++)
        json_array_append_new(a, json_string(names->v[i]));
    return a;
}

/* --- reading and checking the file --------------------------------------------- */

/* Read all of f (at most ADMIN_MAX_FILE bytes) into a new buffer. */
static int read_stream(FILE *f, const char *path, char **out, size_t *len, dbmcp_error *err)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= ADMIN_MAX_FILE) {
            free(buf);
            return dbmcp_error_set(err, DBMCP_ETOOBIG, "%s: larger than %u MiB", path,
                                   ADMIN_MAX_FILE >> 20);
        }
        char *grown = realloc(buf, cap * 2);
        if (!grown)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    if (!buf)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (ferror(f)) {
        free(buf);
        return dbmcp_error_set(err, DBMCP_EIO, "%s: read failed", path);
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Parse the file (path "-": stdin) as one JSON object; *out is a new ref. */
static int read_json_file(const char *path, json_t **out, dbmcp_error *err)
{
    *out = NULL;
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return dbmcp_error_set(err, DBMCP_EIO, "%s: cannot open: %m", path);
    char *buf = NULL;
    size_t len = 0;
    int rc = read_stream(f, shown, &buf, &len, err);
    if (f != stdin)
        fclose(f);
    if (rc)
        return rc;
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    free(buf);
    if (!doc)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: invalid JSON at line %d, column %d: %s",
                               shown, jerr.line, jerr.column, jerr.text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: the file must hold one JSON object", shown);
    }
    *out = doc;
    return 0;
}

static int type_matches(const field_spec *f, const json_t *v)
{
    if (json_is_null(v))
        return f->nullable;
    switch (f->type) {
    case FIELD_STRING:
    case FIELD_STAMP: return json_is_string(v);
    case FIELD_OBJECT: return json_is_object(v);
    case FIELD_ARRAY: return json_is_array(v);
    case FIELD_BOOL: return json_is_boolean(v);
    case FIELD_INT: return json_is_integer(v);
    case FIELD_NAMES: {
        size_t i;
        json_t *e;
        if (!json_is_array(v))
            return 0;
        json_array_foreach (v, i, e)
            if (!json_is_string(e))
                return 0;
        return 1;
    }
    }
    return 0;
}

static const char *type_phrase(field_type t)
{
    switch (t) {
    case FIELD_STRING:
    case FIELD_STAMP: return "a string";
    case FIELD_OBJECT: return "a JSON object";
    case FIELD_ARRAY: return "an array";
    case FIELD_BOOL: return "true or false";
    case FIELD_INT: return "a whole number";
    case FIELD_NAMES: return "an array of interface names";
    }
    return "?";
}

/* Refuse keys the kind does not have and values of the wrong type. */
static int check_fields(const admin_kind *k, const json_t *doc, const char *path, dbmcp_error *err)
{
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)doc, key, v) {
        const field_spec *f = k->fields;
        while (f->name && strcmp(f->name, key) != 0)
            f++;
        if (!f->name) {
            char allowed[512] = "";
            size_t used = 0;
            for (f = k->fields; f->name && used < sizeof allowed; f++)
                if (f->type != FIELD_STAMP)
                    used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s%s",
                                             used ? ", " : "", f->name);
            return dbmcp_error_set(err, DBMCP_EINVAL, "%s: unknown key '%s'; %s keys are: %s",
                                   shown, key, reg_kind_label(k->kind), allowed);
        }
        if (!type_matches(f, v))
            return dbmcp_error_set(err, DBMCP_EINVAL, "%s: \"%s\" must be %s%s", shown, key,
                                   type_phrase(f->type), json_is_null(v) ? ", not null" : "");
    }
    return 0;
}

/* The "interfaces" list of doc as borrowed names in *out (free out->v
 * only); *given is zero when the file has no such key. */
static int interfaces_of(const json_t *doc, reg_names *out, int *given, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *list = json_object_get(doc, "interfaces");
    *given = list != NULL;
    if (!list || json_array_size(list) == 0)
        return 0;
    out->v = calloc(json_array_size(list), sizeof *out->v);
    if (!out->v)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    size_t i;
    json_t *e;
    json_array_foreach (list, i, e) {
        out->v[out->n++] = (char *)json_string_value(e);
        int rc = catalog_validate_name("interface", out->v[i], err);
        if (rc) {
            free(out->v);
            out->v = NULL;
            return rc;
        }
    }
    return 0;
}

/* --- handler SQL ------------------------------------------------------------------ */

/* Whether uri_template has the variable {name} (name of length len). */
static int template_has_var(const char *uri_template, const char *name, size_t len)
{
    for (const char *p = strchr(uri_template, '{'); p; p = strchr(p + 1, '{'))
        if (strncmp(p + 1, name, len) == 0 && p[1 + len] == '}')
            return 1;
    return 0;
}

typedef struct param_rules {
    int for_tool;             /* tool: properties + identity; else template variables */
    const json_t *properties; /* tools: input_schema.properties (may be NULL) */
    const char *uri_template; /* templates: its {variables} */
    json_t *used;             /* when not NULL: gets {name: true} per tool parameter seen */
} param_rules;

static int param_allowed(const char *param, void *ctx, dbmcp_error *err)
{
    const param_rules *r = ctx;
    if (!param)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "positional parameter '?' is not allowed; name it (:name)");
    if (param[0] != ':')
        return dbmcp_error_set(err, DBMCP_EINVAL, "parameter %s: write parameters as :name", param);
    const char *name = param + 1;
    if (r->for_tool) {
        if (r->used)
            json_object_set_new(r->used, name, json_true());
        if (strcmp(name, "_user_id") == 0 || strcmp(name, "_agent_id") == 0 ||
            strcmp(name, "_principal") == 0 || json_object_get(r->properties, name))
            return 0;
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "parameter %s is not a property of input_schema (nor one of "
                               ":_user_id, :_agent_id, :_principal)",
                               param);
    }
    if (r->uri_template && template_has_var(r->uri_template, name, strlen(name)))
        return 0;
    return dbmcp_error_set(err, DBMCP_EINVAL, "parameter %s is not a variable of the URI template",
                           param);
}

/* Check handler SQL on a read-only connection as the server will run it:
 * the query connection (cli_query_db_url; on PostgreSQL the query role,
 * so SQL that names what the role may not reach, dbmcp's schema among it,
 * is refused here and not at the first call). */
static int check_handler_sql(const admin_ctx *c, const char *what, const char *sql,
                             param_rules *rules, dbmcp_error *err)
{
    store *ro = NULL;
    char *query_url = NULL;
    int rc = cli_query_db_url(c->args, &query_url, err);
    if (!rc)
        rc = store_open(query_url ? query_url : cli_db_url(c->args), STORE_READONLY, &ro, err);
    free(query_url);
    if (!rc)
        rc = reg_sql_check_query(ro, sql, param_allowed, rules, err);
    store_close(ro);
    if (rc) {
        char context[300];
        snprintf(context, sizeof context, "%s: handler SQL", what);
        dbmcp_error_prefix(err, context);
    }
    return rc;
}

/* --- interfaces --------------------------------------------------------------------- */

static json_t *interface_to_json(const reg_interface *v)
{
    json_t *o = json_object();
    put_str(o, "name", v->name);
    put_str(o, "title", v->title);
    put_str(o, "description", v->description);
    put_str(o, "instructions", v->instructions);
    json_object_set_new(o, "enabled", json_boolean(v->enabled));
    return o;
}

static int load_interface(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    reg_interface v;
    int rc = reg_interface_get(db, key, &v, err);
    *out = rc ? NULL : interface_to_json(&v);
    reg_interface_free(&v);
    return rc;
}

static int save_interface(const admin_ctx *c, const json_t *row, const char *key,
                          const reg_names *ifaces, dbmcp_error *err)
{
    (void)ifaces;
    reg_interface v = {0};
    v.name = str_field(row, "name");
    v.title = str_field(row, "title");
    v.description = str_field(row, "description");
    v.instructions = str_field(row, "instructions");
    v.enabled = enabled_field(row);
    int rc = catalog_validate_name("interface", v.name, err);
    if (!rc && strlen(v.name) > 64)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "interface name is longer than 64 characters");
    if (rc)
        return rc;
    return key ? reg_interface_update(c->db, key, &v, err) : reg_interface_insert(c->db, &v, err);
}

/* --- tables ---------------------------------------------------------------------------- */

#define TABLE_MAX_COLS 6

/* A text table collected row by row, printed with columns padded to the
 * widest cell (counted in UTF-8 characters). */
typedef struct text_table {
    int cols;
    char **cells; /* rows * cols, owned */
    size_t rows, cap;
} text_table;

static size_t utf8_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void table_add(text_table *t, const char *const *cells)
{
    if (t->rows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **grown = realloc(t->cells, cap * (size_t)t->cols * sizeof *grown);
        if (!grown)
            return;
        t->cells = grown;
        t->cap = cap;
    }
    for (int c = 0; c < t->cols; c++)
        t->cells[t->rows * (size_t)t->cols + (size_t)c] =
            strdup(cells[c] ? cli_safe(cells[c]) : "-");
    t->rows++;
}

/* Print and free the table. */
static void table_print(text_table *t)
{
    size_t width[TABLE_MAX_COLS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (int c = 0; c < t->cols; c++) {
            const char *s = t->cells[r * (size_t)t->cols + (size_t)c];
            size_t w = s ? utf8_width(s) : 0;
            if (w > width[c])
                width[c] = w;
        }
    for (size_t r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->cols; c++) {
            char *s = t->cells[r * (size_t)t->cols + (size_t)c];
            const char *text = s ? s : "";
            if (c == t->cols - 1)
                printf("%s\n", text);
            else
                printf("%s%*s  ", text, (int)(width[c] - utf8_width(text)), "");
            free(s);
        }
    }
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* "a, b, c*": direct memberships, then pattern ones marked '*'; NULL when
 * none. Caller frees. */
static char *join_interfaces(const reg_names *direct, const reg_names *by_pattern)
{
    size_t len = 1;
    for (size_t i = 0; i < direct->n; i++)
        len += strlen(direct->v[i]) + 2;
    for (size_t i = 0; by_pattern && i < by_pattern->n; i++)
        len += strlen(by_pattern->v[i]) + 3;
    if (len == 1)
        return NULL;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    *s = '\0';
    for (size_t i = 0; i < direct->n; i++)
        p += sprintf(p, "%s%s", p == s ? "" : ", ", direct->v[i]);
    for (size_t i = 0; by_pattern && i < by_pattern->n; i++)
        p += sprintf(p, "%s%s*", p == s ? "" : ", ", by_pattern->v[i]);
    return s;
}

/* The INTERFACES cell of one row (malloc'd or NULL). */
static char *interfaces_cell(store *db, reg_kind kind, const char *key, dbmcp_error *err)
{
    reg_names direct, by_pattern;
    if (reg_memberships_get(db, kind, key, &direct, &by_pattern, err))
        return NULL;
    char *s = join_interfaces(&direct, &by_pattern);
    reg_names_free(&direct);
    reg_names_free(&by_pattern);
    return s;
}

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

/* --- tools ------------------------------------------------------------------------------- */

static json_t *tool_to_json(const reg_tool *t)
{
    json_t *o = json_object();
    put_str(o, "name", t->name);
    put_str(o, "title", t->title);
    put_str(o, "description", t->description);
    put_json(o, "input_schema", t->input_schema);
    put_json(o, "output_schema", t->output_schema);
    put_json(o, "annotations", t->annotations);
    put_str(o, "handler_kind", t->handler_kind);
    put_str(o, "handler", t->handler);
    json_object_set_new(o, "enabled", json_boolean(t->enabled));
    return o;
}

static int load_tool(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    reg_tool t;
    int rc = reg_tool_get(db, key, &t, err);
    *out = rc ? NULL : tool_to_json(&t);
    reg_tool_free(&t);
    return rc;
}

static int save_tool(const admin_ctx *c, const json_t *row, const char *key,
                     const reg_names *ifaces, dbmcp_error *err)
{
    reg_tool t = {0};
    t.name = str_field(row, "name");
    t.title = str_field(row, "title");
    t.description = str_field(row, "description");
    t.input_schema = json_field(row, "input_schema");
    t.output_schema = json_field(row, "output_schema");
    t.annotations = json_field(row, "annotations");
    t.handler_kind = str_field(row, "handler_kind");
    t.handler = str_field(row, "handler");
    t.enabled = enabled_field(row);
    int rc = catalog_validate_tool(&t, tools_builtin_exists, err);
    if (!rc && strcmp(t.handler_kind, "sql") == 0) {
        char what[160];
        snprintf(what, sizeof what, "tool '%s'", t.name);
        param_rules rules = {1, json_object_get(t.input_schema, "properties"), NULL, NULL};
        rc = check_handler_sql(c, what, t.handler, &rules, err);
    }
    if (rc)
        return rc;
    return key ? reg_tool_update(c->db, key, &t, ifaces, err)
               : reg_tool_insert(c->db, &t, ifaces, err);
}

/* --- prompts --------------------------------------------------------------------------- */

static json_t *prompt_to_json(const reg_prompt *p)
{
    json_t *o = json_object();
    put_str(o, "name", p->name);
    put_str(o, "title", p->title);
    put_str(o, "description", p->description);
    put_str(o, "kind", p->kind);
    put_json(o, "arguments", p->arguments);
    put_json(o, "messages", p->messages);
    json_object_set_new(o, "enabled", json_boolean(p->enabled));
    return o;
}

static int load_prompt(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    reg_prompt p;
    int rc = reg_prompt_get(db, key, &p, err);
    *out = rc ? NULL : prompt_to_json(&p);
    reg_prompt_free(&p);
    return rc;
}

static int save_prompt(const admin_ctx *c, const json_t *row, const char *key,
                       const reg_names *ifaces, dbmcp_error *err)
{
    json_t *no_arguments = json_array();
    reg_prompt p = {0};
    p.name = str_field(row, "name");
    p.title = str_field(row, "title");
    p.description = str_field(row, "description");
    p.kind = json_object_get(row, "kind") ? str_field(row, "kind") : "user";
    p.arguments = json_field(row, "arguments") ? json_field(row, "arguments") : no_arguments;
    p.messages = json_field(row, "messages");
    p.enabled = enabled_field(row);
    int rc = catalog_validate_prompt(&p, err);
    if (!rc)
        rc = key ? reg_prompt_update(c->db, key, &p, ifaces, err)
                 : reg_prompt_insert(c->db, &p, ifaces, err);
    json_decref(no_arguments);
    return rc;
}

/* --- resources ------------------------------------------------------------------------- */

static json_t *resource_to_json(const reg_resource *r)
{
    json_t *o = json_object();
    put_str(o, "uri", r->uri);
    put_str(o, "name", r->name);
    put_str(o, "title", r->title);
    put_str(o, "description", r->description);
    put_str(o, "mime_type", r->mime_type);
    if (r->text) {
        put_str(o, "text", r->text);
    } else if (r->blob) {
        size_t len = sodium_base64_encoded_len(r->blob_size, sodium_base64_VARIANT_ORIGINAL);
        char *b64 = malloc(len);
        if (b64) {
            sodium_bin2base64(b64, len, r->blob, r->blob_size, sodium_base64_VARIANT_ORIGINAL);
            put_str(o, "blob_base64", b64);
            free(b64);
        }
    }
    put_json(o, "annotations", r->annotations);
    json_object_set_new(o, "enabled", json_boolean(r->enabled));
    return o;
}

static int load_resource(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    reg_resource r;
    int rc = reg_resource_get(db, key, &r, err);
    *out = rc ? NULL : resource_to_json(&r);
    reg_resource_free(&r);
    return rc;
}

/* Decode standard base64 (whitespace ignored) into a new buffer. */
static int decode_base64(const char *b64, unsigned char **out, size_t *size, dbmcp_error *err)
{
    size_t len = strlen(b64);
    *out = malloc(len / 4 * 3 + 3);
    if (!*out)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (sodium_base642bin(*out, len / 4 * 3 + 3, b64, len, " \t\r\n", size, NULL,
                          sodium_base64_VARIANT_ORIGINAL) != 0) {
        free(*out);
        *out = NULL;
        return dbmcp_error_set(err, DBMCP_EINVAL, "\"blob_base64\" is not valid base64");
    }
    return 0;
}

static int save_resource(const admin_ctx *c, const json_t *row, const char *key,
                         const reg_names *ifaces, dbmcp_error *err)
{
    reg_resource r = {0};
    r.uri = str_field(row, "uri");
    r.name = str_field(row, "name");
    r.title = str_field(row, "title");
    r.description = str_field(row, "description");
    r.mime_type = json_object_get(row, "mime_type") ? str_field(row, "mime_type") : "text/plain";
    r.text = str_field(row, "text");
    r.annotations = json_field(row, "annotations");
    r.enabled = enabled_field(row);
    const char *b64 = str_field(row, "blob_base64");
    int rc = b64 ? decode_base64(b64, &r.blob, &r.blob_size, err) : 0;
    if (!rc)
        rc = catalog_validate_resource(&r, err);
    if (!rc)
        rc = key ? reg_resource_update(c->db, key, &r, ifaces, err)
                 : reg_resource_insert(c->db, &r, ifaces, err);
    free(r.blob);
    return rc;
}

/* --- resource templates ----------------------------------------------------------------- */

static json_t *template_to_json(const reg_template *t)
{
    json_t *o = json_object();
    put_str(o, "uri_template", t->uri_template);
    put_str(o, "name", t->name);
    put_str(o, "title", t->title);
    put_str(o, "description", t->description);
    put_str(o, "mime_type", t->mime_type);
    put_str(o, "handler_kind", t->handler_kind);
    put_str(o, "handler", t->handler);
    put_json(o, "completions", t->completions);
    json_object_set_new(o, "enabled", json_boolean(t->enabled));
    return o;
}

static int load_template(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    reg_template t;
    int rc = reg_template_get(db, key, &t, err);
    *out = rc ? NULL : template_to_json(&t);
    reg_template_free(&t);
    return rc;
}

static int save_template(const admin_ctx *c, const json_t *row, const char *key,
                         const reg_names *ifaces, dbmcp_error *err)
{
    reg_template t = {0};
    t.uri_template = str_field(row, "uri_template");
    t.name = str_field(row, "name");
    t.title = str_field(row, "title");
    t.description = str_field(row, "description");
    t.mime_type = json_object_get(row, "mime_type") ? str_field(row, "mime_type") : "text/plain";
    t.handler_kind = str_field(row, "handler_kind");
    t.handler = str_field(row, "handler");
    t.completions = json_field(row, "completions");
    t.enabled = enabled_field(row);
    int rc = catalog_validate_template(&t, err);
    if (!rc && (!t.handler || !*t.handler))
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "uri template '%s': handler is required",
                             t.uri_template);
    if (!rc && strcmp(t.handler_kind, "sql") == 0) {
        char what[2100];
        snprintf(what, sizeof what, "uri template '%s'", t.uri_template);
        param_rules rules = {0, NULL, t.uri_template, NULL};
        rc = check_handler_sql(c, what, t.handler, &rules, err);
    }
    if (rc)
        return rc;
    return key ? reg_template_update(c->db, key, &t, ifaces, err)
               : reg_template_insert(c->db, &t, ifaces, err);
}

/* --- list rows ------------------------------------------------------------------------- */

/* The list function of a kind whose store returns an array of TYPE. */
#define LIST_ROWS(FN, TYPE, LIST_ALL, TO_JSON, ARRAY_FREE)                                         \
    static int FN(store *db, json_t **rows, dbmcp_error *err)                                      \
    {                                                                                              \
        TYPE *v = NULL;                                                                            \
        size_t n = 0;                                                                              \
        int rc = LIST_ALL(db, &v, &n, err);                                                        \
        *rows = json_array();                                                                      \
        for (size_t i = 0; !rc && i < n; i++)                                                      \
            json_array_append_new(*rows, TO_JSON(&v[i]));                                          \
        ARRAY_FREE(v, n);                                                                          \
        return rc;                                                                                 \
    }

/* A resource as listed: metadata and its content's size. */
static json_t *resource_list_json(const reg_resource *r)
{
    json_t *o = resource_to_json(r);
    json_object_set_new(o, "bytes", json_integer(r->size));
    return o;
}

LIST_ROWS(list_interfaces, reg_interface, reg_interface_list_all, interface_to_json,
          reg_interface_array_free)
LIST_ROWS(list_tools, reg_tool, reg_tool_list_all, tool_to_json, reg_tool_array_free)
LIST_ROWS(list_prompts, reg_prompt, reg_prompt_list_all, prompt_to_json, reg_prompt_array_free)
LIST_ROWS(list_resources, reg_resource, reg_resource_list_all, resource_list_json,
          reg_resource_array_free)
LIST_ROWS(list_templates, reg_template, reg_template_list_all, template_to_json,
          reg_template_array_free)

/* --- plans ------------------------------------------------------------------------------- */

static int load_plan(store *db, const char *key, json_t **out, dbmcp_error *err)
{
    return plans_admin_get(db, key, out, err);
}

static int save_plan(const admin_ctx *c, const json_t *row, const char *key,
                     const reg_names *ifaces, dbmcp_error *err)
{
    (void)ifaces;
    int rc = catalog_validate_plan(row, err);
    return rc ? rc : plans_admin_write(c->db, key, row, err);
}

static int list_plans(store *db, json_t **rows, dbmcp_error *err)
{
    reg_names names;
    *rows = json_array();
    int rc = plans_admin_names(db, &names, err);
    for (size_t i = 0; !rc && i < names.n; i++) {
        json_t *plan = NULL;
        if (!(rc = plans_admin_get(db, names.v[i], &plan, err)))
            json_array_append_new(*rows, plan);
    }
    reg_names_free(&names);
    return rc;
}

/* --- columns --------------------------------------------------------------------------- */

static const column_spec interface_columns[] = {{"NAME", "name", COL_TEXT},
                                                {"ENABLED", "enabled", COL_YES_NO},
                                                {"TITLE", "title", COL_TEXT},
                                                {0}};
static const column_spec tool_columns[] = {{"NAME", "name", COL_TEXT},
                                           {"ENABLED", "enabled", COL_YES_NO},
                                           {"HANDLER", "handler_kind", COL_TEXT},
                                           {"INTERFACES", NULL, COL_INTERFACES},
                                           {"TITLE", "title", COL_TEXT},
                                           {0}};
static const column_spec prompt_columns[] = {
    {"NAME", "name", COL_TEXT},   {"ENABLED", "enabled", COL_YES_NO},
    {"KIND", "kind", COL_TEXT},   {"INTERFACES", NULL, COL_INTERFACES},
    {"TITLE", "title", COL_TEXT}, {0}};
static const column_spec resource_columns[] = {{"URI", "uri", COL_TEXT},
                                               {"ENABLED", "enabled", COL_YES_NO},
                                               {"MIME TYPE", "mime_type", COL_TEXT},
                                               {"BYTES", "bytes", COL_NUMBER},
                                               {"INTERFACES", NULL, COL_INTERFACES},
                                               {"NAME", "name", COL_TEXT},
                                               {0}};
static const column_spec template_columns[] = {{"URI TEMPLATE", "uri_template", COL_TEXT},
                                               {"ENABLED", "enabled", COL_YES_NO},
                                               {"HANDLER", "handler_kind", COL_TEXT},
                                               {"MIME TYPE", "mime_type", COL_TEXT},
                                               {"INTERFACES", NULL, COL_INTERFACES},
                                               {"NAME", "name", COL_TEXT},
                                               {0}};
static const column_spec plan_columns[] = {{"NAME", "name", COL_TEXT},
                                           {"ENABLED", "enabled", COL_YES_NO},
                                           {"DEFAULT", "is_default", COL_YES_NO},
                                           {"PRIORITY", "priority", COL_NUMBER},
                                           {"INTERFACE", "interface", COL_TEXT},
                                           {"STEPS", "steps", COL_COUNT},
                                           {0}};

/* --- the kinds --------------------------------------------------------------------------- */

static const admin_kind admin_kinds[] = {
    {REG_INTERFACE, "interfaces", "name", 1, interface_fields, load_interface, save_interface,
     list_interfaces, interface_columns},
    {REG_TOOL, "tools", "name", 1, tool_fields, load_tool, save_tool, list_tools, tool_columns},
    {REG_PROMPT, "prompts", "name", 1, prompt_fields, load_prompt, save_prompt, list_prompts,
     prompt_columns},
    {REG_RESOURCE, "resources", "uri", 0, resource_fields, load_resource, save_resource,
     list_resources, resource_columns},
    {REG_TEMPLATE, "templates", "uri_template", 0, template_fields, load_template, save_template,
     list_templates, template_columns},
    {REG_PLAN, "plans", "name", 1, plan_fields, load_plan, save_plan, list_plans, plan_columns},
};

/* Whether rows of k belong to interfaces (their file shape has "interfaces"). */
static int has_membership(const admin_kind *k)
{
    for (const field_spec *f = k->fields; f->name; f++)
        if (f->type == FIELD_NAMES)
            return 1;
    return 0;
}

/* The kind a command belongs to, from the first word of its name. */
static const admin_kind *kind_of(const cli_command *cmd)
{
    for (size_t i = 0; i < sizeof admin_kinds / sizeof admin_kinds[0]; i++) {
        size_t len = strlen(admin_kinds[i].word);
        if (strncmp(cmd->name, admin_kinds[i].word, len) == 0 && cmd->name[len] == ' ')
            return &admin_kinds[i];
    }
    return NULL;
}

/* Usage-check a key given on the command line. */
static int check_key_arg(cli_args *a, const admin_kind *k, const char *key)
{
    dbmcp_error err;
    if (k->key_is_name && catalog_validate_name(reg_kind_label(k->kind), key, &err))
        return cli_usage_error(a->cmd, "%s", err.message);
    if (!*key)
        return cli_usage_error(a->cmd, "the %s is empty", k->key_field);
    return CLI_OK;
}

/* --- list and show ------------------------------------------------------------------------ */

/* One cell of a listed row (borrowed, or in buf; NULL prints "-"). */
static const char *cell_text(const column_spec *col, const json_t *row, char *buf, size_t size)
{
    json_t *v = json_object_get(row, col->member);
    switch (col->kind) {
    case COL_TEXT: return json_string_value(v);
    case COL_YES_NO: return yes_no(json_is_true(v));
    case COL_NUMBER: snprintf(buf, size, "%lld", (long long)json_integer_value(v)); return buf;
    case COL_COUNT: snprintf(buf, size, "%zu", json_array_size(v)); return buf;
    case COL_INTERFACES: break;
    }
    return NULL;
}

/* Print rows as k's table on stdout. */
static void print_rows(store *db, const admin_kind *k, const json_t *rows, dbmcp_error *err)
{
    int cols = 0;
    const char *cells[TABLE_MAX_COLS];
    for (; k->columns[cols].header; cols++)
        cells[cols] = k->columns[cols].header;
    assert(cols <= TABLE_MAX_COLS);
    text_table t = {.cols = cols};
    table_add(&t, cells);
    size_t i;
    json_t *row;
    json_array_foreach (rows, i, row) {
        char bufs[TABLE_MAX_COLS][24], *ifaces = NULL;
        for (int c = 0; c < cols; c++) {
            const column_spec *col = &k->columns[c];
            if (col->kind == COL_INTERFACES) {
                ifaces = interfaces_cell(db, k->kind, json_get_str(row, k->key_field), err);
                cells[c] = ifaces;
            } else {
                cells[c] = cell_text(col, row, bufs[c], sizeof bufs[c]);
            }
        }
        table_add(&t, cells);
        free(ifaces);
    }
    table_print(&t);
}

/* --json: each row gets its direct memberships as "interfaces". */
static int add_interfaces(store *db, const admin_kind *k, json_t *rows, dbmcp_error *err)
{
    size_t i;
    json_t *row;
    json_array_foreach (rows, i, row) {
        reg_names direct;
        int rc =
            reg_memberships_get(db, k->kind, json_get_str(row, k->key_field), &direct, NULL, err);
        if (rc)
            return rc;
        json_object_set_new(row, "interfaces", names_to_json(&direct));
        reg_names_free(&direct);
    }
    return 0;
}

static int run_list(cli_args *a)
{
    const admin_kind *k = kind_of(a->cmd);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    json_t *rows = NULL;
    int as_json = cli_flag(a, "json") != NULL;
    int rc = k->list(db, &rows, &err);
    if (!rc && as_json && has_membership(k))
        rc = add_interfaces(db, k, rows, &err);
    if (!rc && as_json)
        rc = cli_print_json(rows, &err);
    else if (!rc)
        print_rows(db, k, rows, &err);
    json_decref(rows);
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

/* The row as show prints it: its file shape, memberships, stamps. */
static int show_json(store *db, const admin_kind *k, const char *key, json_t **out,
                     dbmcp_error *err)
{
    int rc = k->load(db, key, out, err);
    if (rc)
        return rc;
    if (has_membership(k)) {
        reg_names direct;
        if ((rc = reg_memberships_get(db, k->kind, key, &direct, NULL, err)))
            return rc;
        json_object_set_new(*out, "interfaces", names_to_json(&direct));
        reg_names_free(&direct);
    }
    char *created = NULL, *updated = NULL;
    rc = reg_row_stamps(db, k->kind, key, &created, &updated, err);
    put_str(*out, "created_at", created);
    put_str(*out, "updated_at", updated);
    free(created);
    free(updated);
    return rc;
}

static int run_show(cli_args *a)
{
    const admin_kind *k = kind_of(a->cmd);
    const char *key = a->argv[0];
    int rc = check_key_arg(a, k, key);
    if (rc)
        return rc;
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    json_t *row = NULL;
    rc = show_json(db, k, key, &row, &err);
    store_close(db);
    if (rc) {
        json_decref(row);
        return cli_fail(&err);
    }
    rc = cli_print_json(row, &err);
    json_decref(row);
    return rc ? cli_fail(&err) : CLI_OK;
}

/* --- the audit of changes --------------------------------------------------------------- */

/* The first word of kind's commands ("tools"). */
static const char *kind_word(reg_kind kind)
{
    for (size_t i = 0; i < sizeof admin_kinds / sizeof admin_kinds[0]; i++)
        if (admin_kinds[i].kind == kind)
            return admin_kinds[i].word;
    return "?";
}

/* The audit row of a change just made to row key of k: ACTION is
 * "WORD.VERB" ("plans.update"), the change {"before", "after"} the row as
 * `show` prints it (null when absent); enable and disable record only
 * {"enabled": …}, as the console does. */
static void audit_change(store *db, const admin_kind *k, const char *verb, const char *key,
                         const json_t *before)
{
    char action[40];
    snprintf(action, sizeof action, "%s.%s", k->word, verb);
    json_t *after = NULL, *change;
    dbmcp_error err;
    int toggle = strcmp(verb, "enable") == 0 || strcmp(verb, "disable") == 0;
    if (toggle)
        change = json_pack("{s:{s:b},s:{s:b}}", "before", "enabled",
                           json_is_true(json_object_get(before, "enabled")), "after", "enabled",
                           strcmp(verb, "enable") == 0);
    else {
        if (strcmp(verb, "remove") != 0 && show_json(db, k, key, &after, &err)) {
            json_decref(after);
            after = NULL;
        }
        change = json_pack("{s:O?,s:o?}", "before", before, "after", after);
    }
    cli_audit_admin(db, action, key, change);
    json_decref(change);
}

/* --- add and update ------------------------------------------------------------------------ */

/* The row to write: doc for add; for update, doc merged over the stored
 * row. Memberships and stamps are removed (they are not columns). */
static int merged_row(store *db, const admin_kind *k, const char *key, const json_t *doc,
                      json_t **out, dbmcp_error *err)
{
    *out = NULL;
    json_t *row = NULL;
    if (key) {
        int rc = k->load(db, key, &row, err);
        if (rc)
            return rc;
        json_object_update(row, (json_t *)doc);
        /* New content of one form replaces the stored content of the other. */
        if (json_object_get(doc, "text") && !json_object_get(doc, "blob_base64"))
            json_object_del(row, "blob_base64");
        if (json_object_get(doc, "blob_base64") && !json_object_get(doc, "text"))
            json_object_del(row, "text");
    } else {
        row = json_copy((json_t *)doc);
    }
    if (!row)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    json_object_del(row, "interfaces");
    json_object_del(row, "created_at");
    json_object_del(row, "updated_at");
    *out = row;
    return 0;
}

static int write_from_file(cli_args *a, const admin_kind *k, store *db, const char *key,
                           const json_t *doc, dbmcp_error *err)
{
    json_t *row;
    int rc = merged_row(db, k, key, doc, &row, err);
    if (rc)
        return rc;
    reg_names ifaces;
    int given = 0;
    rc = interfaces_of(doc, &ifaces, &given, err);
    if (!rc) {
        admin_ctx c = {a, db};
        rc = k->save(&c, row, key, given ? &ifaces : NULL, err);
    }
    free(ifaces.v);
    json_decref(row);
    return rc;
}

/* Add (key NULL) or update the row keyed key from --file. */
static int run_write(cli_args *a, const char *key)
{
    const admin_kind *k = kind_of(a->cmd);
    const char *file = cli_flag(a, "file");
    if (!file)
        return cli_usage_error(a->cmd, "--file is required (a JSON file, or - for stdin)");
    int rc = key ? check_key_arg(a, k, key) : CLI_OK;
    if (rc)
        return rc;
    dbmcp_error err;
    json_t *doc = NULL;
    if (read_json_file(file, &doc, &err) || check_fields(k, doc, file, &err)) {
        json_decref(doc);
        return cli_fail(&err);
    }
    store *db = cli_open_catalog(a);
    if (!db) {
        json_decref(doc);
        return CLI_FAIL;
    }
    const char *name = key ? key : str_field(doc, k->key_field);
    json_t *before = NULL;
    rc = key ? show_json(db, k, key, &before, &err) : 0;
    if (!rc)
        rc = write_from_file(a, k, db, key, doc, &err);
    if (!rc)
        audit_change(db, k, key ? "update" : "add", name, before);
    json_decref(before);
    store_close(db);
    if (rc == DBMCP_EEXISTS) {
        /* The same file as an update: a hint that works when pasted. */
        char name_word[2200], file_word[1100];
        size_t used = strlen(err.message);
        snprintf(err.message + used, sizeof err.message - used,
                 "; change it with `dbmcp %s update %s --file %s`", k->word,
                 cli_shell_word(name, name_word, sizeof name_word),
                 cli_shell_word(file, file_word, sizeof file_word));
    }
    if (!rc)
        fprintf(stderr, "dbmcp: %s '%s' %s\n", reg_kind_label(k->kind), name,
                key ? "updated" : "added");
    json_decref(doc);
    return rc ? cli_fail(&err) : CLI_OK;
}

static int run_add(cli_args *a)
{
    return run_write(a, NULL);
}

static int run_update(cli_args *a)
{
    return run_write(a, a->argv[0]);
}

/* --- enable, disable, remove ---------------------------------------------------------------- */

typedef enum simple_action { ACTION_ENABLE, ACTION_DISABLE, ACTION_REMOVE } simple_action;

static int run_simple(cli_args *a, simple_action action)
{
    const admin_kind *k = kind_of(a->cmd);
    const char *key = a->argv[0];
    int rc = check_key_arg(a, k, key);
    if (rc)
        return rc;
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    json_t *before = NULL;
    rc = show_json(db, k, key, &before, &err);
    if (!rc && action == ACTION_REMOVE)
        rc = reg_remove(db, k->kind, key, &err);
    else if (!rc)
        rc = reg_set_enabled(db, k->kind, key, action == ACTION_ENABLE, &err);
    static const char *const verbs[] = {"enable", "disable", "remove"};
    if (!rc)
        audit_change(db, k, verbs[action], key, before);
    json_decref(before);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    static const char *const done[] = {"enabled", "disabled", "removed"};
    fprintf(stderr, "dbmcp: %s '%s' %s\n", reg_kind_label(k->kind), key, done[action]);
    return CLI_OK;
}

static int run_enable(cli_args *a)
{
    return run_simple(a, ACTION_ENABLE);
}

static int run_disable(cli_args *a)
{
    return run_simple(a, ACTION_DISABLE);
}

static int run_remove(cli_args *a)
{
    return run_simple(a, ACTION_REMOVE);
}

/* --- memberships: interfaces add-tool / remove-tool / … ------------------------------------- */

/* The kind of row a membership command names, from its last word
 * ("add-tool"), and whether it adds. */
static reg_kind member_kind(const cli_command *cmd, int *add)
{
    const char *verb = strrchr(cmd->name, ' ') + 1;
    *add = strncmp(verb, "add-", 4) == 0;
    const char *noun = strchr(verb, '-') + 1;
    if (strcmp(noun, "tool") == 0)
        return REG_TOOL;
    if (strcmp(noun, "prompt") == 0)
        return REG_PROMPT;
    assert(strcmp(noun, "resource") == 0);
    return REG_RESOURCE;
}

static int run_membership(cli_args *a)
{
    int add = 0;
    reg_kind kind = member_kind(a->cmd, &add);
    const char *iface = a->argv[0], *key = a->argv[1];
    dbmcp_error err;
    if (catalog_validate_name("interface", iface, &err) ||
        (kind != REG_RESOURCE && catalog_validate_name(reg_kind_label(kind), key, &err)))
        return cli_usage_error(a->cmd, "%s", err.message);
    if (!*key)
        return cli_usage_error(a->cmd, "the URI is empty");
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    int changed = 0;
    reg_names before = {0}, after = {0};
    int rc = reg_memberships_get(db, kind, key, &before, NULL, &err);
    if (!rc)
        rc = reg_membership_set(db, kind, iface, key, add, &changed, &err);
    if (!rc && changed && !reg_memberships_get(db, kind, key, &after, NULL, &err)) {
        /* The console's shape: the row's interfaces before and after. */
        char action[40];
        snprintf(action, sizeof action, "%s.membership", kind_word(kind));
        json_t *change =
            json_pack("{s:{s:o},s:{s:o}}", "before", "interfaces", names_to_json(&before), "after",
                      "interfaces", names_to_json(&after));
        cli_audit_admin(db, action, key, change);
        json_decref(change);
    }
    reg_names_free(&before);
    reg_names_free(&after);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    const char *label = kind == REG_RESOURCE ? "resource" : reg_kind_label(kind);
    if (changed)
        fprintf(stderr, "dbmcp: interface '%s' %s %s '%s'\n", cli_safe(iface),
                add ? "now lists" : "no longer lists", label, cli_safe(key));
    else
        fprintf(stderr, "dbmcp: interface '%s' %s %s '%s' (nothing changed)\n", cli_safe(iface),
                add ? "already lists" : "does not list", label, cli_safe(key));
    return CLI_OK;
}

/* --- shared with other command files (cli.h) ------------------------------------------------ */

int cli_print_json(const json_t *v, dbmcp_error *err)
{
    char *text = json_dumps(v, JSON_INDENT(2));
    if (!text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    printf("%s\n", text);
    free(text);
    return 0;
}

/* Who runs the CLI: the OS user's name, else "cli". */
static const char *cli_user(void)
{
    struct passwd *pw = getpwuid(geteuid());
    if (pw && pw->pw_name && *pw->pw_name)
        return pw->pw_name;
    const char *user = getenv("USER");
    return user && *user ? user : "cli";
}

void cli_audit_admin(store *db, const char *action, const char *target, const json_t *change)
{
    reg_admin_actor who = {cli_user(), NULL, NULL, "dbmcp cli", "cli"};
    dbmcp_error err;
    if (reg_audit_admin(db, &who, action, target, "ok", change, &err))
        fprintf(stderr, "dbmcp: warning: the audit row of admin/%s was not written: %s\n", action,
                err.message);
}

int cli_read_json_object(const char *path, json_t **out, dbmcp_error *err)
{
    return read_json_file(path, out, err);
}

int cli_read_text_file(const char *path, char **out, dbmcp_error *err)
{
    *out = NULL;
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return dbmcp_error_set(err, DBMCP_EIO, "%s: cannot open: %m", path);
    char *buf = NULL;
    size_t len = 0;
    int rc = read_stream(f, shown, &buf, &len, err);
    if (f != stdin)
        fclose(f);
    if (rc)
        return rc;
    char *text = realloc(buf, len + 1);
    if (!text) {
        free(buf);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        free(text);
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: contains a NUL byte", shown);
    }
    *out = text;
    return 0;
}

int cli_tool_sql_params(cli_args *a, const char *tool, const char *sql, const json_t *input_schema,
                        json_t **used, dbmcp_error *err)
{
    admin_ctx c = {a, NULL};
    char what[160];
    snprintf(what, sizeof what, "tool '%s'", tool);
    param_rules rules = {1, json_object_get(input_schema, "properties"), NULL, json_object()};
    int rc = check_handler_sql(&c, what, sql, &rules, err);
    if (rc)
        json_decref(rules.used);
    *used = rc ? NULL : rules.used;
    return rc;
}

int cli_tool_insert_checked(cli_args *a, store *db, const json_t *row, const reg_names *ifaces,
                            dbmcp_error *err)
{
    admin_ctx c = {a, db};
    return save_tool(&c, row, NULL, ifaces, err);
}

/* --- command table and help ------------------------------------------------------------------ */

static const cli_flag_spec db_flags[] = {DB_FLAG, {NULL, NULL, NULL}};
static const cli_flag_spec file_flags[] = {DB_FLAG, FILE_FLAG, {NULL, NULL, NULL}};
static const cli_flag_spec list_flags[] = {
    DB_FLAG,
    {"json", NULL, "print a JSON array of the rows instead of a table"},
    {NULL, NULL, NULL}};

#define CATALOG_NOTICED                                                                            \
    "Running servers notice the change (catalog version\n"                                         \
    "triggers) and send their clients list_changed."

#define AUDITED(WORD)                                                                              \
    "The change is audited: one dbmcp_audit row (method admin/" WORD ".VERB, transport cli,\n"     \
    "principal the OS user) with the row before and after; `dbmcp audit --json` shows it."

#define PLAN_SHAPE                                                                                  \
    "  {\"name\": \"tarif_lookup\",             1-128 chars of [A-Za-z0-9_.-]\n"                    \
    "   \"description\": \"…\",               optional; also compared with questions\n"           \
    "   \"interface\": \"document_analysis\",  required: whose tools the plan may use\n"            \
    "   \"system_prompt\": \"…\",             optional: a prompt of kind system\n"                \
    "   \"extended_prompt\": \"…\",           optional: a prompt of kind extended_system\n"       \
    "   \"priority\": 0, \"is_default\": false, \"enabled\": true,\n"                               \
    "   \"steps\": [{\"kind\": \"analyse\" | \"tool\" | \"llm\" | \"save_episode\",\n"              \
    "              \"description\": \"…\", \"tool_choice\": \"auto\",  none|auto|required|a "     \
    "tool\n"                                                                                        \
    "              \"tools\": [\"…\"] | null,  llm: narrows the interface's tools\n"              \
    "              \"prompt\": \"…\",            llm: a prompt of kind user, sent first\n"        \
    "              \"max_iterations\": 4,      1-32\n"                                              \
    "              \"tool\": \"…\", \"arguments\": {\"region\": \"{{entity.tarifgebiet}}\"}}],\n" \
    "                                      tool steps only; at least one step\n"                    \
    "   \"rules\": [{\"kind\": \"keyword\" | \"regex\" | \"concept\", \"pattern\": \"Tarif\",\n"    \
    "              \"weight\": 1.0}],          regexes: POSIX extended, must compile\n"             \
    "   \"required_entities\": [{\"entity\": \"tarifgebiet\", \"question\": \"…\"}],\n"           \
    "   \"examples\": [\"Wie viele Urlaubstage …?\"]}\n"                                          \
    "\n"                                                                                            \
    "Array order numbers steps, rules and examples. The interface, the prompts and the\n"           \
    "tools named must exist; on update a given array replaces the stored one.\n"

#define WRITE_RULES                                                                                \
    "Unknown keys and values of the wrong type are refused, naming the key. \"enabled\"\n"         \
    "defaults to true. \"created_at\" and \"updated_at\" (printed by `show`) are read-only and\n"  \
    "ignored, so `show` output can be edited and fed back. Everything is validated before\n"       \
    "anything is written; the row and its interface memberships are then written in one\n"         \
    "transaction, so a refused or failed command leaves the database unchanged."

#define MEMBERSHIP_RULES                                                                           \
    "\"interfaces\" lists the interfaces that expose the row; each must exist. On update,\n"       \
    "a given \"interfaces\" replaces the membership; leaving it out keeps it.\n\n"

/* What show adds for kinds with a membership. */
#define MEMBERS_SHOWN " and the membership\nas \"interfaces\" (exact entries only)"

#define INTERFACE_SHAPE                                                                            \
    "  {\"name\": \"sales\",                  1-64 chars of [A-Za-z0-9_.-]\n"                      \
    "   \"title\": \"Sales assistant\",       optional\n"                                          \
    "   \"description\": \"…\",               optional\n"                                        \
    "   \"instructions\": \"…\",              optional: MCP instructions (default: built-in)\n"  \
    "   \"enabled\": true}\n"

#define TOOL_SHAPE                                                                                 \
    "  {\"name\": \"sales_by_region\",          1-128 chars of [A-Za-z0-9_.-]\n"                   \
    "   \"title\": \"Revenue by region\",       optional\n"                                        \
    "   \"description\": \"…\",                 required: models choose tools by it\n"           \
    "   \"input_schema\": {\"type\": \"object\", \"properties\": {…}},  JSON Schema, object "    \
    "root\n"                                                                                       \
    "   \"output_schema\": {…},               optional JSON Schema, object root\n"               \
    "   \"annotations\": {\"readOnlyHint\": true, …},  optional: title, readOnlyHint,\n"         \
    "                                       destructiveHint, idempotentHint, openWorldHint\n"      \
    "   \"handler_kind\": \"builtin\" | \"sql\",\n"                                                \
    "   \"handler\": \"echo\" | \"SELECT … WHERE year = :year\",\n"                              \
    "   \"enabled\": true,\n"                                                                      \
    "   \"interfaces\": [\"chatbot\", …]}\n"                                                     \
    "\n"                                                                                           \
    "A builtin handler must name a handler compiled into dbmcp. SQL handlers must prepare\n"       \
    "as ONE statement on a read-only connection to the database, must not write and must\n"        \
    "return rows; every :param must be a property of input_schema or one of :_user_id,\n"          \
    ":_agent_id, :_principal (filled from the caller's identity).\n"

#define PROMPT_SHAPE                                                                               \
    "  {\"name\": \"sales_briefing\",          1-128 chars of [A-Za-z0-9_.-]\n"                    \
    "   \"title\": \"…\", \"description\": \"…\",   optional\n"                                \
    "   \"kind\": \"user\",                     user (default) | system | extended_system\n"       \
    "   \"arguments\": [{\"name\": \"year\", \"description\": \"…\", \"required\": true}],\n"    \
    "                                      optional, default []\n"                                 \
    "   \"messages\": [{\"role\": \"user\", \"content\": {\"type\": \"text\",\n"                   \
    "                 \"text\": \"Summarise {{year}}\"}}],  role user | assistant\n"               \
    "   \"enabled\": true,\n"                                                                      \
    "   \"interfaces\": [\"chatbot\", …]}\n"                                                     \
    "\n"                                                                                           \
    "Every {{placeholder}} in a message text must be a declared argument.\n"

#define RESOURCE_SHAPE                                                                             \
    "  {\"uri\": \"doc://handbook/intro\",     absolute URI (scheme:…), at most 2048 chars\n"    \
    "   \"name\": \"intro\",                    required\n"                                        \
    "   \"title\": \"…\", \"description\": \"…\",   optional\n"                                \
    "   \"mime_type\": \"text/markdown\",       default text/plain\n"                              \
    "   \"text\": \"…\"  or  \"blob_base64\": \"iVBORw0…\",   exactly one: the content\n"      \
    "   \"annotations\": {\"audience\": [\"user\"], \"priority\": 0.5, \"lastModified\": "         \
    "\"…\"},\n"                                                                                  \
    "   \"enabled\": true,\n"                                                                      \
    "   \"interfaces\": [\"document_analysis\", …]}\n"                                           \
    "\n"                                                                                           \
    "On update, \"text\" replaces stored binary content and \"blob_base64\" stored text.\n"        \
    "Interfaces may also expose resources through 'prefix*' patterns (plain SQL on\n"              \
    "dbmcp_interface_resources); \"interfaces\" manages only exact entries.\n"

#define TEMPLATE_SHAPE                                                                             \
    "  {\"uri_template\": \"doc://tarif/{slug}\",  RFC 6570 level 1: {variables}\n"                \
    "   \"name\": \"tarif_document\",           required\n"                                        \
    "   \"title\": \"…\", \"description\": \"…\",   optional\n"                                \
    "   \"mime_type\": \"text/markdown\",       default text/plain\n"                              \
    "   \"handler_kind\": \"builtin\" | \"sql\",\n"                                                \
    "   \"handler\": \"resource_by_uri\" | \"SELECT body FROM docs WHERE slug = :slug\",\n"        \
    "   \"completions\": {\"slug\": [\"a\", \"b\"]},  optional: per variable, values or SQL\n"     \
    "   \"enabled\": true,\n"                                                                      \
    "   \"interfaces\": [\"document_analysis\", …]}\n"                                           \
    "\n"                                                                                           \
    "An SQL handler must prepare as ONE read-only statement returning rows (the first\n"           \
    "column of the first row is the content); every :param must be a template variable.\n"

/* The seven commands of one kind. ID names the structs, WORD is the first
 * word of the commands, A_ONE "a tool", KEY the argument's name. */
#define ADMIN_COMMANDS(ID, WORD, A_ONE, MANY, KEY, SHAPE, MEMBERS, SHOWN, LIST_DETAILS, NOTICED)   \
    static const cli_command ID##_list = {                                                         \
        WORD " list",                                                                              \
        "List all " MANY ", enabled or not",                                                       \
        "[--json] [--db PATH]",                                                                    \
        LIST_DETAILS "\nWith --json: a JSON array of the rows in the shape `" WORD                 \
                     " show` prints\n(without the stamps; a resource has its size as \"bytes\" "   \
                     "instead of its content).",                                                   \
        0,                                                                                         \
        0,                                                                                         \
        list_flags,                                                                                \
        run_list,                                                                                  \
    };                                                                                             \
    static const cli_command ID##_show = {                                                         \
        WORD " show",                                                                              \
        "Print " A_ONE " as JSON",                                                                 \
        KEY " [--db PATH]",                                                                        \
        "Prints the row as pretty JSON on stdout: the keys `" WORD " add` takes, with\n"           \
        "JSON-valued columns parsed" SHOWN ". The read-only created_at and updated_at\n"           \
        "are added. The output can be edited and given back with\n"                                \
        "`dbmcp " WORD " update " KEY " --file F.json`.",                                          \
        1,                                                                                         \
        1,                                                                                         \
        db_flags,                                                                                  \
        run_show,                                                                                  \
    };                                                                                             \
    static const cli_command ID##_add = {                                                          \
        WORD " add",                                                                               \
        "Add " A_ONE " from a JSON file",                                                          \
        "--file F.json [--db PATH]",                                                               \
        "The file (--file -: standard input) holds one JSON object:\n\n" SHAPE                     \
        "\n" MEMBERS WRITE_RULES                                                                   \
        "\n\nA key that is already taken is refused; change that row with\n"                       \
        "`dbmcp " WORD " update`.\n" AUDITED(WORD),                                                \
        0,                                                                                         \
        0,                                                                                         \
        file_flags,                                                                                \
        run_add,                                                                                   \
    };                                                                                             \
    static const cli_command ID##_update = {                                                       \
        WORD " update",                                                                            \
        "Change " A_ONE " from a JSON file (only the keys given)",                                 \
        KEY " --file F.json [--db PATH]",                                                          \
        "Partial update: the file holds the keys to change; the others keep their stored\n"        \
        "values (null clears an optional key). The merged row must pass the same checks as\n"      \
        "`" WORD " add`; updated_at is set. The key itself cannot change (renames are\n"           \
        "refused: add the new row, then remove the old one). Keys:\n\n" SHAPE                      \
        "\n" MEMBERS WRITE_RULES "\n" AUDITED(WORD),                                               \
        1,                                                                                         \
        1,                                                                                         \
        file_flags,                                                                                \
        run_update,                                                                                \
    };                                                                                             \
    static const cli_command ID##_enable = {                                                       \
        WORD " enable",                                                                            \
        "Enable " A_ONE,                                                                           \
        KEY " [--db PATH]",                                                                        \
        "Sets enabled = 1 and updated_at. " NOTICED,                                               \
        1,                                                                                         \
        1,                                                                                         \
        db_flags,                                                                                  \
        run_enable,                                                                                \
    };                                                                                             \
    static const cli_command ID##_disable = {                                                      \
        WORD " disable",                                                                           \
        "Disable " A_ONE " (kept, but out of use until enabled)",                                  \
        KEY " [--db PATH]",                                                                        \
        "Sets enabled = 0 and updated_at. The row and its memberships stay; `" WORD " enable`\n"   \
        "brings it back. " NOTICED,                                                                \
        1,                                                                                         \
        1,                                                                                         \
        db_flags,                                                                                  \
        run_disable,                                                                               \
    };                                                                                             \
    static const cli_command ID##_remove = {                                                       \
        WORD " remove",                                                                            \
        "Delete " A_ONE " with the rows that belong to it",                                        \
        KEY " [--db PATH]",                                                                        \
        "Deletes the row and every membership row involving it (a plan: its steps, rules,\n"       \
        "required entities and examples), in one transaction. Interfaces still used by\n"          \
        "plans or API keys, and prompts still used by plans, are refused: change those\n"          \
        "first. To hide a row without losing it, use `" WORD " disable`.\n" AUDITED(WORD),         \
        1,                                                                                         \
        1,                                                                                         \
        db_flags,                                                                                  \
        run_remove,                                                                                \
    };

ADMIN_COMMANDS(interfaces, "interfaces", "an interface", "interfaces", "NAME", INTERFACE_SHAPE, "",
               "",
               "Columns: NAME, ENABLED, TITLE. See what an interface exposes with `dbmcp tools\n"
               "list`, `dbmcp prompts list`, `dbmcp resources list` (INTERFACES column).",
               CATALOG_NOTICED)
ADMIN_COMMANDS(tools, "tools", "a tool", "tools", "NAME", TOOL_SHAPE, MEMBERSHIP_RULES,
               MEMBERS_SHOWN,
               "Columns: NAME, ENABLED, HANDLER (builtin or sql), INTERFACES (the interfaces\n"
               "listing the tool), TITLE.",
               CATALOG_NOTICED)
ADMIN_COMMANDS(prompts, "prompts", "a prompt", "prompts", "NAME", PROMPT_SHAPE, MEMBERSHIP_RULES,
               MEMBERS_SHOWN,
               "Columns: NAME, ENABLED, KIND (system, extended_system, user), INTERFACES, TITLE.",
               CATALOG_NOTICED)
ADMIN_COMMANDS(resources, "resources", "a resource", "resources", "URI", RESOURCE_SHAPE,
               MEMBERSHIP_RULES, MEMBERS_SHOWN,
               "Columns: URI, ENABLED, MIME TYPE, BYTES (content size), INTERFACES, NAME.\n"
               "INTERFACES names interfaces listing the URI; a trailing * marks one that exposes\n"
               "it through a 'prefix*' pattern.",
               CATALOG_NOTICED)
ADMIN_COMMANDS(templates, "templates", "a resource template", "resource templates", "URI_TEMPLATE",
               TEMPLATE_SHAPE, MEMBERSHIP_RULES, MEMBERS_SHOWN,
               "Columns: URI TEMPLATE, ENABLED, HANDLER (builtin or sql), MIME TYPE, INTERFACES\n"
               "(a trailing * marks exposure through a 'prefix*' pattern), NAME.",
               CATALOG_NOTICED)
ADMIN_COMMANDS(plans, "plans", "an execution plan", "execution plans", "NAME", PLAN_SHAPE, "", "",
               "Columns: NAME, ENABLED, DEFAULT (is_default), PRIORITY, INTERFACE, STEPS (how\n"
               "many). docs/plans.md says how plans are selected and run.",
               "Plans are not listed to MCP clients; every chat run reads them afresh, so the\n"
               "next `dbmcp chat` or POST /v1/chat sees the change.")

#define MEMBERSHIP_DETAILS(WHAT, WHERE)                                                            \
    "Changes one membership row (" WHERE ") without rewriting any JSON file; the\n"                \
    "row's other memberships stay. The interface's updated_at is set; running servers\n"           \
    "notice the change (catalog version triggers) and send their clients list_changed. " WHAT

/* clang-format off */
#define MEMBERSHIP_COMMAND(ID, VERB, NOUN, SUMMARY, ARG, DETAILS)                                  \
    static const cli_command ID = {"interfaces " VERB "-" NOUN, SUMMARY, "INTERFACE " ARG " [--db PATH]", \
                                   DETAILS, 2, 2, db_flags, run_membership};
/* clang-format on */

MEMBERSHIP_COMMAND(interfaces_add_tool, "add", "tool",
                   "Let an interface list a tool (it goes last)", "TOOL",
                   MEMBERSHIP_DETAILS("Adding a tool already listed changes nothing.",
                                      "dbmcp_interface_tools"))
MEMBERSHIP_COMMAND(interfaces_remove_tool, "remove", "tool", "Stop an interface listing a tool",
                   "TOOL",
                   MEMBERSHIP_DETAILS("The tool itself stays (`dbmcp tools remove` deletes it).",
                                      "dbmcp_interface_tools"))
MEMBERSHIP_COMMAND(interfaces_add_prompt, "add", "prompt",
                   "Let an interface list a prompt (it goes last)", "PROMPT",
                   MEMBERSHIP_DETAILS("Adding a prompt already listed changes nothing.",
                                      "dbmcp_interface_prompts"))
MEMBERSHIP_COMMAND(interfaces_remove_prompt, "remove", "prompt",
                   "Stop an interface listing a prompt", "PROMPT",
                   MEMBERSHIP_DETAILS("The prompt itself stays.", "dbmcp_interface_prompts"))
MEMBERSHIP_COMMAND(
    interfaces_add_resource, "add", "resource",
    "Let an interface expose a resource, a resource template or a 'prefix*' pattern", "URI",
    MEMBERSHIP_DETAILS("URI is a resource's URI, a resource template's URI template, or a\n"
                       "pattern ending in * (e.g. 'doc://manuals/*': every document of the\n"
                       "collection manuals, ingested before or after).",
                       "dbmcp_interface_resources"))
MEMBERSHIP_COMMAND(interfaces_remove_resource, "remove", "resource",
                   "Stop an interface exposing a resource, template or pattern", "URI",
                   MEMBERSHIP_DETAILS("The resource itself stays.", "dbmcp_interface_resources"))

#define ADMIN_ENTRIES(ID)                                                                          \
    &ID##_list, &ID##_show, &ID##_add, &ID##_update, &ID##_enable, &ID##_disable, &ID##_remove

const cli_command *const cli_admin_commands[] = {
    ADMIN_ENTRIES(interfaces),
    &interfaces_add_tool,
    &interfaces_remove_tool,
    &interfaces_add_prompt,
    &interfaces_remove_prompt,
    &interfaces_add_resource,
    &interfaces_remove_resource,
    ADMIN_ENTRIES(tools),
    ADMIN_ENTRIES(prompts),
    ADMIN_ENTRIES(resources),
    ADMIN_ENTRIES(templates),
    ADMIN_ENTRIES(plans),
    NULL,
};
