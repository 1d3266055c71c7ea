/*
 * stdio.c — see stdio.h.
 */
#include "transport/stdio.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define STDIO_MAX_WORKERS 16

typedef struct stdio_conn {
    mcp_server *srv;
    mcp_session *session;
    FILE *out;
    pthread_mutex_t write_lock; /* one line at a time on stdout */
    pthread_mutex_t lock;       /* guards active */
    pthread_cond_t idle;
    int active;                 /* worker threads running */
} stdio_conn;

typedef struct stdio_job {
    stdio_conn *conn;
    jsonrpc_msg *msg;
} stdio_job;

static int write_line(void *ctx, json_t *msg)
{
    stdio_conn *c = ctx;
    char *text = json_dumps(msg, JSON_COMPACT);
    if (!text)
        return -1;
    pthread_mutex_lock(&c->write_lock);
    int rc = fputs(text, c->out) < 0 || fputc('\n', c->out) == EOF || fflush(c->out) != 0 ? -1 : 0;
    pthread_mutex_unlock(&c->write_lock);
    free(text);
    return rc;
}

static void handle(stdio_conn *c, jsonrpc_msg *msg)
{
    mcp_call_ctx ctx = {0};
    ctx.transport = "stdio";
    json_t *response = mcp_handle(c->srv, c->session, msg, &ctx);
    if (response) {
        write_line(c, response);
        json_decref(response);
    }
    if (ctx.listener)
        mcp_listener_close(c->srv, ctx.listener);
}

static void *worker_main(void *arg)
{
    stdio_job *job = arg;
    stdio_conn *c = job->conn;
    handle(c, job->msg);
    jsonrpc_msg_free(job->msg);
    free(job);
    pthread_mutex_lock(&c->lock);
    c->active--;
    pthread_cond_broadcast(&c->idle);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Requests go to a worker; notifications and responses are handled inline
 * (they are quick, and a response may be what a worker waits for). */
static void dispatch(stdio_conn *c, jsonrpc_msg *msg)
{
    if (msg->kind != JSONRPC_REQUEST) {
        handle(c, msg);
        jsonrpc_msg_free(msg);
        return;
    }
    pthread_mutex_lock(&c->lock);
    while (c->active >= STDIO_MAX_WORKERS)
        pthread_cond_wait(&c->idle, &c->lock);
    c->active++;
    pthread_mutex_unlock(&c->lock);
    stdio_job *job = malloc(sizeof *job);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (job) {
        job->conn = c;
        job->msg = msg;
    }
    if (!job || pthread_create(&t, &attr, worker_main, job) != 0) {
        free(job);
        handle(c, msg);
        jsonrpc_msg_free(msg);
        pthread_mutex_lock(&c->lock);
        c->active--;
        pthread_cond_broadcast(&c->idle);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_attr_destroy(&attr);
}

/* Read one line of at most JSONRPC_MAX_MESSAGE bytes. Returns its length,
 * -1 at EOF, or -2 when the line was too long (it is consumed). */
static ssize_t read_line(FILE *in, char **buf, size_t *cap)
{
    ssize_t n = getline(buf, cap, in);
    if (n < 0)
        return -1;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return n > JSONRPC_MAX_MESSAGE ? -2 : n;
}

int stdio_serve(mcp_server *srv, const mcp_identity *id, FILE *in, FILE *out, dbmcp_error *err)
{
    stdio_conn c;
    memset(&c, 0, sizeof c);
    c.srv = srv;
    c.out = out;
    pthread_mutex_init(&c.write_lock, NULL);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.idle, NULL);
    c.session = mcp_session_create(srv, id, "stdio");
    if (!c.session)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    mcp_session_set_sink(c.session, (mcp_sink){write_line, &c});
    log_msg(LOG_INFO, "stdio", "serving interface %s as %s", id->interface, id->principal);

    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = read_line(in, &line, &cap)) != -1) {
        if (n == 0)
            continue;
        json_t *error = NULL;
        jsonrpc_msg *msg = n == -2 ? NULL : jsonrpc_parse(line, (size_t)n, &error);
        if (n == -2)
            error = jsonrpc_error(NULL, JSONRPC_INVALID_REQUEST, "message too large", NULL);
        if (!msg) {
            if (error)
                write_line(&c, error);
            json_decref(error);
            continue;
        }
        dispatch(&c, msg);
    }
    free(line);

    /* The client is gone: nothing can answer a server→client request now. */
    mcp_session_cancel_all(c.session);
    pthread_mutex_lock(&c.lock);
    while (c.active > 0)
        pthread_cond_wait(&c.idle, &c.lock);
    pthread_mutex_unlock(&c.lock);
    mcp_session_set_sink(c.session, (mcp_sink){NULL, NULL});
    mcp_session_unref(c.session);
    pthread_mutex_destroy(&c.write_lock);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.idle);
    return 0;
}
