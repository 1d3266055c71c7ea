-- 0015_oidc: single sign-on (issue #15, docs/security.md "Single sign-on").
-- A call made with an OIDC access token is audited with the token's
-- subject (sub), issuer (iss) and token id (jti); the token itself is never
-- stored. NULL for calls made with an API key, over stdio or from the CLI.
ALTER TABLE dbmcp_audit ADD COLUMN auth_subject TEXT;
ALTER TABLE dbmcp_audit ADD COLUMN auth_issuer TEXT;
ALTER TABLE dbmcp_audit ADD COLUMN auth_token_id TEXT;
