/*
 * memory_tools.c — agent memory as builtin tools (docs/memory.md):
 * save_message, get_session_history, save_episode, search_episodes,
 * save_knowledge, get_knowledge, search_knowledge, forget_knowledge,
 * memory_search, link, memory_graph.
 *
 * Every handler is BUILTIN_INTERNAL: it works on env->internal_db and
 * derives its scope from the caller's identity — env->user_id always, and
 * the `agent` argument only when the API key allows any agent of its user
 * (mem_scope_resolve). Arguments arrive validated against the catalog's
 * strict input schemas; the rules schemas cannot say (times, sizes,
 * existence in the scope) are checked by the memory module, whose errors
 * name the field. Results are JSON (text block + structuredContent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/textnorm.h"
#include "memory/memory.h"
#include "memory/recall.h"
#include "store/memory_store.h"
#include "tools/builtins.h"
#include "tools/tool.h"

#define HIT_TEXT_MAX 2000 /* bytes of a text shown per hit/row */

/* --- shared --------------------------------------------------------------------- */

typedef struct mem_call {
    mem_scope scope;
    mem_config cfg;
    store *db;
} mem_call;

static int begin_call(tool_env *env, const json_t *args, mem_call *c, dbmcp_error *err)
{
    if (!env->internal_db)
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "memory is not available",
                                       "memory tool without internal_db");
    int rc =
        mem_scope_resolve(env->user_id, env->agent_id, json_get_str(args, "agent"), &c->scope, err);
    if (rc)
        return rc;
    c->db = env->internal_db;
    mem_config_load(c->db, &c->cfg);
    return 0;
}

static int finish(tool_output *out, json_t *result, tool_env *env, int64_t rows)
{
    char *text = json_dumps(result, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    tool_output_text(out, text ? text : "{}");
    free(text);
    out->structured = result;
    env->rows = rows;
    return 0;
}

/* A JSON string of s cut to HIT_TEXT_MAX bytes at a character boundary. */
static json_t *capped(const char *s, int *cut)
{
    size_t n = strlen(s);
    if (n <= HIT_TEXT_MAX)
        return json_string(s);
    *cut = 1;
    return json_stringn(s, text_utf8_valid_prefix(s, HIT_TEXT_MAX));
}

static void set_opt(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

/* args[key] as a normalised time into buf, or NULL when absent. */
static int time_arg(const json_t *args, const char *key, char buf[32], const char **out,
                    dbmcp_error *err)
{
    const char *v = json_get_str(args, key);
    *out = NULL;
    if (!v)
        return 0;
    int rc = mem_time_normalize(key, v, buf, err);
    if (rc == 0)
        *out = buf;
    return rc;
}

static int int_arg(const json_t *args, const char *key, int def)
{
    json_t *v = json_object_get(args, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

static char *metadata_text(const json_t *args)
{
    json_t *m = json_object_get(args, "metadata");
    return m ? json_dump_compact(m) : NULL;
}

/* --- working memory ------------------------------------------------------------ */

static int tool_save_message(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char session[37];
    const char *given = json_get_str(args, "session_id");
    int opened = !given;
    char *meta = metadata_text(args);
    json_t *tc = json_object_get(args, "tool_calls");
    char *calls = tc ? json_dump_compact(tc) : NULL;
    mem_message_in m = {json_get_str(args, "role"),
                        json_get_str(args, "content"),
                        json_get_str(args, "tool_call_id"),
                        json_get_str(args, "tool_name"),
                        meta,
                        calls};
    int64_t id = 0;
    int dedup = 0;
    /* Check first: a refused message must not leave an empty new session. */
    if ((rc = mem_message_check(&c.cfg, &m, err)) == 0 &&
        (rc = mem_session_open(c.db, &c.scope, &c.cfg, given, session, err)) == 0)
        rc = mem_message_save(c.db, &c.scope, &c.cfg, session, &m, &id, &dedup, err);
    free(meta);
    free(calls);
    if (rc)
        return rc;
    json_t *r =
        json_pack("{s:s, s:I, s:b, s:b, s:s}", "session_id", session, "message_id", (json_int_t)id,
                  "new_session", opened, "deduplicated", dedup, "agent", c.scope.agent_id);
    return finish(out, r, env, 1);
}

static int tool_get_session_history(tool_env *env, const json_t *args, tool_output *out,
                                    dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    int limit = int_arg(args, "limit", 50);
    mem_message_list l;
    if ((rc =
             mem_session_history(c.db, &c.scope, json_get_str(args, "session_id"), limit, &l, err)))
        return rc;
    json_t *msgs = json_array();
    int cut = 0;
    for (size_t i = 0; i < l.count; i++) {
        mem_message *m = &l.items[i];
        json_t *o = json_pack("{s:I, s:s, s:o, s:s}", "id", (json_int_t)m->id, "role", m->role,
                              "content", capped(m->content, &cut), "time", m->created_at);
        set_opt(o, "tool_call_id", m->tool_call_id);
        set_opt(o, "tool_name", m->tool_name);
        json_t *calls = json_parse_text(m->tool_calls);
        if (calls)
            json_object_set_new(o, "tool_calls", calls);
        json_t *meta = json_parse_text(m->metadata);
        if (meta)
            json_object_set_new(o, "metadata", meta);
        json_array_append_new(msgs, o);
    }
    json_t *r = json_pack("{s:s, s:o, s:b, s:b}", "session_id", json_get_str(args, "session_id"),
                          "messages", msgs, "compacted", l.compacted, "truncated", cut);
    size_t n = l.count;
    mem_message_list_free(&l);
    return finish(out, r, env, (int64_t)n);
}

/* --- episodic memory ------------------------------------------------------------- */

static int tool_save_episode(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char *meta = metadata_text(args);
    mem_episode_in e = {json_get_str(args, "session_id"),  json_get_str(args, "task_type"),
                        json_get_str(args, "description"), json_get_str(args, "status"),
                        json_get_str(args, "summary"),     json_get_str(args, "started_at"),
                        json_get_str(args, "ended_at"),    meta};
    int64_t id = 0;
    int dedup = 0;
    rc = mem_episode_save(c.db, &c.scope, &c.cfg, &e, &id, &dedup, err);
    free(meta);
    if (rc)
        return rc;
    return finish(out, json_pack("{s:I, s:b}", "episode_id", (json_int_t)id, "deduplicated", dedup),
                  env, 1);
}

/* Shared by the search tools: run req, render the hits. The floor is the
 * argument min_relevance when given, else the setting. */
static int run_search(tool_env *env, mem_call *c, const json_t *args, mem_search_req *req,
                      tool_output *out, dbmcp_error *err)
{
    const json_t *floor = json_object_get(args, "min_relevance");
    req->min_relevance = json_is_number(floor) ? json_number_value(floor) : -1;
    if (req->min_relevance > 1)
        return dbmcp_error_set(err, DBMCP_EINVAL, "min_relevance: must be a number from 0 to 1");
    mem_hit_list l;
    int rc = mem_search(c->db, &c->scope, &c->cfg, req, &l, err);
    if (rc)
        return rc;
    json_t *hits = json_array();
    int cut = 0;
    for (size_t i = 0; i < l.count; i++) {
        json_t *h = mem_hit_json(&l.items[i]);
        if (l.items[i].text)
            json_object_set_new(h, "text", capped(l.items[i].text, &cut));
        json_array_append_new(hits, h);
    }
    json_t *r =
        json_pack("{s:o, s:s, s:s, s:I, s:I, s:f, s:I, s:b}", "hits", hits, "mode", l.mode, "model",
                  l.model, "keyword_candidates", (json_int_t)l.keyword_candidates,
                  "vector_candidates", (json_int_t)l.vector_candidates, "min_relevance",
                  l.min_relevance, "below_floor", (json_int_t)l.below_floor, "truncated", cut);
    if (l.note[0])
        json_object_set_new(r, "note", json_string(l.note));
    if (l.keyword_capped)
        json_object_set_new(r, "keyword_capped", json_true());
    if (l.approximate)
        json_object_set_new(r, "approximate", json_true());
    size_t n = l.count;
    mem_hit_list_free(&l);
    return finish(out, r, env, (int64_t)n);
}

typedef struct episode_rows {
    json_t *arr;
    int cut;
} episode_rows;

static int read_episode(void *ctx, store_stmt *row)
{
    episode_rows *e = ctx;
    json_t *o = json_pack("{s:I}", "id", (json_int_t)store_column_int(row, 0));
    set_opt(o, "session_id", store_column_text(row, 1));
    set_opt(o, "task_type", store_column_text(row, 2));
    json_object_set_new(o, "description", capped(store_column_text(row, 3), &e->cut));
    set_opt(o, "status", store_column_text(row, 4));
    if (store_column_text(row, 5))
        json_object_set_new(o, "summary", capped(store_column_text(row, 5), &e->cut));
    set_opt(o, "started_at", store_column_text(row, 6));
    set_opt(o, "ended_at", store_column_text(row, 7));
    json_t *meta = json_parse_text(store_column_text(row, 8));
    if (meta)
        json_object_set_new(o, "metadata", meta);
    set_opt(o, "compacted_at", store_column_text(row, 9));
    json_array_append_new(e->arr, o);
    return 0;
}

static int tool_search_episodes(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char fb[32], tb[32];
    const char *from, *to;
    if ((rc = time_arg(args, "from", fb, &from, err)) || (rc = time_arg(args, "to", tb, &to, err)))
        return rc;
    int limit = int_arg(args, "limit", 10);
    if (limit > c.cfg.max_results)
        limit = (int)c.cfg.max_results;
    const char *query = json_get_str(args, "query");
    if (query) {
        mem_search_req req = {0};
        req.query = query;
        req.tiers = MEM_TIER_EPISODE;
        req.from = from;
        req.to = to;
        req.status = json_get_str(args, "status");
        req.task_type = json_get_str(args, "task_type");
        req.k = limit;
        req.metadata = json_object_get(args, "metadata");
        return run_search(env, &c, args, &req, out, err);
    }
    double t0 = ids_monotonic_ms();
    episode_rows e = {json_array(), 0};
    rc = mstore_episode_list(c.db, c.scope.user_id, c.scope.agent_id, json_get_str(args, "status"),
                             json_get_str(args, "task_type"), from, to, limit, read_episode, &e,
                             err);
    if (rc) {
        json_decref(e.arr);
        return rc;
    }
    size_t n = json_array_size(e.arr);
    mem_log(c.db, &c.scope, "list_episodes", json_get_str(args, "status"), (int64_t)n,
            ids_monotonic_ms() - t0);
    return finish(out, json_pack("{s:o, s:b}", "episodes", e.arr, "truncated", e.cut), env,
                  (int64_t)n);
}

/* --- semantic memory ---------------------------------------------------------------- */

static int tool_save_knowledge(tool_env *env, const json_t *args, tool_output *out,
                               dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char *meta = metadata_text(args);
    json_t *src = json_object_get(args, "source_episode");
    mem_knowledge_in k = {json_get_str(args, "category"), json_get_str(args, "key"),
                          json_get_str(args, "value"),
                          json_is_integer(src) ? (int64_t)json_integer_value(src) : 0, meta};
    int64_t id = 0;
    int dedup = 0;
    rc = mem_knowledge_save(c.db, &c.scope, &c.cfg, &k, &id, &dedup, err);
    free(meta);
    if (rc)
        return rc;
    return finish(out, json_pack("{s:I, s:b}", "knowledge_id", (json_int_t)id, "unchanged", dedup),
                  env, 1);
}

typedef struct version_rows {
    json_t *arr;
    int cut;
    int64_t items[200];
    size_t n_items;
} version_rows;

static int read_version(void *ctx, store_stmt *row)
{
    version_rows *v = ctx;
    json_t *o = json_pack("{s:I, s:s, s:s, s:o, s:s}", "id", (json_int_t)store_column_int(row, 0),
                          "category", store_column_text(row, 1), "key", store_column_text(row, 2),
                          "value", capped(store_column_text(row, 3), &v->cut), "effective_from",
                          store_column_text(row, 4));
    json_object_set_new(o, "effective_to",
                        store_column_text(row, 5) ? json_string(store_column_text(row, 5))
                                                  : json_null());
    set_opt(o, "closed_by", store_column_text(row, 6));
    if (store_column_type(row, 7) != STORE_NULL)
        json_object_set_new(o, "source_episode", json_integer(store_column_int(row, 7)));
    json_t *meta = json_parse_text(store_column_text(row, 8));
    if (meta)
        json_object_set_new(o, "metadata", meta);
    json_array_append_new(v->arr, o);
    v->items[v->n_items++] = store_column_int(row, 9);
    return json_array_size(v->arr) >= 200;
}

static int tool_get_knowledge(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char ab[32];
    const char *as_of;
    if ((rc = time_arg(args, "as_of", ab, &as_of, err)))
        return rc;
    int history = json_is_true(json_object_get(args, "history"));
    double t0 = ids_monotonic_ms();
    version_rows v = {json_array(), 0, {0}, 0};
    const char *key = json_get_str(args, "key");
    rc = mstore_knowledge_read(c.db, c.scope.user_id, c.scope.agent_id,
                               json_get_str(args, "category"), key, as_of, history, read_version,
                               &v, err);
    if (rc) {
        json_decref(v.arr);
        return rc;
    }
    size_t n = json_array_size(v.arr);
    char now[32];
    ids_now_iso(now);
    dbmcp_error uerr;
    if (!history && n)
        mstore_items_mark_used(c.db, c.scope.user_id, c.scope.agent_id, v.items, v.n_items, now,
                               &uerr);
    mem_log(c.db, &c.scope, "get_knowledge", key, (int64_t)n, ids_monotonic_ms() - t0);
    json_t *r = json_pack("{s:s, s:o, s:b}", "key", key, "versions", v.arr, "truncated", v.cut);
    if (as_of)
        json_object_set_new(r, "as_of", json_string(as_of));
    if (n == 0)
        json_object_set_new(r, "note",
                            json_string(as_of ? "no version of this key was in force at as_of"
                                              : "no current value for this key"));
    return finish(out, r, env, (int64_t)n);
}

static int tool_search_knowledge(tool_env *env, const json_t *args, tool_output *out,
                                 dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    char ab[32];
    mem_search_req req = {0};
    if ((rc = time_arg(args, "as_of", ab, &req.as_of, err)))
        return rc;
    req.query = json_get_str(args, "query");
    req.tiers = MEM_TIER_KNOWLEDGE;
    req.category = json_get_str(args, "category");
    req.metadata = json_object_get(args, "metadata");
    req.k = int_arg(args, "limit", 10);
    return run_search(env, &c, args, &req, out, err);
}

static int tool_forget_knowledge(tool_env *env, const json_t *args, tool_output *out,
                                 dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    int erase = json_is_true(json_object_get(args, "erase"));
    int64_t n = 0;
    if ((rc = mem_knowledge_forget(c.db, &c.scope, json_get_str(args, "category"),
                                   json_get_str(args, "key"), erase, &n, err)))
        return rc;
    return finish(out,
                  json_pack("{s:s, s:I}", erase ? "erased" : "closed", json_get_str(args, "key"),
                            "versions", (json_int_t)n),
                  env, n);
}

/* --- one query across tiers -------------------------------------------------------------- */

static int tool_memory_search(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    mem_search_req req = {0};
    char fb[32], tb[32], ab[32];
    if ((rc = time_arg(args, "from", fb, &req.from, err)) ||
        (rc = time_arg(args, "to", tb, &req.to, err)) ||
        (rc = time_arg(args, "as_of", ab, &req.as_of, err)))
        return rc;
    size_t i;
    json_t *t;
    json_array_foreach (json_object_get(args, "tiers"), i, t) {
        int bit = mem_tier_parse(json_string_value(t));
        if (!bit)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "tiers: '%.32s' is not a tier (use message, episode,"
                                   " knowledge)",
                                   json_string_value(t) ? json_string_value(t) : "");
        req.tiers |= bit;
    }
    req.query = json_get_str(args, "query");
    req.mode = json_get_str(args, "mode");
    req.role = json_get_str(args, "role");
    req.status = json_get_str(args, "status");
    req.category = json_get_str(args, "category");
    req.session_id = json_get_str(args, "session_id");
    req.metadata = json_object_get(args, "metadata");
    req.k = int_arg(args, "limit", 10);
    return run_search(env, &c, args, &req, out, err);
}

/* --- links and the graph --------------------------------------------------------------------- */

static int tool_link(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    int64_t id = 0;
    int existed = 0;
    if ((rc = mem_link(c.db, &c.scope, json_get_str(args, "src_kind"), json_get_str(args, "src_id"),
                       json_get_str(args, "dst_kind"), json_get_str(args, "dst_id"),
                       json_get_str(args, "relation"), &id, &existed, err)))
        return rc;
    return finish(out, json_pack("{s:I, s:b}", "link_id", (json_int_t)id, "existed", existed), env,
                  1);
}

#define GRAPH_MAX_NODES 100

typedef struct graph {
    store *db;
    const mem_scope *scope;
    json_t *nodes; /* "kind:id" → node object */
    json_t *edges; /* array */
    json_t *edge_seen;
    char queue[GRAPH_MAX_NODES][80];
    int depth_of[GRAPH_MAX_NODES];
    int qn;
} graph;

/* Add a node (when new and room is left); returns 1 when added. */
static int graph_add(graph *g, const char *kind, const char *id, int depth, dbmcp_error *err)
{
    char key[80];
    snprintf(key, sizeof key, "%s:%.64s", kind, id);
    if (json_object_get(g->nodes, key) || g->qn >= GRAPH_MAX_NODES)
        return 0;
    char label[300] = "";
    if (mstore_node_label(g->db, g->scope->user_id, g->scope->agent_id, kind, id, label,
                          sizeof label, err) != 0)
        snprintf(label, sizeof label, "(missing)");
    size_t ln = text_utf8_valid_prefix(label, strlen(label));
    json_object_set_new(g->nodes, key,
                        json_pack("{s:s, s:s, s:s%, s:i}", "kind", kind, "id", id, "label", label,
                                  ln, "depth", depth));
    memcpy(g->queue[g->qn], key, sizeof key);
    g->depth_of[g->qn++] = depth;
    return 1;
}

typedef struct edge_ctx {
    graph *g;
    int depth;
    dbmcp_error *err;
} edge_ctx;

static int read_edge(void *ctx, store_stmt *row)
{
    edge_ctx *e = ctx;
    graph *g = e->g;
    const char *sk = store_column_text(row, 0), *si = store_column_text(row, 1);
    const char *dk = store_column_text(row, 2), *di = store_column_text(row, 3);
    const char *rel = store_column_text(row, 4);
    char ekey[300];
    snprintf(ekey, sizeof ekey, "%s:%.64s>%s:%.64s:%.64s", sk, si, dk, di, rel);
    if (!json_object_get(g->edge_seen, ekey)) {
        json_object_set_new(g->edge_seen, ekey, json_true());
        char from[80], to[80];
        snprintf(from, sizeof from, "%s:%.64s", sk, si);
        snprintf(to, sizeof to, "%s:%.64s", dk, di);
        json_array_append_new(g->edges,
                              json_pack("{s:s, s:s, s:s, s:s}", "from", from, "to", to, "relation",
                                        rel, "created_at", store_column_text(row, 5)));
    }
    graph_add(g, sk, si, e->depth, e->err);
    graph_add(g, dk, di, e->depth, e->err);
    return 0;
}

static int tool_memory_graph(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    mem_call c;
    int rc = begin_call(env, args, &c, err);
    if (rc)
        return rc;
    const char *kind = json_get_str(args, "kind"), *id = json_get_str(args, "id");
    int max_depth = int_arg(args, "depth", 2);
    if ((rc = mstore_node_exists(c.db, c.scope.user_id, c.scope.agent_id, kind, id, err)))
        return rc == DBMCP_ENOTFOUND ? dbmcp_error_set(err, DBMCP_ENOTFOUND,
                                                       "id: no %s '%.64s' in this memory", kind, id)
               : rc == DBMCP_EINVAL  ? dbmcp_error_prefix(err, "kind")
                                     : rc;
    double t0 = ids_monotonic_ms();
    graph *g = calloc(1, sizeof *g);
    if (!g)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    g->db = c.db;
    g->scope = &c.scope;
    g->nodes = json_object();
    g->edges = json_array();
    g->edge_seen = json_object();
    graph_add(g, kind, id, 0, err);
    for (int i = 0; i < g->qn && rc == 0; i++) {
        if (g->depth_of[i] >= max_depth)
            continue;
        char nkind[16], nid[65];
        const char *colon = strchr(g->queue[i], ':');
        snprintf(nkind, sizeof nkind, "%.*s", (int)(colon - g->queue[i]), g->queue[i]);
        snprintf(nid, sizeof nid, "%s", colon + 1);
        edge_ctx e = {g, g->depth_of[i] + 1, err};
        rc = mstore_link_edges(c.db, c.scope.user_id, c.scope.agent_id, nkind, nid, read_edge, &e,
                               err);
    }
    json_t *nodes = json_array();
    const char *k;
    json_t *v;
    json_object_foreach (g->nodes, k, v)
        json_array_append(nodes, v);
    int64_t n = (int64_t)json_array_size(nodes);
    json_t *r = json_pack("{s:o, s:O, s:b}", "nodes", nodes, "edges", g->edges, "truncated",
                          g->qn >= GRAPH_MAX_NODES);
    json_decref(g->nodes);
    json_decref(g->edges);
    json_decref(g->edge_seen);
    free(g);
    if (rc) {
        json_decref(r);
        return rc;
    }
    mem_log(c.db, &c.scope, "memory_graph", id, n, ids_monotonic_ms() - t0);
    return finish(out, r, env, n);
}

const builtin_entry tools_memory_builtins[] = {
    {"save_message", tool_save_message, BUILTIN_INTERNAL},
    {"get_session_history", tool_get_session_history, BUILTIN_INTERNAL},
    {"save_episode", tool_save_episode, BUILTIN_INTERNAL},
    {"search_episodes", tool_search_episodes, BUILTIN_INTERNAL},
    {"save_knowledge", tool_save_knowledge, BUILTIN_INTERNAL},
    {"get_knowledge", tool_get_knowledge, BUILTIN_INTERNAL},
    {"search_knowledge", tool_search_knowledge, BUILTIN_INTERNAL},
    {"forget_knowledge", tool_forget_knowledge, BUILTIN_INTERNAL},
    {"memory_search", tool_memory_search, BUILTIN_INTERNAL},
    {"link", tool_link, BUILTIN_INTERNAL},
    {"memory_graph", tool_memory_graph, BUILTIN_INTERNAL},
    {NULL, NULL, 0},
};
