/*
 * thesaurus_tools.c — the thesaurus builtins: thesaurus_lookup,
 * graph_query and thesaurus_path, over thesaurus/thesaurus.h on the
 * internal connection (the thesaurus is shared, not per user, so no
 * user/agent scope applies).
 *
 * Terms (term, start, from, to) are a label in any language, matched
 * after normalisation (case, ß/ss, width), or a concept URI. A label of
 * several concepts is refused for graph tools with the candidates' URIs,
 * so the model can pick one. Each tool answers with short text for the
 * model and structuredContent holding the same facts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "thesaurus/thesaurus.h"
#include "tools/builtins.h"

#define LOOKUP_MAX_CONCEPTS 10
#define CANDIDATES_SHOWN 4 /* candidates named in an ambiguity error */
#define CANDIDATES_MAX 50  /* candidates counted */

/* --- helpers ------------------------------------------------------------------ */

static long arg_int(const json_t *args, const char *key, long def)
{
    json_t *v = json_object_get(args, key);
    return json_is_integer(v) ? (long)json_integer_value(v) : def;
}

static json_t *ref_json(const thesaurus_ref *r)
{
    return json_pack("{s:s, s:s}", "uri", r->uri, "label", r->pref_label);
}

/* Output text (owned by f's buffer) and structured content together. */
static void finish(tool_output *out, char *text, json_t *structured)
{
    tool_output_text(out, text ? text : "");
    free(text);
    out->structured = structured;
}

static int need_db(tool_env *env, dbmcp_error *err)
{
    if (env->internal_db)
        return 0;
    return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the thesaurus is not available",
                                   "%s: no internal connection", env->tool ? env->tool->name : "");
}

/* The thesaurus API names its argument "term"; say `field` instead. */
static void rename_field(dbmcp_error *err, const char *field)
{
    char msg[sizeof err->public_message];
    const char *rest = strncmp(err->public_message, "term: ", 6) == 0 ? err->public_message + 6
                                                                      : err->public_message;
    snprintf(msg, sizeof msg, "%s", rest);
    dbmcp_error_set(err, err->code, "%s: %s", field, msg);
}

/* Resolve field's term to exactly one concept; ambiguity and absence are
 * errors naming the field (and the candidates). */
static int resolve_one(tool_env *env, const char *field, const char *term, const char *lang,
                       thesaurus_ref *out, dbmcp_error *err)
{
    thesaurus_refs refs;
    int rc = thesaurus_resolve(env->internal_db, term, lang, CANDIDATES_MAX + 1, &refs, err);
    if (rc) {
        if (rc == DBMCP_EINVAL || rc == DBMCP_ETOOBIG)
            rename_field(err, field);
        return rc;
    }
    /* One concept whose pref label (or URI) is the term beats synonyms. */
    if (refs.count == 1 || (refs.count > 1 && refs.items[0].exact && !refs.items[1].exact)) {
        *out = refs.items[0];
        refs.count = 0;
        thesaurus_refs_free(&refs);
        return 0;
    }
    if (refs.count == 0) {
        thesaurus_refs_free(&refs);
        return dbmcp_error_set(err, DBMCP_ENOTFOUND,
                               "%s: no concept has the label or URI '%.200s'; try "
                               "thesaurus_lookup with another spelling or language",
                               field, term);
    }
    char list[300] = "";
    size_t used = 0, shown = 0;
    for (; shown < refs.count && shown < CANDIDATES_SHOWN; shown++) {
        int w = snprintf(NULL, 0, "%s%s (%s)", shown ? "; " : "", refs.items[shown].uri,
                         refs.items[shown].pref_label);
        if (w < 0 || (size_t)w >= sizeof list - used)
            break; /* whole entries only */
        snprintf(list + used, sizeof list - used, "%s%s (%s)", shown ? "; " : "",
                 refs.items[shown].uri, refs.items[shown].pref_label);
        used += (size_t)w;
    }
    char count[32];
    snprintf(count, sizeof count, "%s%zu", refs.count > CANDIDATES_MAX ? "more than " : "",
             refs.count > CANDIDATES_MAX ? (size_t)CANDIDATES_MAX : refs.count);
    rc = dbmcp_error_set(err, DBMCP_EINVAL,
                         "%s: '%.80s' is ambiguous: it labels %s concepts, %s: %s. Pass one "
                         "concept URI as %s (thesaurus_lookup lists them all)",
                         field, term, count, shown < refs.count ? "among them" : "namely", list,
                         field);
    thesaurus_refs_free(&refs);
    return rc;
}

/* --- thesaurus_lookup ---------------------------------------------------------------- */

static json_t *concept_json(const thesaurus_concept *c, FILE *f)
{
    json_t *pref = json_object(), *labels = json_array(), *notes = json_array();
    json_t *rel[3] = {json_array(), json_array(), json_array()};
    fprintf(f, "%s <%s> (scheme %s)\n", c->ref.pref_label, c->ref.uri, c->scheme);
    const char *kind_title[] = {"preferred", "alternative", "hidden"};
    for (int k = 0; k < 3; k++) {
        int first = 1;
        for (size_t i = 0; i < c->nlabels; i++) {
            const thesaurus_label *l = &c->labels[i];
            if ((int)l->kind != k)
                continue;
            if (k == THESAURUS_PREF && !json_object_get(pref, l->lang))
                json_object_set_new(pref, l->lang, json_string(l->label));
            json_array_append_new(labels,
                                  json_pack("{s:s, s:s, s:s}", "label", l->label, "lang", l->lang,
                                            "kind", thesaurus_label_kind_name(l->kind)));
            fprintf(f, "%s%s%s%s", first ? "  " : ", ", first ? kind_title[k] : "",
                    first ? ": " : "", l->label);
            if (*l->lang)
                fprintf(f, " (%s)", l->lang);
            first = 0;
        }
        if (!first)
            fputc('\n', f);
    }
    for (int k = 0; k < 3; k++) {
        int first = 1;
        for (size_t i = 0; i < c->nedges; i++) {
            if ((int)c->edges[i].kind != k)
                continue;
            json_array_append_new(rel[k], ref_json(&c->edges[i].target));
            fprintf(f, "%s%s%s", first ? "  " : ", ",
                    first ? thesaurus_relation_name((thesaurus_relation)k) : "", first ? ": " : "");
            fputs(c->edges[i].target.pref_label, f);
            first = 0;
        }
        if (!first)
            fputc('\n', f);
    }
    for (size_t i = 0; i < c->nnotes; i++) {
        json_array_append_new(notes, json_pack("{s:s, s:s, s:s}", "kind", c->notes[i].kind, "lang",
                                               c->notes[i].lang, "text", c->notes[i].text));
        fprintf(f, "  %s%s%s%s: %s\n", c->notes[i].kind, *c->notes[i].lang ? " (" : "",
                c->notes[i].lang, *c->notes[i].lang ? ")" : "", c->notes[i].text);
    }
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "uri", c->ref.uri, "label",
                     c->ref.pref_label, "scheme", c->scheme, "pref_labels", pref, "labels", labels,
                     "broader", rel[THESAURUS_BROADER], "narrower", rel[THESAURUS_NARROWER],
                     "related", rel[THESAURUS_RELATED], "notes", notes);
}

static int thesaurus_lookup(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    int rc = need_db(env, err);
    if (rc)
        return rc;
    const char *term = json_get_str(args, "term");
    const char *lang = json_get_str(args, "lang");
    thesaurus_refs refs;
    rc = thesaurus_resolve(env->internal_db, term, lang, LOOKUP_MAX_CONCEPTS + 1, &refs, err);
    if (rc)
        return rc;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        thesaurus_refs_free(&refs);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    json_t *concepts = json_array();
    size_t shown = refs.count < LOOKUP_MAX_CONCEPTS ? refs.count : LOOKUP_MAX_CONCEPTS;
    if (refs.count == 0)
        fprintf(f, "No concept has the label or URI '%s'.\n", term);
    for (size_t i = 0; !rc && i < shown; i++) {
        thesaurus_concept c;
        rc = thesaurus_concept_get(env->internal_db, refs.items[i].id, lang, &c, err);
        if (!rc) {
            if (i)
                fputc('\n', f);
            json_array_append_new(concepts, concept_json(&c, f));
            thesaurus_concept_free(&c);
        }
    }
    if (refs.count > shown)
        fprintf(f, "\n(more than %d concepts carry this label; showing the first %d)\n",
                LOOKUP_MAX_CONCEPTS, LOOKUP_MAX_CONCEPTS);
    fclose(f);
    json_t *structured = json_pack("{s:s, s:o, s:b}", "term", term, "concepts", concepts,
                                   "truncated", refs.count > shown);
    thesaurus_refs_free(&refs);
    if (rc) {
        free(text);
        json_decref(structured);
        return rc;
    }
    finish(out, text, structured);
    return 0;
}

/* --- graph output ----------------------------------------------------------------------- */

static const char *node_uri(const thesaurus_graph *g, int64_t id, const char **label)
{
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].ref.id == id) {
            *label = g->nodes[i].ref.pref_label;
            return g->nodes[i].ref.uri;
        }
    *label = "?";
    return "";
}

static json_t *graph_json(const thesaurus_graph *g, FILE *f)
{
    json_t *nodes = json_array(), *edges = json_array();
    for (size_t i = 0; i < g->nnodes; i++)
        json_array_append_new(nodes,
                              json_pack("{s:s, s:s, s:i}", "uri", g->nodes[i].ref.uri, "label",
                                        g->nodes[i].ref.pref_label, "depth", g->nodes[i].depth));
    for (size_t i = 0; i < g->nedges; i++) {
        const char *fl, *tl;
        const char *fu = node_uri(g, g->edges[i].from, &fl);
        const char *tu = node_uri(g, g->edges[i].to, &tl);
        const char *rel = thesaurus_relation_name(g->edges[i].kind);
        json_array_append_new(edges, json_pack("{s:s, s:s, s:s, s:i}", "from", fu, "relation", rel,
                                               "to", tu, "depth", g->edges[i].depth));
        fprintf(f, "  [%d] %s --%s--> %s\n", g->edges[i].depth, fl, rel, tl);
    }
    return json_pack("{s:o, s:o, s:b}", "nodes", nodes, "edges", edges, "truncated", g->truncated);
}

/* --- graph_query --------------------------------------------------------------------------- */

static int parse_direction(const char *s, thesaurus_direction *out)
{
    static const char *const names[] = {"out", "in", "both"};
    for (int i = 0; i < 3; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *out = (thesaurus_direction)i;
            return 0;
        }
    return DBMCP_EINVAL;
}

static int graph_query(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    int rc = need_db(env, err);
    if (rc)
        return rc;
    const char *lang = json_get_str(args, "lang");
    const char *rel = json_get_str(args, "relation");
    const char *dir = json_get_str(args, "direction");
    thesaurus_graph_query q = {.relation = THESAURUS_ANY, .direction = THESAURUS_OUT, .lang = lang};
    if (rel && thesaurus_relation_parse(rel, &q.relation))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "relation: must be broader, narrower, related or any");
    if (dir && parse_direction(dir, &q.direction))
        return dbmcp_error_set(err, DBMCP_EINVAL, "direction: must be out, in or both");
    q.depth = (int)arg_int(args, "depth", 2);
    q.limit = (int)arg_int(args, "limit", 100);
    thesaurus_ref start;
    rc = resolve_one(env, "start", json_get_str(args, "start"), lang, &start, err);
    if (rc)
        return rc;
    q.start = start.id;
    thesaurus_graph g;
    rc = thesaurus_graph_walk(env->internal_db, &q, &g, err);
    if (rc) {
        thesaurus_ref_free(&start);
        return rc;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        thesaurus_ref_free(&start);
        thesaurus_graph_free(&g);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    fprintf(f, "%zu concepts within %d step%s of %s <%s> (relation %s, direction %s)%s:\n",
            g.nnodes - 1, q.depth, q.depth == 1 ? "" : "s", start.pref_label, start.uri,
            thesaurus_relation_name(q.relation), dir ? dir : "out",
            g.truncated ? ", cut at the limit" : "");
    json_t *structured = graph_json(&g, f);
    json_object_set_new(structured, "start", ref_json(&start));
    fclose(f);
    thesaurus_ref_free(&start);
    thesaurus_graph_free(&g);
    finish(out, text, structured);
    env->rows = (int64_t)json_array_size(json_object_get(structured, "nodes"));
    return 0;
}

/* --- thesaurus_path ------------------------------------------------------------------------- */

static int thesaurus_path_tool(tool_env *env, const json_t *args, tool_output *out,
                               dbmcp_error *err)
{
    int rc = need_db(env, err);
    if (rc)
        return rc;
    const char *lang = json_get_str(args, "lang");
    int max_depth = (int)arg_int(args, "max_depth", 6);
    if (max_depth < 1 || max_depth > THESAURUS_PATH_DEPTH_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "max_depth: must be between 1 and %d",
                               THESAURUS_PATH_DEPTH_MAX);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    thesaurus_ref from = {0}, to = {0};
    rc = resolve_one(env, "from", json_get_str(args, "from"), lang, &from, err);
    if (!rc)
        rc = resolve_one(env, "to", json_get_str(args, "to"), lang, &to, err);
    thesaurus_graph g = {0};
    if (!rc)
        rc = thesaurus_path(env->internal_db, from.id, to.id, max_depth, lang, &g, err);
    json_t *structured;
    if (rc == DBMCP_ENOTFOUND && from.uri && to.uri) {
        fprintf(f, "No path of at most %d steps between %s <%s> and %s <%s>.\n", max_depth,
                from.pref_label, from.uri, to.pref_label, to.uri);
        structured =
            json_pack("{s:b, s:o, s:o}", "found", 0, "from", ref_json(&from), "to", ref_json(&to));
        rc = 0;
    } else if (rc) {
        fclose(f);
        free(text);
        thesaurus_ref_free(&from);
        thesaurus_ref_free(&to);
        return rc;
    } else {
        fprintf(f, "Path of %zu step%s from %s to %s:\n", g.nedges, g.nedges == 1 ? "" : "s",
                from.pref_label, to.pref_label);
        structured = graph_json(&g, f);
        json_object_set_new(structured, "found", json_true());
        json_object_set_new(structured, "length", json_integer((json_int_t)g.nedges));
        json_object_del(structured, "truncated");
    }
    fclose(f);
    thesaurus_ref_free(&from);
    thesaurus_ref_free(&to);
    thesaurus_graph_free(&g);
    finish(out, text, structured);
    return 0;
}

const builtin_entry tools_thesaurus_builtins[] = {
    {"thesaurus_lookup", thesaurus_lookup, BUILTIN_INTERNAL},
    {"graph_query", graph_query, BUILTIN_INTERNAL},
    {"thesaurus_path", thesaurus_path_tool, BUILTIN_INTERNAL},
    {NULL, NULL, 0},
};
