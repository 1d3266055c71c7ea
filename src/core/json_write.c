/*
 * json_write.c — see json_write.h.
 *
 * One recursive pass over the tree, bounded by JSON_WRITE_MAX_DEPTH (so
 * a cyclic tree fails instead of recursing forever, and the stack stays
 * small enough for the HTTP threads' 1 MiB stacks), into a buffer on the
 * stack that is copied once into an allocation of the exact size; output
 * that outgrows it moves to the heap and grows geometrically. (A first
 * pass to size the buffer cost more than the copy: jansson's object
 * iterators are slow.)
 *
 * Strings are scanned eight bytes at a time for the bytes that need a look
 * (controls, '"', '\\', and bytes >= 0x80, which must be well-formed
 * UTF-8); the runs between escapes, UTF-8 included, are copied in one
 * memcpy each.
 */
#include "core/json_write.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output up to this size is written on the stack and copied once into an
 * allocation of its exact size: most responses fit. */
#define STACK_OUTPUT 8192

/* The output being built. */
typedef struct json_writer {
    char *data;  /* stack (below) or owned heap memory */
    size_t len;  /* bytes written */
    size_t cap;  /* bytes at data: always more than len (room for the NUL) */
    char *stack; /* the caller's stack buffer, never freed */
} json_writer;

/* ---- output buffer ------------------------------------------------------ */

static int writer_grow(json_writer *w, size_t more)
{
    if (more > SIZE_MAX - 1 - w->len)
        return -1;
    size_t need = w->len + more + 1;
    size_t cap = w->cap > SIZE_MAX / 2 ? SIZE_MAX : w->cap * 2;
    if (cap < need)
        cap = need;
    char *grown = w->data == w->stack ? malloc(cap) : realloc(w->data, cap);
    if (!grown)
        return -1;
    if (w->data == w->stack)
        memcpy(grown, w->stack, w->len);
    w->data = grown;
    w->cap = cap;
    return 0;
}

/* Make room for more bytes (and the final NUL). */
static inline int writer_room(json_writer *w, size_t more)
{
    return w->cap - w->len > more ? 0 : writer_grow(w, more);
}

static inline int writer_put(json_writer *w, const char *s, size_t n)
{
    if (writer_room(w, n))
        return -1;
    memcpy(w->data + w->len, s, n);
    w->len += n;
    return 0;
}

static inline int writer_byte(json_writer *w, char c)
{
    if (writer_room(w, 1))
        return -1;
    w->data[w->len++] = c;
    return 0;
}

/* ---- strings ------------------------------------------------------------ */

/* Offset of the first byte of s[0..n) that cannot be copied blindly: a
 * control byte, '"', '\\' or a byte >= 0x80; n when there is none. */
static size_t plain_prefix(const char *s, size_t n)
{
    const uint64_t lsb = 0x0101010101010101u, msb = 0x8080808080808080u;
    size_t i = 0;
    /* A word's flag bits may have false positives, but only above a byte
     * truly flagged: the byte loop below finds that one. */
    for (; n - i >= 8; i += 8) {
        uint64_t word, quote, backslash;
        memcpy(&word, s + i, 8);
        quote = word ^ (lsb * '"');
        backslash = word ^ (lsb * '\\');
        uint64_t control = (word - lsb * 0x20) & ~word;
        if ((word | control | ((quote - lsb) & ~quote) | ((backslash - lsb) & ~backslash)) & msb)
            break;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
    }
    return i;
}

/* Length of the well-formed UTF-8 sequence that s[0..n) starts with
 * (s[0] >= 0x80), 0 when it is ill-formed or cut off. Unicode's table of
 * well-formed byte sequences: the second byte's range depends on the lead,
 * which rules out overlong forms, surrogates and code points above
 * U+10FFFF, exactly jansson's rules. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned char lead = s[0], low = 0x80, high = 0xBF;
    size_t len = lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 0;
    switch (lead) {
    case 0xE0: low = 0xA0; break;  /* overlong below U+0800 */
    case 0xED: high = 0x9F; break; /* surrogates U+D800..DFFF */
    case 0xF0: low = 0x90; break;  /* overlong below U+10000 */
    case 0xF4: high = 0x8F; break; /* above U+10FFFF */
    default: break;
    }
    if (len == 0 || n < len || s[1] < low || s[1] > high)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

/* The letter of the short escape of each control byte that has one. */
static const char short_escape[0x20] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
};

/* Write the escape of c (a control byte, '"' or '\\'); room for 6 bytes
 * must be there. */
static void put_escape(json_writer *w, unsigned char c)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = w->data + w->len;
    char letter = c >= 0x20 ? (char)c : short_escape[c];
    out[0] = '\\';
    if (letter) {
        out[1] = letter;
        w->len += 2;
        return;
    }
    memcpy(out + 1, "u00", 3);
    out[4] = hex[c >> 4];
    out[5] = hex[c & 0xF];
    w->len += 6;
}

/* Write s[0..n) as a JSON string; -1 when it is not valid UTF-8. */
static int write_string(json_writer *w, const char *s, size_t n)
{
    const char *end = s + n, *run = s, *p = s;
    if (writer_byte(w, '"'))
        return -1;
    for (;;) {
        p += plain_prefix(p, (size_t)(end - p));
        if (p == end)
            break;
        unsigned char c = (unsigned char)*p;
        if (c >= 0x80) {
            size_t len = utf8_sequence((const unsigned char *)p, (size_t)(end - p));
            if (len == 0)
                return -1;
            p += len;
            continue;
        }
        size_t plain = (size_t)(p - run);
        if (writer_room(w, plain + 6))
            return -1;
        memcpy(w->data + w->len, run, plain);
        w->len += plain;
        put_escape(w, c);
        run = ++p;
    }
    if (writer_room(w, (size_t)(end - run) + 1))
        return -1;
    memcpy(w->data + w->len, run, (size_t)(end - run));
    w->len += (size_t)(end - run);
    w->data[w->len++] = '"';
    return 0;
}

/* ---- numbers ------------------------------------------------------------ */

static int write_integer(json_writer *w, json_int_t value)
{
    char digits[24];
    char *p = digits + sizeof digits;
    unsigned long long u = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (value < 0)
        *--p = '-';
    return writer_put(w, p, (size_t)(digits + sizeof digits - p));
}

/* jansson's jsonp_dtostr without a precision: "%.17g", the locale's
 * decimal point read as '.', ".0" added when neither '.' nor 'e' is there
 * (so it reads back as a real), and the exponent stripped of '+' and
 * leading zeros. */
static int write_real(json_writer *w, double value)
{
    char printed[40];
    if (!isfinite(value))
        return -1;
    int n = snprintf(printed, sizeof printed, "%.17g", value);
    if (n <= 0 || (size_t)n >= sizeof printed || writer_room(w, (size_t)n + 2))
        return -1;
    char *out = w->data + w->len, *start = out;
    const char *s = printed, *exponent = strchr(printed, 'e');
    const char *mantissa_end = exponent ? exponent : printed + n;
    int point = 0;
    for (; s < mantissa_end; s++) {
        int digit = (*s >= '0' && *s <= '9') || *s == '-';
        point |= !digit;
        *out++ = digit ? *s : '.';
    }
    if (exponent) {
        *out++ = 'e';
        s = exponent + 1;
        if (*s == '-')
            *out++ = *s;
        if (*s == '-' || *s == '+')
            s++;
        while (*s == '0')
            s++;
        while (*s)
            *out++ = *s++;
    } else if (!point) {
        *out++ = '.';
        *out++ = '0';
    }
    w->len += (size_t)(out - start);
    return 0;
}

/* ---- values ------------------------------------------------------------- */

static int write_value(json_writer *w, const json_t *v, int depth);

static int write_array(json_writer *w, const json_t *array, int depth)
{
    if (depth > JSON_WRITE_MAX_DEPTH || writer_byte(w, '['))
        return -1;
    size_t n = json_array_size(array);
    for (size_t i = 0; i < n; i++) {
        if ((i > 0 && writer_byte(w, ',')) || write_value(w, json_array_get(array, i), depth))
            return -1;
    }
    return writer_byte(w, ']');
}

static int write_object(json_writer *w, const json_t *object, int depth)
{
    if (depth > JSON_WRITE_MAX_DEPTH || writer_byte(w, '{'))
        return -1;
    json_t *obj = (json_t *)object; /* jansson's iterators take a non-const object */
    void *first = json_object_iter(obj);
    for (void *it = first; it; it = json_object_iter_next(obj, it)) {
        if (it != first && writer_byte(w, ','))
            return -1;
        if (write_string(w, json_object_iter_key(it), json_object_iter_key_len(it)) ||
            writer_byte(w, ':') || write_value(w, json_object_iter_value(it), depth))
            return -1;
    }
    return writer_byte(w, '}');
}

/* Write v, which depth containers enclose. */
static int write_value(json_writer *w, const json_t *v, int depth)
{
    if (!v)
        return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT: return write_object(w, v, depth + 1);
    case JSON_ARRAY: return write_array(w, v, depth + 1);
    case JSON_STRING: return write_string(w, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: return write_integer(w, json_integer_value(v));
    case JSON_REAL: return write_real(w, json_real_value(v));
    case JSON_TRUE: return writer_put(w, "true", 4);
    case JSON_FALSE: return writer_put(w, "false", 5);
    case JSON_NULL: return writer_put(w, "null", 4);
    }
    return -1;
}

char *json_write_compact(const json_t *v, size_t *len)
{
    char stack[STACK_OUTPUT];
    json_writer w = {stack, 0, sizeof stack, stack};
    int rc = write_value(&w, v, 0);
    char *out = w.data;
    if (rc == 0 && w.data == stack && (out = malloc(w.len + 1)) != NULL)
        memcpy(out, stack, w.len);
    if (rc != 0 || !out) {
        if (w.data != stack)
            free(w.data);
        return NULL;
    }
    out[w.len] = '\0';
    if (len)
        *len = w.len;
    return out;
}
