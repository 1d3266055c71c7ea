/*
 * fuzz_jose.c — libFuzzer target for the JWT/JWK parsers (core/jose.h):
 * a JWK Set as a provider serves it and a bearer token as a client sends
 * it, both untrusted.
 *
 * The input is "JWKS\nTOKEN": the bytes before the first newline go to
 * jose_keyset_parse, the rest to jose_token_parse; when both parse, the
 * token is verified with the set and its claims checked. The target checks
 * the contract:
 *   - a failure is a negative code with an operator message, and leaves
 *     nothing to free but what the _free functions take;
 *   - a parsed token has an alg, claims that are an object, a signature
 *     and a signing input of the bytes before the second dot;
 *   - verification never succeeds with an algorithm outside
 *     JOSE_ALGS_SUPPORTED (no "none", no HS*).
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jose.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_jose: %s\n", what);
    abort();
}

static void check_failure(int rc, const dbmcp_error *err)
{
    if (rc >= 0 || err->code != rc || !err->message[0])
        die("a failure without a negative code and a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    size_t jwks_len = nl ? (size_t)(nl - text) : size;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    jose_keyset *ks = NULL;
    int rc = jose_keyset_parse(text, jwks_len, &ks, &err);
    if (rc)
        check_failure(rc, &err);
    else if (!ks || jose_keyset_count(ks) == 0)
        die("a parsed key set without keys");
    if (!nl) {
        jose_keyset_free(ks);
        return 0;
    }
    const char *tok = nl + 1;
    size_t tok_len = size - jwks_len - 1;
    jose_token t;
    dbmcp_error_clear(&err);
    rc = jose_token_parse(tok, tok_len, &t, &err);
    if (rc) {
        check_failure(rc, &err);
    } else {
        if (!t.alg[0] || !json_is_object(t.claims) || !t.signature || !t.signing_input ||
            memchr(t.signing_input, '.', t.signing_len) == NULL)
            die("a parsed token without alg, claims, signature or signing input");
        if (ks) {
            dbmcp_error_clear(&err);
            rc = jose_token_verify(&t, ks, JOSE_ALGS_SUPPORTED, &err);
            if (rc == 0 && !jose_alg_supported(t.alg))
                die("verified with an unsupported algorithm");
            if (rc)
                check_failure(rc, &err);
        }
        jose_expect x = {.issuer = "https://issuer.test",
                         .audience = "https://rs.test/mcp",
                         .now = 1700000000,
                         .skew_s = 60};
        dbmcp_error_clear(&err);
        rc = jose_claims_check(&t, &x, &err);
        if (rc)
            check_failure(rc, &err);
    }
    jose_token_free(&t);
    jose_keyset_free(ks);
    return 0;
}
