/*
 * error.c — filling struct dbmcp_error; see error.h for the contract.
 */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dbmcp_error_clear(dbmcp_error *err)
{
    if (!err)
        return;
    err->code = DBMCP_OK;
    err->message[0] = '\0';
    err->public_message[0] = '\0';
}

int dbmcp_error_set(dbmcp_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    size_t n = strnlen(err->message, sizeof err->public_message - 1);
    memcpy(err->public_message, err->message, n);
    err->public_message[n] = '\0';
    return code;
}

int dbmcp_error_set_private(dbmcp_error *err, int code, const char *public_msg, const char *fmt,
                            ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    snprintf(err->public_message, sizeof err->public_message, "%s", public_msg);
    return code;
}

static void prefix_into(char *buf, size_t size, const char *context)
{
    char tmp[1024];
    size_t c = strnlen(context, sizeof tmp / 2);
    size_t b = strnlen(buf, sizeof tmp - c - 3);
    memcpy(tmp, context, c);
    memcpy(tmp + c, ": ", 2);
    memcpy(tmp + c + 2, buf, b);
    tmp[c + 2 + b] = '\0';
    size_t n = strnlen(tmp, size - 1);
    memcpy(buf, tmp, n);
    buf[n] = '\0';
}

int dbmcp_error_prefix(dbmcp_error *err, const char *context)
{
    if (!err)
        return DBMCP_EINTERNAL;
    prefix_into(err->message, sizeof err->message, context);
    prefix_into(err->public_message, sizeof err->public_message, context);
    return err->code;
}

const char *dbmcp_code_name(int code)
{
    switch (code) {
    case DBMCP_OK: return "ok";
    case DBMCP_EINVAL: return "invalid_argument";
    case DBMCP_ENOTFOUND: return "not_found";
    case DBMCP_EEXISTS: return "already_exists";
    case DBMCP_ESTORE: return "store_error";
    case DBMCP_EDENIED: return "denied";
    case DBMCP_ETOOBIG: return "too_big";
    case DBMCP_ETIMEOUT: return "timeout";
    case DBMCP_ENOMEM: return "out_of_memory";
    case DBMCP_EIO: return "io_error";
    case DBMCP_EVERSION: return "version_mismatch";
    case DBMCP_ECONSTRAINT_UNIQUE: return "unique_violation";
    case DBMCP_ECONSTRAINT_FOREIGN_KEY: return "foreign_key_violation";
    case DBMCP_ECONSTRAINT_CHECK: return "check_violation";
    case DBMCP_ECONSTRAINT_NOT_NULL: return "not_null_violation";
    default: return "internal";
    }
}
