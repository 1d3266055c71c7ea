-- postgres/demo.sql — the PostgreSQL half of the demo seed: the demo's user
-- tables (regions, products, sales, tarif_agreements), created before the
-- shared seed/demo.sql fills them. The SQLite half is seed/sqlite/demo.sql:
-- the same tables, columns, keys and checks, in PostgreSQL's types, and the
-- comments list_tables and describe_table show as COMMENT ON (SQLite keeps
-- them inside its CREATE text). Money is numeric, so round(x, 2) in the
-- generator and in the report tools works as on SQLite's REAL. Text is
-- COLLATE "C" to sort as SQLite does.
--
-- These are user data, not dbmcp's: they belong in the schema agent SQL
-- reads, not in dbmcp's own. The seed runs with search_path set to dbmcp's
-- schema; public goes in front of it for the rest of this transaction, so
-- the tables are created in public and the shared seed still finds the
-- dbmcp_* tables.
SELECT set_config('search_path', 'public, ' || current_setting('search_path'), true);

CREATE TABLE regions (
    region text COLLATE "C" PRIMARY KEY,
    name   text COLLATE "C" NOT NULL,
    states text COLLATE "C" NOT NULL
);
COMMENT ON TABLE regions IS 'The five sales regions used in sales.region.';
COMMENT ON COLUMN regions.region IS 'short key as stored in sales: Nord, Süd, West, Ost, Mitte';
COMMENT ON COLUMN regions.name IS 'display name';
COMMENT ON COLUMN regions.states IS 'the Bundesländer the region covers, comma-separated';

CREATE TABLE products (
    product    text COLLATE "C" PRIMARY KEY,
    category   text COLLATE "C" NOT NULL,
    list_price numeric(12, 2) NOT NULL CHECK (list_price > 0)
);
COMMENT ON TABLE products IS 'The product catalogue: 25 products in 5 categories.';
COMMENT ON COLUMN products.product IS 'product name as stored in sales.product';
COMMENT ON COLUMN products.category IS 'Elektronik | Haushalt | Büro | Garten | Werkzeug';
COMMENT ON COLUMN products.list_price IS 'list price in EUR (2023); sales prices add yearly increases, segment discounts and a small jitter';

CREATE TABLE sales (
    id               bigint PRIMARY KEY,
    sale_date        text COLLATE "C" NOT NULL CHECK (sale_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    region           text COLLATE "C" NOT NULL REFERENCES regions (region),
    product          text COLLATE "C" NOT NULL REFERENCES products (product),
    category         text COLLATE "C" NOT NULL,
    customer_segment text COLLATE "C" NOT NULL,
    quantity         bigint NOT NULL CHECK (quantity > 0),
    unit_price       numeric(12, 2) NOT NULL CHECK (unit_price >= 0),
    revenue          numeric(12, 2) NOT NULL CHECK (revenue >= 0)
);
COMMENT ON TABLE sales IS 'One row per order line, 2023-01-01 … 2025-12-31 (about 60,000 rows) of a fictional wholesaler.';
COMMENT ON COLUMN sales.sale_date IS 'ISO date ''YYYY-MM-DD''';
COMMENT ON COLUMN sales.region IS 'sales region (regions.region)';
COMMENT ON COLUMN sales.product IS 'product (products.product)';
COMMENT ON COLUMN sales.category IS 'product category, copied from products for grouping';
COMMENT ON COLUMN sales.customer_segment IS 'Privatkunden | Gewerbekunden | Großkunden | Öffentliche Hand';
COMMENT ON COLUMN sales.quantity IS 'units sold';
COMMENT ON COLUMN sales.unit_price IS 'EUR per unit actually charged';
COMMENT ON COLUMN sales.revenue IS 'quantity * unit_price in EUR, rounded to cents';

CREATE TABLE tarif_agreements (
    slug                text COLLATE "C" PRIMARY KEY,
    title               text COLLATE "C" NOT NULL,
    region              text COLLATE "C" NOT NULL,
    sector              text COLLATE "C" NOT NULL,
    union_name          text COLLATE "C" NOT NULL,
    employer            text COLLATE "C" NOT NULL,
    valid_from          text COLLATE "C" NOT NULL,
    valid_to            text COLLATE "C" NOT NULL,
    weekly_hours        numeric(4, 1) NOT NULL,
    vacation_days       bigint NOT NULL,
    lowest_monthly_eur  numeric(12, 2) NOT NULL,
    highest_monthly_eur numeric(12, 2) NOT NULL
);
COMMENT ON TABLE tarif_agreements IS 'Key figures of the twelve fictional collective agreements (Tarifverträge); the full text is the resource doc://tarif/<slug>.';
COMMENT ON COLUMN tarif_agreements.slug IS 'document key: the resource is doc://tarif/<slug>';
COMMENT ON COLUMN tarif_agreements.title IS 'title of the agreement';
COMMENT ON COLUMN tarif_agreements.region IS 'Tarifgebiet: Bayern, Nordrhein, Hamburg, Berlin, Niedersachsen, Tarifgebiet West, Ostdeutschland or Bundesgebiet (nationwide)';
COMMENT ON COLUMN tarif_agreements.sector IS 'Branche, e.g. Metall- und Elektroindustrie';
COMMENT ON COLUMN tarif_agreements.union_name IS 'the union (Gewerkschaft) that signed';
COMMENT ON COLUMN tarif_agreements.employer IS 'the employers'' side (Arbeitgeberverband)';
COMMENT ON COLUMN tarif_agreements.valid_from IS 'start of the term, ISO date';
COMMENT ON COLUMN tarif_agreements.valid_to IS 'end of the term, ISO date';
COMMENT ON COLUMN tarif_agreements.weekly_hours IS 'regular weekly working hours (Wochenarbeitszeit); where West and Ost differ, the West figure';
COMMENT ON COLUMN tarif_agreements.vacation_days IS 'annual leave in working days (five-day week) before seniority increments';
COMMENT ON COLUMN tarif_agreements.lowest_monthly_eur IS 'lowest monthly amount of the pay table (Entgelttabelle), EUR';
COMMENT ON COLUMN tarif_agreements.highest_monthly_eur IS 'highest monthly amount of the pay table, EUR';
