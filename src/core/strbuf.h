/*
 * strbuf.h — a growable, NUL-terminated byte buffer for building text
 * (SQL, tsvector/tsquery literals, FTS5 expressions).
 *
 * A zeroed strbuf is empty and ready. Appends never fail the caller: an
 * allocation failure sets `oom`, later appends do nothing, and the owner
 * checks `oom` once when it is done. While len > 0 and !oom, data holds
 * len bytes plus a terminating NUL.
 *
 * Ownership: data belongs to the buffer until the caller takes it (and then
 * frees it) or calls strbuf_free.
 */
#ifndef DBMCP_CORE_STRBUF_H
#define DBMCP_CORE_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *data; /* NULL until the first append */
    size_t len; /* bytes in data, the NUL not counted */
    size_t cap; /* bytes allocated */
    int oom;    /* an append failed: the buffer is incomplete */
} strbuf;

/* Append n bytes of s (n may be 0: the buffer is then allocated, so data
 * is a valid empty string). */
void strbuf_add(strbuf *b, const char *s, size_t n);
/* Append the NUL-terminated string s. */
void strbuf_str(strbuf *b, const char *s);
/* Free data and zero the buffer. */
void strbuf_free(strbuf *b);

#endif
