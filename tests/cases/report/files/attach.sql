-- Attach is refused.
ATTACH DATABASE '/tmp/x.db' AS x
