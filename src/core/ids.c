/*
 * ids.c — see ids.h.
 */
#include "core/ids.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int ids_init(void)
{
    return sodium_init() < 0 ? -1 : 0;
}

/* Per-thread ChaCha20 keystream keyed once from the OS: as unpredictable
 * as randombytes_buf, without a getrandom() system call per id. */
static void fast_random16(unsigned char b[16])
{
    static __thread unsigned char key[crypto_stream_chacha20_KEYBYTES];
    static __thread uint64_t counter;
    static __thread int keyed;
    if (!keyed) {
        randombytes_buf(key, sizeof key);
        keyed = 1;
    }
    unsigned char nonce[crypto_stream_chacha20_NONCEBYTES] = {0};
    uint64_t n = counter++;
    memcpy(nonce, &n, sizeof n < sizeof nonce ? sizeof n : sizeof nonce);
    crypto_stream_chacha20(b, 16, nonce, key);
}

void ids_uuid(char out[37])
{
    unsigned char b[16];
    fast_random16(b);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

uint64_t ids_random64(void)
{
    unsigned char b[16];
    fast_random16(b);
    uint64_t v;
    memcpy(&v, b, sizeof v);
    return v;
}

void ids_token(char *out, size_t len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (size_t i = 0; i < len; i++)
        out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
    out[len] = '\0';
}

void ids_now_iso(char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
}

void ids_iso_from_now(double seconds, char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + seconds;
    time_t secs = (time_t)t;
    if ((double)secs > t)
        secs--; /* floor, also before 1970 */
    int ms = (int)((t - (double)secs) * 1000.0);
    struct tm tm;
    gmtime_r(&secs, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03dZ", (ms < 0 ? 0 : ms > 999 ? 999 : ms));
}

double ids_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}
