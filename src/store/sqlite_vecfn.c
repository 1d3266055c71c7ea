/*
 * sqlite_vecfn.c — vector_distance() and embed() for SQL (contract in
 * sqlite_vecfn.h). Arguments are parsed into float arrays of our own
 * (a BLOB is copied: SQLite gives no alignment guarantee), checked, and
 * handed to core/vector.h; embed() calls the hook the embedder's layer
 * registered (store/embed_hook.h).
 */
#include "store/sqlite_vecfn.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/vector.h"
#include "store/embed_hook.h"

/* A parsed vector argument. */
typedef struct vec_arg {
    float *v; /* owned */
    int dim;
} vec_arg;

/* Report "vector_distance: argument N …" as the statement's error. */
static void arg_error(sqlite3_context *ctx, int argn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void arg_error(sqlite3_context *ctx, int argn, const char *fmt, ...)
{
    char msg[400];
    int off = snprintf(msg, sizeof msg, "vector_distance: argument %d ", argn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof msg - (size_t)off, fmt, ap);
    va_end(ap);
    sqlite3_result_error(ctx, msg, -1);
}

/* Refuse what vec_check refuses, so every distance computed is finite. */
static int checked(sqlite3_context *ctx, int argn, const vec_arg *a)
{
    int at = -1;
    vec_fault f = vec_check(a->v, a->dim, &at);
    if (f == VEC_OK)
        return 0;
    if (at >= 0)
        arg_error(ctx, argn, "%s at element %d", vec_fault_text(f), at);
    else
        arg_error(ctx, argn, "%s", vec_fault_text(f));
    return -1;
}

static int blob_arg(sqlite3_context *ctx, sqlite3_value *val, int argn, vec_arg *out)
{
    size_t bytes = (size_t)sqlite3_value_bytes(val);
    const void *blob = sqlite3_value_blob(val);
    if (bytes == 0 || bytes % 4) {
        arg_error(ctx, argn,
                  "is a %zu-byte BLOB; a float32 vector needs a positive multiple of 4 bytes",
                  bytes);
        return -1;
    }
    if (bytes / 4 > SQLITE_VECFN_MAX_DIM) {
        arg_error(ctx, argn, "has %zu elements; the limit is %d", bytes / 4, SQLITE_VECFN_MAX_DIM);
        return -1;
    }
    out->dim = (int)(bytes / 4);
    out->v = malloc(bytes);
    if (!out->v) {
        sqlite3_result_error_nomem(ctx);
        return -1;
    }
    memcpy(out->v, blob, bytes);
    return checked(ctx, argn, out);
}

static int json_arg(sqlite3_context *ctx, sqlite3_value *val, int argn, vec_arg *out)
{
    const char *text = (const char *)sqlite3_value_text(val);
    size_t n = (size_t)sqlite3_value_bytes(val);
    if (n > SQLITE_VECFN_MAX_JSON) {
        arg_error(ctx, argn, "is %zu bytes of text; the limit for a JSON vector is %d", n,
                  SQLITE_VECFN_MAX_JSON);
        return -1;
    }
    json_error_t jerr;
    json_t *arr = json_loadb(text ? text : "", n, 0, &jerr);
    if (!json_is_array(arr)) {
        if (arr)
            arg_error(ctx, argn, "is JSON but not an array of numbers");
        else
            arg_error(ctx, argn, "is not a JSON array of numbers: %s at character %d", jerr.text,
                      jerr.position);
        json_decref(arr);
        return -1;
    }
    size_t dim = json_array_size(arr);
    int rc = -1;
    if (dim == 0)
        arg_error(ctx, argn, "is an empty array; a vector needs at least one element");
    else if (dim > SQLITE_VECFN_MAX_DIM)
        arg_error(ctx, argn, "has %zu elements; the limit is %d", dim, SQLITE_VECFN_MAX_DIM);
    else if (!(out->v = malloc(dim * sizeof(float))))
        sqlite3_result_error_nomem(ctx);
    else
        rc = 0;
    size_t i;
    json_t *x;
    json_array_foreach (arr, i, x) {
        if (rc)
            break;
        double d = json_number_value(x);
        if (!json_is_number(x) || !isfinite(d) || fabs(d) > 3.4e38) {
            arg_error(ctx, argn, "element %zu is not a finite number within float32 range", i);
            rc = -1;
        } else {
            out->v[i] = (float)d;
        }
    }
    out->dim = (int)dim;
    json_decref(arr);
    return rc ? rc : checked(ctx, argn, out);
}

/* 1: SQL NULL (result NULL); 0: parsed; -1: error reported. */
static int vector_arg(sqlite3_context *ctx, sqlite3_value *val, int argn, vec_arg *out)
{
    switch (sqlite3_value_type(val)) {
    case SQLITE_NULL: return 1;
    case SQLITE_BLOB: return blob_arg(ctx, val, argn, out);
    case SQLITE_TEXT: return json_arg(ctx, val, argn, out);
    default:
        arg_error(ctx, argn, "is a number; a vector is a float32 BLOB or a JSON array of numbers");
        return -1;
    }
}

static void fn_vector_distance(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int metric = VEC_COSINE;
    if (argc == 3) {
        if (sqlite3_value_type(argv[2]) == SQLITE_NULL)
            return;
        const char *name = (const char *)sqlite3_value_text(argv[2]);
        metric = vec_metric_parse(name);
        if (metric < 0) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "vector_distance: argument 3 is '%.40s'; the metric must be 'cosine', 'dot' "
                     "or 'euclidean'",
                     name ? name : "");
            sqlite3_result_error(ctx, msg, -1);
            return;
        }
    }
    vec_arg a = {0}, b = {0};
    int ra = vector_arg(ctx, argv[0], 1, &a);
    int rb = ra == 0 ? vector_arg(ctx, argv[1], 2, &b) : 0;
    if (ra == 0 && rb == 0) {
        if (a.dim != b.dim) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "vector_distance: the vectors differ in dimension (%d and %d elements)", a.dim,
                     b.dim);
            sqlite3_result_error(ctx, msg, -1);
        } else {
            sqlite3_result_double(ctx, (double)vec_distance(a.v, b.v, a.dim, (vec_metric)metric));
        }
    }
    /* ra == 1 or rb == 1: NULL, the default result. */
    free(a.v);
    free(b.v);
}

static void fn_embed(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    const char *text = (const char *)sqlite3_value_text(argv[0]);
    if (!text) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    float *v = NULL;
    int dim = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_embed_hook_call(text, &v, &dim, &err);
    if (rc) {
        /* The statement's error may reach the agent: the public message;
         * the operator's detail goes to the log. */
        log_msg(LOG_WARN, "embed", "embed(): %s", err.message);
        char msg[600];
        snprintf(msg, sizeof msg, "embed: %s",
                 err.public_message[0] ? err.public_message : "failed");
        if (rc == DBMCP_ENOMEM)
            sqlite3_result_error_nomem(ctx);
        else
            sqlite3_result_error(ctx, msg, -1);
        return;
    }
    sqlite3_result_blob(ctx, v, dim * (int)sizeof *v, free);
}

int sqlite_vecfn_register(sqlite3 *db)
{
    const int pure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function(db, "vector_distance", 2, pure, NULL, fn_vector_distance, NULL,
                                     NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "vector_distance", 3, pure, NULL, fn_vector_distance, NULL,
                                     NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "embed", 1, SQLITE_UTF8, NULL, fn_embed, NULL, NULL);
    return rc;
}
