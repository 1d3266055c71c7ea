/*
 * log.c — JSON-lines operator log on stderr; see log.h.
 */
#include "core/log.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"

/* Atomic: a reload (SIGHUP) sets it while other threads log. */
static _Atomic int current_level = LOG_INFO;
static int level_from_env; /* DBMCP_LOG named a level */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *level_names[] = {"debug", "info", "warn", "error"};

void log_init(void)
{
    const char *env = getenv("DBMCP_LOG");
    log_level level;
    if (env && log_level_parse(env, &level) == 0) {
        atomic_store(&current_level, (int)level);
        level_from_env = 1;
    }
}

void log_set_level(log_level level)
{
    atomic_store(&current_level, (int)level);
}

log_level log_get_level(void)
{
    return (log_level)atomic_load(&current_level);
}

int log_level_pinned(void)
{
    return level_from_env;
}

int log_level_parse(const char *name, log_level *out)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, level_names[i]) == 0) {
            *out = (log_level)i;
            return 0;
        }
    return -1;
}

const char *log_level_name(log_level level)
{
    return level >= LOG_DEBUG && level <= LOG_ERROR ? level_names[level] : "info";
}

void log_msg(log_level level, const char *component, const char *fmt, ...)
{
    if ((int)level < atomic_load(&current_level))
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
