/*
 * http.c — the Streamable HTTP transport on libmicrohttpd; see http.h for
 * the behaviour and the status codes.
 *
 * libmicrohttpd calls on_request on a thread per connection. The first
 * call of a request sees only its headers: routing, Host/Origin, method,
 * auth and Accept are decided there, so refusals never read a body. Body
 * bytes are then collected up to max_body. The last call parses the
 * message and either answers at once (errors, notifications, responses,
 * `initialize`) or starts a worker thread that runs mcp_handle while the
 * connection thread waits for its first output and picks JSON or SSE.
 *
 * An http_stream is where the threads of one exchange meet: the connection
 * thread (which pulls bytes through a blocking content reader — fine with a
 * thread per connection), the worker running mcp_handle, and whoever calls
 * the sink. It holds a queue of encoded SSE bytes under a mutex plus two
 * flags: `ended` (no more output; finish after draining) and `gone` (the
 * peer left or stopped reading; drop everything). Legacy sessions live in
 * the database (mcp/server.h, "sessions in the database"), so that any
 * replica serves them; this process keeps the ones it serves in a table of
 * http_session entries, a cache: an unknown Mcp-Session-Id is loaded from
 * the database, a known one is checked against its row on every request,
 * and dropping an entry ends nothing but the copy. A session's sink points
 * at its entry, which forwards to whichever GET stream is open, so opening,
 * replacing and closing GET streams never has to touch the server's sink.
 *
 * Lock order: entry sink_mu → stream mu. The daemon's mu and table_mu are
 * never held while taking another lock of this file.
 */
#include "transport/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/json_write.h"
#include "core/log.h"
#include "core/trace.h"
#include "mcp/oidc.h"
#include "transport/chat.h"
#include "transport/http_admit.h"
#include "transport/http_observe.h"
#include "web/console.h"

#define HTTP_DEFAULT_MAX_BODY ((size_t)4 * 1024 * 1024)
#define HTTP_STREAM_MAX_BUFFER (32u * 1024 * 1024) /* unsent bytes before a reader is "gone" */
#define HTTP_DISCARD_FACTOR 4   /* oversized bodies are read up to this × max_body, then cut */
#define HTTP_KEEPALIVE_S 15.0   /* SSE comment after this much silence */
#define HTTP_JSON_GRACE_S 1.0   /* an answer ready this soon, alone, goes out as JSON */
#define HTTP_POLL_S 1.0         /* how often blocked waits look at the peer and shutdown */
#define HTTP_STREAM_DRAIN_S 3.0 /* shutdown: time streams get to flush their last bytes */
#define HTTP_SWEEP_S 5.0        /* how often idle sessions are expired */
#define HTTP_STREAM_LEASE_S 15  /* a GET stream keeps its session this long per renewal */
#define HTTP_THREAD_STACK ((size_t)1024 * 1024)
#define HTTP_FD_RESERVE 256 /* descriptors kept for the database, logs and pipes */
#define HTTP_SSE_BLOCK 16384

#define CT_JSON "application/json"

typedef struct http_daemon http_daemon;
typedef struct http_stream http_stream;

/* W3C Trace Context request headers, copied for the worker ("" = absent or
 * longer than the bound: core/trace.h checks the format). */
typedef struct http_trace {
    char parent[TRACE_PARENT_MAX + 1];
    char state[TRACE_STATE_MAX + 1];
} http_trace;
typedef struct http_session http_session;

/* Requests running with one API key ("" without auth). */
typedef struct key_load {
    char key_id[sizeof((mcp_identity *)0)->key_id];
    int calls;
} key_load;

typedef enum stream_kind {
    STREAM_CALL, /* the reply to one POSTed request (JSON or SSE) */
    STREAM_GET   /* a legacy session's GET stream */
} stream_kind;

typedef enum stream_mode {
    MODE_PENDING, /* the connection has not chosen how to answer yet */
    MODE_JSON,    /* answered with one application/json body */
    MODE_SSE      /* answering with text/event-stream */
} stream_mode;

struct http_stream {
    http_daemon *hd;
    stream_kind kind;
    int refs;                    /* guarded by mu */
    pthread_mutex_t mu;          /* guards everything below */
    pthread_cond_t cond;         /* broadcast on every change */
    struct MHD_Connection *conn; /* valid while the connection runs this request */
    int fd;                      /* its socket, probed to notice a vanished peer */
    char *buf;                   /* encoded SSE bytes; unsent part is buf[off..len) */
    size_t off, len, cap;
    double last_write; /* monotonic time of the last bytes handed out */
    int ended;         /* no more output will come */
    int gone;          /* the peer left or stopped reading */
    int cancelled;     /* mcp_session_cancel_all was called for it */
    int revoked;       /* its API key was revoked: end it (listen streams too) */
    /* STREAM_CALL */
    jsonrpc_msg *msg;     /* the request (owned) */
    mcp_session *session; /* a reference: per-request (modern) or the legacy session */
    http_session *entry;  /* legacy table entry (a reference), or NULL; GET streams too */
    int modern;           /* modern era: stateless, disconnect cancels */
    int json_ok, sse_ok;  /* what the client's Accept allows */
    stream_mode mode;     /* chosen by the connection thread */
    int done;             /* the worker has the final response */
    json_t *response;     /* the final response until it is sent (owned) */
    int listening;        /* mcp_handle opened a listen stream (ctx.keep_open) */
    char model[129];      /* Dbmcp-Model request header, for the audit ("" = none) */
    http_trace trace;     /* traceparent/tracestate request headers */
    http_stream *prev_active, *next_active; /* daemon's list of running workers */
};

struct http_session {
    http_session *next; /* guarded by table_mu */
    char *id;           /* Mcp-Session-Id */
    size_t id_len;
    mcp_session *session;                           /* the table's reference; NULL once removed */
    char key_id[sizeof((mcp_identity *)0)->key_id]; /* key that created it */
    int refs;                                       /* table + users; guarded by table_mu */
    int in_table;                                   /* guarded by table_mu */
    double last_used;                               /* guarded by table_mu */
    pthread_mutex_t sink_mu;                        /* guards get_stream */
    http_stream *get_stream;                        /* the open GET stream, or NULL */
};

struct http_daemon {
    mcp_server *srv;
    const mcp_identity *anonymous; /* identity for no_auth */
    int no_auth;
    const char **allowed_origins;
    size_t max_body;
    http_limits lim;                       /* complete (defaults filled in) */
    int loopback;                          /* bound to a loopback address */
    char bind_host[INET6_ADDRSTRLEN + 2];  /* "127.0.0.1" or "[::1]" */
    char authority[INET6_ADDRSTRLEN + 10]; /* "HOST:PORT" once bound */
    int fleet_beat_s;                      /* setting fleet.heartbeat_s */
    int fleet_expire_s;                    /* setting fleet.expire_s */
    int beat_failed;                       /* the last heartbeat failed (logged) */
    char public_url[512];                  /* configured public base URL, "" = none */
    char public_origin[512];               /* its scheme://authority, "" = none */
    char public_host[256];                 /* its host, "" = none */
    http_metrics_config metrics;           /* who may read /metrics and /status */
    mcp_oidc *oidc;               /* single sign-on (mcp/oidc.h); off without oidc.issuer */
    struct sockaddr_storage addr; /* where to listen */
    int ipv6;
    unsigned port; /* as configured; 0 = any */
    struct MHD_Daemon *mhd;
    int listen_fd;       /* until admission takes it over */
    http_admit *admit;   /* accepts, queues and times connections */
    atomic_int stopping; /* a signal came: refuse new work, end GET streams */
    atomic_int aborting; /* the drain time is over: cut everything */
    pthread_mutex_t mu;  /* guards the counters and the active list */
    pthread_cond_t cond; /* broadcast when a worker or stream ends */
    int calls;           /* workers inside mcp_handle (capped) */
    int workers;         /* worker threads alive */
    int streams;         /* http_stream objects alive */
    http_stream *active; /* streams whose worker runs */
    key_load *loads;     /* calls per API key, for the keys with calls running */
    size_t nloads, loads_cap;
    pthread_mutex_t table_mu;
    http_session *sessions; /* the sessions this process serves (a cache of the database's) */
    size_t nsessions;
    unsigned long evicted; /* idle copies dropped to make room; guarded by table_mu */
    unsigned long dropped; /* sessions ended for their key's room; guarded by table_mu */
};

/* Per-request state handed to libmicrohttpd as con_cls. */
typedef struct http_request {
    int responded; /* a reply is queued; ignore further calls */
    char *body;    /* the POST body so far */
    size_t len, cap;
    int too_big;         /* over max_body: discarding */
    size_t discarded;    /* bytes thrown away while too_big */
    int json_ok, sse_ok; /* from Accept */
    mcp_identity who;    /* the caller, after auth */
    int auth_refusal;    /* why auth failed: 0 no or bad credentials, else an oidc_refusal */
    int chat;            /* POST /v1/chat (transport/chat.h) */
    int admin;           /* a POST under /admin/ (web/console.h) */
    http_stream *stream; /* a reference, when the request got a stream */
} http_request;

/* --- time and waiting ---------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

/* Wait on c for at most `seconds`; callers loop on their own condition. */
static void cond_wait_for(pthread_cond_t *c, pthread_mutex_t *m, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (seconds < 0)
        seconds = 0;
    long whole = (long)seconds;
    long ns = ts.tv_nsec + (long)((seconds - (double)whole) * 1e9);
    ts.tv_sec += whole + ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(c, m, &ts);
}

/* --- strings and headers ------------------------------------------------- */

/* Clients and gateways name the model they relay for in this header; it
 * goes to the audit (params._meta["dbmcp/model"] works on every transport). */
#define HTTP_MODEL_HEADER "Dbmcp-Model"

static const char *header(struct MHD_Connection *c, const char *name);

static void copy_bounded_header(struct MHD_Connection *c, const char *name, char *out, size_t size)
{
    const char *v = header(c, name);
    out[0] = '\0';
    if (v && strlen(v) < size)
        memcpy(out, v, strlen(v) + 1);
}

static void trace_headers_read(struct MHD_Connection *c, http_trace *t)
{
    copy_bounded_header(c, "traceparent", t->parent, sizeof t->parent);
    copy_bounded_header(c, "tracestate", t->state, sizeof t->state);
}

static void trace_headers_to_ctx(const http_trace *t, mcp_call_ctx *ctx)
{
    ctx->traceparent = t->parent[0] ? t->parent : NULL;
    ctx->tracestate = t->state[0] ? t->state : NULL;
}

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* A header's value without surrounding whitespace (RFC 9110 OWS), or 0
 * when it is absent. */
static int header_view(struct MHD_Connection *c, const char *name, const char **v, size_t *n)
{
    const char *raw = header(c, name);
    if (!raw)
        return 0;
    *v = raw;
    *n = strlen(raw);
    trim(v, n);
    return 1;
}

/* Copy a trimmed header into buf; NULL when absent or longer than buf. */
static const char *header_copy(struct MHD_Connection *c, const char *name, char *buf, size_t size)
{
    const char *v;
    size_t n;
    if (!header_view(c, name, &v, &n) || n >= size)
        return NULL;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return buf;
}

static int view_equals(const char *v, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(v, s, n) == 0;
}

static int view_iequals(const char *v, size_t n, const char *s)
{
    return strlen(s) == n && strncasecmp(v, s, n) == 0;
}

/* Header values are visible ASCII, space and tab (RFC 9110 §5.5). */
static int header_chars_valid(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        if (ch != '\t' && (ch < 0x20 || ch > 0x7e))
            return 0;
    }
    return 1;
}

/* --- addresses, Host and Origin ------------------------------------------ */

static int addr_is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
            return 1;
        return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
    }
    return 0;
}

/* Split "HOST:PORT" / "[V6]:PORT" / "PORT" into host text and port text. */
static int bind_split(const char *spec, char *host, size_t host_size, const char **port,
                      int *bracketed, dbmcp_error *err)
{
    const char *h = "127.0.0.1";
    size_t hn = strlen(h);
    *bracketed = 0;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':')
            return dbmcp_error_set(err, DBMCP_EINVAL, "bind '%s': expected [IPV6]:PORT", spec);
        h = spec + 1;
        hn = (size_t)(close - h);
        *port = close + 2;
        *bracketed = 1;
    } else {
        const char *colon = strrchr(spec, ':');
        if (!colon) {
            *port = spec;
        } else {
            if (memchr(spec, ':', (size_t)(colon - spec)))
                return dbmcp_error_set(err, DBMCP_EINVAL,
                                       "bind '%s': IPv6 addresses need brackets: [::1]:PORT", spec);
            if (colon > spec) {
                h = spec;
                hn = (size_t)(colon - spec);
            }
            *port = colon + 1;
        }
    }
    if (hn == 0 || hn >= host_size)
        return dbmcp_error_set(err, DBMCP_EINVAL, "bind '%s': bad host", spec);
    memcpy(host, h, hn);
    host[hn] = '\0';
    return 0;
}

static int port_parse(const char *s, unsigned *out)
{
    size_t n = strlen(s);
    if (n == 0 || n > 5)
        return -1;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > 65535)
        return -1;
    *out = v;
    return 0;
}

/* Resolve cfg->bind into hd->addr, hd->ipv6, hd->loopback, hd->bind_host. */
static int bind_resolve(http_daemon *hd, const char *spec, dbmcp_error *err)
{
    char host[256];
    const char *port_text = NULL;
    int bracketed = 0;
    unsigned port;
    if (!spec || !*spec)
        return dbmcp_error_set(err, DBMCP_EINVAL, "http: no bind address (HOST:PORT)");
    if (bind_split(spec, host, sizeof host, &port_text, &bracketed, err) != 0)
        return err ? err->code : DBMCP_EINVAL;
    if (port_parse(port_text, &port) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "bind '%s': bad port", spec);
    if (strcasecmp(host, "localhost") == 0)
        strcpy(host, "127.0.0.1");

    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = bracketed ? AF_INET6 : AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | (bracketed ? AI_NUMERICHOST : 0);
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0 || !res)
        return dbmcp_error_set(err, DBMCP_EINVAL, "bind '%s': %s", spec, gai_strerror(rc));
    memcpy(&hd->addr, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);

    char text[INET6_ADDRSTRLEN];
    if (hd->addr.ss_family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)&hd->addr;
        in6->sin6_port = htons((uint16_t)port);
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        snprintf(hd->bind_host, sizeof hd->bind_host, "[%s]", text);
        hd->ipv6 = 1;
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)(void *)&hd->addr;
        in->sin_port = htons((uint16_t)port);
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        snprintf(hd->bind_host, sizeof hd->bind_host, "%s", text);
    }
    hd->loopback = addr_is_loopback((struct sockaddr *)&hd->addr);
    hd->port = port;
    return 0;
}

/* Split an authority "host[:port]" (host may be "[v6]"); 0 when malformed. */
static int authority_host(const char *s, size_t n, const char **host, size_t *host_len)
{
    const char *end = s + n;
    const char *p;
    if (n == 0)
        return 0;
    if (*s == '[') {
        p = memchr(s, ']', n);
        if (!p)
            return 0;
        p++;
    } else {
        p = memchr(s, ':', n);
        if (!p)
            p = end;
    }
    *host = s;
    *host_len = (size_t)(p - s);
    if (*host_len == 0)
        return 0;
    if (p == end)
        return 1;
    if (*p != ':' || p + 1 == end || end - (p + 1) > 5)
        return 0;
    for (p++; p < end; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

static int host_is_loopback_name(const char *h, size_t n)
{
    return view_iequals(h, n, "localhost") || view_equals(h, n, "127.0.0.1") ||
           view_equals(h, n, "[::1]");
}

/* DNS rebinding: on a loopback bind the Host must name loopback. A request
 * without Host (HTTP/1.0) comes from no browser and passes. */
static int host_allowed(const http_daemon *hd, const char *value)
{
    const char *h;
    size_t hn;
    if (!hd->loopback || !value)
        return 1;
    if (!authority_host(value, strlen(value), &h, &hn))
        return 0;
    return host_is_loopback_name(h, hn) || view_iequals(h, hn, hd->bind_host) ||
           (hd->public_host[0] && view_iequals(h, hn, hd->public_host));
}

/* An Origin passes when listed in allowed_origins or when it is an
 * http(s) origin on a loopback host (any port). "null" never passes. */
static int origin_allowed(const http_daemon *hd, const char *origin)
{
    for (const char **o = hd->allowed_origins; o && *o; o++)
        if (strcasecmp(*o, origin) == 0)
            return 1;
    if (hd->public_origin[0] && strcasecmp(hd->public_origin, origin) == 0)
        return 1;
    const char *rest;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    else
        return 0;
    const char *h;
    size_t hn;
    if (!authority_host(rest, strlen(rest), &h, &hn))
        return 0;
    return host_is_loopback_name(h, hn);
}

/* "http://HOST:PORT" as the client addressed us: the Host header when it
 * is a plain authority, else the bind address. */
static void public_base(const http_daemon *hd, struct MHD_Connection *c, char *out, size_t size)
{
    if (hd->public_url[0]) {
        snprintf(out, size, "%s", hd->public_url);
        return;
    }
    const char *host = header(c, "Host");
    size_t n = host ? strlen(host) : 0;
    int ok = n > 0 && n < 256;
    for (size_t i = 0; ok && i < n; i++) {
        char ch = host[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '.' || ch == '-' || ch == ':' || ch == '[' || ch == ']';
    }
    snprintf(out, size, "http://%s", ok ? host : hd->authority);
}

/* --- Accept -------------------------------------------------------------- */

/* Nonzero when a media range's parameters say q=0 (not acceptable). */
static int accept_q_zero(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char num[16];
            size_t n = 0;
            for (p += 2; p < end && *p != ';' && n + 1 < sizeof num; p++)
                num[n++] = *p;
            num[n] = '\0';
            return strtod(num, NULL) <= 0.0;
        }
        while (p < end && *p != ';')
            p++;
    }
    return 0;
}

static void accept_range(const char *item, size_t n, int *json_ok, int *sse_ok)
{
    const char *end = item + n;
    const char *semi = memchr(item, ';', n);
    const char *m = item;
    size_t mn = (size_t)((semi ? semi : end) - item);
    trim(&m, &mn);
    if (semi && accept_q_zero(semi, end))
        return;
    if (view_iequals(m, mn, "*/*")) {
        *json_ok = *sse_ok = 1;
    } else if (view_iequals(m, mn, "application/json") || view_iequals(m, mn, "application/*")) {
        *json_ok = 1;
    } else if (view_iequals(m, mn, "text/event-stream") || view_iequals(m, mn, "text/*")) {
        *sse_ok = 1;
    }
}

/* Lenient: a missing or empty Accept allows both. */
static void accept_parse(const char *v, int *json_ok, int *sse_ok)
{
    size_t n = v ? strlen(v) : 0;
    trim(&v, &n);
    if (!v || n == 0) {
        *json_ok = *sse_ok = 1;
        return;
    }
    *json_ok = *sse_ok = 0;
    const char *end = v + n;
    while (v < end) {
        const char *comma = memchr(v, ',', (size_t)(end - v));
        const char *stop = comma ? comma : end;
        accept_range(v, (size_t)(stop - v), json_ok, sse_ok);
        v = comma ? comma + 1 : end;
    }
}

/* --- replies ------------------------------------------------------------- */

/* Queue a reply whose body is copied; `headers` is name,value,…,NULL. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *ctype,
                             const char *body, size_t len, const char *const *headers)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    if (ctype)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    for (; headers && headers[0] && headers[1]; headers += 2)
        MHD_add_response_header(r, headers[0], headers[1]);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* Queue a JSON reply; steals body. */
static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, json_t *body,
                                  const char *const *headers)
{
    char *text = body ? json_write_compact(body, NULL) : NULL;
    json_decref(body);
    if (!text) {
        static const char oom[] =
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}";
        return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, CT_JSON, oom, sizeof oom - 1, NULL);
    }
    enum MHD_Result ok = reply(c, status, CT_JSON, text, strlen(text), headers);
    free(text);
    return ok;
}

/* A JSON-RPC error object; a NULL id leaves "id" out, as the spec asks of
 * transport-level errors that answer no particular request. Steals data. */
static json_t *rpc_error(json_t *id, int code, const char *message, json_t *data)
{
    json_t *e = jsonrpc_error(id, code, message, data);
    if (e && !id)
        json_object_del(e, "id");
    return e;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, json_t *id, int code,
                                   const char *message, const char *const *headers)
{
    return reply_json(c, status, rpc_error(id, code, message, NULL), headers);
}

static enum MHD_Result reply_bad_request(struct MHD_Connection *c, json_t *id, const char *msg)
{
    return reply_error(c, MHD_HTTP_BAD_REQUEST, id, JSONRPC_INVALID_REQUEST, msg, NULL);
}

static enum MHD_Result reply_no_session(struct MHD_Connection *c, json_t *id)
{
    return reply_error(c, MHD_HTTP_NOT_FOUND, id, JSONRPC_INVALID_REQUEST, "Session not found",
                       NULL);
}

static enum MHD_Result reply_busy(struct MHD_Connection *c, json_t *id, const char *msg)
{
    static const char *const headers[] = {"Retry-After", "1", NULL};
    return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id, JSONRPC_INTERNAL_ERROR, msg, headers);
}

static enum MHD_Result reply_method_not_allowed(struct MHD_Connection *c, const char *allow)
{
    const char *const headers[] = {MHD_HTTP_HEADER_ALLOW, allow, NULL};
    return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, JSONRPC_INVALID_REQUEST,
                       "Method not allowed", headers);
}

/* 401 with the RFC 6750/9728 challenge; with single sign-on on, the
 * challenge also carries the scopes of oidc.scope_map, an error code when
 * a token was presented (RFC 6750 section 3.1), and an insufficient scope
 * is 403. */
static enum MHD_Result reply_unauthorized(const http_daemon *hd, struct MHD_Connection *c,
                                          int refusal)
{
    char base[520], scopes[OIDC_SCOPE_MAP_MAX + 1] = "", challenge[640 + sizeof scopes];
    public_base(hd, c, base, sizeof base);
    if (hd->oidc)
        mcp_oidc_scopes(hd->oidc, scopes, sizeof scopes);
    const char *error = refusal == OIDC_INSUFFICIENT_SCOPE ? "insufficient_scope"
                        : refusal == OIDC_INVALID_TOKEN    ? "invalid_token"
                                                           : NULL;
    int n = snprintf(challenge, sizeof challenge,
                     "Bearer resource_metadata=\"%s/.well-known/oauth-protected-resource\"", base);
    if (scopes[0] && n > 0 && (size_t)n < sizeof challenge)
        n += snprintf(challenge + n, sizeof challenge - (size_t)n, ", scope=\"%s\"", scopes);
    if (error && n > 0 && (size_t)n < sizeof challenge)
        snprintf(challenge + n, sizeof challenge - (size_t)n, ", error=\"%s\"", error);
    const char *const headers[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, challenge, NULL};
    if (refusal == OIDC_INSUFFICIENT_SCOPE)
        return reply_error(c, MHD_HTTP_FORBIDDEN, NULL, JSONRPC_INVALID_REQUEST,
                           "Forbidden: the token's scopes select no interface", headers);
    return reply_error(c, MHD_HTTP_UNAUTHORIZED, NULL, JSONRPC_INVALID_REQUEST,
                       hd->oidc && mcp_oidc_enabled(hd->oidc)
                           ? "Unauthorized: a valid bearer API key or access token is required"
                           : "Unauthorized: a valid bearer API key is required",
                       headers);
}

/* RFC 9728 protected resource metadata. */
static enum MHD_Result reply_resource_metadata(const http_daemon *hd, struct MHD_Connection *c)
{
    char base[520], resource[540];
    public_base(hd, c, base, sizeof base);
    snprintf(resource, sizeof resource, "%s/mcp", base);
    json_t *j = json_pack("{s:s, s:[s], s:s}", "resource", resource, "bearer_methods_supported",
                          "header", "resource_name", "dbmcp");
    char issuer[257] = "", scopes[OIDC_SCOPE_MAP_MAX + 1] = "";
    if (hd->oidc) {
        mcp_oidc_issuer(hd->oidc, issuer, sizeof issuer);
        mcp_oidc_scopes(hd->oidc, scopes, sizeof scopes);
    }
    if (j && issuer[0]) {
        json_object_set_new(j, "authorization_servers", json_pack("[s]", issuer));
        json_t *list = json_array();
        for (char *save = NULL, *sc = strtok_r(scopes, " ", &save); sc;
             sc = strtok_r(NULL, " ", &save))
            json_array_append_new(list, json_string(sc));
        json_object_set_new(j, "scopes_supported", list);
    }
    return reply_json(c, MHD_HTTP_OK, j, NULL);
}

/* --- streams ------------------------------------------------------------- */

static void table_release(http_daemon *hd, http_session *e);

static http_stream *stream_new(http_daemon *hd, stream_kind kind, struct MHD_Connection *conn)
{
    http_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->hd = hd;
    st->kind = kind;
    st->refs = 1;
    st->conn = conn;
    st->fd = -1;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info)
        st->fd = info->connect_fd;
    st->last_write = now_s();
    pthread_mutex_init(&st->mu, NULL);
    cond_init_monotonic(&st->cond);
    pthread_mutex_lock(&hd->mu);
    hd->streams++;
    pthread_mutex_unlock(&hd->mu);
    return st;
}

static void stream_ref(http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    st->refs++;
    pthread_mutex_unlock(&st->mu);
}

static void stream_unref(http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    int last = --st->refs == 0;
    pthread_mutex_unlock(&st->mu);
    if (!last)
        return;
    http_daemon *hd = st->hd;
    json_decref(st->response);
    jsonrpc_msg_free(st->msg);
    if (st->session)
        mcp_session_unref(st->session);
    if (st->entry)
        table_release(hd, st->entry);
    free(st->buf);
    pthread_cond_destroy(&st->cond);
    pthread_mutex_destroy(&st->mu);
    free(st);
    pthread_mutex_lock(&hd->mu);
    hd->streams--;
    pthread_cond_broadcast(&hd->cond);
    pthread_mutex_unlock(&hd->mu);
}

/* libmicrohttpd's free callback for a stream response. */
static void stream_response_free(void *cls)
{
    stream_unref(cls);
}

/* Append raw bytes; -1 when the unsent backlog would pass the cap. */
static int stream_write_locked(http_stream *st, const char *bytes, size_t n)
{
    if (st->len - st->off + n > HTTP_STREAM_MAX_BUFFER)
        return -1;
    if (st->off > 0 && st->len + n > st->cap) {
        memmove(st->buf, st->buf + st->off, st->len - st->off);
        st->len -= st->off;
        st->off = 0;
    }
    if (st->len + n > st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 4096;
        while (cap < st->len + n)
            cap *= 2;
        char *grown = realloc(st->buf, cap);
        if (!grown)
            return -1;
        st->buf = grown;
        st->cap = cap;
    }
    memcpy(st->buf + st->len, bytes, n);
    st->len += n;
    return 0;
}

/* Encode one JSON-RPC message as an SSE event. A peer that cannot keep up
 * (or memory running out) turns the stream to "gone". */
static int stream_event_locked(http_stream *st, json_t *msg)
{
    if (st->gone || st->ended)
        return -1;
    char *text = json_write_compact(msg, NULL);
    int rc = -1;
    if (text) {
        static const char head[] = "event: message\ndata: ";
        rc = stream_write_locked(st, head, sizeof head - 1);
        if (rc == 0)
            rc = stream_write_locked(st, text, strlen(text));
        if (rc == 0)
            rc = stream_write_locked(st, "\n\n", 2);
        free(text);
    }
    if (rc != 0)
        st->gone = 1;
    pthread_cond_broadcast(&st->cond);
    return rc;
}

/* mcp_sink.send for a request's own stream. */
static int stream_sink_send(void *ctx, json_t *msg)
{
    http_stream *st = ctx;
    pthread_mutex_lock(&st->mu);
    int rc = stream_event_locked(st, msg);
    pthread_mutex_unlock(&st->mu);
    return rc;
}

static void stream_end(http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    st->ended = 1;
    pthread_cond_broadcast(&st->cond);
    pthread_mutex_unlock(&st->mu);
}

/* The peer is gone: stop writing and, for a modern request still running,
 * cancel it (closing the response stream is the modern cancellation). */
static void stream_lost(http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    st->gone = 1;
    int cancel = st->kind == STREAM_CALL && st->modern && !st->done && !st->cancelled;
    if (cancel)
        st->cancelled = 1;
    pthread_cond_broadcast(&st->cond);
    pthread_mutex_unlock(&st->mu);
    if (cancel)
        mcp_session_cancel_all(st->session);
}

/* Whether the client still holds the connection: a peeked EOF or a reset
 * means it left. Pipelined bytes count as alive. */
static int peer_alive(int fd)
{
    if (fd < 0)
        return 1;
    char ch;
    ssize_t n = recv(fd, &ch, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        return 1;
    if (n == 0)
        return 0;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* stream_next_locked's answer when the client closed its end. */
#define STREAM_PEER_CLOSED ((ssize_t)-100)

/* The body of stream_reader: block until there are bytes, the end, or the
 * peer vanished; emit keep-alive comments meanwhile. */
static ssize_t stream_next_locked(http_stream *st, char *buf, size_t max)
{
    http_daemon *hd = st->hd;
    double last_probe = now_s();
    for (;;) {
        if (st->off < st->len) {
            size_t n = st->len - st->off < max ? st->len - st->off : max;
            memcpy(buf, st->buf + st->off, n);
            st->off += n;
            if (st->off == st->len)
                st->off = st->len = 0;
            st->last_write = now_s();
            return (ssize_t)n;
        }
        if (st->gone || atomic_load(&hd->aborting))
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (st->ended || (st->kind == STREAM_GET && atomic_load(&hd->stopping)))
            return MHD_CONTENT_READER_END_OF_STREAM;
        double now = now_s();
        if (now - st->last_write >= HTTP_KEEPALIVE_S) {
            static const char ka[] = ": keepalive\n\n";
            stream_write_locked(st, ka, sizeof ka - 1);
            continue;
        }
        if (now - last_probe >= HTTP_POLL_S) {
            if (!peer_alive(st->fd))
                return STREAM_PEER_CLOSED;
            last_probe = now;
        }
        cond_wait_for(&st->cond, &st->mu, HTTP_POLL_S);
    }
}

/* libmicrohttpd content reader for SSE responses. */
static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    http_stream *st = cls;
    (void)pos;
    pthread_mutex_lock(&st->mu);
    ssize_t n = stream_next_locked(st, buf, max);
    pthread_mutex_unlock(&st->mu);
    if (n == STREAM_PEER_CLOSED) {
        /* An orderly end towards a closed socket: nothing to report. */
        stream_lost(st);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if (n == MHD_CONTENT_READER_END_WITH_ERROR)
        stream_lost(st);
    else if (n == MHD_CONTENT_READER_END_OF_STREAM)
        MHD_set_connection_option(st->conn, MHD_CONNECTION_OPTION_TIMEOUT,
                                  (unsigned)st->hd->lim.idle_timeout_s);
    return n;
}

/* Queue the SSE response reading from st. libmicrohttpd sends the headers
 * only with the first body bytes, so an empty stream starts with a comment.
 * Open streams are exempt from the idle timeout; the reader restores it
 * when the stream ends. */
static enum MHD_Result stream_queue(http_daemon *hd, struct MHD_Connection *c, http_stream *st,
                                    const char *const *headers)
{
    (void)hd;
    pthread_mutex_lock(&st->mu);
    if (st->len == st->off)
        stream_write_locked(st, ":\n\n", 3);
    pthread_mutex_unlock(&st->mu);
    struct MHD_Response *r = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, HTTP_SSE_BLOCK, stream_reader, st, stream_response_free);
    if (!r)
        return MHD_NO;
    stream_ref(st);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    for (; headers && headers[0] && headers[1]; headers += 2)
        MHD_add_response_header(r, headers[0], headers[1]);
    MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

/* --- the legacy session table -------------------------------------------- */

/* mcp_sink.send of a legacy session: forward to its GET stream, if any. */
static int entry_sink_send(void *ctx, json_t *msg)
{
    http_session *e = ctx;
    pthread_mutex_lock(&e->sink_mu);
    int rc = e->get_stream ? stream_sink_send(e->get_stream, msg) : -1;
    pthread_mutex_unlock(&e->sink_mu);
    return rc;
}

static void entry_free(http_session *e)
{
    pthread_mutex_destroy(&e->sink_mu);
    free(e->id);
    free(e);
}

static void table_remove(http_daemon *hd, http_session *e);

/* Whether one more entry fits; when not, the entry to drop for it: the
 * least recently used idle one. An entry is idle when only the table
 * holds it (no request running, no GET stream). Dropping a copy ends
 * nothing (the session lives on in the database and is loaded again when
 * used). Returns the victim with a reference, or NULL (then *room says
 * whether the new entry fits). */
static http_session *table_victim_locked(http_daemon *hd, int *room)
{
    http_session *oldest = NULL;
    for (http_session *e = hd->sessions; e; e = e->next)
        if (e->refs == 1 && (!oldest || e->last_used < oldest->last_used))
            oldest = e;
    *room = hd->nsessions < (size_t)hd->lim.max_sessions;
    http_session *victim = *room ? NULL : oldest;
    if (victim)
        victim->refs++;
    return victim;
}

/* An entry of s's id already in the table (a reference), or NULL. */
static http_session *table_lookup_locked(http_daemon *hd, const char *id, size_t n)
{
    for (http_session *e = hd->sessions; e; e = e->next)
        if (e->id_len == n && sodium_memcmp(e->id, id, n) == 0)
            return e;
    return NULL;
}

/* Enter session s, persisted or loaded, into the table, dropping idle
 * copies to make room. Returns the entry with a reference for the caller
 * (release with table_release), or NULL when every entry is in use. When
 * another thread entered the same session first, returns that entry and
 * replaces *s by a reference to its session (s's reference is dropped). */
static http_session *table_add(http_daemon *hd, mcp_session **s)
{
    const char *id = mcp_session_id(*s);
    http_session *e = calloc(1, sizeof *e);
    if (!e || !id || !(e->id = strdup(id))) {
        free(e);
        return NULL;
    }
    e->id_len = strlen(e->id);
    snprintf(e->key_id, sizeof e->key_id, "%s", mcp_session_identity(*s)->key_id);
    pthread_mutex_init(&e->sink_mu, NULL);
    e->refs = 2;
    e->in_table = 1;
    e->last_used = now_s();
    /* a few rounds: another request may take the room just made */
    for (int round = 0; round < 8; round++) {
        int room;
        pthread_mutex_lock(&hd->table_mu);
        http_session *twin = table_lookup_locked(hd, e->id, e->id_len);
        if (twin) {
            twin->refs++;
            twin->last_used = now_s();
            mcp_session_unref(*s);
            *s = mcp_session_ref(twin->session);
            pthread_mutex_unlock(&hd->table_mu);
            entry_free(e);
            return twin;
        }
        http_session *victim = table_victim_locked(hd, &room);
        if (room) {
            e->session = mcp_session_ref(*s);
            e->next = hd->sessions;
            hd->sessions = e;
            hd->nsessions++;
        } else if (victim) {
            hd->evicted++;
        }
        pthread_mutex_unlock(&hd->table_mu);
        if (room) {
            mcp_session_set_sink(*s, (mcp_sink){entry_sink_send, e});
            return e;
        }
        if (!victim)
            break;
        table_remove(hd, victim);
        table_release(hd, victim);
    }
    entry_free(e);
    return NULL;
}

/* Find a live session by id. On success returns the entry (a reference)
 * and sets *s to a new session reference. */
static http_session *table_find(http_daemon *hd, const char *id, size_t n, mcp_session **s)
{
    pthread_mutex_lock(&hd->table_mu);
    http_session *found = table_lookup_locked(hd, id, n);
    if (found) {
        found->refs++;
        found->last_used = now_s();
        *s = mcp_session_ref(found->session);
    }
    pthread_mutex_unlock(&hd->table_mu);
    return found;
}

static void table_release(http_daemon *hd, http_session *e)
{
    pthread_mutex_lock(&hd->table_mu);
    e->last_used = now_s();
    int last = --e->refs == 0;
    pthread_mutex_unlock(&hd->table_mu);
    if (last)
        entry_free(e);
}

/* Forget a session here: unlink it, detach its sink, end its GET stream
 * and drop the table's references. Requests still running keep their own.
 * The session itself ends only with its row (mcp_session_end). */
static void table_remove(http_daemon *hd, http_session *e)
{
    mcp_session *s = NULL;
    pthread_mutex_lock(&hd->table_mu);
    if (e->in_table) {
        for (http_session **p = &hd->sessions; *p; p = &(*p)->next) {
            if (*p == e) {
                *p = e->next;
                break;
            }
        }
        e->in_table = 0;
        hd->nsessions--;
        s = e->session;
        e->session = NULL;
    }
    pthread_mutex_unlock(&hd->table_mu);
    if (!s)
        return;
    mcp_session_set_sink(s, (mcp_sink){NULL, NULL});
    pthread_mutex_lock(&e->sink_mu);
    if (e->get_stream)
        stream_end(e->get_stream);
    e->get_stream = NULL;
    pthread_mutex_unlock(&e->sink_mu);
    mcp_session_unref(s);
    table_release(hd, e);
}

/* Take a reference to one entry idle longer than max_idle (any entry when
 * max_idle < 0) and, when key is not NULL, created with that key; or NULL. */
static http_session *table_pick(http_daemon *hd, double max_idle, const char *key)
{
    http_session *pick = NULL;
    double now = now_s();
    pthread_mutex_lock(&hd->table_mu);
    for (http_session *e = hd->sessions; e && !pick; e = e->next)
        if ((max_idle < 0 || (e->refs == 1 && now - e->last_used > max_idle)) &&
            (!key || strcmp(e->key_id, key) == 0))
            pick = e;
    if (pick)
        pick->refs++;
    pthread_mutex_unlock(&hd->table_mu);
    return pick;
}

/* Drop copies idle here longer than lim.session_idle_s (none in use
 * expires); the database ends sessions idle on every replica
 * (sessions_sweep). */
static void table_expire(http_daemon *hd)
{
    http_session *e;
    while ((e = table_pick(hd, (double)hd->lim.session_idle_s, NULL)) != NULL) {
        table_remove(hd, e);
        table_release(hd, e);
    }
}

static void table_clear(http_daemon *hd)
{
    http_session *e;
    while ((e = table_pick(hd, -1.0, NULL)) != NULL) {
        table_remove(hd, e);
        table_release(hd, e);
    }
}

/* --- the table and the database ------------------------------------------ */

/* How long a session's last use may be old in its row before a request
 * writes it again: often enough for idle expiry, rarely enough that
 * requests do not queue behind the database's writer. */
static int touch_interval_s(const http_daemon *hd)
{
    int t = hd->lim.session_idle_s / 10;
    return t < 1 ? 1 : t > 30 ? 30 : t;
}

/* mcp_session_cap.busy: a request or GET stream uses session id here. */
static int entry_busy(void *ctx, const char *id)
{
    http_daemon *hd = ctx;
    pthread_mutex_lock(&hd->table_mu);
    http_session *e = table_lookup_locked(hd, id, strlen(id));
    int busy = e && e->refs > 1;
    pthread_mutex_unlock(&hd->table_mu);
    return busy;
}

/* mcp_session_cap.dropped: forget a session ended for its key's room. */
static void entry_dropped(void *ctx, const char *id)
{
    http_daemon *hd = ctx;
    pthread_mutex_lock(&hd->table_mu);
    http_session *e = table_lookup_locked(hd, id, strlen(id));
    if (e)
        e->refs++;
    hd->dropped++;
    pthread_mutex_unlock(&hd->table_mu);
    if (e) {
        table_remove(hd, e);
        table_release(hd, e);
    }
}

/* The entries with a GET stream open, each with a reference; *n of them
 * (a malloc'd array, NULL when none). */
static http_session **table_streaming(http_daemon *hd, size_t *n)
{
    *n = 0;
    pthread_mutex_lock(&hd->table_mu);
    size_t all = hd->nsessions;
    http_session **list = all ? calloc(all, sizeof *list) : NULL;
    for (http_session *e = hd->sessions; list && e; e = e->next) {
        e->refs++;
        list[(*n)++] = e;
    }
    pthread_mutex_unlock(&hd->table_mu);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        pthread_mutex_lock(&list[i]->sink_mu);
        int streaming = list[i]->get_stream != NULL;
        pthread_mutex_unlock(&list[i]->sink_mu);
        if (streaming)
            list[kept++] = list[i];
        else
            table_release(hd, list[i]);
    }
    *n = kept;
    return list;
}

/* The session of entry e (a new reference), or NULL once it was removed. */
static mcp_session *entry_session(http_daemon *hd, http_session *e)
{
    pthread_mutex_lock(&hd->table_mu);
    mcp_session *s = e->session ? mcp_session_ref(e->session) : NULL;
    pthread_mutex_unlock(&hd->table_mu);
    return s;
}

/* mcp_sessions_changed_fn: a session changed or ended somewhere. Requests
 * check their session themselves; the GET streams open here get none, so
 * check theirs: an ended session's stream ends, a changed one's state
 * (initialized, log level, subscriptions) is read again. */
static void sessions_changed(void *ctx)
{
    http_daemon *hd = ctx;
    size_t n;
    http_session **list = table_streaming(hd, &n);
    for (size_t i = 0; i < n; i++) {
        mcp_session *s = entry_session(hd, list[i]);
        dbmcp_error err;
        if (s && mcp_session_sync(s, touch_interval_s(hd), &err) == DBMCP_ENOTFOUND)
            table_remove(hd, list[i]);
        mcp_session_unref(s);
        table_release(hd, list[i]);
    }
    free(list);
}

/* Every HTTP_SWEEP_S: end the sessions idle on every replica, forget the
 * copies idle here, and renew the leases of the GET streams open here so
 * no replica ends or drops their sessions. */
static void sessions_sweep(http_daemon *hd)
{
    dbmcp_error err;
    int64_t ended = 0;
    if (mcp_sessions_expire(hd->srv, hd->lim.session_idle_s, &ended, &err) != 0)
        log_msg(LOG_WARN, "http", "idle sessions not expired: %s", err.message);
    else if (ended)
        log_msg(LOG_INFO, "http", "%lld idle sessions expired", (long long)ended);
    table_expire(hd);
    size_t n;
    http_session **list = table_streaming(hd, &n);
    for (size_t i = 0; i < n; i++) {
        mcp_session *s = entry_session(hd, list[i]);
        if (s && mcp_session_hold_stream(s, HTTP_STREAM_LEASE_S, &err) == DBMCP_ENOTFOUND)
            table_remove(hd, list[i]);
        mcp_session_unref(s);
        table_release(hd, list[i]);
    }
    free(list);
}

/* --- workers ------------------------------------------------------------- */

static const char *stream_key(const http_stream *st)
{
    return mcp_session_identity(st->session)->key_id;
}

static key_load *key_load_find_locked(http_daemon *hd, const char *key)
{
    for (size_t i = 0; i < hd->nloads; i++)
        if (strcmp(hd->loads[i].key_id, key) == 0)
            return &hd->loads[i];
    return NULL;
}

/* Take a request slot for key: 0, or -1 when max_in_flight requests run,
 * -2 when max_in_flight_per_key of them are the key's. */
static int calls_take_locked(http_daemon *hd, const char *key)
{
    if (hd->calls >= hd->lim.max_in_flight)
        return -1;
    key_load *load = key_load_find_locked(hd, key);
    if (load && load->calls >= hd->lim.max_in_flight_per_key)
        return -2;
    if (!load) {
        if (hd->nloads == hd->loads_cap) {
            size_t cap = hd->loads_cap ? hd->loads_cap * 2 : 16;
            key_load *grown = realloc(hd->loads, cap * sizeof *grown);
            if (!grown)
                return -1;
            hd->loads = grown;
            hd->loads_cap = cap;
        }
        load = &hd->loads[hd->nloads++];
        snprintf(load->key_id, sizeof load->key_id, "%s", key);
        load->calls = 0;
    }
    load->calls++;
    hd->calls++;
    return 0;
}

static void calls_release_locked(http_daemon *hd, const char *key)
{
    hd->calls--;
    key_load *load = key_load_find_locked(hd, key);
    if (load && --load->calls == 0)
        *load = hd->loads[--hd->nloads];
}

static void worker_exit(http_daemon *hd, http_stream *st, int counted)
{
    pthread_mutex_lock(&hd->mu);
    if (st->prev_active)
        st->prev_active->next_active = st->next_active;
    else
        hd->active = st->next_active;
    if (st->next_active)
        st->next_active->prev_active = st->prev_active;
    if (counted)
        calls_release_locked(hd, stream_key(st));
    hd->workers--;
    pthread_cond_broadcast(&hd->cond);
    pthread_mutex_unlock(&hd->mu);
}

/* A listen stream (subscriptions/listen) stays open until the client
 * leaves, the server stops, its key is revoked, or the client cannot take
 * SSE at all. */
static void call_listen(http_stream *st, mcp_listener *listener)
{
    http_daemon *hd = st->hd;
    pthread_mutex_lock(&hd->mu);
    calls_release_locked(hd, stream_key(st)); /* listeners do not hold a request slot */
    pthread_mutex_unlock(&hd->mu);
    pthread_mutex_lock(&st->mu);
    st->listening = 1;
    pthread_cond_broadcast(&st->cond);
    while (st->sse_ok && !st->gone && !st->revoked && !atomic_load(&hd->stopping))
        cond_wait_for(&st->cond, &st->mu, HTTP_POLL_S);
    pthread_mutex_unlock(&st->mu);
    if (listener)
        mcp_listener_close(hd->srv, listener);
}

/* Hand the final response to the connection: as the last SSE event when
 * the stream is open, else kept for the JSON reply. */
static void call_finish(http_stream *st, json_t *resp)
{
    pthread_mutex_lock(&st->mu);
    st->done = 1;
    if (!st->gone && st->mode == MODE_SSE) {
        stream_event_locked(st, resp);
        st->ended = 1;
        json_decref(resp);
    } else if (!st->gone) {
        st->response = resp;
    } else {
        json_decref(resp);
    }
    pthread_cond_broadcast(&st->cond);
    pthread_mutex_unlock(&st->mu);
}

static void *call_worker(void *arg)
{
    http_stream *st = arg;
    http_daemon *hd = st->hd;
    mcp_call_ctx ctx = {0};
    ctx.transport = "http";
    ctx.model = st->model[0] ? st->model : NULL;
    trace_headers_to_ctx(&st->trace, &ctx);
    if (st->sse_ok)
        ctx.sink = (mcp_sink){stream_sink_send, st};
    json_t *resp = mcp_handle(hd->srv, st->session, st->msg, &ctx);
    if (!resp)
        resp = jsonrpc_error(st->msg->id, JSONRPC_INTERNAL_ERROR, "Internal error", NULL);
    int counted = 1;
    if (ctx.keep_open) {
        call_listen(st, ctx.listener);
        counted = 0;
    }
    call_finish(st, resp);
    worker_exit(hd, st, counted);
    stream_unref(st);
    return NULL;
}

/* Start the worker for st; -1 when at capacity, shutting down or out of
 * threads, -2 when st's API key has its max_in_flight_per_key. */
static int worker_start(http_daemon *hd, http_stream *st)
{
    pthread_mutex_lock(&hd->mu);
    int taken = atomic_load(&hd->stopping) ? -1 : calls_take_locked(hd, stream_key(st));
    if (taken != 0) {
        pthread_mutex_unlock(&hd->mu);
        return taken;
    }
    hd->workers++;
    st->next_active = hd->active;
    if (hd->active)
        hd->active->prev_active = st;
    hd->active = st;
    pthread_mutex_unlock(&hd->mu);

    stream_ref(st);
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&tid, &attr, call_worker, st);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return 0;
    worker_exit(hd, st, 1);
    stream_unref(st);
    return -1;
}

/* --- revoked keys ----------------------------------------------------------- */

/* mcp_key_revoked_fn: end everything key holds open — its legacy sessions
 * (and their GET streams), its listen streams (they end with their
 * response) and its running requests (cancelled). */
static void on_key_revoked(void *ctx, const char *key)
{
    http_daemon *hd = ctx;
    http_session *e;
    while ((e = table_pick(hd, -1.0, key)) != NULL) {
        table_remove(hd, e);
        table_release(hd, e);
    }
    pthread_mutex_lock(&hd->mu);
    size_t n = 0;
    for (http_stream *st = hd->active; st; st = st->next_active)
        n += strcmp(stream_key(st), key) == 0;
    http_stream **hit = calloc(n ? n : 1, sizeof *hit);
    size_t k = 0;
    for (http_stream *st = hd->active; hit && st; st = st->next_active) {
        if (strcmp(stream_key(st), key) == 0) {
            stream_ref(st);
            hit[k++] = st;
        }
    }
    pthread_mutex_unlock(&hd->mu);
    for (size_t i = 0; i < k; i++) {
        http_stream *st = hit[i];
        pthread_mutex_lock(&st->mu);
        int first = !st->revoked;
        st->revoked = 1;
        pthread_cond_broadcast(&st->cond);
        pthread_mutex_unlock(&st->mu);
        if (first)
            mcp_session_cancel_all(st->session);
        stream_unref(st);
    }
    free(hit);
}

/* --- answering a request ------------------------------------------------- */

static enum MHD_Result call_reply_json(struct MHD_Connection *c, http_stream *st)
{
    json_t *resp = st->response;
    st->response = NULL;
    st->mode = MODE_JSON;
    int modern = st->modern;
    pthread_mutex_unlock(&st->mu);
    return reply_json(c, modern ? (unsigned)mcp_http_status_for_error(resp) : MHD_HTTP_OK, resp,
                      NULL);
}

static enum MHD_Result call_reply_sse(http_daemon *hd, struct MHD_Connection *c, http_stream *st)
{
    st->mode = MODE_SSE;
    if (st->done) {
        if (st->response)
            stream_event_locked(st, st->response);
        json_decref(st->response);
        st->response = NULL;
        st->ended = 1;
    }
    pthread_mutex_unlock(&st->mu);
    return stream_queue(hd, c, st, NULL);
}

/* Wait for the worker's first output and answer: one JSON body when the
 * response came alone within the grace period (or SSE is not accepted),
 * an SSE stream otherwise. Returns MHD_NO (closing the connection) when
 * the client left while waiting. */
static enum MHD_Result call_reply(http_daemon *hd, struct MHD_Connection *c, http_stream *st)
{
    double start = now_s(), last_probe = start;
    pthread_mutex_lock(&st->mu);
    for (;;) {
        double now = now_s();
        int events = st->len > 0;
        if (st->done && !events && (st->json_ok || !st->sse_ok))
            return call_reply_json(c, st);
        if (st->sse_ok && (st->done || events || st->listening || now - start >= HTTP_JSON_GRACE_S))
            return call_reply_sse(hd, c, st);
        if (st->gone || atomic_load(&hd->aborting))
            break;
        if (now - last_probe >= HTTP_POLL_S) {
            if (!peer_alive(st->fd))
                break;
            last_probe = now;
        }
        double wait = HTTP_POLL_S;
        if (st->sse_ok && start + HTTP_JSON_GRACE_S - now < wait)
            wait = start + HTTP_JSON_GRACE_S - now;
        cond_wait_for(&st->cond, &st->mu, wait);
    }
    pthread_mutex_unlock(&st->mu);
    stream_lost(st);
    return MHD_NO;
}

/* Answer a request that cannot block (mcp_request_class: MCP_RUN_QUICK)
 * on the connection's own thread (one per connection): no worker thread
 * to start and no hand-off. Takes ownership like call_dispatch. */
static enum MHD_Result call_inline(http_daemon *hd, struct MHD_Connection *c, jsonrpc_msg *msg,
                                   mcp_session *s, http_session *entry, int modern)
{
    char model[sizeof((http_stream *)0)->model];
    const char *given = header(c, HTTP_MODEL_HEADER);
    snprintf(model, sizeof model, "%s", given ? given : "");
    mcp_call_ctx ctx = {0};
    ctx.transport = "http";
    ctx.model = model[0] ? model : NULL;
    http_trace trace;
    trace_headers_read(c, &trace);
    trace_headers_to_ctx(&trace, &ctx);
    json_t *resp = mcp_handle(hd->srv, s, msg, &ctx);
    if (!resp)
        resp = jsonrpc_error(msg->id, JSONRPC_INTERNAL_ERROR, "Internal error", NULL);
    enum MHD_Result r =
        reply_json(c, modern ? (unsigned)mcp_http_status_for_error(resp) : MHD_HTTP_OK, resp, NULL);
    jsonrpc_msg_free(msg);
    mcp_session_unref(s);
    if (entry)
        table_release(hd, entry);
    return r;
}

/* Run a request on a worker and answer it. Takes ownership of msg, the
 * session reference and the entry reference. */
static enum MHD_Result call_dispatch(http_daemon *hd, struct MHD_Connection *c, http_request *req,
                                     jsonrpc_msg *msg, mcp_session *s, http_session *entry,
                                     int modern)
{
    if (req->json_ok && !atomic_load(&hd->stopping) &&
        mcp_request_class(hd->srv, s, msg) == MCP_RUN_QUICK)
        return call_inline(hd, c, msg, s, entry, modern);
    http_stream *st = stream_new(hd, STREAM_CALL, c);
    if (!st) {
        enum MHD_Result r = reply_busy(c, msg->id, "Out of memory");
        jsonrpc_msg_free(msg);
        mcp_session_unref(s);
        if (entry)
            table_release(hd, entry);
        return r;
    }
    st->msg = msg;
    st->session = s;
    st->entry = entry;
    st->modern = modern;
    st->json_ok = req->json_ok;
    st->sse_ok = req->sse_ok;
    const char *model = header(c, HTTP_MODEL_HEADER);
    snprintf(st->model, sizeof st->model, "%s", model ? model : "");
    trace_headers_read(c, &st->trace);
    req->stream = st;
    int started = worker_start(hd, st);
    if (started != 0)
        return reply_busy(c, msg->id,
                          started == -2
                              ? "Server busy: too many requests in flight for this API key"
                              : "Server busy: too many requests in flight");
    return call_reply(hd, c, st);
}

/* Notifications and responses: handled on the connection thread, 202. */
static enum MHD_Result handle_accepted(http_daemon *hd, struct MHD_Connection *c, jsonrpc_msg *msg,
                                       mcp_session *s)
{
    mcp_call_ctx ctx = {0};
    ctx.transport = "http";
    json_t *resp = mcp_handle(hd->srv, s, msg, &ctx);
    json_decref(resp);
    if (ctx.keep_open && ctx.listener)
        mcp_listener_close(hd->srv, ctx.listener);
    jsonrpc_msg_free(msg);
    mcp_session_unref(s);
    return reply(c, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL);
}

/* --- modern era ---------------------------------------------------------- */

/* The body field Mcp-Name mirrors for a method, or NULL. */
static const char *mcp_name_field(const char *method)
{
    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
        return "name";
    if (strcmp(method, "resources/read") == 0)
        return "uri";
    if (strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
        strcmp(method, "tasks/cancel") == 0)
        return "taskId";
    return NULL;
}

/* Compare a header value (plain, or the =?base64?…?= sentinel) with the
 * body's string. */
static int mcp_name_matches(const char *v, size_t n, const char *body, size_t body_len)
{
    static const char pre[] = "=?base64?", post[] = "?=";
    size_t pn = sizeof pre - 1, qn = sizeof post - 1;
    if (n < pn + qn || memcmp(v, pre, pn) != 0 || memcmp(v + n - qn, post, qn) != 0)
        return n == body_len && memcmp(v, body, n) == 0;
    const char *b64 = v + pn;
    size_t b64_len = n - pn - qn;
    unsigned char *bin = malloc(b64_len + 1);
    size_t bin_len = 0;
    const char *b64_end = NULL;
    int ok = bin &&
             sodium_base642bin(bin, b64_len + 1, b64, b64_len, NULL, &bin_len, &b64_end,
                               sodium_base64_VARIANT_ORIGINAL) == 0 &&
             b64_end == b64 + b64_len && bin_len == body_len && memcmp(bin, body, body_len) == 0;
    free(bin);
    return ok;
}

/* Mcp-Name against params.name / params.uri / params.taskId. A body
 * without the field needs no header (the server reports the params). */
static const char *check_mcp_name(struct MHD_Connection *c, const jsonrpc_msg *msg)
{
    const char *field = mcp_name_field(msg->method);
    if (!field)
        return NULL;
    json_t *value = msg->params ? json_object_get(msg->params, field) : NULL;
    const char *v;
    size_t n;
    int present = header_view(c, "Mcp-Name", &v, &n);
    if (!json_is_string(value))
        return present ? "Header mismatch: Mcp-Name header present but the body has no name" : NULL;
    if (!present)
        return "Header mismatch: Mcp-Name header is required";
    if (!header_chars_valid(v, n))
        return "Header mismatch: Mcp-Name header has invalid characters";
    if (!mcp_name_matches(v, n, json_string_value(value), json_string_length(value)))
        return "Header mismatch: Mcp-Name header does not match the body";
    return NULL;
}

/* The text an argument is mirrored as in its Mcp-Param header (strings
 * as they are, numbers and booleans as JSON); NULL for other values. */
static char *param_text(const json_t *value)
{
    if (json_is_string(value))
        return strdup(json_string_value(value));
    if (json_is_number(value) || json_is_boolean(value))
        return json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
    return NULL;
}

/* SEP-2243 custom headers: each argument of a tools/call whose property
 * declares x-mcp-header NAME must come with Mcp-Param-NAME equal to it
 * (plain, or =?base64?…?= holding it); a header for an argument the body
 * lacks is a mismatch too. A message for -32020 or NULL. */
static const char *check_param_headers(http_daemon *hd, struct MHD_Connection *c,
                                       const mcp_identity *who, const jsonrpc_msg *msg)
{
    if (strcmp(msg->method, "tools/call") != 0 || !msg->params)
        return NULL;
    json_t *params = mcp_tool_header_params(
        hd->srv, who, json_string_value(json_object_get(msg->params, "name")));
    json_t *args = json_object_get(msg->params, "arguments");
    const char *why = NULL, *prop;
    json_t *suffix;
    json_object_foreach (params, prop, suffix) {
        char name[192];
        snprintf(name, sizeof name, "Mcp-Param-%s", json_string_value(suffix));
        const char *v;
        size_t n;
        int present = header_view(c, name, &v, &n);
        char *body = param_text(json_object_get(args, prop));
        if (!body && present)
            why = "Header mismatch: an Mcp-Param header is present but the body has no value";
        else if (body && !present)
            why = "Header mismatch: an Mcp-Param header is required for a tool argument";
        else if (body && !header_chars_valid(v, n))
            why = "Header mismatch: an Mcp-Param header has invalid characters";
        else if (body && !mcp_name_matches(v, n, body, strlen(body)))
            why = "Header mismatch: an Mcp-Param header does not match the argument (or is "
                  "not valid base64)";
        free(body);
        if (why)
            break;
    }
    json_decref(params);
    return why;
}

/* MCP-Protocol-Version must mirror the _meta version; a message for
 * -32020 or NULL. */
static const char *check_version_header(struct MHD_Connection *c, const char *version)
{
    const char *v;
    size_t n;
    if (!header_view(c, "MCP-Protocol-Version", &v, &n))
        return "Header mismatch: MCP-Protocol-Version header is required";
    if (!view_equals(v, n, version))
        return "Header mismatch: MCP-Protocol-Version header does not match "
               "_meta[\"io.modelcontextprotocol/protocolVersion\"]";
    return NULL;
}

/* Mcp-Method (and Mcp-Name) must mirror the body; a message for -32020
 * or NULL. */
static const char *check_method_headers(struct MHD_Connection *c, const jsonrpc_msg *msg)
{
    const char *v;
    size_t n;
    if (!header_view(c, "Mcp-Method", &v, &n))
        return "Header mismatch: Mcp-Method header is required";
    if (!view_equals(v, n, msg->method))
        return "Header mismatch: Mcp-Method header does not match the body";
    return check_mcp_name(c, msg);
}

/* {"supported":[…],"requested":…} for -32022, from the revisions this
 * server says it speaks. */
static json_t *unsupported_version_data(const char *requested)
{
    json_t *supported = json_array();
    for (const char *const *v = mcp_supported_versions(); *v; v++)
        json_array_append_new(supported, json_string(*v));
    return json_pack("{s:o, s:s}", "supported", supported, "requested", requested);
}

/* A modern request's _meta must carry clientCapabilities (the version is
 * already known to be there). */
static int modern_meta_valid(const jsonrpc_msg *msg)
{
    json_t *meta = msg->params ? json_object_get(msg->params, "_meta") : NULL;
    return json_is_object(json_object_get(meta, MCP_META_CLIENT_CAPS));
}

static enum MHD_Result reply_modern_error(struct MHD_Connection *c, jsonrpc_msg *msg, int code,
                                          const char *message, json_t *data)
{
    json_t *body = rpc_error(msg->id, code, message, data);
    jsonrpc_msg_free(msg);
    return reply_json(c, MHD_HTTP_BAD_REQUEST, body, NULL);
}

/* Stateless handling: check the envelope and headers, then run the
 * message on a per-request session. Takes ownership of msg. */
static enum MHD_Result post_modern(http_daemon *hd, struct MHD_Connection *c, http_request *req,
                                   jsonrpc_msg *msg, const char *version)
{
    int is_request = msg->kind == JSONRPC_REQUEST;
    const char *why = is_request ? check_version_header(c, version) : NULL;
    if (why)
        return reply_modern_error(c, msg, MCP_HEADER_MISMATCH, why, NULL);
    if (!mcp_version_supported(version))
        return reply_modern_error(c, msg, MCP_UNSUPPORTED_VERSION, "Unsupported protocol version",
                                  unsupported_version_data(version));
    if (is_request && !modern_meta_valid(msg))
        return reply_modern_error(
            c, msg, JSONRPC_INVALID_PARAMS,
            "Invalid params: _meta[\"" MCP_META_CLIENT_CAPS "\"] must be an object", NULL);
    why = is_request ? check_method_headers(c, msg) : NULL;
    if (!why && is_request)
        why = check_param_headers(hd, c, &req->who, msg);
    if (why)
        return reply_modern_error(c, msg, MCP_HEADER_MISMATCH, why, NULL);

    mcp_session *s = mcp_session_create(hd->srv, &req->who, "http");
    if (!s) {
        json_t *id = msg->id ? json_incref(msg->id) : NULL;
        jsonrpc_msg_free(msg);
        enum MHD_Result r = reply_busy(c, id, "Cannot create a session");
        json_decref(id);
        return r;
    }
    if (!is_request)
        return handle_accepted(hd, c, msg, s);
    return call_dispatch(hd, c, req, msg, s, NULL, 1);
}

/* MCP-Protocol-Version names a modern revision (2026-07-28 or later;
 * revisions are dates, so they compare as strings). */
static int modern_header_present(struct MHD_Connection *c)
{
    const char *v;
    size_t n;
    if (!header_view(c, "MCP-Protocol-Version", &v, &n))
        return 0;
    size_t mn = strlen(MCP_MODERN);
    int cmp = strncmp(v, MCP_MODERN, n < mn ? n : mn);
    return cmp > 0 || (cmp == 0 && n >= mn);
}

/* A request without the modern _meta version that still claims the modern
 * era (modern header, or _meta with MCP keys): the _meta is invalid. */
static int looks_modern(struct MHD_Connection *c, const jsonrpc_msg *msg)
{
    if (modern_header_present(c))
        return 1;
    json_t *meta = msg->params ? json_object_get(msg->params, "_meta") : NULL;
    return json_is_object(meta) && (json_object_get(meta, MCP_META_PROTOCOL) ||
                                    json_object_get(meta, MCP_META_CLIENT_CAPS));
}

/* --- legacy era ---------------------------------------------------------- */

/* Persist a new session in the database within its key's cap; NULL, or
 * why not (for a 503). */
static const char *legacy_keep(http_daemon *hd, mcp_session **s)
{
    mcp_session_cap cap = {hd->lim.max_sessions_per_key, entry_busy, entry_dropped, hd};
    dbmcp_error err;
    int rc = mcp_session_persist(*s, &cap, &err);
    if (rc == DBMCP_ETOOBIG)
        return "Too many sessions in use for this API key";
    if (rc) {
        log_msg(LOG_WARN, "http", "session not stored: %s", err.message);
        return "Cannot create a session";
    }
    return NULL;
}

/* `initialize` without a session: create one, and keep it when the
 * handshake succeeded (a result, and a negotiated protocol version). */
static enum MHD_Result legacy_initialize(http_daemon *hd, struct MHD_Connection *c,
                                         http_request *req, jsonrpc_msg *msg)
{
    mcp_session *s = mcp_session_create(hd->srv, &req->who, "http");
    if (!s) {
        enum MHD_Result r = reply_busy(c, msg->id, "Cannot create a session");
        jsonrpc_msg_free(msg);
        return r;
    }
    mcp_call_ctx ctx = {0};
    ctx.transport = "http";
    http_trace trace;
    trace_headers_read(c, &trace);
    trace_headers_to_ctx(&trace, &ctx);
    json_t *resp = mcp_handle(hd->srv, s, msg, &ctx);
    if (!resp)
        resp = jsonrpc_error(msg->id, JSONRPC_INTERNAL_ERROR, "Internal error", NULL);
    enum MHD_Result r;
    if (!json_object_get(resp, "result") || !mcp_session_protocol(s)[0]) {
        r = reply_json(c, MHD_HTTP_OK, resp, NULL);
    } else {
        const char *busy = legacy_keep(hd, &s);
        http_session *e = busy ? NULL : table_add(hd, &s);
        if (!e && !busy) {
            dbmcp_error err;
            mcp_session_end(s, &err); /* no room here: it must not live on elsewhere */
            busy = "Too many sessions in use";
        }
        if (busy) {
            json_decref(resp);
            r = reply_busy(c, msg->id, busy);
        } else {
            const char *const headers[] = {"Mcp-Session-Id", e->id, NULL};
            r = reply_json(c, MHD_HTTP_OK, resp, headers);
            table_release(hd, e);
        }
    }
    mcp_session_unref(s);
    jsonrpc_msg_free(msg);
    return r;
}

/* The entry of session sid (n bytes) for a caller with API key `key`: the
 * copy here, checked against its row, else the session loaded from the
 * database (another replica created it, or this copy was dropped). A
 * reference and *s, or NULL with *gone set when the session does not
 * exist for this key (0: the database failed). */
static http_session *legacy_find(http_daemon *hd, const char *sid, size_t n, const char *key,
                                 mcp_session **s, int *gone)
{
    char id[40];
    dbmcp_error err;
    *gone = 1;
    if (n >= sizeof id)
        return NULL; /* never one of ours */
    memcpy(id, sid, n);
    id[n] = '\0';
    http_session *e = table_find(hd, sid, n, s);
    if (e && strcmp(e->key_id, key) != 0) {
        mcp_session_unref(*s);
        table_release(hd, e);
        return NULL;
    }
    int rc = e ? mcp_session_sync(*s, touch_interval_s(hd), &err)
               : mcp_session_load(hd->srv, id, key, touch_interval_s(hd), s, &err);
    if (rc == 0 && !e && !(e = table_add(hd, s)))
        rc = dbmcp_error_set(&err, DBMCP_ETOOBIG, "no room for the session");
    if (rc == 0)
        return e;
    *gone = rc == DBMCP_ENOTFOUND;
    if (!*gone)
        log_msg(LOG_WARN, "http", "session %.8s…: %s", id, err.message);
    if (e && *gone)
        table_remove(hd, e); /* ended elsewhere */
    if (e)
        table_release(hd, e);
    mcp_session_unref(*s);
    *s = NULL;
    return NULL;
}

/* The legacy session named by Mcp-Session-Id, checked against the caller's
 * key. Replies itself (400/404, 503 when the database failed) and returns
 * NULL when there is none. */
static http_session *legacy_session(http_daemon *hd, struct MHD_Connection *c,
                                    const http_request *req, json_t *id, mcp_session **s,
                                    enum MHD_Result *r)
{
    const char *sid;
    size_t n;
    if (!header_view(c, "Mcp-Session-Id", &sid, &n) || n == 0) {
        *r = reply_bad_request(c, id, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    int gone = 1;
    http_session *e = legacy_find(hd, sid, n, req->who.key_id, s, &gone);
    if (!e)
        *r = gone ? reply_no_session(c, id) : reply_busy(c, id, "Session store unavailable");
    return e;
}

/* Session-based handling. Takes ownership of msg. */
static enum MHD_Result post_legacy(http_daemon *hd, struct MHD_Connection *c, http_request *req,
                                   jsonrpc_msg *msg)
{
    char version[64];
    const char *v;
    size_t n;
    if (header_view(c, "MCP-Protocol-Version", &v, &n) &&
        (!header_copy(c, "MCP-Protocol-Version", version, sizeof version) ||
         !mcp_version_supported(version))) {
        enum MHD_Result r =
            reply_bad_request(c, msg->id, "Bad Request: unsupported MCP-Protocol-Version");
        jsonrpc_msg_free(msg);
        return r;
    }
    if (msg->kind == JSONRPC_REQUEST && strcmp(msg->method, "initialize") == 0)
        return legacy_initialize(hd, c, req, msg);

    mcp_session *s = NULL;
    enum MHD_Result r = MHD_NO;
    http_session *e = legacy_session(hd, c, req, msg->id, &s, &r);
    if (!e) {
        jsonrpc_msg_free(msg);
        return r;
    }
    if (msg->kind != JSONRPC_REQUEST) {
        table_release(hd, e);
        return handle_accepted(hd, c, msg, s);
    }
    return call_dispatch(hd, c, req, msg, s, e, 0);
}

/* --- POST, GET, DELETE ---------------------------------------------------- */

static enum MHD_Result post_message(http_daemon *hd, struct MHD_Connection *c, http_request *req)
{
    json_t *error = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(req->body ? req->body : "", req->len, &error);
    free(req->body);
    req->body = NULL;
    if (!msg) {
        if (!error)
            error = rpc_error(NULL, JSONRPC_INVALID_REQUEST, "Invalid Request", NULL);
        return reply_json(c, MHD_HTTP_BAD_REQUEST, error, NULL);
    }
    const char *version = mcp_request_modern_version(msg);
    if (version)
        return post_modern(hd, c, req, msg, version);
    if (msg->kind == JSONRPC_REQUEST && looks_modern(c, msg))
        return reply_modern_error(c, msg, JSONRPC_INVALID_PARAMS,
                                  "Invalid params: _meta[\"" MCP_META_PROTOCOL "\"] is required",
                                  NULL);
    return post_legacy(hd, c, req, msg);
}

/* GET /mcp: the legacy session's stream for messages outside requests. */
static enum MHD_Result get_stream_open(http_daemon *hd, struct MHD_Connection *c, http_request *req)
{
    if (modern_header_present(c))
        return reply_method_not_allowed(c, "POST");
    if (!req->sse_ok)
        return reply_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, JSONRPC_INVALID_REQUEST,
                           "Not Acceptable: GET needs Accept: text/event-stream", NULL);
    mcp_session *s = NULL;
    enum MHD_Result r = MHD_NO;
    http_session *e = legacy_session(hd, c, req, NULL, &s, &r);
    if (!e)
        return r;
    dbmcp_error err;
    if (mcp_session_hold_stream(s, HTTP_STREAM_LEASE_S, &err) != 0) /* renewed by the sweep */
        log_msg(LOG_WARN, "http", "stream lease not written: %s", err.message);
    mcp_session_unref(s); /* the entry's sink is all the stream needs */
    http_stream *st = stream_new(hd, STREAM_GET, c);
    if (!st) {
        table_release(hd, e);
        return reply_busy(c, NULL, "Out of memory");
    }
    st->entry = e;
    req->stream = st;
    pthread_mutex_lock(&e->sink_mu);
    if (e->get_stream)
        stream_end(e->get_stream); /* one stream per session: the newest wins */
    e->get_stream = st;
    pthread_mutex_unlock(&e->sink_mu);
    return stream_queue(hd, c, st, NULL);
}

/* When a GET stream's connection ends, stop routing the session to it. */
static void get_stream_detach(http_stream *st)
{
    http_session *e = st->entry;
    if (!e)
        return;
    pthread_mutex_lock(&e->sink_mu);
    if (e->get_stream == st)
        e->get_stream = NULL;
    pthread_mutex_unlock(&e->sink_mu);
}

static enum MHD_Result session_delete(http_daemon *hd, struct MHD_Connection *c, http_request *req)
{
    if (modern_header_present(c))
        return reply_method_not_allowed(c, "POST");
    mcp_session *s = NULL;
    enum MHD_Result r = MHD_NO;
    http_session *e = legacy_session(hd, c, req, NULL, &s, &r);
    if (!e)
        return r;
    dbmcp_error err;
    int rc = mcp_session_end(s, &err); /* on every replica */
    mcp_session_unref(s);
    if (rc == 0)
        table_remove(hd, e);
    table_release(hd, e);
    if (rc)
        return reply_busy(c, NULL, "Session store unavailable");
    return reply(c, MHD_HTTP_NO_CONTENT, NULL, "", 0, NULL);
}

/* --- libmicrohttpd callbacks --------------------------------------------- */

/* The token of an `Authorization: Bearer TOKEN` header, trimmed, into
 * *v and *n; 0 when there is none (or another scheme). */
static int bearer_token(struct MHD_Connection *c, const char **v, size_t *n)
{
    if (!header_view(c, MHD_HTTP_HEADER_AUTHORIZATION, v, n) || *n < 7 ||
        strncasecmp(*v, "Bearer", 6) != 0 || ((*v)[6] != ' ' && (*v)[6] != '\t'))
        return 0;
    *v += 7;
    *n -= 7;
    trim(v, n);
    return 1;
}

/* The audience an access token must name when oidc.audience is unset:
 * this server's resource URL from --public-url or the bound address, never
 * from the request's Host header (a client chooses that). */
static void own_resource(const http_daemon *hd, char *out, size_t size)
{
    if (hd->public_url[0])
        snprintf(out, size, "%s/mcp", hd->public_url);
    else
        snprintf(out, size, "http://%s/mcp", hd->authority);
}

/* A bearer value that is not an API key, as an OIDC access token. */
static int authenticate_token(http_daemon *hd, const char *v, size_t n, mcp_identity *who,
                              int *refusal)
{
    char resource[600];
    own_resource(hd, resource, sizeof resource);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    oidc_refusal why = OIDC_INVALID_TOKEN;
    int rc = mcp_oidc_authenticate(hd->oidc, v, n, resource, who, &why, &err);
    if (rc && refusal)
        *refusal = (int)why;
    return rc == 0 ? 0 : -1;
}

/* Resolve the caller: the configured identity without auth, else the
 * bearer API key, else (single sign-on on) the bearer access token.
 * *refusal (may be NULL) gets the oidc_refusal of a refused token. */
static int authenticate(http_daemon *hd, struct MHD_Connection *c, mcp_identity *who, int *refusal)
{
    if (hd->no_auth) {
        *who = *hd->anonymous;
        return 0;
    }
    const char *v;
    size_t n;
    if (!bearer_token(c, &v, &n))
        return -1;
    if (n > 0 && strncmp(v, "dbmcp_", n < 6 ? n : 6) != 0 && hd->oidc && mcp_oidc_enabled(hd->oidc))
        return authenticate_token(hd, v, n, who, refusal);
    char key[512];
    if (n == 0 || n >= sizeof key)
        return -1;
    memcpy(key, v, n);
    key[n] = '\0';
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = mcp_server_authenticate(hd->srv, key, who, &err);
    sodium_memzero(key, sizeof key);
    return rc == 0 ? 0 : -1;
}

static int is_well_known(const char *url)
{
    return strcmp(url, "/.well-known/oauth-protected-resource") == 0 ||
           strcmp(url, "/.well-known/oauth-protected-resource/mcp") == 0;
}

static int body_too_long(const http_daemon *hd, struct MHD_Connection *c)
{
    const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!cl)
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(cl, &end, 10);
    return errno == ERANGE || n > hd->max_body;
}

static enum MHD_Result reply_too_large(struct MHD_Connection *c)
{
    return reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, JSONRPC_INVALID_REQUEST,
                       "Request body too large", NULL);
}

/* /mcp after the common checks: auth, Accept, then per method. */
static enum MHD_Result route_mcp(http_daemon *hd, struct MHD_Connection *c, const char *method,
                                 http_request *req)
{
    int is_get = strcmp(method, "GET") == 0;
    int is_post = strcmp(method, "POST") == 0;
    int is_delete = strcmp(method, "DELETE") == 0;
    if (!is_get && !is_post && !is_delete)
        return reply_method_not_allowed(c, "GET, POST, DELETE");
    if (authenticate(hd, c, &req->who, &req->auth_refusal) != 0)
        return reply_unauthorized(hd, c, req->auth_refusal);
    accept_parse(header(c, MHD_HTTP_HEADER_ACCEPT), &req->json_ok, &req->sse_ok);
    if (is_get)
        return get_stream_open(hd, c, req);
    if (is_delete)
        return session_delete(hd, c, req);
    if (!req->json_ok && !req->sse_ok)
        return reply_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, JSONRPC_INVALID_REQUEST,
                           "Not Acceptable: accept application/json or text/event-stream", NULL);
    if (body_too_long(hd, c))
        return reply_too_large(c);
    req->responded = 0; /* wait for the body */
    return MHD_YES;
}

/* /v1/chat: POST with a bearer key; the body is read, then chat_reply. */
static enum MHD_Result route_chat(http_daemon *hd, struct MHD_Connection *c, const char *method,
                                  http_request *req)
{
    if (strcmp(method, "POST") != 0)
        return reply_method_not_allowed(c, "POST");
    if (authenticate(hd, c, &req->who, &req->auth_refusal) != 0)
        return reply_unauthorized(hd, c, req->auth_refusal);
    if (body_too_long(hd, c))
        return reply_too_large(c);
    req->chat = 1;
    req->responded = 0; /* wait for the body */
    return MHD_YES;
}

static enum MHD_Result chat_reply(http_daemon *hd, struct MHD_Connection *c, http_request *req)
{
    unsigned status = 500;
    /* One span for the whole chat, under the caller's trace when the
     * request names one: the agent's LLM requests and tool calls nest in it. */
    http_trace t;
    trace_headers_read(c, &t);
    trace_context parent;
    trace_context_from_request(NULL, NULL, t.parent[0] ? t.parent : NULL,
                               t.state[0] ? t.state : NULL, &parent);
    trace_span span;
    trace_span_begin(&span, "POST /v1/chat", TRACE_KIND_SERVER, &parent);
    trace_span_set_str(&span, "dbmcp.interface", req->who.interface);
    json_t *out = http_chat_handle(hd->srv, &req->who, req->body, req->len, &status);
    trace_span_set_int(&span, "http.response.status_code", status);
    if (status >= 500)
        trace_span_set_error(&span, "internal");
    trace_span_end(&span);
    return reply_json(c, status, out, NULL);
}

/* --- /admin: the console (web/console.h) ------------------------------------ */

static const char *query_arg(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* Hand one /admin request to the console and send its answer with the
 * console's security headers. */
static enum MHD_Result admin_reply(http_daemon *hd, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *body, size_t len)
{
    char own[512];
    if (hd->public_origin[0])
        snprintf(own, sizeof own, "%s", hd->public_origin);
    else
        public_base(hd, c, own, sizeof own);
    web_request wr = {0};
    wr.method = method;
    wr.path = url;
    wr.arg = query_arg;
    wr.arg_ctx = c;
    wr.cookie = header(c, MHD_HTTP_HEADER_COOKIE);
    wr.csrf = header(c, "X-CSRF-Token");
    wr.origin = header(c, MHD_HTTP_HEADER_ORIGIN);
    wr.authorization = header(c, MHD_HTTP_HEADER_AUTHORIZATION);
    wr.content_type = header(c, MHD_HTTP_HEADER_CONTENT_TYPE);
    wr.own_origin = own;
    wr.secure = strncmp(hd->public_url, "https://", 8) == 0;
    wr.body = body;
    wr.body_len = len;
    web_response res;
    web_console_handle(hd->srv, &wr, &res);
    struct MHD_Response *r = MHD_create_response_from_buffer(
        res.len, res.body, res.body_static ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_COPY);
    if (!r) {
        web_response_free(&res);
        return MHD_NO;
    }
    for (const char *const *h = web_security_headers(); h[0] && h[1]; h += 2)
        MHD_add_response_header(r, h[0], h[1]);
    if (res.content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res.content_type);
    if (res.cache)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, res.cache);
    if (res.set_cookie[0])
        MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, res.set_cookie);
    if (res.location)
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, res.location);
    if (res.allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res.allow);
    enum MHD_Result ok = MHD_queue_response(c, res.status, r);
    MHD_destroy_response(r);
    web_response_free(&res);
    return ok;
}

/* /admin and /admin/…: a POST waits for its body (at most WEB_MAX_BODY);
 * everything else is answered at once. */
static enum MHD_Result route_admin(http_daemon *hd, struct MHD_Connection *c, const char *url,
                                   const char *method, http_request *req)
{
    if (strcmp(method, "POST") != 0)
        return admin_reply(hd, c, url, method, NULL, 0);
    const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > WEB_MAX_BODY)
        return admin_reply(hd, c, url, method, NULL, (size_t)WEB_MAX_BODY + 1);
    req->admin = 1;
    req->responded = 0; /* wait for the body */
    return MHD_YES;
}

/* --- /metrics and /status ------------------------------------------------- */

/* A header a reverse proxy adds: the peer address is the proxy's, not the
 * client's. */
static int forwarded(struct MHD_Connection *c)
{
    return header(c, "Forwarded") || header(c, "X-Forwarded-For") || header(c, "X-Real-IP");
}

/* Whether the peer may read the monitoring pages (http_metrics_access):
 * 0, or the HTTP status that refuses it. */
static unsigned observe_refusal(const http_daemon *hd, struct MHD_Connection *c)
{
    if (hd->metrics.access == HTTP_METRICS_OFF)
        return MHD_HTTP_NOT_FOUND;
    if (hd->metrics.access == HTTP_METRICS_LOOPBACK) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        int local = info && info->client_addr && addr_is_loopback(info->client_addr);
        return local && !forwarded(c) ? 0 : MHD_HTTP_FORBIDDEN;
    }
    const char *v;
    size_t n;
    return bearer_token(c, &v, &n) && http_metrics_key_matches(&hd->metrics, v, n)
               ? 0
               : MHD_HTTP_UNAUTHORIZED;
}

/* The daemon's own figures for the monitoring pages. */
static void daemon_live(http_daemon *hd, http_observe_live *live)
{
    http_admit_stats st;
    http_admit_stats_get(hd->admit, &st);
    live->connections_open = (long)st.served_now;
    live->connections_waiting = (long)st.waiting_now;
    live->connections_accepted = (long)st.accepted;
    live->connections_refused = (long)st.refused;
    pthread_mutex_lock(&hd->table_mu);
    live->sessions = (long)hd->nsessions;
    pthread_mutex_unlock(&hd->table_mu);
    pthread_mutex_lock(&hd->mu);
    live->in_flight = hd->calls;
    pthread_mutex_unlock(&hd->mu);
}

static enum MHD_Result reply_observe_refused(struct MHD_Connection *c, unsigned status)
{
    static const char *const challenge[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                            "Bearer realm=\"dbmcp-metrics\"", NULL};
    if (status == MHD_HTTP_NOT_FOUND)
        return reply_error(c, status, NULL, JSONRPC_INVALID_REQUEST, "Not Found", NULL);
    if (status == MHD_HTTP_FORBIDDEN)
        return reply_error(c, status, NULL, JSONRPC_INVALID_REQUEST,
                           "Forbidden: served to loopback clients only (setting http.metrics)",
                           NULL);
    return reply_error(c, status, NULL, JSONRPC_INVALID_REQUEST,
                       "Unauthorized: the metrics key is required (DBMCP_METRICS_KEY)", challenge);
}

/* GET /metrics and GET /status (transport/http_observe.h). */
static enum MHD_Result route_observe(http_daemon *hd, struct MHD_Connection *c, const char *url,
                                     const char *method)
{
    static const char *const no_store[] = {MHD_HTTP_HEADER_CACHE_CONTROL, "no-store", NULL};
    unsigned refused = observe_refusal(hd, c);
    if (refused)
        return reply_observe_refused(c, refused);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply_method_not_allowed(c, "GET");
    http_observe_live live;
    daemon_live(hd, &live);
    if (strcmp(url, "/status") == 0) {
        json_t *status = http_observe_status(hd->srv, &live);
        if (!status)
            return reply_busy(c, NULL, "Out of memory");
        if (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "fleet")) {
            json_t *fleet = http_observe_fleet(hd->srv, hd->fleet_beat_s);
            json_object_set_new(status, "fleet", fleet ? fleet : json_null());
        }
        return reply_json(c, MHD_HTTP_OK, status, no_store);
    }
    size_t len = 0;
    char *text = http_observe_metrics(hd->srv, &live, &len);
    if (!text)
        return reply_busy(c, NULL, "Out of memory");
    enum MHD_Result r = reply(c, MHD_HTTP_OK, HTTP_METRICS_CONTENT_TYPE, text, len, no_store);
    free(text);
    return r;
}

/* First call of a request: headers only. */
static enum MHD_Result on_headers(http_daemon *hd, struct MHD_Connection *c, const char *url,
                                  const char *method, void **con_cls)
{
    http_request *req = calloc(1, sizeof *req);
    if (!req)
        return MHD_NO;
    *con_cls = req;
    req->responded = 1;
    if (atomic_load(&hd->stopping)) {
        static const char *const headers[] = {MHD_HTTP_HEADER_CONNECTION, "close", NULL};
        return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, JSONRPC_INTERNAL_ERROR,
                           "Server is shutting down", headers);
    }
    const char *origin = header(c, MHD_HTTP_HEADER_ORIGIN);
    if ((origin && !origin_allowed(hd, origin)) || !host_allowed(hd, header(c, "Host")))
        return reply_error(c, MHD_HTTP_FORBIDDEN, NULL, JSONRPC_INVALID_REQUEST,
                           "Forbidden: Origin or Host not allowed", NULL);
    if (is_well_known(url))
        return strcmp(method, "GET") == 0 ? reply_resource_metadata(hd, c)
                                          : reply_method_not_allowed(c, "GET");
    if (strcmp(url, "/v1/chat") == 0)
        return route_chat(hd, c, method, req);
    if (strcmp(url, "/metrics") == 0 || strcmp(url, "/status") == 0)
        return route_observe(hd, c, url, method);
    if (strcmp(url, "/admin") == 0 || strncmp(url, "/admin/", 7) == 0)
        return route_admin(hd, c, url, method, req);
    if (strcmp(url, "/mcp") != 0)
        return reply_error(c, MHD_HTTP_NOT_FOUND, NULL, JSONRPC_INVALID_REQUEST, "Not Found", NULL);
    return route_mcp(hd, c, method, req);
}

/* Collect body bytes up to max_body; beyond it, discard (and finally cut
 * the connection of a client that keeps sending). */
static enum MHD_Result body_append(http_daemon *hd, http_request *req, const char *data, size_t n)
{
    if (req->too_big) {
        req->discarded += n;
        return req->discarded > hd->max_body * HTTP_DISCARD_FACTOR ? MHD_NO : MHD_YES;
    }
    if (n > hd->max_body - req->len) {
        req->too_big = 1;
        req->discarded = req->len + n;
        free(req->body);
        req->body = NULL;
        req->len = req->cap = 0;
        return MHD_YES;
    }
    if (req->len + n > req->cap) {
        size_t cap = req->cap ? req->cap : 8192;
        while (cap < req->len + n)
            cap *= 2;
        char *grown = realloc(req->body, cap);
        if (!grown)
            return MHD_NO;
        req->body = grown;
        req->cap = cap;
    }
    memcpy(req->body + req->len, data, n);
    req->len += n;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    http_daemon *hd = cls;
    http_request *req = *con_cls;
    (void)version;
    if (!req) {
        enum MHD_Result r = on_headers(hd, c, url, method, con_cls);
        req = *con_cls;
        /* read deadlines: a POST waiting for its body has the body's */
        http_admit_phase(c, req && !req->responded ? ADMIT_BODY : ADMIT_BUSY);
        return r;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        return req->responded ? MHD_YES : body_append(hd, req, upload_data, n);
    }
    if (req->responded)
        return MHD_YES;
    req->responded = 1;
    http_admit_phase(c, ADMIT_BUSY);
    if (req->too_big)
        return reply_too_large(c);
    if (req->chat)
        return chat_reply(hd, c, req);
    if (req->admin)
        return admin_reply(hd, c, url, method, req->body, req->len);
    return post_message(hd, c, req);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_request *req = *con_cls;
    (void)cls;
    http_admit_phase(c, ADMIT_IDLE);
    if (!req)
        return;
    *con_cls = NULL;
    http_stream *st = req->stream;
    if (st) {
        if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
            stream_lost(st);
        if (st->kind == STREAM_GET)
            get_stream_detach(st);
        stream_unref(st);
    }
    free(req->body);
    free(req);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    fputs("dbmcp http: ", stderr);
    vfprintf(stderr, fmt, ap);
}

/* --- signals ------------------------------------------------------------- */

static int http_signal_fd = -1; /* write end of the self-pipe */

/* Set by the first SIGTERM/SIGINT: a second one means "now". */
static volatile sig_atomic_t http_signal_stopping;

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGHUP && http_signal_stopping) {
        static const char msg[] = "dbmcp http: second stop signal, exiting at once\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(HTTP_EXIT_SIGNAL_BASE + sig);
    }
    if (sig != SIGHUP)
        http_signal_stopping = 1;
    unsigned char b = (unsigned char)sig;
    if (http_signal_fd >= 0)
        (void)!write(http_signal_fd, &b, 1);
    errno = saved;
}

typedef struct signal_state {
    int pipe[2];
    struct sigaction old_term, old_int, old_hup, old_pipe;
} signal_state;

static int signals_install(signal_state *ss, dbmcp_error *err)
{
    if (pipe2(ss->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return dbmcp_error_set(err, DBMCP_EIO, "http: pipe: %s", strerror(errno));
    http_signal_fd = ss->pipe[1];
    http_signal_stopping = 0;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &ss->old_term);
    sigaction(SIGINT, &sa, &ss->old_int);
    sigaction(SIGHUP, &sa, &ss->old_hup);
    struct sigaction ign = {0};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &ss->old_pipe);
    return 0;
}

static void signals_restore(signal_state *ss)
{
    sigaction(SIGTERM, &ss->old_term, NULL);
    sigaction(SIGINT, &ss->old_int, NULL);
    sigaction(SIGHUP, &ss->old_hup, NULL);
    sigaction(SIGPIPE, &ss->old_pipe, NULL);
    http_signal_fd = -1;
    close(ss->pipe[0]);
    close(ss->pipe[1]);
}

/* A limit that only a restart applies, when a reload read another value. */
static void note_restart_limit(const char *name, int was, int now)
{
    if (was != now)
        log_msg(LOG_INFO, "reload",
                "setting http.%s is now %d (was %d): it takes effect at the next start", name, now,
                was);
}

/* SIGHUP: read the settings now, the log level and the shutdown grace;
 * connections, sessions and running requests are untouched. A value that
 * does not validate is refused with a log line and the old one kept; the
 * same for the OIDC configuration (mcp/oidc.h), whose key cache is kept
 * unless the issuer or the CA file changed. */
static void reload(http_daemon *hd)
{
    dbmcp_error err;
    int changed = 0;
    if (mcp_server_reload_settings(hd->srv, &changed, &err) != 0) {
        log_msg(LOG_WARN, "reload", "cannot read the settings: %s; keeping the old ones",
                err.message);
        return;
    }
    mcp_server_apply_log_level(hd->srv, &err);
    http_limits now = {0};
    if (http_limits_load(hd->srv, &now, &err) != 0) {
        log_msg(LOG_WARN, "reload", "%s; keeping the old HTTP limits (shutdown grace %d ms)",
                err.message, hd->lim.shutdown_grace_ms);
    } else {
        if (now.shutdown_grace_ms != hd->lim.shutdown_grace_ms)
            log_msg(LOG_INFO, "reload", "shutdown grace %d ms -> %d ms", hd->lim.shutdown_grace_ms,
                    now.shutdown_grace_ms);
        hd->lim.shutdown_grace_ms = now.shutdown_grace_ms;
        note_restart_limit("max_connections", hd->lim.max_connections, now.max_connections);
        note_restart_limit("max_in_flight", hd->lim.max_in_flight, now.max_in_flight);
        note_restart_limit("max_in_flight_per_key", hd->lim.max_in_flight_per_key,
                           now.max_in_flight_per_key);
        note_restart_limit("session_idle_s", hd->lim.session_idle_s, now.session_idle_s);
    }
    if (mcp_oidc_configure(hd->oidc, &err) != 0)
        log_msg(LOG_WARN, "reload", "%s; keeping the old single sign-on configuration",
                err.message);
    log_msg(LOG_INFO, "reload", "reloaded: %d setting(s) changed; log level %s", changed,
            log_level_name(log_get_level()));
}

/* Block until SIGTERM/SIGINT, expiring idle sessions and reloading on
 * SIGHUP meanwhile. */
/* This replica's heartbeat row (http_observe_heartbeat); a failure is
 * logged once until a heartbeat succeeds again. */
static void heartbeat(http_daemon *hd)
{
    http_observe_live live;
    daemon_live(hd, &live);
    char url[sizeof hd->authority + 16];
    snprintf(url, sizeof url, "http://%s/mcp", hd->authority);
    dbmcp_error err;
    int rc = http_observe_heartbeat(hd->srv, &live, url, hd->fleet_expire_s, &err);
    if (rc && !hd->beat_failed)
        log_msg(LOG_WARN, "fleet", "heartbeat not written: %s", err.message);
    hd->beat_failed = rc != 0;
}

static void wait_for_signal(http_daemon *hd, int fd)
{
    double next_sweep = now_s() + HTTP_SWEEP_S;
    double next_beat = now_s(); /* at once: the fleet sees a replica as soon as it listens */
    for (;;) {
        if (now_s() >= next_beat) {
            heartbeat(hd);
            next_beat = now_s() + hd->fleet_beat_s;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int rc = poll(&p, 1, (int)(HTTP_POLL_S * 1000));
        unsigned char sig;
        if (rc > 0 && read(fd, &sig, 1) == 1) {
            if (sig == SIGHUP) {
                reload(hd);
                continue;
            }
            fprintf(stderr, "dbmcp http: signal %d, shutting down\n", sig);
            return;
        }
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "dbmcp http: poll: %s, shutting down\n", strerror(errno));
            return;
        }
        if (now_s() >= next_sweep) {
            sessions_sweep(hd);
            next_sweep = now_s() + HTTP_SWEEP_S;
        }
    }
}

/* --- the daemon ---------------------------------------------------------- */

/* Split a configured public base URL into the URL (no trailing '/'), its
 * origin and its host. */
static int public_url_parse(http_daemon *hd, const char *url, dbmcp_error *err)
{
    if (!url || !*url)
        return 0;
    size_t scheme = strncasecmp(url, "https://", 8) == 0  ? 8
                    : strncasecmp(url, "http://", 7) == 0 ? 7
                                                          : 0;
    size_t len = strlen(url);
    while (len > scheme && url[len - 1] == '/')
        len--;
    const char *auth = url + scheme;
    size_t auth_len = strcspn(auth, "/?#");
    if (auth + auth_len > url + len)
        auth_len = (size_t)(url + len - auth);
    const char *h;
    size_t hn;
    if (!scheme || len >= sizeof hd->public_url || !authority_host(auth, auth_len, &h, &hn) ||
        hn >= sizeof hd->public_host || strpbrk(url, " \t\r\n\"<>"))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "http: public URL must look like https://host[:port][/path], "
                               "got '%s'",
                               url);
    snprintf(hd->public_url, sizeof hd->public_url, "%.*s", (int)len, url);
    snprintf(hd->public_origin, sizeof hd->public_origin, "%.*s", (int)(scheme + auth_len), url);
    snprintf(hd->public_host, sizeof hd->public_host, "%.*s", (int)hn, h);
    return 0;
}

static void fit_descriptors(http_limits *lim);

/* Single sign-on from the oidc.* settings: a malformed configuration
 * stops the start; an unreachable provider only warns (tokens are refused
 * until its keys can be fetched). */
static int oidc_start(http_daemon *hd, dbmcp_error *err)
{
    if (!(hd->oidc = mcp_oidc_create(hd->srv)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "http: out of memory");
    int rc = mcp_oidc_configure(hd->oidc, err);
    if (rc || !mcp_oidc_enabled(hd->oidc) || hd->no_auth)
        return rc;
    size_t keys = 0;
    dbmcp_error ferr;
    if (mcp_oidc_refresh(hd->oidc, &keys, &ferr) != 0)
        log_msg(LOG_WARN, "oidc", "%s; access tokens are refused until the keys can be fetched",
                ferr.message);
    else
        log_msg(LOG_INFO, "oidc", "single sign-on on: %zu signing key(s)", keys);
    return 0;
}

static int daemon_configure(http_daemon *hd, mcp_server *srv, const http_config *cfg,
                            dbmcp_error *err)
{
    hd->srv = srv;
    hd->no_auth = cfg->no_auth;
    hd->anonymous = cfg->anonymous;
    hd->allowed_origins = cfg->allowed_origins;
    hd->max_body = cfg->max_body ? cfg->max_body : HTTP_DEFAULT_MAX_BODY;
    hd->lim = cfg->limits;
    hd->metrics = cfg->metrics;
    http_limits_default(&hd->lim);
    if (hd->lim.max_connections_per_ip > hd->lim.max_connections)
        hd->lim.max_connections_per_ip = hd->lim.max_connections;
    fit_descriptors(&hd->lim);
    int rc = public_url_parse(hd, cfg->public_url, err);
    if (rc == 0)
        rc = bind_resolve(hd, cfg->bind, err);
    if (rc != 0)
        return rc;
    if (hd->no_auth && !hd->loopback)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "http: --no-auth is only allowed on a loopback address, not %s",
                               cfg->bind);
    if (hd->no_auth && !hd->anonymous)
        return dbmcp_error_set(err, DBMCP_EINVAL, "http: --no-auth needs an anonymous identity");
    long beat = mcp_server_setting_long(srv, "fleet.heartbeat_s", HTTP_FLEET_HEARTBEAT_S_DEFAULT);
    long expire = mcp_server_setting_long(srv, "fleet.expire_s", HTTP_FLEET_EXPIRE_S_DEFAULT);
    if (beat < 1 || beat > 3600)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "fleet.heartbeat_s: %ld is not a whole number between 1 and 3600",
                               beat);
    if (expire < 60 || expire > 30L * 86400)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "fleet.expire_s: %ld is not a whole number between 60 and 2592000",
                               expire);
    hd->fleet_beat_s = (int)beat;
    hd->fleet_expire_s = (int)expire;
    return oidc_start(hd, err);
}

/* Every connection, served or waiting, is a descriptor: raise the soft
 * limit towards the hard one, and shrink the queue (then the connections)
 * when even that is not enough. */
static void fit_descriptors(http_limits *lim)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t need = (rlim_t)lim->max_connections + (rlim_t)lim->max_waiting + HTTP_FD_RESERVE;
    if (rl.rlim_cur < need && rl.rlim_cur != RLIM_INFINITY) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return;
    long room = (long)rl.rlim_cur - HTTP_FD_RESERVE;
    if (room < 16)
        room = 16;
    if (lim->max_connections > room / 2)
        lim->max_connections = (int)(room / 2);
    if (lim->max_connections_per_ip > lim->max_connections)
        lim->max_connections_per_ip = lim->max_connections;
    if (lim->max_waiting > room - lim->max_connections)
        lim->max_waiting = (int)(room - lim->max_connections);
    log_msg(LOG_WARN, "http",
            "open files limit %ld: serving at most %d connections with %d waiting "
            "(raise `ulimit -n` for more)",
            (long)rl.rlim_cur, lim->max_connections, lim->max_waiting);
}

/* The listening socket on hd->addr; fills hd->listen_fd. */
static int listen_open(http_daemon *hd, dbmcp_error *err)
{
    int fd = socket(hd->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    socklen_t len = hd->ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    int on = 1;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (hd->ipv6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&hd->addr, len) != 0 || listen(fd, SOMAXCONN) != 0) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return dbmcp_error_set(err, DBMCP_EIO, "http: cannot listen on %s:%u: %s", hd->bind_host,
                               hd->port, strerror(saved));
    }
    struct sockaddr_storage bound;
    socklen_t blen = sizeof bound;
    unsigned port = hd->port;
    if (getsockname(fd, (struct sockaddr *)&bound, &blen) == 0)
        port =
            ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)(void *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)(void *)&bound)->sin_port);
    snprintf(hd->authority, sizeof hd->authority, "%s:%u", hd->bind_host, port);
    hd->listen_fd = fd;
    return 0;
}

/* libmicrohttpd serves the connections admission hands it (it never
 * accepts itself, see http_admit.h); its own limit is only a backstop
 * above admission's, which a connection closing and the next one
 * starting may briefly overlap. */
static int daemon_start(http_daemon *hd, dbmcp_error *err)
{
    int rc = listen_open(hd, err);
    if (rc == 0)
        rc = http_admit_create(&hd->lim, hd->listen_fd, &hd->admit, err);
    hd->listen_fd = -1; /* admission owns it now */
    if (rc != 0)
        return rc;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET;
    unsigned backstop = (unsigned)hd->lim.max_connections * 2u + 64u;
    hd->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, hd, MHD_OPTION_EXTERNAL_LOGGER,
                               on_mhd_log, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
                               (unsigned)hd->lim.idle_timeout_s, MHD_OPTION_CONNECTION_LIMIT,
                               backstop, MHD_OPTION_NOTIFY_COMPLETED, on_completed, hd,
                               MHD_OPTION_NOTIFY_CONNECTION, http_admit_on_connection, hd->admit,
                               MHD_OPTION_URI_LOG_CALLBACK, http_admit_on_request_line, hd->admit,
                               MHD_OPTION_THREAD_STACK_SIZE, HTTP_THREAD_STACK, MHD_OPTION_END);
    if (!hd->mhd)
        return dbmcp_error_set(err, DBMCP_EIO, "http: cannot start the HTTP server on %s",
                               hd->authority);
    return http_admit_start(hd->admit, hd->mhd, err);
}

/* Wake every running request's stream so that listen streams see
 * `stopping` now rather than at their next poll (which may come after a
 * short grace, when they would be cut instead of ended). The broadcast is
 * made without st->mu (hd->mu is held, and a stream in the active list
 * is alive): one that misses it still wakes within HTTP_POLL_S. */
static void wake_active(http_daemon *hd)
{
    pthread_mutex_lock(&hd->mu);
    for (http_stream *st = hd->active; st; st = st->next_active)
        pthread_cond_broadcast(&st->cond);
    pthread_mutex_unlock(&hd->mu);
}

/* Cancel every request still running (shutdown took too long). */
static void cancel_active(http_daemon *hd)
{
    pthread_mutex_lock(&hd->mu);
    size_t n = 0;
    for (http_stream *st = hd->active; st; st = st->next_active)
        n++;
    mcp_session **sessions = calloc(n ? n : 1, sizeof *sessions);
    size_t k = 0;
    for (http_stream *st = hd->active; sessions && st; st = st->next_active)
        sessions[k++] = mcp_session_ref(st->session);
    pthread_mutex_unlock(&hd->mu);
    for (size_t i = 0; i < k; i++) {
        mcp_session_cancel_all(sessions[i]);
        mcp_session_unref(sessions[i]);
    }
    free(sessions);
}

/* Let running requests finish; after the shutdown grace cancel them
 * (agent SQL is interrupted, their audit rows say cancelled) and wait for
 * their threads (they use the server, which the caller frees next).
 * Returns how many calls were cancelled. */
static int drain_workers(http_daemon *hd)
{
    double deadline = now_s() + hd->lim.shutdown_grace_ms / 1000.0;
    pthread_mutex_lock(&hd->mu);
    while (hd->workers > 0 && now_s() < deadline)
        cond_wait_for(&hd->cond, &hd->mu, 0.05);
    int left = hd->workers;
    /* Listen streams have a worker too but are no call: they end by
     * themselves on `stopping` and do not make the exit status 3. */
    int calls = hd->calls;
    pthread_mutex_unlock(&hd->mu);
    if (left == 0)
        return 0;
    if (calls > 0)
        log_msg(LOG_WARN, "http", "shutdown grace of %d ms is over: cancelling %d request(s)",
                hd->lim.shutdown_grace_ms, calls);
    atomic_store(&hd->aborting, 1);
    cancel_active(hd);
    pthread_mutex_lock(&hd->mu);
    while (hd->workers > 0) {
        cond_wait_for(&hd->cond, &hd->mu, 5.0);
        if (hd->workers > 0)
            fprintf(stderr, "dbmcp http: waiting for %d cancelled request(s)\n", hd->workers);
    }
    pthread_mutex_unlock(&hd->mu);
    return calls;
}

/* Wait until no stream is left, for at most `seconds` (< 0: no limit).
 * Before the daemon stops this lets streams deliver their last bytes;
 * after it, it waits out the worker threads' final releases, which still
 * touch the daemon and the server. */
static void drain_streams(http_daemon *hd, double seconds)
{
    double deadline = now_s() + seconds;
    pthread_mutex_lock(&hd->mu);
    while (hd->streams > 0 && (seconds < 0 || now_s() < deadline))
        cond_wait_for(&hd->cond, &hd->mu, 0.1);
    pthread_mutex_unlock(&hd->mu);
}

/* What the limits did, for the operator log. */
static void log_stats(http_daemon *hd)
{
    http_admit_stats st;
    http_admit_stats_get(hd->admit, &st);
    log_msg(LOG_INFO, "http",
            "connections: %lu accepted, %lu waited for a slot, %lu refused (503), %lu cut "
            "(headers %lu, body %lu, idle %lu); sessions ended for their key's room: %lu,"
            " idle copies dropped for room: %lu",
            st.accepted, st.waited, st.refused, st.cut_headers + st.cut_body + st.cut_idle,
            st.cut_headers, st.cut_body, st.cut_idle, hd->dropped, hd->evicted);
}

/* Returns how many requests the grace deadline cancelled. */
static int daemon_shutdown(http_daemon *hd)
{
    atomic_store(&hd->stopping, 1);
    http_admit_stop(hd->admit);
    wake_active(hd);
    pthread_mutex_lock(&hd->mu);
    int running = hd->calls;
    pthread_mutex_unlock(&hd->mu);
    /* After the listening socket is closed: a client that reads this line
     * knows new connections are refused. */
    log_msg(LOG_INFO, "http",
            "shutting down: new connections are refused; %d call(s) running get %d ms to "
            "finish",
            running, hd->lim.shutdown_grace_ms);
    int cancelled = drain_workers(hd);
    drain_streams(hd, HTTP_STREAM_DRAIN_S);
    MHD_stop_daemon(hd->mhd);
    hd->mhd = NULL;
    drain_streams(hd, -1.0);
    table_clear(hd);
    mcp_server_flush_audit(hd->srv);
    log_stats(hd);
    return cancelled;
}

static http_daemon *daemon_new(void)
{
    http_daemon *hd = calloc(1, sizeof *hd);
    if (!hd)
        return NULL;
    atomic_init(&hd->stopping, 0);
    atomic_init(&hd->aborting, 0);
    pthread_mutex_init(&hd->mu, NULL);
    cond_init_monotonic(&hd->cond);
    pthread_mutex_init(&hd->table_mu, NULL);
    hd->listen_fd = -1;
    return hd;
}

static void daemon_free(http_daemon *hd)
{
    if (hd->mhd)
        MHD_stop_daemon(hd->mhd);
    http_admit_free(hd->admit);
    if (hd->listen_fd >= 0)
        close(hd->listen_fd);
    free(hd->loads);
    mcp_oidc_free(hd->oidc);
    pthread_mutex_destroy(&hd->table_mu);
    pthread_cond_destroy(&hd->cond);
    pthread_mutex_destroy(&hd->mu);
    free(hd);
}

int http_serve(mcp_server *srv, const http_config *cfg, dbmcp_error *err)
{
    dbmcp_error_clear(err);
    if (!srv || !cfg)
        return dbmcp_error_set(err, DBMCP_EINVAL, "http: no server or configuration");
    if (sodium_init() < 0)
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "http: libsodium failed to initialise");
    http_daemon *hd = daemon_new();
    if (!hd)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "http: out of memory");
    int rc = daemon_configure(hd, srv, cfg, err);
    signal_state ss;
    if (rc == 0)
        rc = signals_install(&ss, err);
    if (rc != 0) {
        daemon_free(hd);
        return rc;
    }
    rc = daemon_start(hd, err);
    if (rc == 0) {
        mcp_server_on_key_revoked(srv, on_key_revoked, hd);
        mcp_server_on_sessions_changed(srv, sessions_changed, hd);
        fprintf(stderr, "listening on http://%s/mcp\n", hd->authority);
        wait_for_signal(hd, ss.pipe[0]);
        if (daemon_shutdown(hd) > 0)
            rc = HTTP_SERVE_CANCELLED;
        http_observe_heartbeat_end(srv);
    }
    mcp_server_on_sessions_changed(srv, NULL, NULL);
    mcp_server_on_key_revoked(srv, NULL, NULL);
    signals_restore(&ss);
    daemon_free(hd);
    return rc;
}
