-- 0009: the BM25 statistics of each memory scope, kept as items are written
-- (issue "Fast at scale"); the PostgreSQL form of
-- src/store/schema/sqlite/0012_memory_scope_stats.sql, which says why. One
-- row per user and agent, kept in step with dbmcp_mem_items by a row
-- trigger in the same transaction as the change. Plain PostgreSQL 15,
-- tables in the current search_path.

CREATE TABLE dbmcp_mem_scope_stats (
    user_id  text COLLATE "C" NOT NULL,
    agent_id text COLLATE "C" NOT NULL,
    items    bigint NOT NULL DEFAULT 0, -- rows of dbmcp_mem_items in the scope
    length   bigint NOT NULL DEFAULT 0, -- sum of their fts_length
    PRIMARY KEY (user_id, agent_id)
);

INSERT INTO dbmcp_mem_scope_stats (user_id, agent_id, items, length)
SELECT user_id, agent_id, count(*), coalesce(sum(fts_length), 0)
  FROM dbmcp_mem_items GROUP BY user_id, agent_id;

CREATE FUNCTION dbmcp_mem_scope_stats_keep() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE dbmcp_mem_scope_stats SET items = items - 1, length = length - OLD.fts_length
         WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO dbmcp_mem_scope_stats (user_id, agent_id, items, length)
        VALUES (NEW.user_id, NEW.agent_id, 1, NEW.fts_length)
        ON CONFLICT (user_id, agent_id) DO UPDATE SET
            items = dbmcp_mem_scope_stats.items + 1,
            length = dbmcp_mem_scope_stats.length + excluded.length;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER dbmcp_mem_items_stats_ai AFTER INSERT ON dbmcp_mem_items
    FOR EACH ROW EXECUTE FUNCTION dbmcp_mem_scope_stats_keep();
CREATE TRIGGER dbmcp_mem_items_stats_ad AFTER DELETE ON dbmcp_mem_items
    FOR EACH ROW EXECUTE FUNCTION dbmcp_mem_scope_stats_keep();
CREATE TRIGGER dbmcp_mem_items_stats_au AFTER UPDATE OF user_id, agent_id, fts_length
    ON dbmcp_mem_items FOR EACH ROW EXECUTE FUNCTION dbmcp_mem_scope_stats_keep();
