-- 0010_attachments.sql — PostgreSQL 15: the same table as
-- schema/sqlite/0010_attachments.sql (see there), under the contract of
-- 0001_core.sql. PostgreSQL never reads it: a query role sees the schemas
-- it is granted (`dbmcp init --query-schemas`), which is what attaching is
-- on SQLite, and `dbmcp databases attach` on a PostgreSQL catalog says so.

CREATE TABLE dbmcp_attachments (
    name       text COLLATE "C" PRIMARY KEY,
    path       text COLLATE "C" NOT NULL,
    immutable  integer NOT NULL DEFAULT 0 CHECK (immutable IN (0, 1)),
    created_at text COLLATE "C" NOT NULL DEFAULT dbmcp_now()
);
