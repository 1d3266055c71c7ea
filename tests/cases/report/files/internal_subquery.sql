-- Reaches an internal table through a subquery in a CTE.
WITH k AS (SELECT (SELECT count(*) FROM dbmcp_api_keys) AS n)
SELECT n FROM k WHERE :year > 0
