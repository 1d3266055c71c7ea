-- 0014: the fleet; the PostgreSQL form of
-- src/store/schema/sqlite/0014_replicas.sql, which says why.

CREATE TABLE dbmcp_replicas (
    replica_id text COLLATE "C" PRIMARY KEY,
    url        text,
    started_at text NOT NULL,
    beat_at    text NOT NULL,
    status     text NOT NULL
);
