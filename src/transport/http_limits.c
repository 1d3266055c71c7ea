/*
 * http_limits.c — the HTTP transport's resource limits from settings and
 * the environment (see http_limits in http.h). One table holds every limit
 * with its setting, variable, default and bounds, so the documentation in
 * docs/configuration.md and this file list the same things.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "transport/http.h"

typedef struct limit_option {
    const char *key; /* setting in dbmcp_settings */
    const char *env; /* environment variable (wins over the setting) */
    size_t offset;   /* int field of http_limits */
    int default_value;
    int min, max;
} limit_option;

#define LIMIT(name, env, def, min, max)                                                            \
    {                                                                                              \
        "http." #name, env, offsetof(http_limits, name), def, min, max                             \
    }

static const limit_option limit_options[] = {
    LIMIT(max_connections, "DBMCP_HTTP_MAX_CONNECTIONS", 512, 1, 100000),
    LIMIT(max_connections_per_ip, "DBMCP_HTTP_MAX_CONNECTIONS_PER_IP", 64, 1, 100000),
    LIMIT(max_waiting, "DBMCP_HTTP_MAX_WAITING", 2048, 0, 1000000),
    LIMIT(wait_timeout_s, "DBMCP_HTTP_WAIT_TIMEOUT_S", 10, 1, 600),
    LIMIT(header_timeout_s, "DBMCP_HTTP_HEADER_TIMEOUT_S", 10, 1, 600),
    LIMIT(body_timeout_s, "DBMCP_HTTP_BODY_TIMEOUT_S", 30, 1, 3600),
    LIMIT(idle_timeout_s, "DBMCP_HTTP_IDLE_TIMEOUT_S", 30, 1, 3600),
    LIMIT(max_in_flight, "DBMCP_HTTP_MAX_IN_FLIGHT", 128, 1, 10000),
    LIMIT(max_in_flight_per_key, "DBMCP_HTTP_MAX_IN_FLIGHT_PER_KEY", 32, 1, 10000),
    LIMIT(max_sessions, "DBMCP_HTTP_MAX_SESSIONS", 10000, 1, 1000000),
    LIMIT(max_sessions_per_key, "DBMCP_HTTP_MAX_SESSIONS_PER_KEY", 100, 1, 1000000),
    LIMIT(session_idle_s, "DBMCP_HTTP_SESSION_IDLE_S", 900, 10, 7 * 86400),
    LIMIT(shutdown_grace_ms, "DBMCP_HTTP_SHUTDOWN_GRACE_MS", 10000, 1, 3600000),
};

static int *field(http_limits *limits, const limit_option *o)
{
    return (int *)(void *)((char *)limits + o->offset);
}

/* One option: the variable when set and not empty, else the setting,
 * else the default. */
static int limit_load(mcp_server *srv, const limit_option *o, int *out, dbmcp_error *err)
{
    char setting[64];
    const char *from = o->env;
    const char *v = getenv(o->env);
    if (!v || !*v) {
        from = o->key;
        v = srv && mcp_server_setting(srv, o->key, setting, sizeof setting) && *setting ? setting
                                                                                        : NULL;
    }
    if (!v) {
        *out = o->default_value;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < o->min || n > o->max)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s: \"%.40s\" is not a whole number between %d and %d", from, v,
                               o->min, o->max);
    *out = (int)n;
    return 0;
}

int http_limits_load(mcp_server *srv, http_limits *limits, dbmcp_error *err)
{
    for (size_t i = 0; i < sizeof limit_options / sizeof limit_options[0]; i++) {
        int rc = limit_load(srv, &limit_options[i], field(limits, &limit_options[i]), err);
        if (rc)
            return rc;
    }
    return 0;
}

/* The defaults for zero fields (an http_config filled by hand). */
void http_limits_default(http_limits *limits)
{
    for (size_t i = 0; i < sizeof limit_options / sizeof limit_options[0]; i++) {
        int *f = field(limits, &limit_options[i]);
        if (*f <= 0 && limit_options[i].min > 0)
            *f = limit_options[i].default_value;
    }
}
