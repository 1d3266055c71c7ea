-- Reads dbmcp's audit log.
SELECT call_id FROM dbmcp_audit WHERE ts LIKE :year || '%'
