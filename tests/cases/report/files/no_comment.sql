SELECT region, count(*) AS n FROM sales WHERE sale_date LIKE :year || '%' GROUP BY region
