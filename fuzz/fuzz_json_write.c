/*
 * fuzz_json_write.c — libFuzzer target for the compact JSON writer
 * (core/json_write).
 *
 * The writer's contract is "byte for byte what jansson writes". Each input
 * is checked three ways against json_dumps(JSON_COMPACT | JSON_ENCODE_ANY):
 *   - parsed with json_loadb (any value, "\u0000" allowed): every tree
 *     jansson's parser builds must be written, identically, and read back
 *     as the same value;
 *   - the raw bytes as one string made with json_stringn_nocheck (so any
 *     byte, invalid UTF-8 included): both refuse, or both write the same;
 *   - each 8 bytes as the bits of a double (when finite) and of an
 *     integer: the same text.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_write.h"

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)
#define DUMP_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY)

static void die(const char *what, const char *got, const char *want)
{
    fprintf(stderr, "fuzz_json_write: %s\n  writer:  %.400s\n  jansson: %.400s\n", what,
            got ? got : "(refused)", want ? want : "(refused)");
    abort();
}

/* Write v both ways; they must agree. must_write: jansson's parser built
 * v, so both must succeed. */
static void check_same(const json_t *v, int must_write)
{
    size_t len = 0;
    char *want = json_dumps(v, DUMP_FLAGS);
    char *got = json_write_compact(v, &len);
    if (must_write && (!want || !got))
        die("a parsed tree was refused", got, want);
    if (!want != !got)
        die("one refused, the other wrote", got, want);
    if (want && (len != strlen(want) || memcmp(got, want, len + 1) != 0))
        die("different text", got, want);
    free(want);
    free(got);
}

static void check_parsed(const uint8_t *data, size_t size)
{
    json_t *v = json_loadb((const char *)data, size, LOAD_FLAGS, NULL);
    if (!v)
        return;
    check_same(v, 1);
    size_t len;
    char *text = json_write_compact(v, &len);
    json_t *back = text ? json_loadb(text, len, LOAD_FLAGS, NULL) : NULL;
    if (!back || !json_equal(back, v))
        die("the text does not read back as the same value", text, NULL);
    json_decref(back);
    free(text);
    json_decref(v);
}

static void check_raw_string(const uint8_t *data, size_t size)
{
    json_t *s = json_stringn_nocheck((const char *)data, size);
    if (!s)
        return;
    check_same(s, 0);
    json_decref(s);
}

static void check_numbers(const uint8_t *data, size_t size)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i + 8 <= size && i < 512; i += 8) {
        double d;
        int64_t n;
        memcpy(&d, data + i, 8);
        memcpy(&n, data + i, 8);
        if (isfinite(d))
            json_array_append_new(arr, json_real(d));
        json_array_append_new(arr, json_integer((json_int_t)n));
    }
    if (arr)
        check_same(arr, 1);
    json_decref(arr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_parsed(data, size);
    check_raw_string(data, size);
    check_numbers(data, size);
    return 0;
}
