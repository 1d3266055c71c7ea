/*
 * http_admit.h — admission of HTTP connections, private to transport/:
 * which accepted connection gets one of libmicrohttpd's connection threads,
 * which one waits, and how long a connection may take to send a request.
 *
 * libmicrohttpd runs a thread per connection and, at its connection limit,
 * closes new connections unanswered; it bounds a connection only by
 * inactivity, so a client sending one header line per second keeps its
 * thread forever. Admission therefore owns the listening socket: its thread
 * accepts every connection and hands it to libmicrohttpd
 * (MHD_add_connection) only while
 *   - fewer than max_connections are being served, and
 *   - fewer than max_connections_per_ip of them come from the same address.
 * Otherwise the connection waits, holding a socket but no thread, in one
 * first-come queue (max_waiting long); when a slot frees, the oldest waiting
 * connection whose address is under its cap goes in. A connection that
 * waited wait_timeout_s, or finds the queue full, is answered 503 with
 * Retry-After and closed.
 *
 * Served connections have deadlines by phase, enforced by the same thread
 * (shutdown of the socket; headers and body also get a 408 first):
 *   fresh       connected, no request line yet      header_timeout_s
 *   headers     request line seen, headers arriving header_timeout_s
 *   body        headers done, body arriving         body_timeout_s
 *   busy        request read: handled, streaming    none (the request's own limits)
 *   idle        between keep-alive requests         idle_timeout_s
 * The transport reports phases: the request-line callback (headers),
 * http_admit_phase (body, busy) and its completion callback (idle).
 *
 * Thread safety: the callbacks run on libmicrohttpd's threads, the rest on
 * the caller's; one mutex guards the tables. No lock of this module is held
 * while calling libmicrohttpd.
 */
#ifndef DBMCP_TRANSPORT_HTTP_ADMIT_H
#define DBMCP_TRANSPORT_HTTP_ADMIT_H

#include <microhttpd.h>

#include "core/error.h"
#include "transport/http.h"

typedef struct http_admit http_admit;

typedef enum admit_phase {
    ADMIT_HEADERS, /* the request line arrived; headers are arriving */
    ADMIT_BODY,    /* headers done; the body is arriving */
    ADMIT_BUSY,    /* the request is read: no read deadline */
    ADMIT_IDLE     /* a request completed; waiting for the next */
} admit_phase;

/* Counters since the start, for the operator log at shutdown, /metrics
 * and tests, and the two lists' lengths now. */
typedef struct http_admit_stats {
    unsigned long accepted;    /* connections accepted */
    unsigned long waited;      /* of them, queued before being served */
    unsigned long refused;     /* answered 503: queue full, waited too long, shutting down */
    unsigned long cut_headers; /* closed: request line or headers too slow (fresh included) */
    unsigned long cut_body;    /* closed: body too slow */
    unsigned long cut_idle;    /* closed: idle between requests too long */
    unsigned long served_now;  /* connections handed to libmicrohttpd and not closed */
    unsigned long waiting_now; /* connections in the waiting queue */
} http_admit_stats;

/* A new admission over listen_fd, a listening socket it takes over (made
 * non-blocking here, closed by http_admit_stop, also when this fails).
 * limits must be complete (http_limits_default). */
int http_admit_create(const http_limits *limits, int listen_fd, http_admit **out, dbmcp_error *err);
/* Start accepting into mhd (started with MHD_USE_NO_LISTEN_SOCKET and the
 * two callbacks below). */
int http_admit_start(http_admit *a, struct MHD_Daemon *mhd, dbmcp_error *err);
/* Stop accepting: close the listening socket and answer every waiting
 * connection 503. Served connections are untouched (their deadlines are no
 * longer enforced). Idempotent. */
void http_admit_stop(http_admit *a);
/* Free; call after MHD_stop_daemon (its last callbacks use a). NULL: no-op. */
void http_admit_free(http_admit *a);
void http_admit_stats_get(http_admit *a, http_admit_stats *out);

/* MHD_OPTION_NOTIFY_CONNECTION callback; cls is the http_admit. */
void http_admit_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code);
/* MHD_OPTION_URI_LOG_CALLBACK: the request line arrived. Returns NULL. */
void *http_admit_on_request_line(void *cls, const char *uri, struct MHD_Connection *c);
/* The request on c entered phase (body, busy, or idle once completed). */
void http_admit_phase(struct MHD_Connection *c, admit_phase phase);

#endif
