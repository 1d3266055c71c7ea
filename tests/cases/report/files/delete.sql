-- Writes.
DELETE FROM sales WHERE sale_date LIKE :year || '%'
