-- A table that does not exist.
SELECT * FROM no_such_table WHERE y = :year
