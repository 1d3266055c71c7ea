-- The PostgreSQL twin of values.sql: a column has one type there, so one
-- column per kind and a row per value, inserted out of order. numeric is
-- typed per value (postgres.c): a whole number or one a double reproduces
-- prints as a number, one with more digits as its exact text.
CREATE TABLE vals (t text, i bigint, f double precision, n numeric, b bytea, o boolean);
INSERT INTO vals VALUES (NULL, NULL, NULL, NULL, decode('00ff', 'hex'), NULL),
  (NULL, NULL, NULL, NULL, NULL, NULL), ('it''s', NULL, NULL, NULL, NULL, NULL),
  (NULL, NULL, 1.0, NULL, NULL, NULL), (NULL, 1, NULL, NULL, NULL, NULL),
  ('a' || chr(10) || 'b\c' || chr(1), NULL, NULL, NULL, NULL, NULL),
  ('', NULL, NULL, NULL, NULL, NULL), (NULL, NULL, NULL, 12345678901234567890.5, NULL, NULL),
  (NULL, NULL, NULL, 2.50, NULL, true);
