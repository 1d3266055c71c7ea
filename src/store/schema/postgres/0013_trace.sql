-- 0013: the W3C trace id of each audited request; the PostgreSQL form of
-- src/store/schema/sqlite/0013_trace.sql, which says why.

ALTER TABLE dbmcp_audit ADD COLUMN trace_id text COLLATE "C";

CREATE INDEX dbmcp_audit_trace ON dbmcp_audit (trace_id) WHERE trace_id IS NOT NULL;
