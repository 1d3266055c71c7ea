/*
 * jose.c — JWS/JWT parsing and verification with keys from a JWK Set; see
 * jose.h for the rules. OpenSSL 3's EVP does the signature arithmetic
 * (EVP_PKEY_fromdata builds keys from the JWK's big-endian parameters,
 * EVP_DigestVerify checks); libsodium decodes base64url strictly.
 */
#include "core/jose.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"

#define JOSE_MAX_PART 8192 /* decoded bytes of one JWK parameter */

typedef enum key_type { KEY_RSA, KEY_EC } key_type;

typedef struct jose_key {
    char kid[129];  /* "" when the key has none */
    char alg[16];   /* the key's own "alg", "" when absent */
    key_type type;  /* RSA or EC */
    int ec_bytes;   /* EC: coordinate size (32, 48, 66) */
    EVP_PKEY *pkey; /* the public key (owned) */
} jose_key;

struct jose_keyset {
    jose_key *keys; /* usable keys */
    size_t n;
};

/* An algorithm: its name, digest, key type and (EC) coordinate size. */
typedef struct alg_info {
    const char *name;
    const char *digest;
    key_type type;
    int pss;      /* RSASSA-PSS */
    int ec_bytes; /* ES*: r and s size */
} alg_info;

static const alg_info ALGS[] = {
    {"RS256", "SHA256", KEY_RSA, 0, 0}, {"RS384", "SHA384", KEY_RSA, 0, 0},
    {"RS512", "SHA512", KEY_RSA, 0, 0}, {"PS256", "SHA256", KEY_RSA, 1, 0},
    {"PS384", "SHA384", KEY_RSA, 1, 0}, {"PS512", "SHA512", KEY_RSA, 1, 0},
    {"ES256", "SHA256", KEY_EC, 0, 32}, {"ES384", "SHA384", KEY_EC, 0, 48},
    {"ES512", "SHA512", KEY_EC, 0, 66},
};

static const alg_info *alg_find(const char *name)
{
    for (size_t i = 0; i < sizeof ALGS / sizeof ALGS[0]; i++)
        if (strcmp(ALGS[i].name, name) == 0)
            return &ALGS[i];
    return NULL;
}

int jose_alg_supported(const char *name)
{
    return name && alg_find(name) != NULL;
}

/* Nonzero when name is an item of the comma-separated list. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ')
            e++;
        if ((size_t)(e - p) == n && n > 0 && strncmp(p, name, n) == 0)
            return 1;
        p = e;
    }
    return 0;
}

/* Decode base64url without padding into a new buffer (*out, *out_len);
 * -1 when it is not strict base64url or longer than max bytes decoded. */
static int b64url_decode(const char *in, size_t len, size_t max, unsigned char **out,
                         size_t *out_len)
{
    size_t cap = len / 4 * 3 + 3;
    if (cap > max + 3)
        return -1;
    unsigned char *buf = malloc(cap + 1);
    if (!buf)
        return -1;
    const char *end = NULL;
    size_t n = 0;
    if (sodium_base642bin(buf, cap, in, len, NULL, &n, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        end != in + len || n > max) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return 0;
}

/* --- keys ---------------------------------------------------------------- */

/* A JWK member as decoded bytes into a new BIGNUM; NULL when missing or
 * malformed. *len gets the decoded length. */
static BIGNUM *jwk_bn(const json_t *jwk, const char *name, size_t *len)
{
    const char *s = json_get_str(jwk, name);
    unsigned char *bytes;
    size_t n;
    if (!s || b64url_decode(s, strlen(s), JOSE_MAX_PART, &bytes, &n) != 0 || n == 0)
        return NULL;
    BIGNUM *bn = BN_bin2bn(bytes, (int)n, NULL);
    free(bytes);
    if (len)
        *len = n;
    return bn;
}

static EVP_PKEY *pkey_from_params(const char *type, OSSL_PARAM_BLD *bld)
{
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    EVP_PKEY *pkey = NULL;
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

static EVP_PKEY *rsa_key(const json_t *jwk, const char **why)
{
    BIGNUM *n = jwk_bn(jwk, "n", NULL), *e = jwk_bn(jwk, "e", NULL);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    EVP_PKEY *pkey = NULL;
    if (!n || !e)
        *why = "RSA key without valid n and e";
    else if (BN_num_bits(n) < 2048)
        *why = "RSA key shorter than 2048 bits";
    else if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
             !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
             !(pkey = pkey_from_params("RSA", bld)))
        *why = "RSA key that OpenSSL refuses";
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
    return pkey;
}

static EVP_PKEY *ec_key(const json_t *jwk, int *coord, const char **why)
{
    static const struct {
        const char *crv, *group;
        int bytes;
    } curves[] = {
        {"P-256", "prime256v1", 32}, {"P-384", "secp384r1", 48}, {"P-521", "secp521r1", 66}};
    const char *crv = json_get_str(jwk, "crv");
    int i = -1;
    for (int k = 0; crv && k < 3; k++)
        if (strcmp(crv, curves[k].crv) == 0)
            i = k;
    if (i < 0) {
        *why = "EC key on an unsupported curve";
        return NULL;
    }
    const char *xs = json_get_str(jwk, "x"), *ys = json_get_str(jwk, "y");
    unsigned char *x = NULL, *y = NULL;
    size_t xn = 0, yn = 0;
    EVP_PKEY *pkey = NULL;
    size_t b = (size_t)curves[i].bytes;
    if (!xs || !ys || b64url_decode(xs, strlen(xs), JOSE_MAX_PART, &x, &xn) != 0 ||
        b64url_decode(ys, strlen(ys), JOSE_MAX_PART, &y, &yn) != 0 || xn != b || yn != b) {
        *why = "EC key without valid x and y";
    } else {
        unsigned char point[1 + 2 * 66];
        point[0] = 0x04; /* uncompressed */
        memcpy(point + 1, x, b);
        memcpy(point + 1 + b, y, b);
        OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
        if (!bld ||
            !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, curves[i].group, 0) ||
            !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * b) ||
            !(pkey = pkey_from_params("EC", bld)))
            *why = "EC key that OpenSSL refuses (not a point on its curve)";
        OSSL_PARAM_BLD_free(bld);
        *coord = curves[i].bytes;
    }
    free(x);
    free(y);
    return pkey;
}

/* One JWK into k: 1 when usable, 0 when skipped (another type or use),
 * -1 when malformed (*why says how). */
static int key_parse(const json_t *jwk, jose_key *k, const char **why)
{
    if (!json_is_object(jwk)) {
        *why = "a key is not a JSON object";
        return -1;
    }
    const char *kty = json_get_str(jwk, "kty");
    const char *use = json_get_str(jwk, "use");
    const char *kid = json_get_str(jwk, "kid");
    const char *alg = json_get_str(jwk, "alg");
    if (!kty) {
        *why = "a key has no kty";
        return -1;
    }
    if ((use && strcmp(use, "sig") != 0) || (alg && !jose_alg_supported(alg)))
        return 0;
    if (kid && strlen(kid) >= sizeof k->kid) {
        *why = "a key's kid is longer than 128 bytes";
        return -1;
    }
    memset(k, 0, sizeof *k);
    snprintf(k->kid, sizeof k->kid, "%s", kid ? kid : "");
    snprintf(k->alg, sizeof k->alg, "%s", alg ? alg : "");
    if (strcmp(kty, "RSA") == 0) {
        k->type = KEY_RSA;
        k->pkey = rsa_key(jwk, why);
    } else if (strcmp(kty, "EC") == 0) {
        k->type = KEY_EC;
        k->pkey = ec_key(jwk, &k->ec_bytes, why);
    } else {
        return 0; /* oct, OKP: never used to verify */
    }
    return k->pkey ? 1 : -1;
}

void jose_keyset_free(jose_keyset *ks)
{
    if (!ks)
        return;
    for (size_t i = 0; i < ks->n; i++)
        EVP_PKEY_free(ks->keys[i].pkey);
    free(ks->keys);
    free(ks);
}

int jose_keyset_parse(const char *json, size_t len, jose_keyset **out, dbmcp_error *err)
{
    *out = NULL;
    if (len > JOSE_MAX_JWKS)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "JWK Set: %zu bytes, more than the %d allowed",
                               len, JOSE_MAX_JWKS);
    json_error_t jerr;
    json_t *doc = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        return dbmcp_error_set(err, DBMCP_EINVAL, "JWK Set: not JSON (line %d: %.200s)", jerr.line,
                               jerr.text);
    json_t *keys = json_object_get(doc, "keys");
    int rc = 0;
    if (!json_is_array(keys))
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "JWK Set: no \"keys\" array");
    else if (json_array_size(keys) > JOSE_MAX_KEYS)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG, "JWK Set: %zu keys, more than the %d allowed",
                             json_array_size(keys), JOSE_MAX_KEYS);
    jose_keyset *ks = rc ? NULL : calloc(1, sizeof *ks);
    if (!rc && (!ks || !(ks->keys = calloc(json_array_size(keys) + 1, sizeof *ks->keys))))
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < json_array_size(keys); i++) {
        const char *why = "malformed key";
        int ok = key_parse(json_array_get(keys, i), &ks->keys[ks->n], &why);
        if (ok < 0)
            rc = dbmcp_error_set(err, DBMCP_EINVAL, "JWK Set: key %zu: %s", i, why);
        else if (ok > 0)
            ks->n++;
    }
    if (!rc && ks->n == 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL,
                             "JWK Set: no usable signing key (RSA or EC P-256/384/521)");
    json_decref(doc);
    if (rc) {
        jose_keyset_free(ks);
        return rc;
    }
    *out = ks;
    return 0;
}

size_t jose_keyset_count(const jose_keyset *ks)
{
    return ks ? ks->n : 0;
}

int jose_keyset_has_kid(const jose_keyset *ks, const char *kid)
{
    for (size_t i = 0; ks && kid && i < ks->n; i++)
        if (strcmp(ks->keys[i].kid, kid) == 0)
            return 1;
    return 0;
}

/* --- tokens -------------------------------------------------------------- */

void jose_token_free(jose_token *t)
{
    if (!t)
        return;
    json_decref(t->claims);
    free(t->signing_input);
    free(t->signature);
    memset(t, 0, sizeof *t);
}

/* Decode one base64url part as a JSON object. */
static json_t *part_object(const char *p, size_t n)
{
    unsigned char *bytes;
    size_t len;
    if (b64url_decode(p, n, JOSE_MAX_TOKEN, &bytes, &len) != 0)
        return NULL;
    json_t *j = json_loadb((const char *)bytes, len, JSON_REJECT_DUPLICATES, NULL);
    free(bytes);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

static int header_parse(const char *p, size_t n, jose_token *out, dbmcp_error *err)
{
    json_t *h = part_object(p, n);
    if (!h)
        return dbmcp_error_set(err, DBMCP_EINVAL, "token header is not base64url JSON object");
    const char *alg = json_get_str(h, "alg");
    const char *kid = json_get_str(h, "kid");
    int rc = 0;
    if (!alg || !*alg || strlen(alg) >= sizeof out->alg)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "token header has no valid alg");
    else if (json_object_get(h, "crit"))
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "token header has crit (no extension is known)");
    else if (json_object_get(h, "kid") && (!kid || strlen(kid) >= sizeof out->kid))
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "token header kid is not a string of <= 128 bytes");
    if (!rc) {
        snprintf(out->alg, sizeof out->alg, "%s", alg);
        snprintf(out->kid, sizeof out->kid, "%s", kid ? kid : "");
    }
    json_decref(h);
    return rc;
}

int jose_token_parse(const char *compact, size_t len, jose_token *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > JOSE_MAX_TOKEN)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "token: %zu bytes, more than the %d allowed",
                               len, JOSE_MAX_TOKEN);
    const char *d1 = memchr(compact, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - compact)) : NULL;
    if (!d1 || !d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - compact)))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "token is not a compact JWS (three base64url parts)");
    int rc = header_parse(compact, (size_t)(d1 - compact), out, err);
    if (rc)
        return rc;
    out->claims = part_object(d1 + 1, (size_t)(d2 - d1 - 1));
    if (!out->claims)
        return dbmcp_error_set(err, DBMCP_EINVAL, "token payload is not base64url JSON object");
    size_t sig_len = len - (size_t)(d2 + 1 - compact);
    if (sig_len == 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "token has no signature");
    if (b64url_decode(d2 + 1, sig_len, JOSE_MAX_TOKEN, &out->signature, &out->signature_len))
        return dbmcp_error_set(err, DBMCP_EINVAL, "token signature is not base64url");
    out->signing_len = (size_t)(d2 - compact);
    out->signing_input = malloc(out->signing_len + 1);
    if (!out->signing_input)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    memcpy(out->signing_input, compact, out->signing_len);
    out->signing_input[out->signing_len] = '\0';
    return 0;
}

/* ECDSA's JOSE form r||s (2 × bytes) as DER into a new buffer. */
static unsigned char *ecdsa_der(const unsigned char *sig, int bytes, int *der_len)
{
    ECDSA_SIG *es = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, bytes, NULL), *s = BN_bin2bn(sig + bytes, bytes, NULL);
    unsigned char *der = NULL;
    if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
        r = s = NULL; /* owned by es */
        *der_len = i2d_ECDSA_SIG(es, &der);
        if (*der_len <= 0)
            der = NULL;
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(es);
    return der;
}

/* 1 when the signature verifies with k under a, else 0. */
static int verify_with(const jose_token *t, const jose_key *k, const alg_info *a)
{
    const unsigned char *sig = t->signature;
    size_t sig_len = t->signature_len;
    unsigned char *der = NULL;
    if (a->type == KEY_EC) {
        if (sig_len != (size_t)(2 * a->ec_bytes))
            return 0;
        int der_len = 0;
        if (!(der = ecdsa_der(sig, a->ec_bytes, &der_len)))
            return 0;
        sig = der;
        sig_len = (size_t)der_len;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = md && EVP_DigestVerifyInit_ex(md, &pctx, a->digest, NULL, NULL, k->pkey, NULL) == 1;
    if (ok && a->pss)
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) > 0 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) > 0;
    ok = ok && EVP_DigestVerify(md, sig, sig_len, (const unsigned char *)t->signing_input,
                                t->signing_len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    return ok;
}

/* Nonzero when key k may verify algorithm a. */
static int key_fits(const jose_key *k, const alg_info *a)
{
    if (k->type != a->type || (k->alg[0] && strcmp(k->alg, a->name) != 0))
        return 0;
    return a->type != KEY_EC || k->ec_bytes == a->ec_bytes;
}

int jose_token_verify(const jose_token *t, const jose_keyset *ks, const char *allowlist,
                      dbmcp_error *err)
{
    const alg_info *a = alg_find(t->alg);
    if (!a)
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "token algorithm %.15s is refused (only RS*, PS*, ES*)", t->alg);
    if (!in_list(allowlist && *allowlist ? allowlist : JOSE_ALGS_DEFAULT, a->name))
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "token algorithm %s is not in the allowlist (oidc.algorithms)",
                               a->name);
    int tried = 0;
    for (size_t i = 0; i < ks->n; i++) {
        const jose_key *k = &ks->keys[i];
        if (t->kid[0] && strcmp(k->kid, t->kid) != 0)
            continue;
        if (!key_fits(k, a)) {
            if (t->kid[0])
                return dbmcp_error_set(err, DBMCP_EDENIED,
                                       "key %.128s does not fit token algorithm %s", t->kid,
                                       a->name);
            continue;
        }
        tried++;
        if (verify_with(t, k, a))
            return 0;
    }
    if (t->kid[0] && !tried)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no key with kid %.128s in the JWK Set",
                               t->kid);
    if (!tried)
        return dbmcp_error_set(err, DBMCP_EDENIED, "no key in the JWK Set fits algorithm %s",
                               a->name);
    return dbmcp_error_set(err, DBMCP_EDENIED, "token signature does not verify");
}

/* A NumericDate claim into *v: 1 when present and a number, 0 when absent,
 * -1 when present but not a number. */
static int numeric_date(const json_t *claims, const char *name, long long *v)
{
    json_t *j = json_object_get(claims, name);
    if (!j)
        return 0;
    if (!json_is_number(j))
        return -1;
    *v = (long long)json_number_value(j);
    return 1;
}

static int audience_has(const json_t *aud, const char *want)
{
    if (json_is_string(aud))
        return strcmp(json_string_value(aud), want) == 0;
    size_t i;
    json_t *v;
    json_array_foreach (aud, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), want) == 0)
            return 1;
    return 0;
}

int jose_claims_check(const jose_token *t, const jose_expect *x, dbmcp_error *err)
{
    const char *iss = json_get_str(t->claims, "iss");
    if (!iss || !x->issuer || strcmp(iss, x->issuer) != 0)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token issuer (iss) is not %.200s",
                               x->issuer ? x->issuer : "(none configured)");
    json_t *aud = json_object_get(t->claims, "aud");
    if (!x->audience || !aud || !audience_has(aud, x->audience))
        return dbmcp_error_set(err, DBMCP_EDENIED, "token audience (aud) does not name %.200s",
                               x->audience ? x->audience : "(none configured)");
    long long exp = 0, nbf = 0;
    int has = numeric_date(t->claims, "exp", &exp);
    if (has <= 0)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token has no numeric expiry (exp)");
    if (x->now > exp + x->skew_s)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token expired %lld s ago", x->now - exp);
    has = numeric_date(t->claims, "nbf", &nbf);
    if (has < 0)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token not-before (nbf) is not a number");
    if (has > 0 && x->now + x->skew_s < nbf)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token not valid before %lld (nbf)", nbf);
    return 0;
}
