/*
 * fuzz_failure.c — libFuzzer target for the lexical helpers that classify
 * a refused statement (store/driver.h, failure.c): store_failure_token_at
 * and store_failure_call_in.
 *
 * The input is split at its first newline: the bytes before are the
 * statement, the bytes after the engine's message. Contracts: both write
 * a NUL-terminated string that fits the buffer, for any offset and any
 * buffer size; a name store_failure_call_in returns is a bare name that
 * the statement holds and the message holds as a whole word (ASCII case
 * aside), never read past the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/driver.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_failure: %s: %s\n", what, detail);
    abort();
}

static int name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 ||
           (c >= '0' && c <= '9') || c == '$';
}

static int whole_word_in(const char *msg, const char *name)
{
    size_t n = strlen(name);
    for (const char *m = msg; *m; m++)
        if (strncasecmp(m, name, n) == 0 && (m == msg || !name_char((unsigned char)m[-1])) &&
            !name_char((unsigned char)m[n]))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *nl = memchr(buf, '\n', size);
    const char *sql = buf, *msg = "";
    if (nl) {
        *nl = '\0';
        msg = nl + 1;
    }
    size_t len = strlen(sql);
    char out[64];
    for (size_t cap = 1; cap <= sizeof out; cap = cap * 2 + 1) {
        memset(out, 'x', sizeof out);
        store_failure_token_at(sql, size % (len + 1), out, cap);
        if (!memchr(out, '\0', cap))
            die("token_at: no NUL within the buffer", sql);
        memset(out, 'x', sizeof out);
        store_failure_call_in(sql, msg, out, cap);
        if (!memchr(out, '\0', cap))
            die("call_in: no NUL within the buffer", sql);
    }
    store_failure_call_in(sql, msg, out, sizeof out);
    if (out[0] && strlen(out) < sizeof out - 1) { /* a whole name, not cut */
        if (!strstr(sql, out))
            die("call_in: a name the statement does not hold", out);
        if (!whole_word_in(msg, out))
            die("call_in: a name the message does not hold", out);
    }
    free(buf);
    return 0;
}
