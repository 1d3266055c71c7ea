/*
 * ids.h — identifiers and clocks: random ids (call ids, session ids, key
 * ids) from libsodium's CSPRNG, UTC timestamps and a monotonic clock.
 * Call ids_init() once before any other function (it initialises libsodium).
 */
#ifndef DBMCP_CORE_IDS_H
#define DBMCP_CORE_IDS_H

#include <stddef.h>
#include <stdint.h>

/* 0 on success, -1 when the CSPRNG cannot be initialised. */
int ids_init(void);
/* A random UUIDv4 string (36 chars + NUL) into out[37]. */
void ids_uuid(char out[37]);
/* A random 64-bit value from the same CSPRNG as the UUIDs. */
uint64_t ids_random64(void);
/* `len` random characters from [a-z0-9] plus NUL into out[len + 1]. */
void ids_token(char *out, size_t len);
/* Now as "2026-12-02T13:41:12.345Z" into out[32]. */
void ids_now_iso(char out[32]);
/* Now plus `seconds` (negative: in the past), in the same form. */
void ids_iso_from_now(double seconds, char out[32]);
/* Monotonic milliseconds (for durations). */
double ids_monotonic_ms(void);

#endif
