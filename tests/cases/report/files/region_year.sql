-- Revenue of one calendar year per sales region, optionally for one region.
SELECT s.region,
       round(sum(s.revenue), 2) AS revenue_eur
FROM sales s
WHERE s.sale_date BETWEEN :year || '-01-01' AND :year || '-12-31'
  AND (:region IS NULL OR s.region = :region)
GROUP BY s.region
ORDER BY revenue_eur DESC;
