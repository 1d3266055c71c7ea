-- Broken SQL.
SELEC region FROM sales WHERE :year
