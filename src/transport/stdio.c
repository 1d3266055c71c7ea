/*
 * stdio.c — see stdio.h.
 *
 * Threads: whichever thread holds the reading role reads stdin, answers
 * quick requests itself and queues the others for the pool. When it runs a
 * watched request itself and that request turns slow, it gives the role
 * away (on_slow: the next waiting pool thread takes it) and, once its
 * request is answered, joins the pool. At EOF the reader marks the
 * connection closing; pool threads leave when the queue is empty.
 */
#include "transport/stdio.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_write.h"
#include "core/log.h"

#define STDIO_MAX_WORKERS 16
#define STDIO_MAX_QUEUE 1024

typedef struct stdio_job {
    jsonrpc_msg *msg;
    struct inflight *flight; /* registered when queued (mcp_request_track) */
    struct stdio_job *next;
} stdio_job;

typedef struct stdio_conn {
    mcp_server *srv;
    mcp_session *session;
    FILE *in, *out;
    char *line; /* the reader's buffer: used only by the thread holding the role */
    size_t cap;
    pthread_mutex_t write_lock; /* one line at a time on stdout */
    pthread_mutex_t lock;       /* guards everything below */
    pthread_cond_t work;        /* a job was queued, the role is free, or closing */
    stdio_job *head, *tail;     /* FIFO of requests not yet taken */
    int busy;                   /* threads handling a request (the reader's included) */
    int queued;                 /* jobs waiting in the FIFO */
    int waiting;                /* pool threads waiting for work */
    int role_free;              /* nobody reads: the next waiting thread takes the role */
    int closing;                /* EOF reached: pool threads exit when the queue is empty */
    pthread_t workers[STDIO_MAX_WORKERS];
    int n_workers;
} stdio_conn;

enum { READ_EOF, READ_HANDED_OFF };

static int write_line(void *ctx, json_t *msg)
{
    stdio_conn *c = ctx;
    char *text = json_write_compact(msg, NULL);
    if (!text)
        return -1;
    pthread_mutex_lock(&c->write_lock);
    int rc = fputs(text, c->out) < 0 || fputc('\n', c->out) == EOF || fflush(c->out) != 0 ? -1 : 0;
    pthread_mutex_unlock(&c->write_lock);
    free(text);
    return rc;
}

/* flight: the registration made when msg was queued, or NULL. */
static void handle(stdio_conn *c, jsonrpc_msg *msg, void (*on_slow)(void *),
                   struct inflight *flight)
{
    mcp_call_ctx ctx = {0};
    ctx.transport = "stdio";
    ctx.on_slow = on_slow;
    ctx.slow_arg = c;
    ctx.flight = flight;
    json_t *response = mcp_handle(c->srv, c->session, msg, &ctx);
    if (flight)
        mcp_request_untrack(c->session, flight);
    /* A request the client cancelled gets no response (MCP cancellation). */
    if (response && !ctx.cancelled)
        write_line(c, response);
    json_decref(response);
    if (ctx.listener)
        mcp_listener_close(c->srv, ctx.listener);
}

static void *worker_main(void *arg);

/* With c->lock held: make sure a pool thread will pick up what was just
 * queued or released (start one when none is waiting). */
static void wake_pool(stdio_conn *c)
{
    if (c->waiting == 0 && c->n_workers < STDIO_MAX_WORKERS &&
        pthread_create(&c->workers[c->n_workers], NULL, worker_main, c) == 0)
        c->n_workers++;
    pthread_cond_signal(&c->work);
}

/* ctx.on_slow of a request the reader runs itself: another thread reads
 * from now on; this one finishes the request and then joins the pool. */
/* Set on the reading thread when the request it runs gave the role away.
 * Per thread, not per connection: the thread that takes the role over
 * starts its own requests while this one still runs, and a shared flag
 * cleared by the new reader made the old one read on too — two readers on
 * one line buffer, which lost a request and answered another twice. */
static _Thread_local int handed_off_here;

static pthread_t current_reader(void);

static void give_up_reading(void *arg)
{
    stdio_conn *c = arg;
    /* Only the thread that holds the role can give it away (a hook left
     * armed on a handle must never make a second reader). */
    if (handed_off_here || !pthread_equal(pthread_self(), current_reader()))
        return;
    handed_off_here = 1;
    pthread_mutex_lock(&c->lock);
    c->role_free = 1;
    wake_pool(c);
    pthread_mutex_unlock(&c->lock);
}

static void queue_job(stdio_conn *c, jsonrpc_msg *msg)
{
    stdio_job *job = calloc(1, sizeof *job);
    if (!job) {
        handle(c, msg, NULL, NULL);
        jsonrpc_msg_free(msg);
        return;
    }
    job->msg = msg;
    /* Registered now, not when a worker starts it: a cancellation the
     * reader sees before then must still reach it. */
    job->flight = mcp_request_track(c->session, msg);
    pthread_mutex_lock(&c->lock);
    if (c->queued >= STDIO_MAX_QUEUE) {
        /* Never block the reader: it must stay free to read the responses
         * and cancellations that busy workers may be waiting for. */
        pthread_mutex_unlock(&c->lock);
        json_t *busy = jsonrpc_error(msg->id, JSONRPC_INTERNAL_ERROR,
                                     "server busy: too many requests in flight", NULL);
        write_line(c, busy);
        json_decref(busy);
        if (job->flight)
            mcp_request_untrack(c->session, job->flight);
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
    wake_pool(c);
    pthread_mutex_unlock(&c->lock);
}

/* Run msg on the reading thread when nothing else is in flight (so it
 * cannot wait for a query handle another request holds). Returns 0 when
 * it was not taken. */
static int run_watched(stdio_conn *c, jsonrpc_msg *msg)
{
    pthread_mutex_lock(&c->lock);
    int alone = c->busy == 0 && c->queued == 0;
    if (alone)
        c->busy++;
    pthread_mutex_unlock(&c->lock);
    if (!alone)
        return 0;
    handle(c, msg, give_up_reading, NULL);
    jsonrpc_msg_free(msg);
    pthread_mutex_lock(&c->lock);
    c->busy--;
    pthread_mutex_unlock(&c->lock);
    return 1;
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

/* The thread that reads stdin now; a stop signal must interrupt its read. */
static _Atomic pthread_t stdio_reader;
static volatile sig_atomic_t stop_requested;

static pthread_t current_reader(void)
{
    return atomic_load(&stdio_reader);
}

static void on_stop_signal(int sig)
{
    /* The kernel may deliver the signal to any thread (a worker, the audit
     * writer): pass it on to the reader, whose blocking read it interrupts
     * (no SA_RESTART); the read loop then ends. */
    stop_requested = 1;
    pthread_t reader = atomic_load(&stdio_reader);
    if (!pthread_equal(pthread_self(), reader))
        pthread_kill(reader, sig);
}

/* SIGTERM and SIGINT end the read loop, so in-flight requests finish and
 * their audit rows are written before exit. */
static void install_stop_handlers(void)
{
    atomic_store(&stdio_reader, pthread_self());
    stop_requested = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* The reading role: read and route until EOF (or a stop signal), or until
 * a request this thread ran itself gave the role away. */
static int read_loop(stdio_conn *c)
{
    atomic_store(&stdio_reader, pthread_self());
    ssize_t n;
    while (!stop_requested && (n = read_line(c->in, &c->line, &c->cap)) != -1) {
        if (n == 0)
            continue;
        json_t *error = NULL;
        jsonrpc_msg *msg = n == -2 ? NULL : jsonrpc_parse(c->line, (size_t)n, &error);
        if (n == -2)
            error = jsonrpc_error(NULL, JSONRPC_INVALID_REQUEST, "message too large", NULL);
        if (!msg) {
            if (error)
                write_line(c, error);
            json_decref(error);
            continue;
        }
        switch (mcp_request_class(c->srv, c->session, msg)) {
        case MCP_RUN_QUICK:
            /* Notifications, responses (a worker may be waiting for one)
             * and requests that cannot block. */
            handle(c, msg, NULL, NULL);
            jsonrpc_msg_free(msg);
            break;
        case MCP_RUN_WATCHED:
            handed_off_here = 0;
            if (!run_watched(c, msg)) {
                queue_job(c, msg);
                break;
            }
            if (handed_off_here) {
                handed_off_here = 0;
                return READ_HANDED_OFF;
            }
            break;
        case MCP_RUN_POOL: queue_job(c, msg); break;
        }
    }
    /* End of input: queued and running requests still finish and are
     * answered (a client may close its side and keep reading), but nothing
     * can answer a server→client request any more. */
    mcp_session_close_input(c->session);
    pthread_mutex_lock(&c->lock);
    c->closing = 1;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    return READ_EOF;
}

/* A pool thread: take the reading role when it is free, else queued jobs;
 * leave once closing with nothing queued. */
static void pool_loop(stdio_conn *c)
{
    pthread_mutex_lock(&c->lock);
    for (;;) {
        c->waiting++;
        while (!c->head && !c->closing && !c->role_free)
            pthread_cond_wait(&c->work, &c->lock);
        c->waiting--;
        if (c->role_free) {
            c->role_free = 0;
            pthread_mutex_unlock(&c->lock);
            read_loop(c);
            pthread_mutex_lock(&c->lock);
            continue;
        }
        if (!c->head)
            break;
        stdio_job *job = c->head;
        c->head = job->next;
        c->queued--;
        if (!c->head)
            c->tail = NULL;
        c->busy++;
        pthread_mutex_unlock(&c->lock);
        handle(c, job->msg, NULL, job->flight);
        jsonrpc_msg_free(job->msg);
        free(job);
        pthread_mutex_lock(&c->lock);
        c->busy--;
    }
    pthread_mutex_unlock(&c->lock);
}

static void *worker_main(void *arg)
{
    pool_loop(arg);
    return NULL;
}

int stdio_serve(mcp_server *srv, const mcp_identity *id, FILE *in, FILE *out, dbmcp_error *err)
{
    stdio_conn c;
    memset(&c, 0, sizeof c);
    c.srv = srv;
    c.in = in;
    c.out = out;
    pthread_mutex_init(&c.write_lock, NULL);
    pthread_mutex_init(&c.lock, NULL);
    pthread_cond_init(&c.work, NULL);
    c.session = mcp_session_create(srv, id, "stdio");
    if (!c.session)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    mcp_session_set_sink(c.session, (mcp_sink){write_line, &c});
    install_stop_handlers();
    log_msg(LOG_INFO, "stdio", "serving interface %s as %s", id->interface, id->principal);

    if (read_loop(&c) == READ_HANDED_OFF)
        pool_loop(&c);

    /* Closing: every pool thread leaves once the queue is empty; no thread
     * is started after closing (only the reader starts them). */
    pthread_mutex_lock(&c.lock);
    int n_workers = c.n_workers;
    pthread_mutex_unlock(&c.lock);
    for (int i = 0; i < n_workers; i++)
        pthread_join(c.workers[i], NULL);
    free(c.line);
    mcp_session_set_sink(c.session, (mcp_sink){NULL, NULL});
    mcp_session_unref(c.session);
    pthread_mutex_destroy(&c.write_lock);
    pthread_mutex_destroy(&c.lock);
    pthread_cond_destroy(&c.work);
    return 0;
}
