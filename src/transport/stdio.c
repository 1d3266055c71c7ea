/*
 * stdio.c — see stdio.h.
 */
#include "transport/stdio.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#define STDIO_MAX_WORKERS 16
#define STDIO_MAX_QUEUE 1024

typedef struct stdio_job {
    jsonrpc_msg *msg;
    struct stdio_job *next;
} stdio_job;

typedef struct stdio_conn {
    mcp_server *srv;
    mcp_session *session;
    FILE *out;
    pthread_mutex_t write_lock; /* one line at a time on stdout */
    pthread_mutex_t lock;       /* guards the queue, busy and closing */
    pthread_cond_t work;        /* signalled when a job is queued or on close */
    pthread_cond_t idle;        /* signalled when a worker finishes a job */
    stdio_job *head, *tail;     /* FIFO of requests not yet taken */
    int busy;                   /* workers handling a job */
    int queued;                 /* jobs waiting in the FIFO */
    int closing;                /* EOF reached: workers exit when the queue is empty */
    pthread_t workers[STDIO_MAX_WORKERS];
    int n_workers;
} stdio_conn;

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
    stdio_conn *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->head && !c->closing)
            pthread_cond_wait(&c->work, &c->lock);
        if (!c->head)
            break;
        stdio_job *job = c->head;
        c->head = job->next;
        c->queued--;
        if (!c->head)
            c->tail = NULL;
        c->busy++;
        pthread_mutex_unlock(&c->lock);
        handle(c, job->msg);
        jsonrpc_msg_free(job->msg);
        free(job);
        pthread_mutex_lock(&c->lock);
        c->busy--;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Requests that may block (SQL tools, tools waiting for the client) go to
 * the worker pool (grown on demand up to STDIO_MAX_WORKERS threads, kept for
 * the session). Notifications, responses (a worker may be waiting for one)
 * and requests that cannot block are handled on the reading thread, which
 * saves two thread hand-offs per call. */
static void dispatch(stdio_conn *c, jsonrpc_msg *msg)
{
    int inline_ok = mcp_request_is_quick(c->srv, c->session, msg);
    stdio_job *job = inline_ok ? NULL : calloc(1, sizeof *job);
    if (!job) {
        handle(c, msg);
        jsonrpc_msg_free(msg);
        return;
    }
    job->msg = msg;
    pthread_mutex_lock(&c->lock);
    if (c->queued >= STDIO_MAX_QUEUE) {
        /* Never block the reader: it must stay free to read the responses
         * and cancellations that busy workers may be waiting for. */
        pthread_mutex_unlock(&c->lock);
        json_t *busy = jsonrpc_error(msg->id, JSONRPC_INTERNAL_ERROR,
                                     "server busy: too many requests in flight", NULL);
        write_line(c, busy);
        json_decref(busy);
        jsonrpc_msg_free(msg);
        free(job);
        return;
    }
    c->queued++;
    if (c->tail)
        c->tail->next = job;
    else
        c->head = job;
    c->tail = job;
    int idle_workers = c->n_workers - c->busy;
    if (idle_workers <= 0 && c->n_workers < STDIO_MAX_WORKERS &&
        pthread_create(&c->workers[c->n_workers], NULL, worker_main, c) == 0)
        c->n_workers++;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
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

/* The thread that reads stdin; a stop signal must interrupt its read. */
static pthread_t stdio_reader;

static void on_stop_signal(int sig)
{
    /* The kernel may deliver the signal to any thread (a worker, the audit
     * writer): pass it on to the reader, whose blocking read it interrupts
     * (no SA_RESTART); the read loop then ends. */
    if (!pthread_equal(pthread_self(), stdio_reader))
        pthread_kill(stdio_reader, sig);
}

/* SIGTERM and SIGINT end the read loop, so in-flight requests finish and
 * their audit rows are written before exit. */
static void install_stop_handlers(void)
{
    stdio_reader = pthread_self();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
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
    pthread_cond_init(&c.work, NULL);
    c.session = mcp_session_create(srv, id, "stdio");
    if (!c.session)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    mcp_session_set_sink(c.session, (mcp_sink){write_line, &c});
    install_stop_handlers();
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

    /* End of input: queued and running requests still finish and are
     * answered (a client may close its side and keep reading), but nothing
     * can answer a server→client request any more. */
    mcp_session_close_input(c.session);
    pthread_mutex_lock(&c.lock);
    c.closing = 1;
    pthread_cond_broadcast(&c.work);
    pthread_mutex_unlock(&c.lock);
    for (int i = 0; i < c.n_workers; i++)
        pthread_join(c.workers[i], NULL);
    mcp_session_set_sink(c.session, (mcp_sink){NULL, NULL});
    mcp_session_unref(c.session);
    pthread_mutex_destroy(&c.write_lock);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.idle);
    pthread_cond_destroy(&c.work);
    return 0;
}
