/*
 * strbuf.c — growable text buffer; see strbuf.h.
 */
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>

void strbuf_add(strbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void strbuf_str(strbuf *b, const char *s)
{
    strbuf_add(b, s, strlen(s));
}

void strbuf_free(strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
