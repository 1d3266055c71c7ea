/*
 * log.h — the operator log: one JSON object per line on stderr
 * ({"ts","level","component","msg", …}). stdout belongs to the stdio
 * transport and the CLI; nothing here writes to it. The level comes from
 * DBMCP_LOG (debug, info, warn, error; default info). Thread-safe.
 */
#ifndef DBMCP_CORE_LOG_H
#define DBMCP_CORE_LOG_H

typedef enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR } log_level;

/* Read DBMCP_LOG; call once at startup (optional: defaults to info). */
void log_init(void);
void log_set_level(log_level level);
log_level log_get_level(void);
/* 1 when DBMCP_LOG set the level (it wins over the setting log.level). */
int log_level_pinned(void);
/* The level named "debug", "info", "warn" or "error" into *out; 0, or -1
 * for any other name (*out untouched). */
int log_level_parse(const char *name, log_level *out);
/* The name of a level ("info"). */
const char *log_level_name(log_level level);
/* Write one line if level is enabled. */
void log_msg(log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
