/*
 * http_admit.c — the accepting thread, the per-address counts, the waiting
 * queue and the read deadlines of HTTP connections; see http_admit.h.
 *
 * Every accepted socket gets an admit_conn. It sits either in the waiting
 * queue (a socket only) or in the served list (handed to libmicrohttpd).
 * A served connection is matched to libmicrohttpd's connection when that
 * announces it (MHD_CONNECTION_NOTIFY_STARTED, by socket number) and leaves
 * when it is closed (MHD_CONNECTION_NOTIFY_CLOSED, which libmicrohttpd calls
 * before it closes the socket — so a socket number in the served list is
 * always still ours to shut down).
 *
 * Counts per client address live in a small hash table of admit_peer;
 * IPv4-mapped IPv6 addresses count as their IPv4 address.
 */
#include "transport/http_admit.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

#define ADMIT_BUCKETS 1024
#define ADMIT_TICK_MS 250      /* how often deadlines are checked */
#define ADMIT_ACCEPT_BATCH 256 /* accepts before the queue and deadlines get a turn */

typedef enum conn_state {
    CONN_WAITING,  /* in the queue: a socket, no thread */
    CONN_STARTING, /* handed to libmicrohttpd, not yet announced */
    CONN_SERVED    /* announced: libmicrohttpd's thread runs it */
} conn_state;

typedef struct admit_peer admit_peer;

typedef struct admit_conn {
    http_admit *owner;
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    admit_peer *peer;
    conn_state state;
    admit_phase phase;              /* CONN_SERVED only */
    int fresh;                      /* no request has started on it yet */
    int cut;                        /* a deadline passed and the socket was shut down */
    double since;                   /* queued at, or the current phase started at */
    struct admit_conn *prev, *next; /* in the waiting queue or the served list */
} admit_conn;

struct admit_peer {
    unsigned char key[16]; /* IPv4 addresses use the first 4 bytes */
    int key_len;
    int served;  /* connections handed to libmicrohttpd and not closed */
    int waiting; /* connections in the queue */
    admit_peer *next;
};

typedef struct conn_list {
    admit_conn *head, *tail;
    int n;
} conn_list;

struct http_admit {
    http_limits lim;
    int listen_fd;
    struct MHD_Daemon *mhd;
    int wake[2];         /* a byte here wakes the thread (a slot freed, stop) */
    atomic_int stopping; /* http_admit_stop was called */
    pthread_t thread;
    int thread_started;
    double accept_paused_until; /* out of file descriptors: accept again then */
    double emfile_logged;       /* when that was last logged */
    pthread_mutex_t mu;         /* guards everything below */
    conn_list waiting;          /* oldest first */
    conn_list served;           /* CONN_STARTING and CONN_SERVED */
    admit_peer *buckets[ADMIT_BUCKETS];
    http_admit_stats stats;
};

/* --- helpers ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void list_push(conn_list *l, admit_conn *c)
{
    c->prev = l->tail;
    c->next = NULL;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    l->n++;
}

static void list_unlink(conn_list *l, admit_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        l->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        l->tail = c->prev;
    c->prev = c->next = NULL;
    l->n--;
}

static void wake_thread(http_admit *a)
{
    unsigned char b = 1;
    (void)!write(a->wake[1], &b, 1);
}

/* --- peers ------------------------------------------------------------------- */

/* The address bytes that identify a client (IPv4-mapped IPv6 as IPv4). */
static int peer_key(const struct sockaddr_storage *ss, unsigned char key[16])
{
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)ss;
        memcpy(key, &in->sin_addr, 4);
        return 4;
    }
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)ss;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            memcpy(key, in6->sin6_addr.s6_addr + 12, 4);
            return 4;
        }
        memcpy(key, &in6->sin6_addr, 16);
        return 16;
    }
    return 0; /* other families share one entry */
}

static unsigned peer_hash(const unsigned char *key, int len)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < len; i++)
        h = (h ^ key[i]) * 16777619u;
    return h % ADMIT_BUCKETS;
}

/* The peer of addr, created when new; NULL when out of memory. */
static admit_peer *peer_get_locked(http_admit *a, const struct sockaddr_storage *addr)
{
    unsigned char key[16];
    int len = peer_key(addr, key);
    unsigned h = peer_hash(key, len);
    for (admit_peer *p = a->buckets[h]; p; p = p->next)
        if (p->key_len == len && memcmp(p->key, key, (size_t)len) == 0)
            return p;
    admit_peer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    memcpy(p->key, key, (size_t)len);
    p->key_len = len;
    p->next = a->buckets[h];
    a->buckets[h] = p;
    return p;
}

/* Forget a peer with nothing served or waiting. */
static void peer_drop_if_unused_locked(http_admit *a, admit_peer *peer)
{
    if (peer->served || peer->waiting)
        return;
    unsigned h = peer_hash(peer->key, peer->key_len);
    for (admit_peer **p = &a->buckets[h]; *p; p = &(*p)->next) {
        if (*p == peer) {
            *p = peer->next;
            free(peer);
            return;
        }
    }
}

/* --- answering without libmicrohttpd ------------------------------------------ */

/* Answer a connection that gets no thread with a bare HTTP response and
 * close it. Whatever the client already sent is read first, so the close
 * does not turn into a reset that could discard the answer. */
static void conn_refuse(int fd, int status, const char *message)
{
    char sink[4096];
    for (int i = 0; i < 16 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++)
        ;
    char body[256], head[512];
    int blen =
        snprintf(body, sizeof body,
                 "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,\"message\":\"%s\"}}", message);
    int hlen = snprintf(head, sizeof head,
                        "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s"
                        "Connection: close\r\nContent-Length: %d\r\n\r\n",
                        status, status == 503 ? "Service Unavailable" : "Request Timeout",
                        status == 503 ? "Retry-After: 1\r\n" : "", blen);
    (void)!send(fd, head, (size_t)hlen, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)!send(fd, body, (size_t)blen, MSG_DONTWAIT | MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
}

/* --- the queue and the served list ---------------------------------------------- */

static void conn_free_locked(http_admit *a, admit_conn *c)
{
    if (c->peer) {
        if (c->state == CONN_WAITING)
            c->peer->waiting--;
        else
            c->peer->served--;
        peer_drop_if_unused_locked(a, c->peer);
    }
    free(c);
}

static int may_serve_locked(const http_admit *a, const admit_peer *peer)
{
    return a->served.n < a->lim.max_connections && peer->served < a->lim.max_connections_per_ip;
}

/* Move c (not in a list) to the served list as CONN_STARTING. */
static void serve_locked(http_admit *a, admit_conn *c)
{
    if (c->state == CONN_WAITING) {
        c->peer->waiting--;
        a->stats.waited++;
    }
    c->state = CONN_STARTING;
    c->peer->served++;
    c->fresh = 1;
    c->since = now_s();
    list_push(&a->served, c);
}

/* Hand the connections of `batch` (linked by next, already in the served
 * list) to libmicrohttpd; called without the lock. */
static void hand_over(http_admit *a, admit_conn **batch, int n)
{
    for (int i = 0; i < n; i++) {
        admit_conn *c = batch[i];
        if (MHD_add_connection(a->mhd, c->fd, (const struct sockaddr *)&c->addr, c->addrlen) ==
            MHD_YES)
            continue;
        /* libmicrohttpd closed the socket */
        pthread_mutex_lock(&a->mu);
        if (c->state == CONN_STARTING) {
            list_unlink(&a->served, c);
            conn_free_locked(a, c);
        }
        pthread_mutex_unlock(&a->mu);
    }
}

/* A socket number libmicrohttpd closed without announcing the connection
 * (it could not start it) is reused by a new accept: drop the stale entry. */
static void drop_stale_locked(http_admit *a, int fd)
{
    for (admit_conn *c = a->served.head; c; c = c->next) {
        if (c->fd == fd && c->state == CONN_STARTING) {
            list_unlink(&a->served, c);
            conn_free_locked(a, c);
            return;
        }
    }
}

/* A newly accepted socket: serve, queue or refuse. Returns the connection
 * to hand over (in the served list), or NULL. */
static admit_conn *accept_one_locked(http_admit *a, int fd, const struct sockaddr_storage *addr,
                                     socklen_t addrlen)
{
    a->stats.accepted++;
    drop_stale_locked(a, fd);
    admit_conn *c = calloc(1, sizeof *c);
    admit_peer *peer = c ? peer_get_locked(a, addr) : NULL;
    if (!peer) {
        free(c);
        conn_refuse(fd, 503, "Server busy: out of memory");
        close(fd);
        a->stats.refused++;
        return NULL;
    }
    c->owner = a;
    c->fd = fd;
    c->addr = *addr;
    c->addrlen = addrlen;
    c->peer = peer;
    if (may_serve_locked(a, peer) && a->waiting.n == 0) {
        serve_locked(a, c);
        return c;
    }
    if (may_serve_locked(a, peer)) {
        /* others wait, but not for this address's slot: first come, first
         * served only among those that could go in */
        int blocked = 1;
        for (admit_conn *w = a->waiting.head; w && blocked; w = w->next)
            blocked = w->peer->served >= a->lim.max_connections_per_ip;
        if (blocked) {
            serve_locked(a, c);
            return c;
        }
    }
    if (a->waiting.n < a->lim.max_waiting) {
        c->state = CONN_WAITING;
        c->since = now_s();
        peer->waiting++;
        list_push(&a->waiting, c);
        return NULL;
    }
    c->state = CONN_WAITING;
    peer->waiting++;
    conn_free_locked(a, c);
    conn_refuse(fd, 503, "Server busy: too many connections");
    close(fd);
    a->stats.refused++;
    return NULL;
}

/* Move waiting connections into free slots, oldest first, skipping those
 * whose address is at its cap. Fills batch (at most max) and returns how
 * many to hand over. */
static int admit_waiting_locked(http_admit *a, admit_conn **batch, int max)
{
    int n = 0;
    admit_conn *c = a->waiting.head;
    while (c && n < max && a->served.n < a->lim.max_connections) {
        admit_conn *next = c->next;
        if (c->peer->served < a->lim.max_connections_per_ip) {
            list_unlink(&a->waiting, c);
            serve_locked(a, c);
            batch[n++] = c;
        }
        c = next;
    }
    return n;
}

/* Refuse connections that waited longer than wait_timeout_s (all of them
 * when stopping). */
static void expire_waiting_locked(http_admit *a, double now, int all)
{
    while (a->waiting.head) {
        admit_conn *c = a->waiting.head;
        if (!all && now - c->since < a->lim.wait_timeout_s)
            break;
        list_unlink(&a->waiting, c);
        conn_refuse(c->fd, 503,
                    all ? "Server is shutting down" : "Server busy: no connection slot in time");
        close(c->fd);
        a->stats.refused++;
        conn_free_locked(a, c);
    }
}

/* The read deadline of a served connection in its phase, or 0 for none. */
static double deadline_of(const http_admit *a, const admit_conn *c)
{
    if (c->state != CONN_SERVED || c->cut)
        return 0;
    switch (c->phase) {
    case ADMIT_HEADERS: return c->since + a->lim.header_timeout_s;
    case ADMIT_BODY: return c->since + a->lim.body_timeout_s;
    case ADMIT_IDLE: return c->since + (c->fresh ? a->lim.header_timeout_s : a->lim.idle_timeout_s);
    case ADMIT_BUSY: return 0;
    }
    return 0;
}

/* Shut down served connections past their deadline. libmicrohttpd's
 * thread then sees the socket end and closes the connection. */
static void enforce_deadlines_locked(http_admit *a, double now)
{
    for (admit_conn *c = a->served.head; c; c = c->next) {
        double deadline = deadline_of(a, c);
        if (deadline == 0 || now < deadline)
            continue;
        c->cut = 1;
        if (c->phase == ADMIT_HEADERS || (c->phase == ADMIT_IDLE && c->fresh)) {
            a->stats.cut_headers++;
            if (c->phase == ADMIT_HEADERS)
                conn_refuse(c->fd, 408, "Request Timeout: headers too slow");
        } else if (c->phase == ADMIT_BODY) {
            a->stats.cut_body++;
            conn_refuse(c->fd, 408, "Request Timeout: body too slow");
        } else {
            a->stats.cut_idle++;
        }
        shutdown(c->fd, SHUT_RDWR);
    }
}

/* --- the thread ------------------------------------------------------------------ */

static void drain_wake(http_admit *a)
{
    unsigned char buf[64];
    while (read(a->wake[0], buf, sizeof buf) > 0)
        ;
}

/* Accept what is pending (up to a batch); returns connections to hand
 * over in batch. */
static int accept_pending(http_admit *a, admit_conn **batch, int max)
{
    int n = 0;
    for (int i = 0; i < ADMIT_ACCEPT_BATCH && n < max; i++) {
        struct sockaddr_storage addr;
        socklen_t len = sizeof addr;
        int fd =
            accept4(a->listen_fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) {
                /* connections stay in the kernel's backlog meanwhile */
                double now = now_s();
                a->accept_paused_until = now + 0.1;
                if (now - a->emfile_logged > 10) {
                    log_msg(LOG_WARN, "http", "accept: %s; raise the open files limit",
                            strerror(errno));
                    a->emfile_logged = now;
                }
            }
            break;
        }
        pthread_mutex_lock(&a->mu);
        admit_conn *c = accept_one_locked(a, fd, &addr, len);
        pthread_mutex_unlock(&a->mu);
        if (c)
            batch[n++] = c;
    }
    return n;
}

static void *admit_main(void *arg)
{
    http_admit *a = arg;
    admit_conn *batch[ADMIT_ACCEPT_BATCH];
    while (!atomic_load(&a->stopping)) {
        struct pollfd p[2] = {{.fd = a->wake[0], .events = POLLIN},
                              {.fd = a->listen_fd, .events = POLLIN}};
        int accepting = now_s() >= a->accept_paused_until;
        int rc = poll(p, accepting ? 2 : 1, accepting ? ADMIT_TICK_MS : 100);
        if (rc < 0 && errno != EINTR) {
            log_msg(LOG_ERROR, "http", "admission poll: %s", strerror(errno));
            break;
        }
        if (atomic_load(&a->stopping))
            break;
        if (p[0].revents & POLLIN)
            drain_wake(a);
        if (accepting && (p[1].revents & POLLIN)) {
            int n = accept_pending(a, batch, ADMIT_ACCEPT_BATCH);
            hand_over(a, batch, n);
        }
        pthread_mutex_lock(&a->mu);
        int n = admit_waiting_locked(a, batch, ADMIT_ACCEPT_BATCH);
        double now = now_s();
        expire_waiting_locked(a, now, 0);
        enforce_deadlines_locked(a, now);
        pthread_mutex_unlock(&a->mu);
        hand_over(a, batch, n);
    }
    return NULL;
}

/* --- libmicrohttpd callbacks -------------------------------------------------------- */

void http_admit_on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    http_admit *a = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        int fd = info ? info->connect_fd : -1;
        pthread_mutex_lock(&a->mu);
        for (admit_conn *c = a->served.head; c; c = c->next) {
            if (c->fd == fd && c->state == CONN_STARTING) {
                c->state = CONN_SERVED;
                c->phase = ADMIT_IDLE;
                c->since = now_s();
                *socket_context = c;
                break;
            }
        }
        pthread_mutex_unlock(&a->mu);
        return;
    }
    admit_conn *c = *socket_context;
    if (!c)
        return;
    *socket_context = NULL;
    pthread_mutex_lock(&a->mu);
    list_unlink(&a->served, c);
    conn_free_locked(a, c);
    pthread_mutex_unlock(&a->mu);
    wake_thread(a); /* a slot is free */
}

static admit_conn *conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void *http_admit_on_request_line(void *cls, const char *uri, struct MHD_Connection *mc)
{
    (void)cls;
    (void)uri;
    http_admit_phase(mc, ADMIT_HEADERS);
    return NULL;
}

void http_admit_phase(struct MHD_Connection *mc, admit_phase phase)
{
    admit_conn *c = conn_of(mc);
    if (!c)
        return;
    http_admit *a = c->owner;
    pthread_mutex_lock(&a->mu);
    if (phase != c->phase) {
        c->phase = phase;
        c->since = now_s();
    }
    if (phase != ADMIT_IDLE)
        c->fresh = 0;
    pthread_mutex_unlock(&a->mu);
}

/* --- lifecycle ------------------------------------------------------------------------ */

int http_admit_create(const http_limits *limits, int listen_fd, http_admit **out, dbmcp_error *err)
{
    *out = NULL;
    http_admit *a = calloc(1, sizeof *a);
    if (!a)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "http: out of memory");
    a->lim = *limits;
    a->listen_fd = listen_fd;
    a->wake[0] = a->wake[1] = -1;
    atomic_init(&a->stopping, 0);
    pthread_mutex_init(&a->mu, NULL);
    int flags = fcntl(listen_fd, F_GETFL, 0);
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
        pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        int rc = dbmcp_error_set(err, DBMCP_EIO, "http: admission setup: %s", strerror(errno));
        http_admit_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

int http_admit_start(http_admit *a, struct MHD_Daemon *mhd, dbmcp_error *err)
{
    a->mhd = mhd;
    if (pthread_create(&a->thread, NULL, admit_main, a) != 0)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "http: cannot start the accepting thread");
    a->thread_started = 1;
    return 0;
}

void http_admit_stop(http_admit *a)
{
    if (!a || atomic_exchange(&a->stopping, 1))
        return;
    wake_thread(a);
    if (a->thread_started)
        pthread_join(a->thread, NULL);
    a->thread_started = 0;
    if (a->listen_fd >= 0)
        close(a->listen_fd);
    a->listen_fd = -1;
    pthread_mutex_lock(&a->mu);
    expire_waiting_locked(a, now_s(), 1);
    pthread_mutex_unlock(&a->mu);
}

void http_admit_stats_get(http_admit *a, http_admit_stats *out)
{
    pthread_mutex_lock(&a->mu);
    *out = a->stats;
    out->served_now = (unsigned long)a->served.n;
    out->waiting_now = (unsigned long)a->waiting.n;
    pthread_mutex_unlock(&a->mu);
}

void http_admit_free(http_admit *a)
{
    if (!a)
        return;
    http_admit_stop(a);
    /* libmicrohttpd has stopped: whatever is left was never announced */
    while (a->served.head) {
        admit_conn *c = a->served.head;
        list_unlink(&a->served, c);
        conn_free_locked(a, c);
    }
    for (int i = 0; i < ADMIT_BUCKETS; i++) {
        while (a->buckets[i]) {
            admit_peer *p = a->buckets[i];
            a->buckets[i] = p->next;
            free(p);
        }
    }
    if (a->wake[0] >= 0)
        close(a->wake[0]);
    if (a->wake[1] >= 0)
        close(a->wake[1]);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
