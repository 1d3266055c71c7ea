-- A misspelt parameter.
SELECT count(*) AS n FROM sales WHERE sale_date LIKE :year || '%' AND region = :regoin
