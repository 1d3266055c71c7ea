/*
 * postgres_value.c — cells between PostgreSQL's text format and store.h's
 * types (see postgres_value.h).
 */
#include "store/postgres_value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int is_octal(unsigned char c)
{
    return c >= '0' && c <= '7';
}

/* bytea_output = escape: "\\" is a backslash, "\ooo" an octal byte, any
 * other byte itself. */
static size_t escape_decode(const char *text, size_t len, unsigned char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\\') {
            out[n++] = '\\';
            i += 2;
        } else if (text[i] == '\\' && i + 3 < len && is_octal((unsigned char)text[i + 1]) &&
                   is_octal((unsigned char)text[i + 2]) && is_octal((unsigned char)text[i + 3])) {
            out[n++] = (unsigned char)(((text[i + 1] - '0') << 6) | ((text[i + 2] - '0') << 3) |
                                       (text[i + 3] - '0'));
            i += 4;
        } else {
            out[n++] = (unsigned char)text[i++];
        }
    }
    return n;
}

int pg_bytea_decode(const char *text, size_t len, unsigned char **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    int hex = len >= 2 && text[0] == '\\' && text[1] == 'x';
    unsigned char *bytes = malloc(hex ? (len - 2) / 2 + 1 : len + 1);
    if (!bytes)
        return -1;
    size_t n = 0;
    if (hex) {
        if ((len - 2) % 2) {
            free(bytes);
            return -1;
        }
        for (size_t i = 2; i < len; i += 2) {
            int hi = hex_value((unsigned char)text[i]), lo = hex_value((unsigned char)text[i + 1]);
            if (hi < 0 || lo < 0) {
                free(bytes);
                return -1;
            }
            bytes[n++] = (unsigned char)(hi << 4 | lo);
        }
    } else {
        n = escape_decode(text, len, bytes);
    }
    bytes[n] = '\0';
    *out = bytes;
    *size = n;
    return 0;
}

int pg_vector_decode(const char *text, unsigned char **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return -1;
    size_t dims = 1;
    for (const char *q = p; *q; q++)
        dims += *q == ',';
    float *v = malloc(dims * sizeof *v + 1);
    if (!v)
        return -1;
    size_t n = 0;
    while (*p == ' ')
        p++;
    if (*p != ']') {
        for (;;) {
            char *end;
            errno = 0;
            float f = strtof(p, &end);
            if (end == p || n == dims) {
                free(v);
                return -1;
            }
            v[n++] = f;
            p = end;
            while (*p == ' ')
                p++;
            if (*p == ']')
                break;
            if (*p++ != ',') {
                free(v);
                return -1;
            }
        }
    }
    ((unsigned char *)v)[n * sizeof *v] = '\0';
    *out = (unsigned char *)v;
    *size = n * sizeof *v;
    return 0;
}

char *pg_vector_encode(const void *data, size_t size)
{
    if (size % sizeof(float))
        return NULL;
    size_t dims = size / sizeof(float);
    size_t cap = dims * 18 + 3; /* "%.9g" of a float is at most 15 bytes, plus ',' */
    char *text = malloc(cap);
    if (!text)
        return NULL;
    size_t len = 0;
    text[len++] = '[';
    for (size_t i = 0; i < dims; i++) {
        float f;
        memcpy(&f, (const unsigned char *)data + i * sizeof f, sizeof f);
        len += (size_t)snprintf(text + len, cap - len, "%s%.9g", i ? "," : "", (double)f);
    }
    text[len++] = ']';
    text[len] = '\0';
    return text;
}

store_type pg_numeric_type(const char *text)
{
    const char *p = text;
    if (*p == '-' || *p == '+')
        p++;
    if (strcmp(p, "NaN") == 0 || strcmp(p, "Infinity") == 0)
        return STORE_FLOAT;
    /* Significant digits: from the first non-zero digit to the last one. */
    int int_digits = 0, seen_point = 0, digits = 0, first = -1, last = -1, leading_zeros = 0;
    for (; *p; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        if (*p < '0' || *p > '9')
            return STORE_TEXT;
        if (*p != '0') {
            if (first < 0)
                first = digits;
            last = digits;
        } else if (first < 0 && seen_point) {
            leading_zeros++;
        }
        int_digits += !seen_point;
        digits++;
    }
    if (digits == 0)
        return STORE_TEXT;
    if (!seen_point) {
        errno = 0;
        char *end;
        strtoll(text, &end, 10);
        if (errno == 0 && *end == '\0')
            return STORE_INTEGER;
    }
    int significant = first < 0 ? 0 : last - first + 1;
    if (significant <= 15 && int_digits <= 308 && leading_zeros < 300)
        return STORE_FLOAT;
    return STORE_TEXT;
}

int64_t pg_text_int(const char *text)
{
    if (!text)
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end == '.' || *end == 'e' || *end == 'E' || (end == text && *text)) {
        double d = strtod(text, &end);
        if (isnan(d))
            return 0;
        if (d >= 9223372036854775807.0)
            return INT64_MAX;
        if (d <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)d;
    }
    return (int64_t)v;
}

double pg_text_double(const char *text)
{
    return text ? strtod(text, NULL) : 0.0;
}

void pg_double_text(double v, char *buf, size_t size)
{
    if (isnan(v))
        snprintf(buf, size, "NaN");
    else if (isinf(v))
        snprintf(buf, size, "%sInfinity", v < 0 ? "-" : "");
    else
        snprintf(buf, size, "%.17g", v);
}
