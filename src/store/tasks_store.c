/*
 * tasks_store.c — the SQL of MCP tasks (tasks_store.h).
 */
#include "store/tasks_store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_COLUMNS                                                                                \
    "id, owner, interface, tool, call_id, status, status_message, progress, progress_total,"       \
    " request, input_requests, input_responses, request_state, result, error, cancel_requested,"   \
    " replica, created_at, updated_at, expires_at"

#define NOT_TERMINAL "status NOT IN ('completed', 'failed', 'cancelled')"

void tasks_row_free(tasks_row *r)
{
    if (!r)
        return;
    free(r->status_message);
    free(r->request);
    free(r->input_requests);
    free(r->input_responses);
    free(r->request_state);
    free(r->result);
    free(r->error);
    r->status_message = r->request = r->input_requests = r->input_responses = NULL;
    r->request_state = r->result = r->error = NULL;
}

int tasks_status_terminal(const char *status)
{
    return strcmp(status, "completed") == 0 || strcmp(status, "failed") == 0 ||
           strcmp(status, "cancelled") == 0;
}

static void copy_column(char *dst, size_t size, store_stmt *st, int i)
{
    const char *v = store_column_text(st, i);
    snprintf(dst, size, "%s", v ? v : "");
}

static char *dup_column(store_stmt *st, int i)
{
    const char *v = store_column_text(st, i);
    return v ? strdup(v) : NULL;
}

/* Step a statement without rows and finalize; DBMCP_ENOTFOUND when it
 * changed no row. */
static int run_changing(store *db, store_stmt *st, dbmcp_error *err)
{
    int rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0)
        return rc;
    return store_changes(db) > 0 ? 0 : DBMCP_ENOTFOUND;
}

int tasks_store_insert(store *db, const tasks_row *r, const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(
        db,
        "INSERT INTO dbmcp_tasks (id, owner, interface, tool, call_id, status, request, replica,"
        " created_at, updated_at, expires_at) VALUES (:id, :owner, :interface, :tool, :call,"
        " 'working', :request, :replica, :now, :now, :expires)",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", r->id);
    store_bind_text(st, ":owner", r->owner);
    store_bind_text(st, ":interface", r->interface);
    store_bind_text(st, ":tool", r->tool);
    store_bind_text(st, ":call", r->call_id);
    store_bind_text(st, ":request", r->request);
    store_bind_text(st, ":replica", r->replica);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":expires", r->expires_at);
    return run_changing(db, st, err);
}

static int read_row(store_stmt *st, tasks_row *out)
{
    copy_column(out->id, sizeof out->id, st, 0);
    copy_column(out->owner, sizeof out->owner, st, 1);
    copy_column(out->interface, sizeof out->interface, st, 2);
    copy_column(out->tool, sizeof out->tool, st, 3);
    copy_column(out->call_id, sizeof out->call_id, st, 4);
    copy_column(out->status, sizeof out->status, st, 5);
    out->status_message = dup_column(st, 6);
    out->progress = store_column_text(st, 7) ? store_column_double(st, 7) : -1;
    out->progress_total = store_column_text(st, 8) ? store_column_double(st, 8) : 0;
    out->request = dup_column(st, 9);
    out->input_requests = dup_column(st, 10);
    out->input_responses = dup_column(st, 11);
    out->request_state = dup_column(st, 12);
    out->result = dup_column(st, 13);
    out->error = dup_column(st, 14);
    out->cancel_requested = store_column_int(st, 15) != 0;
    copy_column(out->replica, sizeof out->replica, st, 16);
    copy_column(out->created_at, sizeof out->created_at, st, 17);
    copy_column(out->updated_at, sizeof out->updated_at, st, 18);
    copy_column(out->expires_at, sizeof out->expires_at, st, 19);
    return out->request ? 0 : DBMCP_ENOMEM;
}

int tasks_store_get(store *db, const char *id, const char *owner, const char *now, tasks_row *out,
                    dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT " ROW_COLUMNS " FROM dbmcp_tasks WHERE id = :id AND owner ="
                           " :owner AND expires_at > :now",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":owner", owner);
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    if (rc == STORE_ROW && read_row(st, out) != 0)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    store_finalize(st);
    if (rc < 0) {
        tasks_row_free(out);
        return rc;
    }
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int tasks_store_finish(store *db, const char *id, const char *status, const char *message,
                       const char *result, const char *error, const char *input_requests,
                       const char *request_state, const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_tasks SET status = :status, status_message = :message,"
                           " result = :result, error = :error, input_requests = :inputs,"
                           " request_state = coalesce(:state, request_state), updated_at = :now"
                           " WHERE id = :id AND " NOT_TERMINAL,
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":status", status);
    store_bind_text(st, ":message", message);
    store_bind_text(st, ":result", result);
    store_bind_text(st, ":error", error);
    store_bind_text(st, ":inputs", input_requests);
    store_bind_text(st, ":state", request_state);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":id", id);
    return run_changing(db, st, err);
}

int tasks_store_progress(store *db, const char *id, double progress, double total,
                         const char *message, const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_tasks SET progress = :progress, progress_total = :total,"
                           " status_message = coalesce(:message, status_message), updated_at ="
                           " :now WHERE id = :id AND " NOT_TERMINAL,
                           &st, err);
    if (rc)
        return rc;
    store_bind_double(st, ":progress", progress);
    if (total > 0)
        store_bind_double(st, ":total", total);
    else
        store_bind_null(st, ":total");
    store_bind_text(st, ":message", message);
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":id", id);
    rc = run_changing(db, st, err);
    return rc == DBMCP_ENOTFOUND ? 0 : rc;
}

/* Whether owner holds task id (not expired by now): 0 or DBMCP_ENOTFOUND. */
static int owned(store *db, const char *id, const char *owner, const char *now, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT 1 FROM dbmcp_tasks WHERE id = :id AND owner = :owner AND"
                           " expires_at > :now",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":owner", owner);
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? 0 : DBMCP_ENOTFOUND;
}

int tasks_store_cancel(store *db, const char *id, const char *owner, const char *now,
                       dbmcp_error *err)
{
    int rc = owned(db, id, owner, now, err);
    if (rc)
        return rc;
    store_stmt *st;
    rc = store_prepare(db,
                       "UPDATE dbmcp_tasks SET status = 'cancelled', cancel_requested = 1,"
                       " input_requests = NULL, status_message = 'cancelled by the client',"
                       " updated_at = :now WHERE id = :id AND owner = :owner AND " NOT_TERMINAL,
                       &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    store_bind_text(st, ":id", id);
    store_bind_text(st, ":owner", owner);
    rc = run_changing(db, st, err);
    return rc == DBMCP_ENOTFOUND ? 0 : rc;
}

/* Merge the answers to pending keys into gathered and drop those keys
 * from pending. Returns how many keys remain pending. */
static size_t merge_answers(json_t *pending, json_t *gathered, json_t *answers)
{
    const char *key;
    json_t *value;
    json_object_foreach (answers, key, value) {
        if (!json_object_get(pending, key))
            continue;
        json_object_set(gathered, key, value);
        json_object_del(pending, key);
    }
    return json_object_size(pending);
}

static int write_answers(store *db, const char *id, json_t *pending, json_t *gathered, int resume,
                         const char *now, dbmcp_error *err)
{
    char *p = json_object_size(pending) ? json_dumps(pending, JSON_COMPACT) : NULL;
    char *g = json_dumps(gathered, JSON_COMPACT);
    store_stmt *st;
    int rc = store_prepare(db,
                           "UPDATE dbmcp_tasks SET input_requests = :pending, input_responses ="
                           " :gathered, status = :status, updated_at = :now WHERE id = :id",
                           &st, err);
    if (rc == 0) {
        store_bind_text(st, ":pending", p);
        store_bind_text(st, ":gathered", g);
        store_bind_text(st, ":status", resume ? "working" : "input_required");
        store_bind_text(st, ":now", now);
        store_bind_text(st, ":id", id);
        rc = run_changing(db, st, err);
    }
    free(p);
    free(g);
    return rc;
}

int tasks_store_answer(store *db, const char *id, const char *owner, const char *responses,
                       const char *now, int *resume, dbmcp_error *err)
{
    *resume = 0;
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    tasks_row r;
    rc = tasks_store_get(db, id, owner, now, &r, err);
    if (rc) {
        store_rollback(db);
        return rc;
    }
    if (strcmp(r.status, "input_required") != 0) {
        /* Nothing is asked: the answers are acknowledged and dropped. */
        store_rollback(db);
        tasks_row_free(&r);
        return 0;
    }
    json_t *pending = r.input_requests ? json_loads(r.input_requests, 0, NULL) : NULL;
    json_t *gathered = r.input_responses ? json_loads(r.input_responses, 0, NULL) : NULL;
    json_t *answers = json_loads(responses, 0, NULL);
    if (!json_is_object(pending)) {
        json_decref(pending);
        pending = json_object();
    }
    if (!json_is_object(gathered)) {
        json_decref(gathered);
        gathered = json_object();
    }
    if (json_is_object(answers)) {
        size_t left = merge_answers(pending, gathered, answers);
        *resume = left == 0;
        rc = write_answers(db, id, pending, gathered, *resume, now, err);
    }
    json_decref(pending);
    json_decref(gathered);
    json_decref(answers);
    tasks_row_free(&r);
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    if (rc)
        *resume = 0;
    return rc;
}

int tasks_store_cancelled(store *db, const char *id, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "SELECT cancel_requested FROM dbmcp_tasks WHERE id = :id", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":id", id);
    rc = store_step(st, err);
    int cancelled = rc == STORE_ROW ? store_column_int(st, 0) != 0 : 1;
    store_finalize(st);
    return rc < 0 ? rc : cancelled;
}

int tasks_store_expire(store *db, const char *now, int64_t *n, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_tasks WHERE expires_at <= :now", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    store_finalize(st);
    if (rc < 0)
        return rc;
    if (n)
        *n = store_changes(db);
    return 0;
}
