-- 0015_oidc: the PostgreSQL form of src/store/schema/sqlite/0015_oidc.sql,
-- which says why: the audit records an OIDC caller's subject, issuer and
-- token id (never the token).
ALTER TABLE dbmcp_audit ADD COLUMN auth_subject text COLLATE "C";
ALTER TABLE dbmcp_audit ADD COLUMN auth_issuer text COLLATE "C";
ALTER TABLE dbmcp_audit ADD COLUMN auth_token_id text COLLATE "C";
