/*
 * oidc.c — the OIDC resource server; see oidc.h. Three parts: the
 * configuration snapshot read from the settings, the cache of the
 * provider's JWK Set (fetched with libcurl, HTTPS only) and the mapping
 * of verified claims to an identity.
 *
 * The key set is shared by reference: a request takes a reference under
 * the mutex and verifies without it, so a refetch (which swaps the set)
 * never waits for verifications nor they for a fetch. One fetch runs at a
 * time (fetch_mu); a request that waited for it finds the new set.
 */
#include "mcp/oidc.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/curl_lib.h"
#include "core/jose.h"
#include "core/jsonutil.h"
#include "core/log.h"
#include "core/strbuf.h"

#define OIDC_TIMEOUT_MS 5000
#define OIDC_CACHE_MIN_S 30
#define OIDC_CACHE_MAX_S 86400
#define OIDC_CACHE_DEFAULT_S 300
#define OIDC_REFETCH_MIN_DEFAULT_S 10
#define OIDC_SKEW_DEFAULT_S 60

/* The oidc.* settings as read by the last successful configure. */
typedef struct oidc_config {
    char issuer[257];
    char audience[513];
    char ca_file[513];
    char algorithms[128];
    char user_claim[65];
    char interface_claim[65];
    char agent_claim[65];
    char scope_map[OIDC_SCOPE_MAP_MAX + 1];
    char scopes[OIDC_SCOPE_MAP_MAX + 1]; /* the map's scopes, space-separated */
    int skew_s;
    int cache_s;
    int refetch_min_s;
} oidc_config;

/* A fetched key set shared by reference. */
typedef struct keyset_ref {
    jose_keyset *ks;
    int refs; /* guarded by mcp_oidc.mu */
} keyset_ref;

struct mcp_oidc {
    mcp_server *srv;
    pthread_mutex_t mu;       /* guards cfg, keys, expires, last_fetch */
    pthread_mutex_t fetch_mu; /* one fetch at a time */
    oidc_config cfg;
    keyset_ref *keys;        /* the cached set, or NULL */
    double expires;          /* monotonic time the cache expires */
    double last_fetch;       /* monotonic time of the last fetch attempt */
    atomic_ulong generation; /* counts fetched sets: a waiter sees whether one came */
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keys_unref(mcp_oidc *o, keyset_ref *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&o->mu);
    int last = --r->refs == 0;
    pthread_mutex_unlock(&o->mu);
    if (last) {
        jose_keyset_free(r->ks);
        free(r);
    }
}

mcp_oidc *mcp_oidc_create(mcp_server *srv)
{
    mcp_oidc *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->srv = srv;
    pthread_mutex_init(&o->mu, NULL);
    pthread_mutex_init(&o->fetch_mu, NULL);
    return o;
}

void mcp_oidc_free(mcp_oidc *o)
{
    if (!o)
        return;
    keys_unref(o, o->keys);
    pthread_mutex_destroy(&o->mu);
    pthread_mutex_destroy(&o->fetch_mu);
    free(o);
}

/* --- the scope map ------------------------------------------------------- */

int mcp_oidc_scope_map_parse(const char *text, oidc_scope_entry_fn fn, void *ctx, dbmcp_error *err)
{
    size_t len = strlen(text);
    if (len > OIDC_SCOPE_MAP_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "oidc.scope_map: %zu bytes, more than the %d allowed", len,
                               OIDC_SCOPE_MAP_MAX);
    int n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != ',' && *e != '\t' && *e != '\n')
            e++;
        char entry[OIDC_SCOPE_MAP_MAX + 1];
        memcpy(entry, p, (size_t)(e - p));
        entry[e - p] = '\0';
        p = e;
        if (++n > OIDC_SCOPE_MAP_ENTRIES)
            return dbmcp_error_set(err, DBMCP_ETOOBIG, "oidc.scope_map: more than %d entries",
                                   OIDC_SCOPE_MAP_ENTRIES);
        char *eq = strchr(entry, '=');
        if (!eq || eq == entry || !eq[1])
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "oidc.scope_map: entry %d '%.100s' is not SCOPE=INTERFACE or "
                                   "SCOPE=INTERFACE/AGENT",
                                   n, entry);
        *eq = '\0';
        char *iface = eq + 1;
        char *slash = strchr(iface, '/');
        const char *agent = "";
        if (slash) {
            *slash = '\0';
            agent = slash + 1;
            if (!*iface || !*agent || strchr(agent, '/'))
                return dbmcp_error_set(err, DBMCP_EINVAL,
                                       "oidc.scope_map: entry %d has an empty interface or agent",
                                       n);
        }
        if (strlen(entry) > 128 || strlen(iface) > 64 || strlen(agent) > 128)
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "oidc.scope_map: entry %d: scope, interface or agent too long",
                                   n);
        if (fn)
            fn(ctx, entry, iface, agent);
    }
    return 0;
}

static void add_scope(void *ctx, const char *scope, const char *iface, const char *agent)
{
    (void)iface;
    (void)agent;
    oidc_config *c = ctx;
    size_t used = strlen(c->scopes);
    snprintf(c->scopes + used, sizeof c->scopes - used, "%s%s", used ? " " : "", scope);
}

/* --- configuration ------------------------------------------------------- */

static void setting_or(mcp_oidc *o, const char *key, const char *def, char *out, size_t size)
{
    if (!mcp_server_setting(o->srv, key, out, size) || !*out)
        snprintf(out, size, "%s", def);
}

static int config_read(mcp_oidc *o, oidc_config *c, dbmcp_error *err)
{
    memset(c, 0, sizeof *c);
    setting_or(o, "oidc.issuer", "", c->issuer, sizeof c->issuer);
    setting_or(o, "oidc.audience", "", c->audience, sizeof c->audience);
    const char *ca = getenv("DBMCP_OIDC_CA_FILE");
    if (ca && *ca)
        snprintf(c->ca_file, sizeof c->ca_file, "%s", ca);
    else
        setting_or(o, "oidc.ca_file", "", c->ca_file, sizeof c->ca_file);
    setting_or(o, "oidc.algorithms", JOSE_ALGS_DEFAULT, c->algorithms, sizeof c->algorithms);
    setting_or(o, "oidc.user_claim", "sub", c->user_claim, sizeof c->user_claim);
    setting_or(o, "oidc.interface_claim", "", c->interface_claim, sizeof c->interface_claim);
    setting_or(o, "oidc.agent_claim", "", c->agent_claim, sizeof c->agent_claim);
    setting_or(o, "oidc.scope_map", "", c->scope_map, sizeof c->scope_map);
    c->skew_s = (int)mcp_server_setting_long(o->srv, "oidc.clock_skew_s", OIDC_SKEW_DEFAULT_S);
    c->cache_s = (int)mcp_server_setting_long(o->srv, "oidc.cache_s", OIDC_CACHE_DEFAULT_S);
    c->refetch_min_s =
        (int)mcp_server_setting_long(o->srv, "oidc.refetch_min_s", OIDC_REFETCH_MIN_DEFAULT_S);
    if (!c->issuer[0])
        return 0;
    if (strncmp(c->issuer, "https://", 8) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.issuer must be an https:// URL");
    if (c->skew_s < 0 || c->skew_s > 600)
        return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.clock_skew_s must be 0..600");
    if (c->refetch_min_s < 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.refetch_min_s must be >= 0");
    char list[sizeof c->algorithms];
    snprintf(list, sizeof list, "%s", c->algorithms);
    for (char *save = NULL, *a = strtok_r(list, ", ", &save); a; a = strtok_r(NULL, ", ", &save))
        if (!jose_alg_supported(a))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "oidc.algorithms: %.20s is not one of " JOSE_ALGS_SUPPORTED
                                   " (none and HS* are never accepted)",
                                   a);
    if (!c->interface_claim[0] && !c->scope_map[0])
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "OIDC needs oidc.scope_map or oidc.interface_claim to choose the "
                               "caller's interface");
    return mcp_oidc_scope_map_parse(c->scope_map, add_scope, c, err);
}

int mcp_oidc_configure(mcp_oidc *o, dbmcp_error *err)
{
    oidc_config *c = malloc(sizeof *c);
    if (!c)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = config_read(o, c, err);
    if (rc) {
        free(c);
        return dbmcp_error_prefix(err, "oidc");
    }
    keyset_ref *drop = NULL;
    pthread_mutex_lock(&o->mu);
    if (strcmp(o->cfg.issuer, c->issuer) != 0 || strcmp(o->cfg.ca_file, c->ca_file) != 0) {
        drop = o->keys;
        o->keys = NULL;
        o->expires = 0;
        o->last_fetch = 0;
    }
    int changed = memcmp(&o->cfg, c, sizeof *c) != 0;
    o->cfg = *c;
    pthread_mutex_unlock(&o->mu);
    keys_unref(o, drop);
    if (changed && c->issuer[0])
        log_msg(LOG_INFO, "oidc", "issuer %s, scopes '%s'", c->issuer, c->scopes);
    else if (changed)
        log_msg(LOG_INFO, "oidc", "single sign-on off");
    free(c);
    return 0;
}

int mcp_oidc_enabled(mcp_oidc *o)
{
    pthread_mutex_lock(&o->mu);
    int on = o->cfg.issuer[0] != '\0';
    pthread_mutex_unlock(&o->mu);
    return on;
}

void mcp_oidc_issuer(mcp_oidc *o, char *out, size_t size)
{
    pthread_mutex_lock(&o->mu);
    snprintf(out, size, "%s", o->cfg.issuer);
    pthread_mutex_unlock(&o->mu);
}

void mcp_oidc_scopes(mcp_oidc *o, char *out, size_t size)
{
    pthread_mutex_lock(&o->mu);
    snprintf(out, size, "%s", o->cfg.issuer[0] ? o->cfg.scopes : "");
    pthread_mutex_unlock(&o->mu);
}

/* --- fetching ------------------------------------------------------------ */

typedef struct fetch_buf {
    strbuf body;
    size_t max;
    int too_big;
    long max_age; /* Cache-Control max-age, -1 when absent */
} fetch_buf;

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    fetch_buf *b = ctx;
    size_t len = size * n;
    if (b->body.len + len > b->max) {
        b->too_big = 1;
        return 0;
    }
    strbuf_add(&b->body, p, len);
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
    fetch_buf *b = ctx;
    size_t len = size * n;
    if (len > 14 && strncasecmp(p, "cache-control:", 14) == 0) {
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(len < 255 ? len : 255), p);
        char *m = strcasestr(line, "max-age=");
        if (m)
            b->max_age = strtol(m + 8, NULL, 10);
        if (strcasestr(line, "no-store") || strcasestr(line, "no-cache"))
            b->max_age = 0;
    }
    return len;
}

/* GET url (https only) into b; DBMCP_EIO naming the URL and the failure. */
static int fetch(const char *url, const char *ca_file, fetch_buf *b, dbmcp_error *err)
{
    int rc = curl_lib_open(err);
    if (rc)
        return rc;
    if (strncmp(url, "https://", 8) != 0)
        return dbmcp_error_set(err, DBMCP_EIO, "%.300s: not an https:// URL", url);
    CURL *h = curl_api.curl_easy_init();
    if (!h)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    memset(&b->body, 0, sizeof b->body);
    b->max_age = -1;
    curl_api.curl_easy_setopt(h, CURLOPT_URL, url);
    curl_api.curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
    curl_api.curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_api.curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)OIDC_TIMEOUT_MS);
    curl_api.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_api.curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_api.curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_api.curl_easy_setopt(h, CURLOPT_HEADERDATA, b);
    if (ca_file && *ca_file)
        curl_api.curl_easy_setopt(h, CURLOPT_CAINFO, ca_file);
    CURLcode cc = curl_api.curl_easy_perform(h);
    long status = 0;
    curl_api.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_api.curl_easy_cleanup(h);
    if (b->body.oom)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    else if (b->too_big)
        rc = dbmcp_error_set(err, DBMCP_ETOOBIG, "%.300s: more than %zu bytes", url, b->max);
    else if (cc != CURLE_OK)
        rc = dbmcp_error_set(err, DBMCP_EIO, "%.300s: %s", url, curl_api.curl_easy_strerror(cc));
    else if (status != 200)
        rc = dbmcp_error_set(err, DBMCP_EIO, "%.300s: HTTP status %ld", url, status);
    if (rc)
        strbuf_free(&b->body);
    return rc;
}

static int clamp_lifetime(long max_age, int def)
{
    long s = max_age >= 0 ? max_age : def;
    return (int)(s < OIDC_CACHE_MIN_S   ? OIDC_CACHE_MIN_S
                 : s > OIDC_CACHE_MAX_S ? OIDC_CACHE_MAX_S
                                        : s);
}

/* The discovery document's jwks_uri into out; its issuer must be ours
 * (OpenID Connect Discovery 1.0, section 4.3). */
static int discover(const oidc_config *c, char *out, size_t size, int *lifetime, dbmcp_error *err)
{
    char url[512];
    size_t n = strlen(c->issuer);
    while (n > 0 && c->issuer[n - 1] == '/')
        n--;
    snprintf(url, sizeof url, "%.*s/.well-known/openid-configuration", (int)n, c->issuer);
    fetch_buf b = {.max = OIDC_DOC_MAX};
    int rc = fetch(url, c->ca_file, &b, err);
    if (rc)
        return rc;
    json_t *doc = json_loadb(b.body.data ? b.body.data : "", b.body.len, 0, NULL);
    strbuf_free(&b.body);
    const char *iss = json_get_str(doc, "issuer");
    const char *jwks = json_get_str(doc, "jwks_uri");
    if (!json_is_object(doc))
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "%.300s: not a JSON object", url);
    else if (!iss || strcmp(iss, c->issuer) != 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "%.300s: issuer is not %.256s", url, c->issuer);
    else if (!jwks || strncmp(jwks, "https://", 8) != 0 || strlen(jwks) >= size)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "%.300s: no https jwks_uri", url);
    else
        snprintf(out, size, "%s", jwks);
    *lifetime = clamp_lifetime(b.max_age, c->cache_s);
    json_decref(doc);
    return rc;
}

/* Fetch discovery and keys for c; a new reference (refs 1) into *out. */
static int fetch_keys(const oidc_config *c, keyset_ref **out, int *lifetime, dbmcp_error *err)
{
    char jwks_uri[512];
    int doc_life = 0;
    int rc = discover(c, jwks_uri, sizeof jwks_uri, &doc_life, err);
    if (rc)
        return rc;
    fetch_buf b = {.max = JOSE_MAX_JWKS};
    if ((rc = fetch(jwks_uri, c->ca_file, &b, err)) != 0)
        return rc;
    keyset_ref *r = calloc(1, sizeof *r);
    if (!r)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    else
        rc = jose_keyset_parse(b.body.data ? b.body.data : "", b.body.len, &r->ks, err);
    strbuf_free(&b.body);
    if (rc) {
        free(r);
        return rc;
    }
    r->refs = 1;
    int key_life = clamp_lifetime(b.max_age, c->cache_s);
    *lifetime = key_life < doc_life ? key_life : doc_life;
    *out = r;
    return 0;
}

/* Replace the cache with a fresh fetch unless another thread fetched while
 * this one waited (seen_gen is the generation the caller saw). force: also
 * when the cache has not expired (unknown kid), at most once per
 * refetch_min_s. */
static int refresh(mcp_oidc *o, unsigned long seen_gen, int force, dbmcp_error *err)
{
    pthread_mutex_lock(&o->fetch_mu);
    int rc = 0;
    pthread_mutex_lock(&o->mu);
    double now = mono_s();
    int fresh = o->keys && now < o->expires;
    int someone_else = atomic_load(&o->generation) != seen_gen;
    int too_soon = o->last_fetch > 0 && now - o->last_fetch < o->cfg.refetch_min_s;
    oidc_config c = o->cfg;
    int skip = someone_else || (fresh && !force) || (force && fresh && too_soon);
    if (!skip)
        o->last_fetch = now;
    pthread_mutex_unlock(&o->mu);
    if (skip) {
        pthread_mutex_unlock(&o->fetch_mu);
        return 0;
    }
    keyset_ref *r = NULL;
    int lifetime = 0;
    rc = fetch_keys(&c, &r, &lifetime, err);
    if (rc) {
        log_msg(LOG_WARN, "oidc", "cannot fetch the provider's keys: %s", err->message);
    } else {
        pthread_mutex_lock(&o->mu);
        keyset_ref *old = NULL;
        if (strcmp(o->cfg.issuer, c.issuer) == 0) { /* not reconfigured meanwhile */
            old = o->keys;
            o->keys = r;
            o->expires = mono_s() + lifetime;
            atomic_fetch_add(&o->generation, 1);
            r = NULL;
        }
        pthread_mutex_unlock(&o->mu);
        keys_unref(o, old);
        keys_unref(o, r);
        log_msg(LOG_INFO, "oidc", "fetched the provider's keys; cached for %d s", lifetime);
    }
    pthread_mutex_unlock(&o->fetch_mu);
    return rc;
}

/* A reference to the current set (NULL when none), the generation, and a
 * copy of the configuration. */
static keyset_ref *keys_get(mcp_oidc *o, unsigned long *gen, int *expired, oidc_config *c)
{
    pthread_mutex_lock(&o->mu);
    keyset_ref *r = o->keys;
    if (r)
        r->refs++;
    *gen = atomic_load(&o->generation);
    *expired = !r || mono_s() >= o->expires;
    if (c)
        *c = o->cfg;
    pthread_mutex_unlock(&o->mu);
    return r;
}

int mcp_oidc_refresh(mcp_oidc *o, size_t *keys, dbmcp_error *err)
{
    if (!mcp_oidc_enabled(o))
        return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.issuer is not set");
    unsigned long gen;
    int expired;
    keyset_ref *r = keys_get(o, &gen, &expired, NULL);
    keys_unref(o, r);
    pthread_mutex_lock(&o->mu);
    o->expires = 0; /* fetch now */
    pthread_mutex_unlock(&o->mu);
    int rc = refresh(o, gen, 0, err);
    if (rc)
        return rc;
    r = keys_get(o, &gen, &expired, NULL);
    if (keys)
        *keys = r ? jose_keyset_count(r->ks) : 0;
    keys_unref(o, r);
    return 0;
}

/* --- tokens to identities ------------------------------------------------ */

/* Verify t with the cached keys, fetching when the cache expired and
 * refetching once for an unknown kid. */
static int verify(mcp_oidc *o, const jose_token *t, oidc_config *c, dbmcp_error *err)
{
    unsigned long gen;
    int expired;
    keyset_ref *r = keys_get(o, &gen, &expired, c);
    if (expired) {
        keys_unref(o, r);
        dbmcp_error fe;
        if (refresh(o, gen, 0, &fe) != 0 && !r)
            return dbmcp_error_set(err, DBMCP_EDENIED, "provider keys unavailable: %s", fe.message);
        r = keys_get(o, &gen, &expired, c);
    }
    if (!r)
        return dbmcp_error_set(err, DBMCP_EDENIED, "provider keys unavailable");
    int rc = jose_token_verify(t, r->ks, c->algorithms, err);
    keys_unref(o, r);
    if (rc != DBMCP_ENOTFOUND)
        return rc;
    dbmcp_error fe;
    if (refresh(o, gen, 1, &fe) != 0)
        return dbmcp_error_set(err, DBMCP_EDENIED, "unknown key id %.128s; refetch failed: %s",
                               t->kid, fe.message);
    r = keys_get(o, &gen, &expired, c);
    rc = r ? jose_token_verify(t, r->ks, c->algorithms, err) : DBMCP_ENOTFOUND;
    keys_unref(o, r);
    if (rc == DBMCP_ENOTFOUND)
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "unknown key id %.128s (after a refetch, or one within "
                               "oidc.refetch_min_s)",
                               t->kid);
    return rc;
}

/* Nonzero when the token's scope (space-separated string) or scp (string
 * or array) holds want. */
static int has_scope(const json_t *claims, const char *want)
{
    size_t n = strlen(want);
    const char *names[] = {"scope", "scp"};
    for (int k = 0; k < 2; k++) {
        json_t *v = json_object_get(claims, names[k]);
        if (json_is_array(v)) {
            size_t i;
            json_t *it;
            json_array_foreach (v, i, it)
                if (json_is_string(it) && strcmp(json_string_value(it), want) == 0)
                    return 1;
            continue;
        }
        const char *s = json_string_value(v);
        for (const char *p = s; p && *p;) {
            while (*p == ' ')
                p++;
            const char *e = p;
            while (*e && *e != ' ')
                e++;
            if ((size_t)(e - p) == n && strncmp(p, want, n) == 0)
                return 1;
            p = e;
        }
    }
    return 0;
}

typedef struct scope_pick {
    const json_t *claims;
    char interface_name[65];
    char agent[129];
    int found;
} scope_pick;

static void pick_scope(void *ctx, const char *scope, const char *iface, const char *agent)
{
    scope_pick *p = ctx;
    if (p->found || !has_scope(p->claims, scope))
        return;
    p->found = 1;
    snprintf(p->interface_name, sizeof p->interface_name, "%s", iface);
    snprintf(p->agent, sizeof p->agent, "%s", agent);
}

/* A string claim, NULL when absent, not a string or too long. */
static const char *claim_str(const json_t *claims, const char *name, size_t max)
{
    const char *v = name && *name ? json_get_str(claims, name) : NULL;
    return v && *v && strlen(v) < max ? v : NULL;
}

/* The id that stands in for an API key id for a token's caller: "sso-"
 * and 28 hex digits of BLAKE2b(issuer, NUL, subject). It binds a legacy
 * session to its caller (another caller gets 404 for it, as another key
 * would) and counts the per-caller limits; never an API key's id, which
 * has 12 characters. */
static void caller_id(const char *issuer, const char *subject, char out[33])
{
    unsigned char h[14];
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, sizeof h);
    crypto_generichash_update(&st, (const unsigned char *)issuer, strlen(issuer) + 1);
    crypto_generichash_update(&st, (const unsigned char *)subject, strlen(subject));
    crypto_generichash_final(&st, h, sizeof h);
    memcpy(out, "sso-", 4);
    sodium_bin2hex(out + 4, 29, h, sizeof h);
}

static int map_identity(mcp_oidc *o, const jose_token *t, const oidc_config *c, mcp_identity *out,
                        oidc_refusal *why, dbmcp_error *err)
{
    const char *user = claim_str(t->claims, c->user_claim, sizeof out->user_id);
    if (!user)
        return dbmcp_error_set(err, DBMCP_EDENIED, "token has no string claim %s (oidc.user_claim)",
                               c->user_claim);
    scope_pick pick = {.claims = t->claims};
    const char *iface = claim_str(t->claims, c->interface_claim, sizeof pick.interface_name);
    if (iface) {
        snprintf(pick.interface_name, sizeof pick.interface_name, "%s", iface);
        pick.found = 1;
    } else {
        mcp_oidc_scope_map_parse(c->scope_map, pick_scope, &pick, NULL);
    }
    if (!pick.found) {
        *why = OIDC_INSUFFICIENT_SCOPE;
        return dbmcp_error_set(err, DBMCP_EDENIED,
                               "token carries no scope of oidc.scope_map (%.300s)", c->scopes);
    }
    dbmcp_error ierr;
    if (mcp_server_local_identity(o->srv, user, pick.interface_name, out, &ierr) != 0) {
        *why = OIDC_INSUFFICIENT_SCOPE;
        return dbmcp_error_set(err, DBMCP_EDENIED, "token maps to interface %s: %s",
                               pick.interface_name, ierr.message);
    }
    const char *agent = claim_str(t->claims, c->agent_claim, sizeof out->agent_id);
    snprintf(out->agent_id, sizeof out->agent_id, "%s", agent ? agent : pick.agent);
    const char *sub = claim_str(t->claims, "sub", sizeof out->subject);
    const char *jti = claim_str(t->claims, "jti", sizeof out->token_id);
    snprintf(out->subject, sizeof out->subject, "%s", sub ? sub : "");
    snprintf(out->issuer, sizeof out->issuer, "%s", c->issuer);
    snprintf(out->token_id, sizeof out->token_id, "%s", jti ? jti : "");
    caller_id(c->issuer, out->subject[0] ? out->subject : user, out->key_id);
    return 0;
}

int mcp_oidc_authenticate(mcp_oidc *o, const char *token, size_t len, const char *resource,
                          mcp_identity *out, oidc_refusal *why, dbmcp_error *err)
{
    *why = OIDC_INVALID_TOKEN;
    memset(out, 0, sizeof *out);
    jose_token t;
    int rc = jose_token_parse(token, len, &t, err);
    oidc_config *c = rc ? NULL : malloc(sizeof *c);
    if (!rc && !c)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (!rc)
        rc = verify(o, &t, c, err);
    if (!rc) {
        jose_expect x = {.issuer = c->issuer,
                         .audience = c->audience[0] ? c->audience : resource,
                         .now = (long long)time(NULL),
                         .skew_s = c->skew_s};
        rc = jose_claims_check(&t, &x, err);
    }
    if (!rc)
        rc = map_identity(o, &t, c, out, why, err);
    jose_token_free(&t);
    free(c);
    if (rc) {
        log_msg(LOG_INFO, "oidc", "token refused: %s", err->message);
        err->code = DBMCP_EDENIED;
        return DBMCP_EDENIED;
    }
    return 0;
}
