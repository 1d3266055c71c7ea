-- Two statements.
SELECT :year AS y; SELECT 2
