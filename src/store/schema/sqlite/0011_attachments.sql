-- 0010: user databases attached read-only (issue #17, "Keep dbmcp out of the
-- user's file"). dbmcp's catalog, audit and memory live in dbmcp's own
-- database; an operator's SQLite files are recorded here with
-- `dbmcp databases attach NAME PATH` and every query connection (agent SQL,
-- report tools, sql templates, schema discovery) ATTACHes each one as
-- `file:PATH?mode=ro` (with immutable=1 when the operator says the file
-- never changes) under NAME, so its tables read as NAME.table. The
-- catalog connection never attaches them: nothing dbmcp writes can reach
-- them. src/store/attachments.h holds the statements; src/store/sqlite.c
-- attaches. On PostgreSQL the rows are never read: the user's data are the
-- schemas the query role is granted (docs/postgres.md); the table exists
-- so both catalogs keep one shape.

CREATE TABLE dbmcp_attachments (
    name       TEXT PRIMARY KEY,   -- the schema name agent SQL uses (NAME.table)
    path       TEXT NOT NULL,      -- absolute path of the SQLite file
    immutable  INTEGER NOT NULL DEFAULT 0 CHECK (immutable IN (0, 1)),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
