/*
 * postgres_columns.c — values into and out of the PostgreSQL driver's
 * statements: bindings by :name, and the current row's cells as store.h's
 * types (see postgres.c's comment for the mapping of types).
 *
 * Bound values are kept as the text (or, for blobs and bytea parameters,
 * the bytes) the extended protocol sends; a cell is read from the
 * single-row result, a bytea or vector cell decoded once and kept until
 * the next row.
 */
#include "store/postgres_driver.h"
#include "store/postgres_value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- bindings ----------------------------------------------------------------------------- */

/* The 0-based index of parameter name, or -1. Callers bind mostly in order,
 * so the one after the last bound is tried first. */
static int param_index(pg_stmt *st, const char *name)
{
    int next = st->last_param;
    if (name && next < st->nparams && strcmp(st->sql.names[next], name) == 0) {
        st->last_param = next + 1;
        return next;
    }
    for (int i = 0; name && i < st->nparams; i++)
        if (strcmp(st->sql.names[i], name) == 0) {
            st->last_param = i + 1;
            return i;
        }
    return -1;
}

/* Bind value (size bytes, owned by the caller) to parameter i in format. */
static int bind_value(pg_stmt *st, int i, const void *value, size_t size, int binary)
{
    char *copy = NULL;
    if (value) {
        if (size > 0x7fffffff)
            return DBMCP_ETOOBIG;
        if (!(copy = malloc(size + 1)))
            return DBMCP_ENOMEM;
        memcpy(copy, value, size);
        copy[size] = '\0';
    }
    free(st->values[i]);
    st->values[i] = copy;
    st->lengths[i] = (int)size;
    st->formats[i] = binary;
    return 0;
}

int pg_bind_text(store_stmt *h, const char *name, const char *value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    /* Text for a bytea parameter is its bytes, as SQLite would store them. */
    return bind_value(st, i, value, value ? strlen(value) : 0, st->param_types[i] == PG_BYTEA);
}

int pg_bind_int(store_stmt *h, const char *name, int64_t value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    char text[24];
    int n = snprintf(text, sizeof text, "%lld", (long long)value);
    return bind_value(st, i, text, (size_t)n, 0);
}

int pg_bind_double(store_stmt *h, const char *name, double value)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    char text[32];
    pg_double_text(value, text, sizeof text);
    return bind_value(st, i, text, strlen(text), 0);
}

int pg_bind_blob(store_stmt *h, const char *name, const void *data, size_t size)
{
    pg_stmt *st = (pg_stmt *)h;
    pg_store *db = pg_store_of(st);
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    if (db->vector_oid != InvalidOid && st->param_types[i] == db->vector_oid) {
        char *text = pg_vector_encode(data, size);
        if (!text)
            return size % 4 ? DBMCP_EINVAL : DBMCP_ENOMEM;
        int rc = bind_value(st, i, text, strlen(text), 0);
        free(text);
        return rc;
    }
    return bind_value(st, i, data ? data : "", size, 1);
}

int pg_bind_null(store_stmt *h, const char *name)
{
    pg_stmt *st = (pg_stmt *)h;
    int i = param_index(st, name);
    if (i < 0)
        return DBMCP_ENOTFOUND;
    return bind_value(st, i, NULL, 0, 0);
}

void pg_clear_bindings(store_stmt *h)
{
    pg_stmt *st = (pg_stmt *)h;
    for (int i = 0; st->values && i < st->nparams; i++)
        bind_value(st, i, NULL, 0, 0);
}

int pg_param_count(store_stmt *h)
{
    return ((pg_stmt *)h)->nparams;
}

const char *pg_param_name(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->nparams ? st->sql.names[i] : NULL;
}

/* --- columns ------------------------------------------------------------------------------ */

int pg_column_count(store_stmt *h)
{
    return ((pg_stmt *)h)->ncols;
}

const char *pg_column_name(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->ncols ? st->col_names[i] : NULL;
}

/* Whether cell i of the current row has a value (not NULL, a row there). */
static int has_value(pg_stmt *st, int i)
{
    return st->row && i >= 0 && i < st->ncols && !PQgetisnull(st->row, 0, i);
}

static int is_vector(pg_stmt *st, int i)
{
    Oid vector = pg_store_of(st)->vector_oid;
    return vector != InvalidOid && st->col_types[i] == vector;
}

store_type pg_column_type(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return STORE_NULL;
    switch (st->col_types[i]) {
    case PG_BOOL:
    case PG_INT2:
    case PG_INT4:
    case PG_INT8:
    case PG_OID: return STORE_INTEGER;
    case PG_FLOAT4:
    case PG_FLOAT8: return STORE_FLOAT;
    case PG_NUMERIC: return pg_numeric_type(PQgetvalue(st->row, 0, i));
    case PG_BYTEA: return STORE_BLOB;
    default: return is_vector(st, i) ? STORE_BLOB : STORE_TEXT;
    }
}

store_kind pg_column_kind(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    return i >= 0 && i < st->ncols && is_vector(st, i) ? STORE_KIND_VECTOR : STORE_KIND_PLAIN;
}

/* The decoded bytes of bytea or vector cell i (cached until the next row),
 * NULL when the cell is neither or cannot be decoded. */
static const unsigned char *decoded(pg_stmt *st, int i, size_t *size)
{
    if (st->decoded[i]) {
        *size = st->decoded_size[i];
        return st->decoded[i];
    }
    const char *text = PQgetvalue(st->row, 0, i);
    int rc = -1;
    if (st->col_types[i] == PG_BYTEA)
        rc = pg_bytea_decode(text, (size_t)PQgetlength(st->row, 0, i), &st->decoded[i],
                             &st->decoded_size[i]);
    else if (is_vector(st, i))
        rc = pg_vector_decode(text, &st->decoded[i], &st->decoded_size[i]);
    *size = rc ? 0 : st->decoded_size[i];
    return rc ? NULL : st->decoded[i];
}

const char *pg_column_text(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return NULL;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't' ? "1" : "0";
    if (st->col_types[i] == PG_BYTEA) {
        size_t size;
        const unsigned char *bytes = decoded(st, i, &size);
        return bytes ? (const char *)bytes : "";
    }
    return text;
}

int64_t pg_column_int(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't';
    return pg_text_int(text);
}

double pg_column_double(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0.0;
    const char *text = PQgetvalue(st->row, 0, i);
    if (st->col_types[i] == PG_BOOL)
        return text[0] == 't' ? 1.0 : 0.0;
    return pg_text_double(text);
}

const void *pg_column_blob(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return NULL;
    size_t size;
    if (st->col_types[i] == PG_BYTEA || is_vector(st, i))
        return decoded(st, i, &size);
    return pg_column_text(h, i);
}

size_t pg_column_bytes(store_stmt *h, int i)
{
    pg_stmt *st = (pg_stmt *)h;
    if (!has_value(st, i))
        return 0;
    size_t size = 0;
    if (st->col_types[i] == PG_BYTEA || is_vector(st, i))
        return decoded(st, i, &size) ? size : 0;
    if (st->col_types[i] == PG_BOOL)
        return 1;
    return (size_t)PQgetlength(st->row, 0, i);
}
