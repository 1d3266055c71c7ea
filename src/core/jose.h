/*
 * jose.h — JWT access tokens (RFC 7519, JWS compact serialisation RFC 7515)
 * verified with public keys from a JWK Set (RFC 7517): the parser and the
 * checks that OIDC sign-on (mcp/oidc.h) runs on every bearer token.
 *
 * Pure code: no I/O. The signature arithmetic is OpenSSL's (EVP); this
 * module only decodes base64url and JSON, builds EVP keys from a JWK's
 * parameters (RSA n/e, EC crv/x/y) and turns ECDSA's raw r||s into DER.
 *
 * Security rules, not options:
 *   - only asymmetric algorithms are ever verified: RS256/384/512,
 *     PS256/384/512, ES256/384/512. "none", HS* and anything else is
 *     refused whatever the allowlist says, so a public key can never be
 *     used as an HMAC secret;
 *   - the algorithm must be in the caller's allowlist, match the key's type
 *     (and curve) and the key's own "alg" when it has one; keys with
 *     "use" other than "sig" are skipped; RSA keys have at least 2048 bits;
 *   - a token with "crit" is refused (no extension is understood); keys are
 *     never taken from the token (jwk, jku, x5u are ignored).
 *
 * Bounds: a token is at most JOSE_MAX_TOKEN bytes, a JWK Set at most
 * JOSE_MAX_JWKS bytes and JOSE_MAX_KEYS keys. Every refusal has a precise
 * operator message naming the part that failed (never the token itself).
 *
 * Thread safety: a jose_keyset is read-only after jose_keyset_parse and may
 * be shared by threads.
 */
#ifndef DBMCP_CORE_JOSE_H
#define DBMCP_CORE_JOSE_H

#include <jansson.h>
#include <stddef.h>

#include "core/error.h"

#define JOSE_MAX_TOKEN 8192        /* bytes of a compact JWS */
#define JOSE_MAX_JWKS (256 * 1024) /* bytes of a JWK Set document */
#define JOSE_MAX_KEYS 64           /* keys in one JWK Set */
#define JOSE_ALGS_SUPPORTED "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512"
#define JOSE_ALGS_DEFAULT "RS256,ES256" /* the allowlist when none is configured */

typedef struct jose_keyset jose_keyset;

/* A parsed, not yet verified token. */
typedef struct jose_token {
    char alg[16];             /* header "alg" */
    char kid[129];            /* header "kid", "" when absent */
    json_t *claims;           /* the payload object (owned) */
    char *signing_input;      /* "header.payload" as received (owned) */
    size_t signing_len;       /* its length */
    unsigned char *signature; /* decoded signature (owned) */
    size_t signature_len;     /* its length */
} jose_token;

/* What jose_claims_check expects of the claims. */
typedef struct jose_expect {
    const char *issuer;   /* "iss" must equal it */
    const char *audience; /* "aud" (string or array) must contain it */
    long long now;        /* seconds since the epoch */
    int skew_s;           /* tolerance for exp and nbf, >= 0 */
} jose_expect;

/* --- key sets ------------------------------------------------------------ */

/* Parse a JWK Set ({"keys": [...]}) of len bytes into *out (caller frees
 * with jose_keyset_free). Keys of unsupported types or with use other than
 * "sig" are skipped, not errors; a set with no usable key is DBMCP_EINVAL.
 * DBMCP_ETOOBIG past JOSE_MAX_JWKS or JOSE_MAX_KEYS. */
int jose_keyset_parse(const char *json, size_t len, jose_keyset **out, dbmcp_error *err);
void jose_keyset_free(jose_keyset *ks);
/* Usable keys in the set. */
size_t jose_keyset_count(const jose_keyset *ks);
/* Nonzero when the set holds a key with this kid. */
int jose_keyset_has_kid(const jose_keyset *ks, const char *kid);

/* --- tokens -------------------------------------------------------------- */

/* Split and decode a compact JWS of len bytes into *out (free with
 * jose_token_free, also after a failure). DBMCP_ETOOBIG past
 * JOSE_MAX_TOKEN; DBMCP_EINVAL for anything malformed: not three
 * base64url parts, header or payload not a JSON object, alg missing,
 * "crit" present. Nothing is verified yet. */
int jose_token_parse(const char *compact, size_t len, jose_token *out, dbmcp_error *err);
void jose_token_free(jose_token *t);

/* Verify the signature with a key of ks. allowlist: comma-separated
 * algorithm names (NULL: JOSE_ALGS_DEFAULT), intersected with
 * JOSE_ALGS_SUPPORTED. The token's kid picks the key; without a kid every
 * key that fits the algorithm is tried. Returns 0; DBMCP_ENOTFOUND when
 * the set has no key with the token's kid (the caller may refetch the set
 * once); DBMCP_EDENIED for a disallowed algorithm, a key that does not fit
 * it or a signature that does not verify. */
int jose_token_verify(const jose_token *t, const jose_keyset *ks, const char *allowlist,
                      dbmcp_error *err);

/* Check iss, aud, exp (required) and nbf (when present) against x.
 * DBMCP_EDENIED naming the claim that failed. */
int jose_claims_check(const jose_token *t, const jose_expect *x, dbmcp_error *err);

/* Nonzero when name is one of JOSE_ALGS_SUPPORTED. */
int jose_alg_supported(const char *name);

#endif
