/*
 * log.c — JSON-lines operator log on stderr; see log.h.
 */
#include "core/log.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"

static log_level current_level = LOG_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *level_names[] = {"debug", "info", "warn", "error"};

void log_init(void)
{
    const char *env = getenv("DBMCP_LOG");
    if (!env)
        return;
    for (int i = 0; i < 4; i++)
        if (strcmp(env, level_names[i]) == 0)
            current_level = (log_level)i;
}

void log_set_level(log_level level)
{
    current_level = level;
}

void log_msg(log_level level, const char *component, const char *fmt, ...)
{
    if (level < current_level)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char ts[32];
    ids_now_iso(ts);
    json_t *line = json_pack("{s:s, s:s, s:s, s:s}", "ts", ts, "level", level_names[level],
                             "component", component, "msg", msg);
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    pthread_mutex_lock(&log_lock);
    if (text)
        fprintf(stderr, "%s\n", text);
    fflush(stderr);
    pthread_mutex_unlock(&log_lock);
    free(text);
    json_decref(line);
}
