/*
 * postgres_value.h — private to the PostgreSQL driver (store/postgres*.c)
 * and its unit test: values between PostgreSQL's text format and store.h's
 * types.
 *
 * Results arrive as text (the driver asks for text, so every type the
 * server has reads back the way psql shows it); store.h hands out 64-bit
 * integers, doubles, text and blobs. These functions convert one cell at a
 * time and know nothing of libpq: bytea's output (hex "\x…" or the old
 * escape format), pgvector's "[1,2.5]", numeric's digits, and the double
 * and integer forms store_column_int/double parse.
 *
 * Ownership: the decoders return malloc'd memory the caller frees.
 */
#ifndef DBMCP_STORE_POSTGRES_VALUE_H
#define DBMCP_STORE_POSTGRES_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The bytes of bytea output text (len bytes, hex or escape format) into
 * *out (malloc'd, *size bytes, one NUL past the end so the bytes also read
 * as a C string). 0, or -1 for malformed text or no memory. */
int pg_bytea_decode(const char *text, size_t len, unsigned char **out, size_t *size);

/* pgvector's text "[x,y,…]" as float32 values in host order (the blob
 * store.h's STORE_KIND_VECTOR columns hold): *out malloc'd, *size bytes (4
 * per dimension, NUL-terminated like pg_bytea_decode). 0, or -1. */
int pg_vector_decode(const char *text, unsigned char **out, size_t *size);
/* A float32 blob (size a multiple of 4) as pgvector's text; malloc'd, NULL
 * when size is not a multiple of 4 or memory is short. */
char *pg_vector_encode(const void *data, size_t size);

/* What type a numeric value's text is reported as: STORE_INTEGER when it
 * is a whole number that fits 64 bits and is written without a fraction,
 * STORE_FLOAT when a double holds it exactly (at most 15 significant
 * digits, or NaN/±Infinity), STORE_TEXT otherwise (its digits kept). */
store_type pg_numeric_type(const char *text);

/* store_column_int/double of a cell's text, as SQLite converts text: the
 * leading number, 0 when there is none; a fraction is cut toward zero and
 * a value past int64's range clamps. */
int64_t pg_text_int(const char *text);
double pg_text_double(const char *text);

/* A double as text PostgreSQL's float8 input reads back to the same value
 * ("Infinity", "-Infinity", "NaN" included). buf holds at least 32 bytes. */
void pg_double_text(double v, char *buf, size_t size);

#endif
