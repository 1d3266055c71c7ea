-- 0009: the BM25 statistics of each memory scope, kept as items are written
-- (issue "Fast at scale"). A keyword search of memory needs the number of
-- items of the caller's user and agent and their total fts_length
-- (src/search/bm25.h); counting them on every search read every item of the
-- scope (tens of milliseconds at 100,000 items). The triggers below keep one
-- row per scope in step with dbmcp_mem_items in the same transaction as the
-- change, whoever makes it (the memory code, compaction, plain SQL), so the
-- figures are exactly what counting would give. Existing scopes are counted
-- once here.

CREATE TABLE dbmcp_mem_scope_stats (
    user_id  TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    items    INTEGER NOT NULL DEFAULT 0, -- rows of dbmcp_mem_items in the scope
    length   INTEGER NOT NULL DEFAULT 0, -- sum of their fts_length
    PRIMARY KEY (user_id, agent_id)
);

INSERT INTO dbmcp_mem_scope_stats (user_id, agent_id, items, length)
SELECT user_id, agent_id, count(*), coalesce(sum(fts_length), 0)
  FROM dbmcp_mem_items GROUP BY user_id, agent_id;

CREATE TRIGGER dbmcp_mem_items_stats_ai AFTER INSERT ON dbmcp_mem_items
BEGIN
    INSERT INTO dbmcp_mem_scope_stats (user_id, agent_id, items, length)
    VALUES (NEW.user_id, NEW.agent_id, 1, NEW.fts_length)
    ON CONFLICT (user_id, agent_id) DO UPDATE SET items = items + 1,
        length = length + excluded.length;
END;

CREATE TRIGGER dbmcp_mem_items_stats_ad AFTER DELETE ON dbmcp_mem_items
BEGIN
    UPDATE dbmcp_mem_scope_stats SET items = items - 1, length = length - OLD.fts_length
     WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id;
END;

CREATE TRIGGER dbmcp_mem_items_stats_au AFTER UPDATE OF user_id, agent_id, fts_length
    ON dbmcp_mem_items
BEGIN
    UPDATE dbmcp_mem_scope_stats SET items = items - 1, length = length - OLD.fts_length
     WHERE user_id = OLD.user_id AND agent_id = OLD.agent_id;
    INSERT INTO dbmcp_mem_scope_stats (user_id, agent_id, items, length)
    VALUES (NEW.user_id, NEW.agent_id, 1, NEW.fts_length)
    ON CONFLICT (user_id, agent_id) DO UPDATE SET items = items + 1,
        length = length + excluded.length;
END;
