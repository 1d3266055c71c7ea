/*
 * validate.c — checks every registry row passes before it is written, and
 * prompt rendering (placeholders are validated here and substituted the
 * same way); see catalog.h.
 */
#include "catalog/catalog.h"

#include <stdlib.h>
#include <string.h>

#include "core/jsonschema.h"

int catalog_validate_name(const char *kind, const char *name, dbmcp_error *err)
{
    if (!name || !*name)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s name is required", kind);
    size_t len = strlen(name);
    if (len > 128)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s name is longer than 128 characters", kind);
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
        if (!ok)
            return dbmcp_error_set(
                err, DBMCP_EINVAL,
                "%s name '%s' may only contain letters, digits, '_', '-' and '.'", kind, name);
    }
    return 0;
}

static const char *known_hints[] = {"title",          "readOnlyHint",  "destructiveHint",
                                    "idempotentHint", "openWorldHint", NULL};

static int validate_annotations(const json_t *a, dbmcp_error *err)
{
    if (!a)
        return 0;
    if (!json_is_object(a))
        return dbmcp_error_set(err, DBMCP_EINVAL, "annotations must be a JSON object");
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)a, key, v) {
        int known = 0;
        for (int i = 0; known_hints[i]; i++)
            known |= strcmp(key, known_hints[i]) == 0;
        if (!known)
            return dbmcp_error_set(err, DBMCP_EINVAL, "annotations: unknown hint '%s'", key);
        if (strcmp(key, "title") == 0 ? !json_is_string(v) : !json_is_boolean(v))
            return dbmcp_error_set(err, DBMCP_EINVAL, "annotations: '%s' has the wrong type", key);
    }
    return 0;
}

int catalog_validate_tool(const reg_tool *t, int (*builtin_exists)(const char *name),
                          dbmcp_error *err)
{
    int rc = catalog_validate_name("tool", t->name, err);
    if (rc)
        return rc;
    if (!t->description || !*t->description)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool '%s': a description is required (models choose tools by it)",
                               t->name);
    if (!t->input_schema)
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool '%s': input_schema is required", t->name);
    if ((rc = jsonschema_check(t->input_schema, 1, err)))
        return dbmcp_error_prefix(err, "input_schema");
    if (t->output_schema && (rc = jsonschema_check(t->output_schema, 1, err)))
        return dbmcp_error_prefix(err, "output_schema");
    if ((rc = validate_annotations(t->annotations, err)))
        return rc;
    if (!t->handler_kind ||
        (strcmp(t->handler_kind, "builtin") != 0 && strcmp(t->handler_kind, "sql") != 0))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool '%s': handler kind must be 'builtin' or 'sql'", t->name);
    if (!t->handler || !*t->handler)
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool '%s': handler is required", t->name);
    if (strcmp(t->handler_kind, "builtin") == 0 && builtin_exists && !builtin_exists(t->handler))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool '%s': no builtin handler named '%s'",
                               t->name, t->handler);
    return 0;
}

/* Find the argument declaration named `name` in a prompt's arguments. */
static const json_t *find_argument(const json_t *arguments, const char *name, size_t len)
{
    size_t i;
    json_t *a;
    json_array_foreach (arguments, i, a) {
        const char *n = json_string_value(json_object_get(a, "name"));
        if (n && strlen(n) == len && strncmp(n, name, len) == 0)
            return a;
    }
    return NULL;
}

/* Walk {{placeholders}} in text; for each, call fn(name, len, ctx). Returns
 * the first nonzero fn result, or DBMCP_EINVAL for an unclosed "{{". */
typedef int (*placeholder_fn)(const char *name, size_t len, void *ctx);

static int each_placeholder(const char *text, placeholder_fn fn, void *ctx, dbmcp_error *err)
{
    const char *p = text;
    while ((p = strstr(p, "{{")) != NULL) {
        const char *end = strstr(p + 2, "}}");
        if (!end)
            return dbmcp_error_set(err, DBMCP_EINVAL, "unclosed '{{' in prompt text");
        const char *name = p + 2;
        size_t len = (size_t)(end - name);
        while (len && *name == ' ')
            name++, len--;
        while (len && name[len - 1] == ' ')
            len--;
        int rc = fn(name, len, ctx);
        if (rc)
            return rc;
        p = end + 2;
    }
    return 0;
}

typedef struct declared_check {
    const json_t *arguments;
    const char *prompt;
    dbmcp_error *err;
} declared_check;

static int check_declared(const char *name, size_t len, void *ctx)
{
    declared_check *c = ctx;
    if (find_argument(c->arguments, name, len))
        return 0;
    return dbmcp_error_set(c->err, DBMCP_EINVAL,
                           "prompt '%s': placeholder {{%.*s}} is not a declared argument",
                           c->prompt, (int)len, name);
}

/* Check placeholders in every string inside a message's content (text,
 * resource URIs, …). */
static int check_strings(const json_t *v, declared_check *c, dbmcp_error *err, int depth)
{
    if (depth > 16)
        return dbmcp_error_set(err, DBMCP_EINVAL, "prompt message nested too deeply");
    if (json_is_string(v))
        return each_placeholder(json_string_value(v), check_declared, c, err);
    int rc = 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach ((json_t *)v, k, x)
            if (!rc)
                rc = check_strings(x, c, err, depth + 1);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach (v, i, x)
            if (!rc)
                rc = check_strings(x, c, err, depth + 1);
    }
    return rc;
}

static int validate_prompt_arguments(const reg_prompt *p, dbmcp_error *err)
{
    if (!json_is_array(p->arguments))
        return dbmcp_error_set(err, DBMCP_EINVAL, "prompt '%s': arguments must be an array",
                               p->name);
    size_t i;
    json_t *a;
    json_array_foreach (p->arguments, i, a) {
        const char *n = json_string_value(json_object_get(a, "name"));
        json_t *req = json_object_get(a, "required");
        if (!json_is_object(a) || !n || !*n)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "prompt '%s': argument %zu needs a string \"name\"", p->name, i);
        if (catalog_validate_name("prompt argument", n, err))
            return dbmcp_error_prefix(err, p->name);
        if (req && !json_is_boolean(req))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "prompt '%s': argument '%s': \"required\" must be a boolean",
                                   p->name, n);
        if (find_argument(p->arguments, n, strlen(n)) != a)
            return dbmcp_error_set(err, DBMCP_EINVAL, "prompt '%s': argument '%s' declared twice",
                                   p->name, n);
    }
    return 0;
}

int catalog_validate_prompt(const reg_prompt *p, dbmcp_error *err)
{
    int rc = catalog_validate_name("prompt", p->name, err);
    if (rc)
        return rc;
    if (!p->kind || (strcmp(p->kind, "system") && strcmp(p->kind, "extended_system") &&
                     strcmp(p->kind, "user")))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "prompt '%s': kind must be system, extended_system or user",
                               p->name);
    if ((rc = validate_prompt_arguments(p, err)))
        return rc;
    if (!json_is_array(p->messages) || json_array_size(p->messages) == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "prompt '%s': messages must be a non-empty array",
                               p->name);
    size_t i;
    json_t *m;
    json_array_foreach (p->messages, i, m) {
        const char *role = json_string_value(json_object_get(m, "role"));
        json_t *content = json_object_get(m, "content");
        if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "prompt '%s': message %zu: role must be user or assistant",
                                   p->name, i);
        if (!json_is_object(content) || !json_is_string(json_object_get(content, "type")))
            return dbmcp_error_set(
                err, DBMCP_EINVAL,
                "prompt '%s': message %zu: content must be an object with a type", p->name, i);
        declared_check c = {p->arguments, p->name, err};
        if ((rc = check_strings(content, &c, err, 0)))
            return rc;
    }
    return 0;
}

/* Resource annotations per MCP: audience (array of user/assistant),
 * priority (0..1), lastModified (string). */
static int validate_annotations_resource(const json_t *a, dbmcp_error *err)
{
    if (!a)
        return 0;
    if (!json_is_object(a))
        return dbmcp_error_set(err, DBMCP_EINVAL, "annotations must be a JSON object");
    json_t *aud = json_object_get(a, "audience");
    json_t *prio = json_object_get(a, "priority");
    json_t *mod = json_object_get(a, "lastModified");
    if (aud && !json_is_array(aud))
        return dbmcp_error_set(err, DBMCP_EINVAL, "annotations.audience must be an array");
    if (prio &&
        (!json_is_number(prio) || json_number_value(prio) < 0 || json_number_value(prio) > 1))
        return dbmcp_error_set(err, DBMCP_EINVAL, "annotations.priority must be a number in 0..1");
    if (mod && !json_is_string(mod))
        return dbmcp_error_set(err, DBMCP_EINVAL, "annotations.lastModified must be a string");
    return 0;
}

int catalog_validate_resource(const reg_resource *r, dbmcp_error *err)
{
    if (!r->uri || !*r->uri || !strstr(r->uri, ":"))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "resource uri must be an absolute URI (scheme:…)");
    if (strlen(r->uri) > 2048)
        return dbmcp_error_set(err, DBMCP_EINVAL, "resource uri is longer than 2048 characters");
    if (!r->name || !*r->name)
        return dbmcp_error_set(err, DBMCP_EINVAL, "resource '%s': name is required", r->uri);
    if (!r->mime_type || !strchr(r->mime_type, '/'))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "resource '%s': mime type must look like type/subtype", r->uri);
    if ((r->text != NULL) == (r->blob != NULL))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "resource '%s': give exactly one of text or binary content", r->uri);
    return validate_annotations_resource(r->annotations, err);
}

int catalog_validate_template(const reg_template *t, dbmcp_error *err)
{
    if (!t->uri_template || !strstr(t->uri_template, ":"))
        return dbmcp_error_set(err, DBMCP_EINVAL, "uri template must be an absolute URI template");
    int depth = 0, vars = 0;
    for (const char *p = t->uri_template; *p; p++) {
        if (*p == '{')
            depth++, vars++;
        else if (*p == '}')
            depth--;
        if (depth < 0 || depth > 1)
            return dbmcp_error_set(err, DBMCP_EINVAL, "uri template '%s': unbalanced braces",
                                   t->uri_template);
    }
    if (depth != 0 || vars == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "uri template '%s': needs balanced {variables}",
                               t->uri_template);
    if (!t->name || !*t->name)
        return dbmcp_error_set(err, DBMCP_EINVAL, "uri template '%s': name is required",
                               t->uri_template);
    if (!t->handler_kind ||
        (strcmp(t->handler_kind, "builtin") != 0 && strcmp(t->handler_kind, "sql") != 0))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "uri template '%s': handler kind must be builtin or sql",
                               t->uri_template);
    if (t->completions && !json_is_object(t->completions))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "uri template '%s': completions must be an object", t->uri_template);
    return 0;
}

/* --- rendering ------------------------------------------------------------ */

static char *render_text(const char *text, const json_t *args)
{
    size_t cap = strlen(text) + 64, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *p = text;
    while (*p) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        const char *lit_end = close ? open : p + strlen(p);
        const char *value = "";
        size_t vlen = 0;
        if (close) {
            const char *name = open + 2;
            size_t len = (size_t)(close - name);
            while (len && *name == ' ')
                name++, len--;
            while (len && name[len - 1] == ' ')
                len--;
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)len, name);
            value = json_string_value(json_object_get(args, key));
            if (!value)
                value = "";
            vlen = strlen(value);
        }
        size_t lit = (size_t)(lit_end - p);
        if (n + lit + vlen + 1 > cap) {
            cap = (n + lit + vlen + 1) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + n, p, lit);
        n += lit;
        memcpy(out + n, value, vlen);
        n += vlen;
        p = close ? close + 2 : lit_end;
    }
    out[n] = '\0';
    return out;
}

/* Substitute placeholders in every string of v, in place. */
static int render_strings(json_t *v, const json_t *args, int depth)
{
    if (depth > 16)
        return 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach (v, k, x) {
            if (json_is_string(x)) {
                char *r = render_text(json_string_value(x), args);
                if (!r)
                    return -1;
                json_object_set_new(v, k, json_string(r));
                free(r);
            } else if (render_strings(x, args, depth + 1) != 0) {
                return -1;
            }
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach (v, i, x)
            if (render_strings(x, args, depth + 1) != 0)
                return -1;
    }
    return 0;
}

static int check_render_args(const reg_prompt *p, const json_t *args, dbmcp_error *err)
{
    size_t i;
    json_t *a;
    json_array_foreach (p->arguments, i, a) {
        const char *name = json_string_value(json_object_get(a, "name"));
        json_t *v = json_object_get(args, name);
        if (json_is_true(json_object_get(a, "required")) && !v)
            return dbmcp_error_set(err, DBMCP_EINVAL, "missing required argument '%s'", name);
    }
    const char *key;
    json_t *v;
    json_object_foreach ((json_t *)args, key, v) {
        if (!find_argument(p->arguments, key, strlen(key)))
            return dbmcp_error_set(err, DBMCP_EINVAL, "unknown argument '%s' for prompt '%s'", key,
                                   p->name);
        if (!json_is_string(v))
            return dbmcp_error_set(err, DBMCP_EINVAL, "argument '%s' must be a string", key);
    }
    return 0;
}

int catalog_prompt_render(const reg_prompt *p, const json_t *args, json_t **out, dbmcp_error *err)
{
    *out = NULL;
    json_t *empty = NULL;
    if (!args)
        args = empty = json_object();
    int rc = check_render_args(p, args, err);
    if (rc) {
        json_decref(empty);
        return rc;
    }
    json_t *messages = json_deep_copy(p->messages);
    if (render_strings(messages, args, 0) != 0) {
        json_decref(messages);
        json_decref(empty);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    json_decref(empty);
    *out = messages;
    return 0;
}
