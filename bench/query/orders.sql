-- The benchmark's data set: 1,000,000 orders, deterministic (no random()).
-- Schema version 1; bench/query.sh caches the result as
-- build/bench/query-orders-v1.db. Bump the version there when this changes.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA page_size = 4096;

CREATE TABLE orders (
  id          INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  region      TEXT    NOT NULL,
  product     TEXT    NOT NULL,
  quantity    INTEGER NOT NULL,
  price       REAL    NOT NULL,
  ordered_at  TEXT    NOT NULL
);

CREATE TEMP TABLE regions (k INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO regions VALUES (0, 'north'), (1, 'south'), (2, 'east'), (3, 'west'), (4, 'central');

CREATE TEMP TABLE products (k INTEGER PRIMARY KEY, name TEXT NOT NULL, base REAL NOT NULL);
INSERT INTO products VALUES
  (0, 'laptop', 899.0), (1, 'monitor', 249.0), (2, 'keyboard', 49.0), (3, 'mouse', 19.0),
  (4, 'headset', 79.0), (5, 'webcam', 59.0), (6, 'dock', 189.0), (7, 'tablet', 399.0),
  (8, 'phone', 699.0), (9, 'charger', 29.0), (10, 'cable', 9.0), (11, 'router', 129.0),
  (12, 'printer', 219.0), (13, 'toner', 69.0), (14, 'desk', 349.0), (15, 'chair', 279.0),
  (16, 'lamp', 39.0), (17, 'speaker', 99.0), (18, 'ssd', 119.0), (19, 'backpack', 59.0);

-- x is a multiplicative hash of i (Knuth's constant, modulo the largest 32-bit
-- prime): spreads every column without random().
BEGIN;
WITH RECURSIVE
  n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000),
  h(i, x) AS (SELECT i, (i * 2654435761) % 4294967291 FROM n)
INSERT INTO orders (id, customer_id, region, product, quantity, price, ordered_at)
SELECT h.i,
       1 + x % 50000,
       r.name,
       p.name,
       1 + (x / 7) % 12,
       round(p.base * (0.85 + ((x / 13) % 31) / 100.0), 2),
       strftime('%Y-%m-%dT%H:%M:%SZ', 1704067200 + (x / 3) % 63072000, 'unixepoch')
FROM h
JOIN regions r ON r.k = (x / 50000) % 5
JOIN products p ON p.k = (x / 250000) % 20;
COMMIT;

DROP TABLE regions;
DROP TABLE products;
VACUUM;
