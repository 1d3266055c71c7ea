-- 0014: the fleet; the PostgreSQL form of
-- src/store/schema/sqlite/0014_replicas.sql, which says why.

CREATE TABLE dbmcp_replicas (
    replica_id text COLLATE "C" PRIMARY KEY,
    url        text COLLATE "C",
    started_at text COLLATE "C" NOT NULL,
    beat_at    text COLLATE "C" NOT NULL,
    status     text COLLATE "C" NOT NULL
);
