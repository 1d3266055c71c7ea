/*
 * oidc.h — single sign-on: dbmcp as an OAuth 2.1 resource server that
 * accepts JWT access tokens from one configured OpenID Connect provider,
 * beside API keys (docs/security.md, "Single sign-on").
 *
 * Configuration is the oidc.* rows of dbmcp_settings (docs/configuration.md),
 * read by mcp_oidc_configure at `serve --http` start and again on SIGHUP;
 * OIDC is on when oidc.issuer is set. The provider's discovery document
 * (ISSUER/.well-known/openid-configuration) and its JWK Set are fetched
 * over HTTPS only (libcurl, certificate verification always on; the CA
 * file of oidc.ca_file or DBMCP_OIDC_CA_FILE when set) and cached for their
 * Cache-Control max-age (oidc.cache_s when absent, clamped to 30 s..24 h).
 * A token whose kid the cached set lacks makes one refetch (at most one per
 * oidc.refetch_min_s), then is refused: rotation works without a restart,
 * and an attacker cannot make every request fetch.
 *
 * A verified token (core/jose.h: signature, iss, aud = oidc.audience or
 * the resource URL the transport passes, exp, nbf, oidc.clock_skew_s)
 * becomes an mcp_identity by the mapping in the settings: oidc.user_claim
 * names the user, oidc.interface_claim or the first entry of
 * oidc.scope_map whose scope the token carries names the interface (and
 * so the tools the caller sees), oidc.agent_claim or the entry's agent the
 * agent scope. The token itself is never logged or stored; the identity
 * keeps its subject, issuer and jti for the audit.
 *
 * Thread safety: every function may be called from any thread; one mutex
 * guards the configuration and the cache, and no lock is held during a
 * fetch.
 */
#ifndef DBMCP_MCP_OIDC_H
#define DBMCP_MCP_OIDC_H

#include <stddef.h>

#include "core/error.h"
#include "mcp/server.h"

#define OIDC_SCOPE_MAP_MAX 2048 /* bytes of the oidc.scope_map setting */
#define OIDC_SCOPE_MAP_ENTRIES 32
#define OIDC_DOC_MAX (64 * 1024) /* bytes of a discovery document */

typedef struct mcp_oidc mcp_oidc;

/* Why mcp_oidc_authenticate refused. */
typedef enum oidc_refusal {
    OIDC_INVALID_TOKEN = 1, /* 401, error="invalid_token" */
    OIDC_INSUFFICIENT_SCOPE /* 403, error="insufficient_scope" */
} oidc_refusal;

/* A new, unconfigured provider over srv's settings (NULL: out of memory). */
mcp_oidc *mcp_oidc_create(mcp_server *srv);
void mcp_oidc_free(mcp_oidc *o);
/* Read the oidc.* settings (call mcp_server_reload_settings first on
 * SIGHUP). A changed issuer or CA file drops the cache; a malformed
 * setting is DBMCP_EINVAL and leaves the previous configuration in force. */
int mcp_oidc_configure(mcp_oidc *o, dbmcp_error *err);
/* Nonzero when oidc.issuer is set. */
int mcp_oidc_enabled(mcp_oidc *o);
/* Fetch the discovery document and the JWK Set now (`dbmcp oidc check`,
 * and at start so that a misconfiguration shows at once); *keys gets the
 * number of usable keys. */
int mcp_oidc_refresh(mcp_oidc *o, size_t *keys, dbmcp_error *err);

/* Verify a bearer token of len bytes and map it to *out. resource: this
 * server's resource URL, the audience when oidc.audience is unset. On
 * refusal returns DBMCP_EDENIED with *why set and err's operator message
 * naming the reason (never the token). */
int mcp_oidc_authenticate(mcp_oidc *o, const char *token, size_t len, const char *resource,
                          mcp_identity *out, oidc_refusal *why, dbmcp_error *err);

/* The issuer (for RFC 9728 authorization_servers) and the scopes of the
 * mapping, space-separated (for scopes_supported and the challenge's
 * scope); "" when OIDC is off. */
void mcp_oidc_issuer(mcp_oidc *o, char *out, size_t size);
void mcp_oidc_scopes(mcp_oidc *o, char *out, size_t size);

/* Parse an oidc.scope_map value: entries "SCOPE=INTERFACE" or
 * "SCOPE=INTERFACE/AGENT" separated by spaces or commas. Calls fn for each
 * entry in order (when fn is not NULL). DBMCP_EINVAL naming the entry, or
 * DBMCP_ETOOBIG past OIDC_SCOPE_MAP_MAX bytes / OIDC_SCOPE_MAP_ENTRIES. */
typedef void (*oidc_scope_entry_fn)(void *ctx, const char *scope, const char *interface_name,
                                    const char *agent);
int mcp_oidc_scope_map_parse(const char *text, oidc_scope_entry_fn fn, void *ctx, dbmcp_error *err);

#endif
