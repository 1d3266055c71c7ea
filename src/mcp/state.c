/*
 * state.c — requestState for multi-round (input_required) results.
 *
 * The server keeps no memory between rounds: whatever a handler needs
 * later travels to the client and back as requestState. It is sealed as
 * base64url(payload) "." base64url(HMAC-SHA256(key, payload)) and opened
 * only if the whole string re-seals to exactly the same bytes, so any
 * change — also appended characters that are valid base64url — is refused.
 * The key is random per process unless DBMCP_STATE_KEY (64 hex chars) is
 * set, which replicas behind a load balancer share.
 */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/internal.h"

#define B64 sodium_base64_VARIANT_URLSAFE_NO_PADDING

char *mcp_state_seal(const mcp_server *srv, const char *payload)
{
    size_t plen = strlen(payload);
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256(mac, (const unsigned char *)payload, plen, srv->state_key);
    size_t a = sodium_base64_encoded_len(plen, B64);
    size_t b = sodium_base64_encoded_len(sizeof mac, B64);
    char *out = malloc(a + b + 1);
    if (!out)
        return NULL;
    sodium_bin2base64(out, a, (const unsigned char *)payload, plen, B64);
    size_t n = strlen(out);
    out[n] = '.';
    sodium_bin2base64(out + n + 1, b, mac, sizeof mac, B64);
    return out;
}

char *mcp_state_open(const mcp_server *srv, const char *sealed)
{
    if (!sealed)
        return NULL;
    const char *dot = strchr(sealed, '.');
    if (!dot || strlen(sealed) > 65536)
        return NULL;
    size_t elen = (size_t)(dot - sealed);
    char *payload = malloc(elen + 1);
    size_t plen = 0;
    if (!payload)
        return NULL;
    if (sodium_base642bin((unsigned char *)payload, elen, sealed, elen, NULL, &plen, NULL, B64) !=
        0) {
        free(payload);
        return NULL;
    }
    payload[plen] = '\0';
    char *again = mcp_state_seal(srv, payload);
    int ok = again && strlen(again) == strlen(sealed) &&
             sodium_memcmp(again, sealed, strlen(sealed)) == 0;
    free(again);
    if (!ok) {
        free(payload);
        return NULL;
    }
    return payload;
}
