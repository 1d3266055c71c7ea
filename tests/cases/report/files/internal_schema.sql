-- Reads dbmcp's audit log through its schema (PostgreSQL), which the query
-- role has no right to enter.
SELECT call_id FROM dbmcp.dbmcp_audit WHERE ts LIKE :year || '%'
