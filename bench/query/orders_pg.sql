-- The benchmark's data set for PostgreSQL: the same 1,000,000 orders as
-- orders.sql (same hash, same columns), for bench/query_pg.sh. Run with
-- psql-compatible `dbmcp sql` into an empty database.
CREATE TABLE orders (
  id          bigint PRIMARY KEY,
  customer_id bigint NOT NULL,
  region      text   NOT NULL,
  product     text   NOT NULL,
  quantity    bigint NOT NULL,
  price       double precision NOT NULL,
  ordered_at  text   NOT NULL
);

CREATE TEMP TABLE regions (k bigint PRIMARY KEY, name text NOT NULL);
INSERT INTO regions VALUES (0, 'north'), (1, 'south'), (2, 'east'), (3, 'west'), (4, 'central');

CREATE TEMP TABLE products (k bigint PRIMARY KEY, name text NOT NULL, base double precision NOT NULL);
INSERT INTO products VALUES
  (0, 'laptop', 899.0), (1, 'monitor', 249.0), (2, 'keyboard', 49.0), (3, 'mouse', 19.0),
  (4, 'headset', 79.0), (5, 'webcam', 59.0), (6, 'dock', 189.0), (7, 'tablet', 399.0),
  (8, 'phone', 699.0), (9, 'charger', 29.0), (10, 'cable', 9.0), (11, 'router', 129.0),
  (12, 'printer', 219.0), (13, 'toner', 69.0), (14, 'desk', 349.0), (15, 'chair', 279.0),
  (16, 'lamp', 39.0), (17, 'speaker', 99.0), (18, 'ssd', 119.0), (19, 'backpack', 59.0);

-- x is the multiplicative hash of orders.sql: the same rows on both engines.
INSERT INTO orders (id, customer_id, region, product, quantity, price, ordered_at)
SELECT h.i,
       1 + x % 50000,
       r.name,
       p.name,
       1 + (x / 7) % 12,
       round(CAST(p.base * (0.85 + ((x / 13) % 31) / 100.0) AS numeric), 2),
       to_char(to_timestamp(1704067200 + (x / 3) % 63072000) AT TIME ZONE 'UTC',
               'YYYY-MM-DD"T"HH24:MI:SS"Z"')
FROM (SELECT i, (i * 2654435761) % 4294967291 AS x FROM generate_series(1, 1000000) AS i) AS h
JOIN regions r ON r.k = (x / 50000) % 5
JOIN products p ON p.k = (x / 250000) % 20;

DROP TABLE regions;
DROP TABLE products;
ANALYZE orders;
