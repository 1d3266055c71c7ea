/*
 * text_safe.c — bounded, control-free and terminal-escaped copies of
 * caller-supplied UTF-8 text; see text_safe.h.
 *
 * Everything walks the input one unit at a time: a strictly valid UTF-8
 * sequence (no overlong forms, no surrogates, nothing above U+10FFFF) or,
 * failing that, one invalid byte. Bounding measures the whole output first,
 * so text that fits is copied exactly and only text that does not gets the
 * marker.
 */
#include "core/text_safe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Length of the valid sequence at s[0..n) with its code point, or 0. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char b = s[0];
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2;
        v = b & 0x1F;
        min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        v = b & 0x0F;
        min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        v = b & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Characters that move the cursor, start terminal sequences, or reorder
 * or hide text: C0, DEL, C1, the Arabic letter mark, zero-width and
 * directional marks, line and paragraph separators, embeddings and
 * overrides, invisible operators and isolates, and the BOM. */
static int is_control(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

/* One output piece for the unit at s: its bytes in *piece (or the
 * replacement), *used input bytes; 0 bytes when it is stripped. */
static size_t next_piece(const unsigned char *s, size_t n, unsigned flags, const char **piece,
                         size_t *used)
{
    uint32_t cp;
    size_t len = utf8_decode(s, n, &cp);
    if (len == 0) {
        *used = 1;
        *piece = replacement;
        return sizeof replacement - 1;
    }
    *used = len;
    *piece = (const char *)s;
    return (flags & TEXT_SAFE_STRIP) && is_control(cp) ? 0 : len;
}

/* Write the safe form of src (n bytes) into out (room for cap bytes, no
 * NUL) and return its length; a NULL out only measures. Stops before the
 * first piece that would pass cap. */
static size_t emit(const char *src, size_t n, unsigned flags, char *out, size_t cap)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t in = 0, len = 0;
    while (in < n) {
        const char *piece;
        size_t used;
        size_t k = next_piece(s + in, n - in, flags, &piece, &used);
        if (len + k > cap)
            break;
        if (out && k)
            memcpy(out + len, piece, k);
        len += k;
        in += used;
    }
    return len;
}

char *text_safe_bound(const char *s, size_t max, unsigned flags)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    size_t total = emit(s, n, flags, NULL, SIZE_MAX);
    if (max == 0 || total <= max) {
        char *out = malloc(total + 1);
        if (out) {
            emit(s, n, flags, out, total);
            out[total] = '\0';
        }
        return out;
    }
    char marker[64];
    size_t mlen = (size_t)snprintf(marker, sizeof marker, "\xE2\x80\xA6[truncated, %zu bytes]", n);
    if (mlen >= max)
        mlen = 0;
    char *out = malloc(max + 1);
    if (!out)
        return NULL;
    size_t len = emit(s, n, flags, out, max - mlen);
    memcpy(out + len, marker, mlen);
    out[len + mlen] = '\0';
    return out;
}

void text_safe_copy(char *dst, size_t size, const char *src, unsigned flags)
{
    if (size == 0)
        return;
    char *safe = text_safe_bound(src ? src : "", size - 1, flags);
    snprintf(dst, size, "%s", safe ? safe : "");
    free(safe);
}

/* Append the escape of one unit to out; returns the bytes written. */
static size_t escape_unit(const unsigned char *s, size_t n, char *out, size_t *used)
{
    uint32_t cp;
    size_t len = utf8_decode(s, n, &cp);
    if (len == 0) {
        *used = 1;
        return (size_t)sprintf(out, "\\x%02x", s[0]);
    }
    *used = len;
    if (!is_control(cp)) {
        memcpy(out, s, len);
        return len;
    }
    switch (cp) {
    case '\n': return (size_t)sprintf(out, "\\n");
    case '\r': return (size_t)sprintf(out, "\\r");
    case '\t': return (size_t)sprintf(out, "\\t");
    default: break;
    }
    if (cp < 0x80)
        return (size_t)sprintf(out, "\\x%02x", (unsigned)cp);
    return (size_t)sprintf(out, "\\u%04x", (unsigned)cp);
}

char *text_safe_escape(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    /* The longest escape, "\u202e", is 6 bytes for 3 of input; "\x1b" is 4 for 1. */
    char *out = malloc(4 * n + 1);
    if (!out)
        return NULL;
    size_t in = 0, len = 0;
    while (in < n) {
        size_t used;
        len += escape_unit((const unsigned char *)s + in, n - in, out + len, &used);
        in += used;
    }
    out[len] = '\0';
    return out;
}

int text_safe_needs_escape(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = s ? strlen(s) : 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_decode(p + i, n - i, &cp);
        if (len == 0 || is_control(cp))
            return 1;
        i += len;
    }
    return 0;
}
