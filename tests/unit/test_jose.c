/*
 * test_jose.c — tests for core/jose (JWT verification with a JWK Set) and
 * the oidc.scope_map parser (mcp/oidc.h).
 *
 * Keys are made here with OpenSSL (an RSA 2048 and an EC P-256 key, plus
 * an RSA 1024 key that must be refused), published as a JWK Set the way a
 * provider does, and tokens are signed with them; every refusal the
 * security model promises is asserted with its error code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "core/jose.h"
#include "mcp/oidc.h"

static EVP_PKEY *rsa_key, *ec_key, *small_rsa;
static char jwks[8192];

#define NOW 1700000000LL
#define ISS "https://issuer.test"
#define AUD "https://rs.test/mcp"

static void b64url(const unsigned char *bin, size_t n, char *out, size_t size)
{
    sodium_bin2base64(out, size, bin, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

static void bn_b64(EVP_PKEY *k, const char *name, char *out, size_t size)
{
    BIGNUM *bn = NULL;
    assert_int_equal(EVP_PKEY_get_bn_param(k, name, &bn), 1);
    unsigned char buf[1024];
    int n = BN_bn2bin(bn, buf);
    b64url(buf, (size_t)n, out, size);
    BN_free(bn);
}

static void rsa_jwk(EVP_PKEY *k, const char *kid, char *out, size_t size)
{
    char n[1024], e[16];
    bn_b64(k, OSSL_PKEY_PARAM_RSA_N, n, sizeof n);
    bn_b64(k, OSSL_PKEY_PARAM_RSA_E, e, sizeof e);
    snprintf(out, size,
             "{\"kty\":\"RSA\",\"kid\":\"%s\",\"use\":\"sig\",\"n\":\"%s\",\"e\":\"%s\"}", kid, n,
             e);
}

static void ec_jwk(EVP_PKEY *k, const char *kid, char *out, size_t size)
{
    unsigned char pub[65];
    size_t len = 0;
    assert_int_equal(
        EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &len), 1);
    assert_int_equal(len, 65);
    char x[64], y[64];
    b64url(pub + 1, 32, x, sizeof x);
    b64url(pub + 33, 32, y, sizeof y);
    snprintf(out, size,
             "{\"kty\":\"EC\",\"kid\":\"%s\",\"crv\":\"P-256\",\"alg\":\"ES256\",\"x\":\"%s\","
             "\"y\":\"%s\"}",
             kid, x, y);
}

static int setup(void **state)
{
    (void)state;
    rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    small_rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
    ec_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (!rsa_key || !small_rsa || !ec_key)
        return -1;
    char r[2048], e[512];
    rsa_jwk(rsa_key, "r1", r, sizeof r);
    ec_jwk(ec_key, "e1", e, sizeof e);
    snprintf(jwks, sizeof jwks, "{\"keys\":[%s,%s,{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}", r, e);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    EVP_PKEY_free(rsa_key);
    EVP_PKEY_free(small_rsa);
    EVP_PKEY_free(ec_key);
    return 0;
}

/* A compact JWS of header and claims signed with k under alg (RS256 or
 * ES256; "none" leaves the signature empty, "HS256" uses a fixed MAC). */
static char *sign_token(const char *header, const char *claims, EVP_PKEY *k, const char *alg)
{
    static char out[JOSE_MAX_TOKEN * 2];
    char h[2048], c[4096];
    b64url((const unsigned char *)header, strlen(header), h, sizeof h);
    b64url((const unsigned char *)claims, strlen(claims), c, sizeof c);
    snprintf(out, sizeof out, "%s.%s", h, c);
    unsigned char sig[512], raw[64];
    size_t sig_len = sizeof sig;
    if (strcmp(alg, "none") == 0) {
        strcat(out, ".");
        return out;
    }
    if (strcmp(alg, "HS256") == 0) {
        memset(sig, 7, 32);
        sig_len = 32;
    } else {
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        assert_int_equal(EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, k, NULL), 1);
        assert_int_equal(EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)out, strlen(out)),
                         1);
        EVP_MD_CTX_free(md);
    }
    if (strcmp(alg, "ES256") == 0) { /* DER to JOSE's r||s */
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)sig_len);
        assert_non_null(es);
        BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32);
        ECDSA_SIG_free(es);
        memcpy(sig, raw, 64);
        sig_len = 64;
    }
    char s[1024];
    b64url(sig, sig_len, s, sizeof s);
    strcat(out, ".");
    strcat(out, s);
    return out;
}

static const char *CLAIMS = "{\"iss\":\"" ISS "\",\"aud\":[\"other\",\"" AUD
                            "\"],\"sub\":\"alice\",\"exp\":1700000300,\"nbf\":1699999000}";

/* Parse and verify; returns jose_token_verify's code (or the parse code). */
static int verify(const char *token, const char *allow)
{
    jose_keyset *ks = NULL;
    dbmcp_error err;
    assert_int_equal(jose_keyset_parse(jwks, strlen(jwks), &ks, &err), 0);
    jose_token t;
    int rc = jose_token_parse(token, strlen(token), &t, &err);
    if (!rc)
        rc = jose_token_verify(&t, ks, allow, &err);
    jose_token_free(&t);
    jose_keyset_free(ks);
    return rc;
}

static void test_keyset(void **state)
{
    (void)state;
    jose_keyset *ks = NULL;
    dbmcp_error err;
    assert_int_equal(jose_keyset_parse(jwks, strlen(jwks), &ks, &err), 0);
    assert_int_equal(jose_keyset_count(ks), 2); /* the oct key is skipped */
    assert_true(jose_keyset_has_kid(ks, "r1"));
    assert_false(jose_keyset_has_kid(ks, "r2"));
    jose_keyset_free(ks);

    char small[2048], set[2200];
    rsa_jwk(small_rsa, "s1", small, sizeof small);
    snprintf(set, sizeof set, "{\"keys\":[%s]}", small);
    assert_int_equal(jose_keyset_parse(set, strlen(set), &ks, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "shorter than 2048 bits"));
    const char *oct = "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}";
    assert_int_equal(jose_keyset_parse(oct, strlen(oct), &ks, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "no usable signing key"));
    assert_int_equal(jose_keyset_parse("[1]", 3, &ks, &err), DBMCP_EINVAL);
    assert_int_equal(jose_keyset_parse("{", 1, &ks, &err), DBMCP_EINVAL);
    assert_int_equal(jose_keyset_parse(jwks, JOSE_MAX_JWKS + 1, &ks, &err), DBMCP_ETOOBIG);
    assert_null(ks);
}

static void test_token_parse(void **state)
{
    (void)state;
    jose_token t;
    dbmcp_error err;
    static const char *const bad[] = {
        "a.b",                                             /* two parts */
        "a.b.c.d",                                         /* four */
        "e30.e30.c2ln",                                    /* header {} has no alg */
        "eyJhbGciOiJSUzI1NiJ9.W10.c2ln",                   /* payload [] */
        "eyJhbGciOiJSUzI1NiJ9.e30.",                       /* no signature */
        "eyJhbGciOiJSUzI1NiJ9.e30.c2ln=",                  /* padding is not base64url */
        "eyJhbGciOiJSUzI1NiIsImNyaXQiOlsieCJdfQ.e30.c2ln", /* crit */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = jose_token_parse(bad[i], strlen(bad[i]), &t, &err);
        jose_token_free(&t);
        if (rc != DBMCP_EINVAL)
            fail_msg("case %zu (%s): rc %d", i, bad[i], rc);
    }
    static char big[JOSE_MAX_TOKEN + 2];
    memset(big, 'a', sizeof big - 1);
    assert_int_equal(jose_token_parse(big, strlen(big), &t, &err), DBMCP_ETOOBIG);
    jose_token_free(&t);
}

static void test_verify(void **state)
{
    (void)state;
    const char *rs = "{\"alg\":\"RS256\",\"kid\":\"r1\"}";
    assert_int_equal(verify(sign_token(rs, CLAIMS, rsa_key, "RS256"), NULL), 0);
    assert_int_equal(
        verify(sign_token("{\"alg\":\"ES256\",\"kid\":\"e1\"}", CLAIMS, ec_key, "ES256"), NULL), 0);
    /* no kid: every fitting key is tried */
    assert_int_equal(verify(sign_token("{\"alg\":\"RS256\"}", CLAIMS, rsa_key, "RS256"), NULL), 0);
    /* unknown kid: the caller may refetch */
    assert_int_equal(
        verify(sign_token("{\"alg\":\"RS256\",\"kid\":\"r9\"}", CLAIMS, rsa_key, "RS256"), NULL),
        DBMCP_ENOTFOUND);
    /* refused whatever the allowlist says */
    assert_int_equal(
        verify(sign_token("{\"alg\":\"none\",\"kid\":\"r1\"}", CLAIMS, NULL, "none"), "none,RS256"),
        DBMCP_EINVAL); /* empty signature: not even parsed */
    assert_int_equal(
        verify(sign_token("{\"alg\":\"HS256\",\"kid\":\"r1\"}", CLAIMS, NULL, "HS256"), "HS256"),
        DBMCP_EDENIED);
    /* not in the allowlist */
    assert_int_equal(verify(sign_token(rs, CLAIMS, rsa_key, "RS256"), "ES256"), DBMCP_EDENIED);
    /* the key's type or alg does not fit */
    assert_int_equal(
        verify(sign_token("{\"alg\":\"ES256\",\"kid\":\"r1\"}", CLAIMS, ec_key, "ES256"), NULL),
        DBMCP_EDENIED);
    /* signed by another key */
    assert_int_equal(verify(sign_token(rs, CLAIMS, small_rsa, "RS256"), NULL), DBMCP_EDENIED);
    /* a payload changed after signing */
    char tampered[JOSE_MAX_TOKEN * 2];
    snprintf(tampered, sizeof tampered, "%s", sign_token(rs, CLAIMS, rsa_key, "RS256"));
    char *dot = strchr(tampered, '.');
    dot[1] = dot[1] == 'e' ? 'f' : 'e';
    int rc = verify(tampered, NULL);
    assert_true(rc == DBMCP_EDENIED || rc == DBMCP_EINVAL);
}

static int claims_rc(const char *claims, long long now)
{
    jose_token t;
    dbmcp_error err;
    const char *tok = sign_token("{\"alg\":\"RS256\"}", claims, rsa_key, "RS256");
    assert_int_equal(jose_token_parse(tok, strlen(tok), &t, &err), 0);
    jose_expect x = {.issuer = ISS, .audience = AUD, .now = now, .skew_s = 60};
    int rc = jose_claims_check(&t, &x, &err);
    jose_token_free(&t);
    return rc;
}

static void test_claims(void **state)
{
    (void)state;
    assert_int_equal(claims_rc(CLAIMS, NOW), 0);
    assert_int_equal(claims_rc(CLAIMS, 1700000300 + 60), 0);             /* within the skew */
    assert_int_equal(claims_rc(CLAIMS, 1700000300 + 61), DBMCP_EDENIED); /* expired */
    assert_int_equal(claims_rc(CLAIMS, 1699999000 - 61), DBMCP_EDENIED); /* before nbf */
    assert_int_equal(claims_rc("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\"}", NOW),
                     DBMCP_EDENIED); /* no exp */
    assert_int_equal(claims_rc("{\"iss\":\"" ISS "\",\"aud\":\"x\",\"exp\":1700000300}", NOW),
                     DBMCP_EDENIED); /* wrong aud */
    assert_int_equal(
        claims_rc("{\"iss\":\"https://evil\",\"aud\":\"" AUD "\",\"exp\":1700000300}", NOW),
        DBMCP_EDENIED); /* wrong iss */
    assert_int_equal(
        claims_rc("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"exp\":\"1700000300\"}", NOW),
        DBMCP_EDENIED); /* exp not a number */
}

typedef struct entries {
    char text[512];
} entries;

static void collect(void *ctx, const char *scope, const char *iface, const char *agent)
{
    entries *e = ctx;
    size_t n = strlen(e->text);
    snprintf(e->text + n, sizeof e->text - n, "[%s|%s|%s]", scope, iface, agent);
}

static void test_scope_map(void **state)
{
    (void)state;
    entries e = {""};
    dbmcp_error err;
    assert_int_equal(
        mcp_oidc_scope_map_parse(" mcp:admin=default, mcp:read=reports/bot\n", collect, &e, &err),
        0);
    assert_string_equal(e.text, "[mcp:admin|default|][mcp:read|reports|bot]");
    static const char *const bad[] = {"x", "=default", "x=", "x=a/", "x=/b", "x=a/b/c"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (mcp_oidc_scope_map_parse(bad[i], NULL, NULL, &err) != DBMCP_EINVAL)
            fail_msg("'%s' was accepted", bad[i]);
    char many[OIDC_SCOPE_MAP_MAX] = "";
    for (int i = 0; i <= OIDC_SCOPE_MAP_ENTRIES; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "s%d=i ", i);
    assert_int_equal(mcp_oidc_scope_map_parse(many, NULL, NULL, &err), DBMCP_ETOOBIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keyset),    cmocka_unit_test(test_token_parse),
        cmocka_unit_test(test_verify),    cmocka_unit_test(test_claims),
        cmocka_unit_test(test_scope_map),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
