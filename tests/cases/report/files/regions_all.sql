SELECT region, name FROM regions ORDER BY region
