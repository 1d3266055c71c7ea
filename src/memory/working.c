/*
 * working.c — working memory (memory.h): sessions of one scope, messages
 * appended in one transaction with their item, FTS row and embedding job,
 * exact-repeat de-duplication, and session history.
 */
#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/ids.h"
#include "memory/memory_internal.h"
#include "memory/worker.h"
#include "store/commit_group.h"
#include "store/memory_store.h"

/* --- working memory ---------------------------------------------------------------- */

static int read_session(void *ctx, store_stmt *row)
{
    mem_session_row *s = ctx;
    snprintf(s->last_active_at, sizeof s->last_active_at, "%s",
             store_column_text(row, 2) ? store_column_text(row, 2) : "");
    snprintf(s->state, sizeof s->state, "%s",
             store_column_text(row, 3) ? store_column_text(row, 3) : "");
    s->message_count = store_column_int(row, 4);
    snprintf(s->context_hash, sizeof s->context_hash, "%s",
             store_column_text(row, 6) ? store_column_text(row, 6) : "");
    return 0;
}

int mem_session_get(store *db, const mem_scope *scope, const char *id, mem_session_row *row,
                    dbmcp_error *err)
{
    memset(row, 0, sizeof *row);
    if (!id || !*id || strlen(id) > 64)
        return dbmcp_error_set(err, DBMCP_EINVAL, "session_id: must be 1 to 64 characters");
    int rc = mstore_session_get(db, scope->user_id, scope->agent_id, id, read_session, row, err);
    if (rc == DBMCP_ENOTFOUND)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND,
                               "session_id: unknown session '%.64s' (open one with"
                               " save_message without session_id)",
                               id);
    return rc;
}

int mem_session_open(store *db, const mem_scope *scope, const mem_config *cfg,
                     const char *session_id, char out_id[37], dbmcp_error *err)
{
    (void)cfg;
    char now[32];
    ids_now_iso(now);
    if (session_id && *session_id) {
        mem_session_row row;
        int rc = mem_session_get(db, scope, session_id, &row, err);
        if (rc)
            return rc;
        if (strcmp(row.state, "compacted") == 0)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "session_id: session '%.64s' expired and was compacted into an"
                                   " episode; open a new session",
                                   session_id);
        snprintf(out_id, 37, "%s", session_id);
        return 0;
    }
    ids_uuid(out_id);
    int rc = mstore_session_insert(db, scope->user_id, scope->agent_id, out_id, now, err);
    if (rc == 0)
        mem_log(db, scope, "open_session", out_id, 1, 0);
    return rc;
}

/* now - seconds as an ISO time into out[32]. */
int mem_session_continue(store *db, const mem_scope *scope, const mem_config *cfg, char out_id[37],
                         dbmcp_error *err)
{
    char since[32];
    mem_time_ago((double)cfg->session_idle_s, since);
    int rc = mstore_session_latest(db, scope->user_id, scope->agent_id, since, out_id, err);
    if (rc == DBMCP_ENOTFOUND)
        return mem_session_open(db, scope, cfg, NULL, out_id, err);
    return rc;
}

static int valid_role(const char *r)
{
    return r && (strcmp(r, "user") == 0 || strcmp(r, "assistant") == 0 || strcmp(r, "tool") == 0 ||
                 strcmp(r, "system") == 0);
}

typedef struct last_message {
    int found;
    int64_t id, item_id;
    char role[16];
    char *tool_call_id;
    char *tool_calls;
} last_message;

static int read_last(void *ctx, store_stmt *row)
{
    last_message *m = ctx;
    m->found = 1;
    m->id = store_column_int(row, 0);
    snprintf(m->role, sizeof m->role, "%s", store_column_text(row, 1));
    m->item_id = store_column_type(row, 2) == STORE_NULL ? 0 : store_column_int(row, 2);
    const char *t = store_column_text(row, 3);
    m->tool_call_id = t ? strdup(t) : NULL;
    const char *c = store_column_text(row, 4);
    m->tool_calls = c ? strdup(c) : NULL;
    return 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The body of mem_message_save inside its transaction. */
static int message_save_tx(store *db, const mem_scope *scope, const char *session_id,
                           const mem_message_in *m, const char *text, const char *calls,
                           const mem_session_row *sess, int64_t *out_id, int *dedup,
                           dbmcp_error *err)
{
    char now[32], hash[33] = "", chain[33];
    ids_now_iso(now);
    const char *u = scope->user_id, *a = scope->agent_id;
    int64_t item_id = 0;
    int existed = 0, rc;
    if (*text) {
        mem_hash_hex(text, strlen(text), hash);
        if ((rc = mstore_item_put(db, u, a, "message", hash, text, now, &item_id, &existed, err)))
            return rc;
    }
    last_message last = {0};
    rc = mstore_message_last(db, u, a, session_id, read_last, &last, err);
    if (rc && rc != DBMCP_ENOTFOUND)
        return rc;
    if (last.found && last.item_id == item_id && strcmp(last.role, m->role) == 0 &&
        same_str(last.tool_call_id, m->tool_call_id) && same_str(last.tool_calls, calls)) {
        free(last.tool_call_id);
        free(last.tool_calls);
        *out_id = last.id;
        *dedup = 1;
        return mstore_session_touch(db, u, a, session_id, now, NULL, 0, err);
    }
    free(last.tool_call_id);
    free(last.tool_calls);
    *dedup = existed;
    if ((rc = mstore_message_insert(db, u, a, session_id, m->role, item_id, m->tool_call_id,
                                    m->tool_name, calls, m->metadata, now, out_id, err)))
        return rc;
    char buf[100];
    int n = snprintf(buf, sizeof buf, "%s|%s|%s", sess->context_hash, m->role, hash);
    mem_hash_hex(buf, (size_t)n, chain);
    return mstore_session_touch(db, u, a, session_id, now, chain, 1, err);
}

/* One call of a tool_calls array, rewritten into the stored shape. */
static int check_call(size_t i, const json_t *c, json_t *out, dbmcp_error *err)
{
    const json_t *fn = json_object_get(c, "function");
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *type = json_string_value(json_object_get(c, "type"));
    const char *name = json_string_value(json_object_get(fn, "name"));
    const json_t *args = json_object_get(fn, "arguments");
    if (!json_is_object(c))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool_calls[%zu]: must be an object", i);
    if (!id || !*id || strlen(id) > 256)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool_calls[%zu].id: must be a string of 1 to 256 bytes", i);
    if (json_object_get(c, "type") && (!type || strcmp(type, "function") != 0))
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool_calls[%zu].type: must be \"function\"", i);
    if (!name || !*name || strlen(name) > 128)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool_calls[%zu].function.name: must be a string of 1 to 128 bytes",
                               i);
    if (args && !json_is_string(args) && !json_is_object(args))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "tool_calls[%zu].function.arguments: must be a string or an object",
                               i);
    char *text = json_is_object(args) ? json_dumps(args, JSON_COMPACT) : NULL;
    json_t *call =
        json_pack("{s:s, s:s, s:{s:s, s:s}}", "id", id, "type", "function", "function", "name",
                  name, "arguments", text ? text : (args ? json_string_value(args) : "{}"));
    free(text);
    if (!call || json_array_append_new(out, call) != 0)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "tool_calls: out of memory");
    return 0;
}

/* tool_calls of m in the stored compact shape into *out (NULL when none). */
static int check_tool_calls(const mem_message_in *m, char **out, dbmcp_error *err)
{
    *out = NULL;
    if (!m->tool_calls)
        return 0;
    if (strcmp(m->role, "assistant") != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "tool_calls: only an assistant message has them");
    if ((long)strlen(m->tool_calls) > MEM_TOOL_CALLS_BYTES)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "tool_calls: larger than %ld bytes",
                               MEM_TOOL_CALLS_BYTES);
    json_error_t jerr;
    json_t *v = json_loads(m->tool_calls, JSON_REJECT_DUPLICATES, &jerr);
    int rc = 0;
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > MEM_TOOL_CALLS_MAX)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "tool_calls: must be a JSON array of 1 to %d calls",
                             MEM_TOOL_CALLS_MAX);
    json_t *calls = rc ? NULL : json_array();
    for (size_t i = 0; !rc && i < json_array_size(v); i++)
        rc = check_call(i, json_array_get(v, i), calls, err);
    json_decref(v);
    if (!rc && !(*out = json_dumps(calls, JSON_COMPACT)))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "tool_calls: out of memory");
    json_decref(calls);
    return rc;
}

/* The checks of mem_message_check; *text receives the normalised content,
 * *calls the stored tool calls (NULL when none). */
static int message_check(const mem_config *cfg, const mem_message_in *m, char **text, char **calls,
                         dbmcp_error *err)
{
    *text = NULL;
    *calls = NULL;
    if (!valid_role(m->role))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "role: must be one of user, assistant, tool, system (got '%.32s')",
                               m->role ? m->role : "");
    if (m->tool_call_id && strlen(m->tool_call_id) > 256)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "tool_call_id: longer than 256 bytes");
    if (m->tool_name && strlen(m->tool_name) > 128)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "tool_name: longer than 128 bytes");
    int rc = mem_check_metadata(m->metadata, err);
    if (rc || (rc = check_tool_calls(m, calls, err)))
        return rc;
    *text = mem_text_normalize("content", m->content, cfg->max_content_bytes, err);
    if (*text)
        return 0;
    free(*calls);
    *calls = NULL;
    return err->code;
}

int mem_message_check(const mem_config *cfg, const mem_message_in *m, dbmcp_error *err)
{
    char *text, *calls;
    int rc = message_check(cfg, m, &text, &calls, err);
    free(text);
    free(calls);
    return rc;
}

/* One save as a unit of a group commit (store/commit_group.h): inputs,
 * and outputs each run overwrites. */
typedef struct message_save_call {
    const mem_scope *scope;
    const char *session_id;
    const mem_message_in *m;
    const char *text, *calls; /* normalised content, stored tool calls */
    double t0;                /* when the call arrived (monotonic ms) */
    int64_t id;               /* out: message id */
    int dedup;                /* out: an exact repeat or a known item */
} message_save_call;

static int message_save_unit(store *db, void *ctx, dbmcp_error *err)
{
    message_save_call *c = ctx;
    c->id = 0;
    c->dedup = 0;
    mem_session_row sess;
    int rc = mem_session_get(db, c->scope, c->session_id, &sess, err);
    if (rc == 0 && strcmp(sess.state, "compacted") == 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "session_id: session '%.64s' expired and was compacted into an"
                             " episode; open a new session",
                             c->session_id);
    if (rc == 0)
        rc = message_save_tx(db, c->scope, c->session_id, c->m, c->text, c->calls, &sess, &c->id,
                             &c->dedup, err);
    if (rc == 0) /* logged inside the write: committed with it */
        mem_log(db, c->scope, "save_message", c->session_id, 1, ids_monotonic_ms() - c->t0);
    return rc;
}

int mem_message_save(store *db, const mem_scope *scope, const mem_config *cfg,
                     const char *session_id, const mem_message_in *m, int64_t *out_id,
                     int *deduplicated, dbmcp_error *err)
{
    message_save_call c = {scope, session_id, m, NULL, NULL, ids_monotonic_ms(), 0, 0};
    char *text, *calls;
    int rc = message_check(cfg, m, &text, &calls, err);
    if (rc)
        return rc;
    c.text = text;
    c.calls = calls;
    /* Concurrent saves share a transaction; this returns once ours is
     * committed, or with our own error and none of our rows. */
    rc = store_group_run(db, message_save_unit, &c, err);
    free(text);
    free(calls);
    if (rc)
        return rc;
    mem_jobs_posted(); /* wake the embedding worker */
    *out_id = c.id;
    if (deduplicated)
        *deduplicated = c.dedup;
    return 0;
}

/* --- history -------------------------------------------------------------------- */

static char *col_dup(store_stmt *row, int i)
{
    const char *s = store_column_text(row, i);
    return s ? strdup(s) : NULL;
}

typedef struct history_ctx {
    mem_message_list *out;
    size_t cap;
    int oom;
} history_ctx;

static int read_history(void *ctx, store_stmt *row)
{
    history_ctx *h = ctx;
    mem_message_list *l = h->out;
    if (l->count == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 16;
        mem_message *p = realloc(l->items, ncap * sizeof *p);
        if (!p) {
            h->oom = 1;
            return 1;
        }
        l->items = p;
        h->cap = ncap;
    }
    mem_message *m = &l->items[l->count++];
    m->id = store_column_int(row, 0);
    m->role = col_dup(row, 1);
    m->content = col_dup(row, 2);
    m->tool_call_id = col_dup(row, 3);
    m->tool_name = col_dup(row, 4);
    m->metadata = col_dup(row, 5);
    m->created_at = col_dup(row, 6);
    m->tool_calls = col_dup(row, 7);
    return 0;
}

int mem_session_history(store *db, const mem_scope *scope, const char *session_id, int limit,
                        mem_message_list *out, dbmcp_error *err)
{
    double t0 = ids_monotonic_ms();
    memset(out, 0, sizeof *out);
    mem_session_row sess;
    int rc = mem_session_get(db, scope, session_id, &sess, err);
    if (rc)
        return rc;
    history_ctx h = {out, 0, 0};
    rc = mstore_history(db, scope->user_id, scope->agent_id, session_id, limit, read_history, &h,
                        err);
    if (rc == 0 && h.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (rc) {
        mem_message_list_free(out);
        return rc;
    }
    out->compacted = sess.message_count > 0 && out->count == 0;
    mem_log(db, scope, "get_session_history", session_id, (int64_t)out->count,
            ids_monotonic_ms() - t0);
    return 0;
}

void mem_message_list_free(mem_message_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        mem_message *m = &l->items[i];
        free(m->role);
        free(m->content);
        free(m->tool_call_id);
        free(m->tool_name);
        free(m->metadata);
        free(m->created_at);
        free(m->tool_calls);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}
