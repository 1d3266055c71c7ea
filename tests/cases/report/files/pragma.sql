-- A pragma is no query.
PRAGMA table_info(sales)
