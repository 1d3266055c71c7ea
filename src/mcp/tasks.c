/*
 * tasks.c — long-running tool calls as tasks: the MCP tasks extension
 * (io.modelcontextprotocol/tasks, SEP-2663).
 *
 * A tools/call of a tool that supports tasks (tools_task_support), from a
 * client that declared the extension, runs on a task worker. The request
 * waits up to tasks.after_ms: a call that ends by then is answered as
 * usual; one that runs on becomes a task — a row in dbmcp_tasks is written
 * first, then the CreateTaskResult returned, so a tasks/get right after it
 * resolves on any replica. The worker writes the outcome to the row:
 * completed with the CallToolResult (a tool error is completed with
 * isError), failed with the JSON-RPC error of a protocol-level failure,
 * input_required with the inputRequests of a multi-round tool; tasks/update
 * gathers the answers and, once none is pending, runs the call again with
 * them. tasks/cancel marks the row cancelled and stops the running
 * statement: at once on this replica, within tasks.cancel_poll_ms on
 * another one (the monitor thread reads the rows of the tasks it runs).
 *
 * Every run of the call goes through mcp_dispatch_tool_call (validation,
 * policy, handler, audit), flagged with ctx.task_id. Tasks are scoped to
 * their owner (API key, or principal and interface): another caller's task
 * is "not found" exactly like a missing one.
 *
 * Threads: tasks.max_workers workers (started as needed), one monitor.
 * Locking: tasks->mu guards the queue, the live list and every job's
 * fields; it is held while a task's row is first written, so a worker's
 * outcome never overtakes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "core/replica.h"
#include "mcp/internal.h"
#include "store/tasks_store.h"
#include "tools/tool.h"

#define TASKS_MAX_WORKERS_DEFAULT 4
#define TASKS_MAX_WORKERS_MAX 64
#define TASKS_MAX_QUEUED 1024
#define TASKS_PER_KEY_DEFAULT 32
#define TASKS_AFTER_MS_DEFAULT 250
#define TASKS_TTL_S_DEFAULT 3600
#define TASKS_POLL_MS_DEFAULT 500
#define TASKS_RESULT_MAX_DEFAULT (1024L * 1024)
#define TASK_ID_MAX 64

typedef struct task_job {
    int refs; /* under tasks->mu */
    char id[40];
    mcp_server *srv;
    mcp_session *s; /* one reference */
    char transport[16];
    char model[129];
    json_t *params;  /* the tools/call params the run sees (owned) */
    inflight flight; /* the run's cancellation flag; id unused */
    int published;   /* the row exists: the outcome goes to it */
    int running;
    int done;
    json_t *result; /* the run's result, NULL for a JSON-RPC error */
    int rpc_code;
    char rpc_message[512];
    json_t *rpc_data;
    struct task_job *next_queued;
    struct task_job *next_live;
} task_job;

typedef struct mcp_tasks {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued, or stopping */
    pthread_cond_t done; /* a job finished */
    pthread_cond_t tick; /* wakes the monitor when stopping */
    task_job *head, *tail;
    int queued;
    task_job *live; /* queued or running */
    pthread_t workers[TASKS_MAX_WORKERS_MAX];
    int n_workers;
    int idle;
    pthread_t monitor;
    int monitor_started;
    int stopping;
} mcp_tasks;

/* --- settings and identity ------------------------------------------------------- */

static long setting(mcp_server *srv, const char *key, long def, long lo, long hi)
{
    long v = mcp_server_setting_long(srv, key, def);
    return v < lo ? lo : v > hi ? hi : v;
}

/* Who owns a task: the API key, else the principal; and the interface. */
static void owner_of(const mcp_identity *who, char *out, size_t size)
{
    if (who->key_id[0])
        snprintf(out, size, "key:%s|%s", who->key_id, who->interface);
    else
        snprintf(out, size, "principal:%s|%s", who->principal, who->interface);
}

int mcp_tasks_declared(const mcp_session *s, const jsonrpc_msg *msg)
{
    json_t *meta = json_get_obj(msg->params, "_meta");
    json_t *caps = json_get_obj(meta, MCP_META_CLIENT_CAPS);
    if (json_object_get(json_get_obj(caps, "extensions"), MCP_TASKS_EXTENSION))
        return 1;
    return json_object_get(json_get_obj(s->client_caps, "extensions"), MCP_TASKS_EXTENSION) != NULL;
}

/* --- jobs --------------------------------------------------------------------- */

static task_job *job_new(mcp_server *srv, mcp_session *s, const mcp_call_ctx *ctx, json_t *params)
{
    task_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->refs = 1;
    ids_uuid(j->id);
    j->srv = srv;
    j->s = mcp_session_ref(s);
    snprintf(j->transport, sizeof j->transport, "%s",
             ctx && ctx->transport ? ctx->transport : s->transport);
    snprintf(j->model, sizeof j->model, "%s", ctx && ctx->model ? ctx->model : "");
    j->params = params;
    return j;
}

/* Drop a reference; called with tasks->mu held. */
static void job_unref_locked(task_job *j)
{
    if (--j->refs > 0)
        return;
    mcp_session_unref(j->s);
    json_decref(j->params);
    json_decref(j->result);
    json_decref(j->rpc_data);
    free(j);
}

static void live_remove_locked(mcp_tasks *t, task_job *j)
{
    for (task_job **p = &t->live; *p; p = &(*p)->next_live)
        if (*p == j) {
            *p = j->next_live;
            return;
        }
}

static void *worker_main(void *arg);

/* Jobs of j's caller queued or running here. */
static long jobs_of_caller_locked(mcp_tasks *t, const task_job *j)
{
    char mine[256], theirs[256];
    owner_of(&j->s->who, mine, sizeof mine);
    long n = 0;
    for (task_job *o = t->live; o; o = o->next_live) {
        owner_of(&o->s->who, theirs, sizeof theirs);
        n += strcmp(mine, theirs) == 0;
    }
    return n;
}

/* Queue j (taking a reference for the worker) and start a worker when
 * none is idle. DBMCP_EDENIED when the queue is full, the caller has
 * tasks.max_per_key jobs here already, or the workers are stopping. */
static int enqueue_locked(mcp_tasks *t, task_job *j)
{
    if (t->stopping || t->queued >= TASKS_MAX_QUEUED ||
        jobs_of_caller_locked(t, j) >=
            setting(j->srv, "tasks.max_per_key", TASKS_PER_KEY_DEFAULT, 1, TASKS_MAX_QUEUED))
        return DBMCP_EDENIED;
    j->refs++;
    j->next_queued = NULL;
    if (t->tail)
        t->tail->next_queued = j;
    else
        t->head = j;
    t->tail = j;
    t->queued++;
    j->next_live = t->live;
    t->live = j;
    long max =
        setting(j->srv, "tasks.max_workers", TASKS_MAX_WORKERS_DEFAULT, 1, TASKS_MAX_WORKERS_MAX);
    if (t->idle < t->queued && t->n_workers < max &&
        pthread_create(&t->workers[t->n_workers], NULL, worker_main, j->srv) == 0)
        t->n_workers++;
    pthread_cond_signal(&t->work);
    return 0;
}

/* --- the outcome of a run ------------------------------------------------------------ */

static char *dump(const json_t *v)
{
    return v ? json_dumps(v, JSON_COMPACT) : NULL;
}

/* Write what j's run came to into its row (j->published). */
static void write_outcome(task_job *j)
{
    mcp_server *srv = j->srv;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = store_pool_acquire(srv->catalog, &err);
    if (!db) {
        log_msg(LOG_WARN, "tasks", "task %s: its outcome is lost: %s", j->id, err.message);
        return;
    }
    char now[32];
    ids_now_iso(now);
    const char *status = "completed";
    char *result = NULL, *error = NULL, *inputs = NULL;
    const char *state = NULL, *message = NULL;
    long max =
        setting(srv, "tasks.max_result_bytes", TASKS_RESULT_MAX_DEFAULT, 1024, JSONRPC_MAX_MESSAGE);
    if (j->flight.cancelled) {
        status = "cancelled";
        message = "cancelled";
    } else if (!j->result) {
        status = "failed";
        json_t *e = json_pack("{s:i, s:s}", "code", j->rpc_code ? j->rpc_code : -32603, "message",
                              j->rpc_message[0] ? j->rpc_message : "the task failed");
        if (j->rpc_data)
            json_object_set(e, "data", j->rpc_data);
        error = dump(e);
        json_decref(e);
    } else if (strcmp(json_get_str(j->result, "resultType") ?: "", "input_required") == 0) {
        status = "input_required";
        inputs = dump(json_object_get(j->result, "inputRequests"));
        state = json_get_str(j->result, "requestState");
    } else {
        result = dump(j->result);
        if (result && (long)strlen(result) > max) {
            free(result);
            result = NULL;
            status = "failed";
            char text[160];
            snprintf(text, sizeof text,
                     "the result is larger than tasks.max_result_bytes (%ld bytes)", max);
            json_t *e = json_pack("{s:i, s:s}", "code", JSONRPC_INTERNAL_ERROR, "message", text);
            error = dump(e);
            json_decref(e);
        }
    }
    int rc =
        tasks_store_finish(db, j->id, status, message, result, error, inputs, state, now, &err);
    if (rc && rc != DBMCP_ENOTFOUND)
        log_msg(LOG_WARN, "tasks", "task %s: writing its outcome failed: %s", j->id, err.message);
    store_pool_release(srv->catalog, db);
    free(result);
    free(error);
    free(inputs);
}

/* Run j's call once through the one dispatch path. */
static void run_job(task_job *j)
{
    mcp_server *srv = j->srv;
    dbmcp_error err;
    catalog_snapshot *snap = mcp_snapshot_get(srv, j->s->who.interface, &err);
    jsonrpc_msg msg = {0};
    msg.kind = JSONRPC_REQUEST;
    msg.id = json_string(j->id);
    msg.method = "tools/call";
    msg.params = j->params;
    mcp_call_ctx ctx = {0};
    ctx.transport = j->transport;
    ctx.model = j->model[0] ? j->model : NULL;
    ctx.task_id = j->id;
    int code = 0;
    char message[512] = "";
    json_t *data = NULL;
    json_t *result = NULL;
    if (snap)
        result = mcp_dispatch_tool_call(srv, j->s, &ctx, snap, &msg, &code, message, sizeof message,
                                        &data, &j->flight);
    else {
        code = JSONRPC_INTERNAL_ERROR;
        snprintf(message, sizeof message, "the catalog could not be loaded");
    }
    catalog_snapshot_unref(snap);
    json_decref(msg.id);
    mcp_tasks *t = srv->tasks;
    pthread_mutex_lock(&t->mu);
    j->result = result;
    j->rpc_code = code;
    snprintf(j->rpc_message, sizeof j->rpc_message, "%s", message);
    j->rpc_data = data;
    j->done = 1;
    j->running = 0;
    int published = j->published;
    live_remove_locked(t, j);
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&t->mu);
    if (published)
        write_outcome(j);
}

static void *worker_main(void *arg)
{
    mcp_server *srv = arg;
    mcp_tasks *t = srv->tasks;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->head && !t->stopping) {
            t->idle++;
            pthread_cond_wait(&t->work, &t->mu);
            t->idle--;
        }
        if (!t->head)
            break;
        task_job *j = t->head;
        t->head = j->next_queued;
        if (!t->head)
            t->tail = NULL;
        t->queued--;
        if (t->stopping)
            j->flight.cancelled = 1;
        j->running = 1;
        pthread_mutex_unlock(&t->mu);
        run_job(j);
        pthread_mutex_lock(&t->mu);
        job_unref_locked(j);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Every tasks.cancel_poll_ms: a task this replica runs that another
 * replica cancelled (its row says so, or it is gone) is stopped here. */
static void *monitor_main(void *arg)
{
    mcp_server *srv = arg;
    mcp_tasks *t = srv->tasks;
    pthread_mutex_lock(&t->mu);
    while (!t->stopping) {
        long ms = setting(srv, "tasks.cancel_poll_ms", TASKS_POLL_MS_DEFAULT, 50, 60000);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += ms / 1000;
        until.tv_nsec += (ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&t->tick, &t->mu, &until);
        if (t->stopping)
            break;
        char ids[32][40];
        int n = 0;
        for (task_job *j = t->live; j && n < 32; j = j->next_live)
            if (j->published && j->running && !j->flight.cancelled)
                snprintf(ids[n++], sizeof ids[0], "%s", j->id);
        if (!n)
            continue;
        pthread_mutex_unlock(&t->mu);
        int cancelled[32] = {0};
        dbmcp_error err;
        store *db = store_pool_acquire(srv->catalog, &err);
        for (int i = 0; db && i < n; i++)
            cancelled[i] = tasks_store_cancelled(db, ids[i], &err) == 1;
        if (db)
            store_pool_release(srv->catalog, db);
        pthread_mutex_lock(&t->mu);
        for (task_job *j = t->live; j; j = j->next_live)
            for (int i = 0; i < n; i++)
                if (cancelled[i] && strcmp(j->id, ids[i]) == 0)
                    j->flight.cancelled = 1;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int mcp_tasks_create(mcp_server *srv)
{
    mcp_tasks *t = calloc(1, sizeof *t);
    if (!t)
        return DBMCP_ENOMEM;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->work, NULL);
    pthread_cond_init(&t->done, NULL);
    pthread_cond_init(&t->tick, NULL);
    srv->tasks = t;
    if (pthread_create(&t->monitor, NULL, monitor_main, srv) == 0)
        t->monitor_started = 1;
    return 0;
}

void mcp_tasks_stop(mcp_server *srv)
{
    mcp_tasks *t = srv->tasks;
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stopping = 1;
    for (task_job *j = t->live; j; j = j->next_live)
        j->flight.cancelled = 1;
    pthread_cond_broadcast(&t->work);
    pthread_cond_broadcast(&t->tick);
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->n_workers; i++)
        pthread_join(t->workers[i], NULL);
    if (t->monitor_started)
        pthread_join(t->monitor, NULL);
    pthread_mutex_lock(&t->mu);
    while (t->head) {
        task_job *j = t->head;
        t->head = j->next_queued;
        job_unref_locked(j);
    }
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->work);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->tick);
    free(t);
    srv->tasks = NULL;
}

/* --- tools/call -------------------------------------------------------------------- */

static json_t *task_envelope(mcp_server *srv, const tasks_row *r)
{
    long ttl = setting(srv, "tasks.ttl_s", TASKS_TTL_S_DEFAULT, 1, 30L * 86400);
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I}", "taskId", r->id, "status", r->status, "createdAt",
        r->created_at, "lastUpdatedAt", r->updated_at, "ttlMs", (json_int_t)ttl * 1000,
        "pollIntervalMs",
        (json_int_t)setting(srv, "tasks.poll_interval_ms", TASKS_POLL_MS_DEFAULT, 10, 60000));
    if (r->status_message)
        json_object_set_new(o, "statusMessage", json_string(r->status_message));
    return o;
}

/* Write j's row (status working); called with tasks->mu held. */
static int publish_locked(task_job *j, const char *tool, tasks_row *row, dbmcp_error *err)
{
    mcp_server *srv = j->srv;
    store *db = store_pool_acquire(srv->catalog, err);
    if (!db)
        return err->code;
    char now[32];
    ids_now_iso(now);
    tasks_store_expire(db, now, NULL, err);
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s", j->id);
    owner_of(&j->s->who, row->owner, sizeof row->owner);
    snprintf(row->interface, sizeof row->interface, "%s", j->s->who.interface);
    snprintf(row->tool, sizeof row->tool, "%s", tool);
    snprintf(row->call_id, sizeof row->call_id, "%s", j->id);
    snprintf(row->status, sizeof row->status, "working");
    snprintf(row->replica, sizeof row->replica, "%s", replica_id());
    snprintf(row->created_at, sizeof row->created_at, "%s", now);
    snprintf(row->updated_at, sizeof row->updated_at, "%s", now);
    long ttl = setting(srv, "tasks.ttl_s", TASKS_TTL_S_DEFAULT, 1, 30L * 86400);
    ids_iso_from_now((double)ttl, row->expires_at);
    row->request = dump(j->params);
    int rc = row->request ? tasks_store_insert(db, row, now, err)
                          : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    store_pool_release(srv->catalog, db);
    free(row->request);
    row->request = NULL;
    if (rc == 0)
        j->published = 1;
    return rc;
}

/* Wait for j up to after_ms, passing the caller's cancellation on.
 * Called and returns with tasks->mu held. */
static void wait_briefly_locked(mcp_tasks *t, task_job *j, long after_ms, inflight *caller)
{
    double deadline = ids_monotonic_ms() + (double)after_ms;
    while (!j->done && !t->stopping) {
        double left = deadline - ids_monotonic_ms();
        if (left <= 0)
            break;
        if (left > 20)
            left = 20;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = until.tv_nsec + (long)(left * 1e6);
        until.tv_sec += ns / 1000000000L;
        until.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&t->done, &t->mu, &until);
        if (caller && caller->cancelled)
            j->flight.cancelled = 1;
    }
}

json_t *mcp_tasks_call(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const jsonrpc_msg *msg,
                       inflight *flight, int *rpc_code, char *rpc_message, size_t rpc_message_size,
                       json_t **rpc_data)
{
    mcp_tasks *t = srv->tasks;
    json_t *params = json_deep_copy(msg->params);
    task_job *j = params ? job_new(srv, s, ctx, params) : NULL;
    if (!j) {
        json_decref(params);
        *rpc_code = JSONRPC_INTERNAL_ERROR;
        snprintf(rpc_message, rpc_message_size, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&t->mu);
    if (enqueue_locked(t, j) != 0) {
        job_unref_locked(j);
        pthread_mutex_unlock(&t->mu);
        *rpc_code = MCP_SERVER_BUSY;
        snprintf(rpc_message, rpc_message_size,
                 "Too many tasks are running or waiting on this server (settings "
                 "tasks.max_per_key, per caller, and 1024 in all); try again later");
        return NULL;
    }
    wait_briefly_locked(t, j, setting(srv, "tasks.after_ms", TASKS_AFTER_MS_DEFAULT, 0, 600000),
                        flight);
    json_t *answer = NULL;
    if (!j->done && j->flight.cancelled) {
        /* The client cancelled the call before it became a task: it stops
         * at its next check and its outcome is dropped. */
        *rpc_code = JSONRPC_INTERNAL_ERROR;
        snprintf(rpc_message, rpc_message_size, "The call was cancelled");
    } else if (j->done) {
        answer = j->result ? json_incref(j->result) : NULL;
        *rpc_code = j->rpc_code;
        snprintf(rpc_message, rpc_message_size, "%s", j->rpc_message);
        *rpc_data = json_incref(j->rpc_data);
    } else {
        tasks_row row;
        dbmcp_error err;
        dbmcp_error_clear(&err);
        if (publish_locked(j, json_get_str(msg->params, "name") ?: "", &row, &err) == 0) {
            answer = task_envelope(srv, &row);
            json_object_set_new(answer, "resultType", json_string("task"));
        } else {
            /* No row, no task: the call still runs, and is cancelled. */
            j->flight.cancelled = 1;
            log_msg(LOG_WARN, "tasks", "task %s could not be written: %s", j->id, err.message);
            *rpc_code = JSONRPC_INTERNAL_ERROR;
            snprintf(rpc_message, rpc_message_size, "the task could not be created");
        }
    }
    job_unref_locked(j);
    pthread_mutex_unlock(&t->mu);
    return answer;
}

void mcp_tasks_progress(mcp_server *srv, const char *task_id, double progress, double total,
                        const char *message)
{
    dbmcp_error err;
    store *db = store_pool_acquire(srv->catalog, &err);
    if (!db)
        return;
    char now[32];
    ids_now_iso(now);
    tasks_store_progress(db, task_id, progress, total, message, now, &err);
    store_pool_release(srv->catalog, db);
}

/* --- tasks/get, tasks/update, tasks/cancel ---------------------------------------------- */

static json_t *parsed(const char *text)
{
    return text ? json_loads(text, 0, NULL) : NULL;
}

static json_t *detailed_task(mcp_server *srv, const tasks_row *r)
{
    json_t *o = task_envelope(srv, r);
    if (strcmp(r->status, "completed") == 0 && r->result)
        json_object_set_new(o, "result", parsed(r->result));
    else if (strcmp(r->status, "failed") == 0 && r->error)
        json_object_set_new(o, "error", parsed(r->error));
    else if (strcmp(r->status, "input_required") == 0 && r->input_requests)
        json_object_set_new(o, "inputRequests", parsed(r->input_requests));
    if (r->progress >= 0) {
        json_t *p = json_pack("{s:f}", "progress", r->progress);
        if (r->progress_total > 0)
            json_object_set_new(p, "total", json_real(r->progress_total));
        json_object_set_new(o, "_meta", json_pack("{s:o}", "dbmcp/progress", p));
    }
    json_object_set_new(o, "resultType", json_string("complete"));
    return o;
}

/* Cancel the run of task id if this replica runs it. */
static void cancel_local(mcp_server *srv, const char *id)
{
    mcp_tasks *t = srv->tasks;
    pthread_mutex_lock(&t->mu);
    for (task_job *j = t->live; j; j = j->next_live)
        if (strcmp(j->id, id) == 0)
            j->flight.cancelled = 1;
    pthread_mutex_unlock(&t->mu);
}

/* Run task r again with the answers gathered for it (tasks/update). */
static int resume(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const tasks_row *r)
{
    json_t *params = parsed(r->request);
    if (!json_is_object(params)) {
        json_decref(params);
        return DBMCP_EINTERNAL;
    }
    json_t *answers = parsed(r->input_responses);
    json_object_set_new(params, "inputResponses", answers ? answers : json_object());
    if (r->request_state)
        json_object_set_new(params, "requestState", json_string(r->request_state));
    else
        json_object_del(params, "requestState");
    task_job *j = job_new(srv, s, ctx, params);
    if (!j) {
        json_decref(params);
        return DBMCP_ENOMEM;
    }
    snprintf(j->id, sizeof j->id, "%s", r->id);
    j->published = 1;
    mcp_tasks *t = srv->tasks;
    pthread_mutex_lock(&t->mu);
    int rc = enqueue_locked(t, j);
    job_unref_locked(j);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static json_t *rpc_fail(int *rpc_code, char *rpc_message, size_t size, int code, const char *text)
{
    *rpc_code = code;
    snprintf(rpc_message, size, "%s", text);
    return NULL;
}

/* Audit a tasks method that changes a task (update, cancel). */
static void audit_method(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const char *method,
                         const char *id, double start, int rc)
{
    char call_id[37];
    ids_uuid(call_id);
    mcp_audit_simple(srv, s, ctx, method, id, call_id, start, rc ? "error" : "ok", rc, NULL, 0, -1,
                     NULL, 0);
}

json_t *mcp_tasks_method(mcp_server *srv, mcp_session *s, mcp_call_ctx *ctx, const jsonrpc_msg *msg,
                         int *rpc_code, char *rpc_message, size_t rpc_message_size,
                         json_t **rpc_data)
{
    double start = ids_monotonic_ms();
    if (!mcp_tasks_declared(s, msg)) {
        *rpc_data =
            json_pack("{s:{s:{s:{}}}}", "requiredCapabilities", "extensions", MCP_TASKS_EXTENSION);
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, MCP_MISSING_CLIENT_CAPABILITY,
                        "Missing required client capability: extension " MCP_TASKS_EXTENSION);
    }
    const char *id = json_get_str(msg->params, "taskId");
    if (!id || !*id || strlen(id) > TASK_ID_MAX)
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, JSONRPC_INVALID_PARAMS,
                        "Invalid params: taskId must be a string of 1 to 64 characters");
    json_t *answers = json_object_get(msg->params, "inputResponses");
    int update = strcmp(msg->method, "tasks/update") == 0;
    if (update && !json_is_object(answers))
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, JSONRPC_INVALID_PARAMS,
                        "Invalid params: inputResponses must be an object");
    char owner[256];
    owner_of(&s->who, owner, sizeof owner);
    char now[32];
    ids_now_iso(now);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = store_pool_acquire(srv->catalog, &err);
    if (!db)
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, JSONRPC_INTERNAL_ERROR,
                        "the task store is not reachable");
    json_t *answer = NULL;
    int rc;
    if (strcmp(msg->method, "tasks/get") == 0) {
        tasks_row r;
        if ((rc = tasks_store_get(db, id, owner, now, &r, &err)) == 0) {
            answer = detailed_task(srv, &r);
            tasks_row_free(&r);
        }
    } else if (update) {
        char *text = json_dumps(answers, JSON_COMPACT);
        int again = 0;
        rc = text ? tasks_store_answer(db, id, owner, text, now, &again, &err) : DBMCP_ENOMEM;
        free(text);
        tasks_row r;
        if (rc == 0 && again && tasks_store_get(db, id, owner, now, &r, &err) == 0) {
            rc = resume(srv, s, ctx, &r);
            tasks_row_free(&r);
        }
        audit_method(srv, s, ctx, msg->method, id, start, rc);
    } else {
        rc = tasks_store_cancel(db, id, owner, now, &err);
        if (rc == 0)
            cancel_local(srv, id);
        audit_method(srv, s, ctx, msg->method, id, start, rc);
    }
    store_pool_release(srv->catalog, db);
    if (rc == DBMCP_ENOTFOUND)
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, JSONRPC_INVALID_PARAMS,
                        "Invalid params: task not found");
    if (rc) {
        log_msg(LOG_WARN, "tasks", "%s %s failed: %s", msg->method, id, err.message);
        return rpc_fail(rpc_code, rpc_message, rpc_message_size, JSONRPC_INTERNAL_ERROR,
                        "the task could not be read or changed");
    }
    return answer ? answer : json_pack("{s:s}", "resultType", "complete");
}
