/*
 * snapshot.c — load an interface's catalog into an immutable snapshot and
 * look things up in it; see catalog.h.
 */
#include "catalog/catalog.h"

#include "core/log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int catalog_name_allowed(const char *list, const char *name)
{
    if (!list || !*list)
        return 1;
    size_t len = strlen(name);
    const char *p = list;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        const char *end = p;
        while (*end && *end != ',')
            end++;
        const char *trim = end;
        while (trim > p && trim[-1] == ' ')
            trim--;
        if ((size_t)(trim - p) == len && strncmp(p, name, len) == 0)
            return 1;
        p = end;
    }
    return 0;
}

/* Drop tools not in the allowlist, keeping order. */
static void narrow_tools(catalog_snapshot *s, const char *allowed)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n_tools; i++) {
        if (catalog_name_allowed(allowed, s->tools[i].name))
            s->tools[kept++] = s->tools[i];
        else
            reg_tool_free(&s->tools[i]);
    }
    s->n_tools = kept;
}

int catalog_snapshot_load(store *db, const char *iface, const char *allowed_tools,
                          catalog_snapshot **out, dbmcp_error *err)
{
    *out = NULL;
    catalog_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    s->refs = 1;
    int rc = reg_versions_get(db, &s->versions, err);
    if (!rc)
        rc = reg_interface_get(db, iface, &s->iface, err);
    if (!rc && s->iface.enabled) {
        rc = reg_tools_for_interface(db, iface, &s->tools, &s->n_tools, err);
        if (!rc)
            rc = reg_prompts_for_interface(db, iface, &s->prompts, &s->n_prompts, err);
        if (!rc)
            rc = reg_resources_for_interface(db, iface, &s->resources, &s->n_resources, err);
        if (!rc)
            rc = reg_templates_for_interface(db, iface, &s->templates, &s->n_templates, err);
    }
    if (rc) {
        catalog_snapshot_unref(s);
        return rc;
    }
    narrow_tools(s, allowed_tools);
    *out = s;
    return 0;
}

void catalog_snapshot_drop_invalid(catalog_snapshot *s, int (*builtin_exists)(const char *name))
{
    dbmcp_error err;
    size_t kept = 0;
    for (size_t i = 0; i < s->n_tools; i++) {
        if (catalog_validate_tool(&s->tools[i], builtin_exists, &err) == 0) {
            s->tools[kept++] = s->tools[i];
            continue;
        }
        log_msg(LOG_WARN, "catalog", "interface %s: tool %s is not served: %s", s->iface.name,
                s->tools[i].name, err.message);
        reg_tool_free(&s->tools[i]);
    }
    s->n_tools = kept;
    kept = 0;
    for (size_t i = 0; i < s->n_prompts; i++) {
        if (catalog_validate_prompt(&s->prompts[i], &err) == 0) {
            s->prompts[kept++] = s->prompts[i];
            continue;
        }
        log_msg(LOG_WARN, "catalog", "interface %s: prompt %s is not served: %s", s->iface.name,
                s->prompts[i].name, err.message);
        reg_prompt_free(&s->prompts[i]);
    }
    s->n_prompts = kept;
}

catalog_snapshot *catalog_snapshot_ref(catalog_snapshot *s)
{
    if (s)
        __atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
    return s;
}

void catalog_snapshot_unref(catalog_snapshot *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST) > 0)
        return;
    reg_interface_free(&s->iface);
    reg_tool_array_free(s->tools, s->n_tools);
    reg_prompt_array_free(s->prompts, s->n_prompts);
    reg_resource_array_free(s->resources, s->n_resources);
    reg_template_array_free(s->templates, s->n_templates);
    free(s);
}

const reg_tool *catalog_find_tool(const catalog_snapshot *s, const char *name)
{
    for (size_t i = 0; name && i < s->n_tools; i++)
        if (strcmp(s->tools[i].name, name) == 0)
            return &s->tools[i];
    return NULL;
}

const reg_prompt *catalog_find_prompt(const catalog_snapshot *s, const char *name)
{
    for (size_t i = 0; name && i < s->n_prompts; i++)
        if (strcmp(s->prompts[i].name, name) == 0)
            return &s->prompts[i];
    return NULL;
}

const reg_resource *catalog_find_resource(const catalog_snapshot *s, const char *uri)
{
    for (size_t i = 0; uri && i < s->n_resources; i++)
        if (strcmp(s->resources[i].uri, uri) == 0)
            return &s->resources[i];
    return NULL;
}

const reg_template *catalog_find_template_by_uri_template(const catalog_snapshot *s,
                                                          const char *uri_template)
{
    for (size_t i = 0; uri_template && i < s->n_templates; i++)
        if (strcmp(s->templates[i].uri_template, uri_template) == 0)
            return &s->templates[i];
    return NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Percent-decode [p, p+len) into a new string. */
static char *percent_decode(const char *p, size_t len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '%' && i + 2 < len) {
            int hi = hexval((unsigned char)p[i + 1]);
            int lo = hexval((unsigned char)p[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out[o++] = (char)(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out[o++] = p[i];
    }
    out[o] = '\0';
    return out;
}

/* Length percent_decode produces for [p, p+len). */
static size_t decoded_length(const char *p, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++, n++)
        if (p[i] == '%' && i + 2 < len && hexval((unsigned char)p[i + 1]) >= 0 &&
            hexval((unsigned char)p[i + 2]) >= 0)
            i += 2;
    return n;
}

/* Match uri against a level-1 template: literal text must match exactly;
 * each {var} takes the shortest run up to the next literal character (or to
 * the end), and never spans '/' unless it is the last expression. */
static int template_match(const char *tpl, const char *uri, json_t *vars)
{
    while (*tpl) {
        if (*tpl != '{') {
            if (*tpl != *uri)
                return 0;
            tpl++;
            uri++;
            continue;
        }
        const char *close = strchr(tpl, '}');
        if (!close)
            return 0;
        char name[128];
        size_t nlen = (size_t)(close - tpl - 1);
        if (nlen == 0 || nlen >= sizeof name)
            return 0;
        memcpy(name, tpl + 1, nlen);
        name[nlen] = '\0';
        tpl = close + 1;
        char stop = *tpl;
        const char *end = uri;
        if (stop)
            while (*end && *end != stop && *end != '/')
                end++;
        else
            end = uri + strlen(uri);
        if (end == uri)
            return 0;
        size_t raw_len = (size_t)(end - uri);
        char *value = percent_decode(uri, raw_len);
        if (!value)
            return 0;
        /* A decoded NUL would cut the value short, invalid UTF-8 cannot be
         * a JSON string: such a URI matches no template. */
        json_t *decoded = strlen(value) == decoded_length(uri, raw_len) ? json_string(value) : NULL;
        free(value);
        if (!decoded)
            return 0;
        json_object_set_new(vars, name, decoded);
        uri = end;
    }
    return *uri == '\0';
}

/* Characters of a template outside its {var} expressions. */
static size_t literal_length(const char *tpl)
{
    size_t n = 0;
    for (int in_var = 0; *tpl; tpl++) {
        if (*tpl == '{')
            in_var = 1;
        else if (*tpl == '}')
            in_var = 0;
        else if (!in_var)
            n++;
    }
    return n;
}

/* When several templates match (doc://tarif/{slug} and
 * doc://{collection}/{slug}/chunks/{n} both match doc://tarif/x/chunks/1,
 * the last variable taking the rest), the most specific wins: the one with
 * the most literal characters, then the first in URI-template order. */
const reg_template *catalog_match_template(const catalog_snapshot *s, const char *uri,
                                           json_t **vars)
{
    *vars = NULL;
    const reg_template *best = NULL;
    size_t best_literal = 0;
    for (size_t i = 0; uri && i < s->n_templates; i++) {
        size_t literal = literal_length(s->templates[i].uri_template);
        if (best && literal <= best_literal)
            continue;
        json_t *v = json_object();
        if (template_match(s->templates[i].uri_template, uri, v)) {
            json_decref(*vars);
            *vars = v;
            best = &s->templates[i];
            best_literal = literal;
        } else {
            json_decref(v);
        }
    }
    return best;
}
