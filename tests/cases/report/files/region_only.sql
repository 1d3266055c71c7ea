-- Uses :region but not the required :year.
SELECT region, count(*) AS n FROM sales WHERE region = :region GROUP BY region
