-- sqlite/demo.sql — the SQLite half of the demo seed: the demo's user tables
-- (regions, products, sales, tarif_agreements), created before the shared
-- seed/demo.sql fills them. Their types and comments are per engine, the
-- rows are not. The PostgreSQL half is seed/postgres/demo.sql.
--
-- Comments live INSIDE the CREATE statements: SQLite keeps that text in
-- sqlite_master, and list_tables / describe_table show it (the lines right
-- after "(" describe the table, a trailing "-- …" its column).
CREATE TABLE regions (
    -- The five sales regions used in sales.region.
    region TEXT PRIMARY KEY, -- short key as stored in sales: Nord, Süd, West, Ost, Mitte
    name   TEXT NOT NULL,    -- display name
    states TEXT NOT NULL     -- the Bundesländer the region covers, comma-separated
);

CREATE TABLE products (
    -- The product catalogue: 25 products in 5 categories.
    product    TEXT PRIMARY KEY, -- product name as stored in sales.product
    category   TEXT NOT NULL,    -- Elektronik | Haushalt | Büro | Garten | Werkzeug
    list_price REAL NOT NULL CHECK (list_price > 0) -- list price in EUR (2023); sales prices add yearly increases, segment discounts and a small jitter
);

CREATE TABLE sales (
    -- One row per order line, 2023-01-01 … 2025-12-31 (about 60,000 rows) of a fictional wholesaler.
    id               INTEGER PRIMARY KEY,
    sale_date        TEXT NOT NULL CHECK (sale_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'), -- ISO date 'YYYY-MM-DD'
    region           TEXT NOT NULL REFERENCES regions (region),   -- sales region (regions.region)
    product          TEXT NOT NULL REFERENCES products (product), -- product (products.product)
    category         TEXT NOT NULL,    -- product category, copied from products for grouping
    customer_segment TEXT NOT NULL,    -- Privatkunden | Gewerbekunden | Großkunden | Öffentliche Hand
    quantity         INTEGER NOT NULL CHECK (quantity > 0),   -- units sold
    unit_price       REAL NOT NULL CHECK (unit_price >= 0),   -- EUR per unit actually charged
    revenue          REAL NOT NULL CHECK (revenue >= 0)       -- quantity * unit_price in EUR, rounded to cents
);

-- Key figures of the twelve documents of seed/demo.sql section 3, one row
-- each, so they can be filtered and compared with SQL (the documents stay
-- the source).
CREATE TABLE tarif_agreements (
    -- Key figures of the twelve fictional collective agreements (Tarifverträge); the full text is the resource doc://tarif/<slug>.
    slug                TEXT PRIMARY KEY, -- document key: the resource is doc://tarif/<slug>
    title               TEXT NOT NULL,    -- title of the agreement
    region              TEXT NOT NULL,    -- Tarifgebiet: Bayern, Nordrhein, Hamburg, Berlin, Niedersachsen, Tarifgebiet West, Ostdeutschland or Bundesgebiet (nationwide)
    sector              TEXT NOT NULL,    -- Branche, e.g. Metall- und Elektroindustrie
    union_name          TEXT NOT NULL,    -- the union (Gewerkschaft) that signed
    employer            TEXT NOT NULL,    -- the employers' side (Arbeitgeberverband)
    valid_from          TEXT NOT NULL,    -- start of the term, ISO date
    valid_to            TEXT NOT NULL,    -- end of the term, ISO date
    weekly_hours        REAL NOT NULL,    -- regular weekly working hours (Wochenarbeitszeit); where West and Ost differ, the West figure
    vacation_days       INTEGER NOT NULL, -- annual leave in working days (five-day week) before seniority increments
    lowest_monthly_eur  REAL NOT NULL,    -- lowest monthly amount of the pay table (Entgelttabelle), EUR
    highest_monthly_eur REAL NOT NULL     -- highest monthly amount of the pay table, EUR
);
