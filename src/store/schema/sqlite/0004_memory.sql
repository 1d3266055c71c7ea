-- 0004_memory.sql — agent memory (docs/memory.md): working memory (sessions,
-- messages), episodic memory (episodes), semantic memory (versioned
-- knowledge), links between them, and the machinery of recall: one row per
-- distinct searchable text (items, de-duplicated per scope by a normalised
-- content hash), its FTS5 index, its vectors, the durable embedding job
-- queue, use counters and the memory access log.
--
-- Every row carries user_id and agent_id: the scope it belongs to. Every
-- statement of src/store/memory*.c filters by both. The FTS5 index is
-- external-content over dbmcp_mem_items and maintained by that code in the
-- same transaction as the item (no triggers). Times are UTC ISO-8601 text
-- with milliseconds ('2026-12-02T13:41:12.345Z'), so they compare as text.

-- One distinct searchable text of one tier in one scope.
CREATE TABLE dbmcp_mem_items (
    id           INTEGER PRIMARY KEY,
    user_id      TEXT NOT NULL,
    agent_id     TEXT NOT NULL,
    tier         TEXT NOT NULL CHECK (tier IN ('message', 'episode', 'knowledge')),
    content_hash TEXT NOT NULL,  -- hex BLAKE2b-128 of the folded text (dedup key)
    text         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,  -- last time it was written again (recency)
    seen_count   INTEGER NOT NULL DEFAULT 1, -- writes of this text (dedup hits + 1)
    use_count    INTEGER NOT NULL DEFAULT 0, -- times returned by a recall (frequency)
    last_used_at TEXT,
    UNIQUE (user_id, agent_id, tier, content_hash)
);
CREATE INDEX dbmcp_mem_items_scope ON dbmcp_mem_items (user_id, agent_id, tier);

CREATE VIRTUAL TABLE dbmcp_mem_fts USING fts5 (
    text,
    content = 'dbmcp_mem_items',
    content_rowid = 'id',
    tokenize = 'dbmcp'
);

-- Embeddings of items, one per model.
CREATE TABLE dbmcp_mem_vectors (
    item_id    INTEGER NOT NULL REFERENCES dbmcp_mem_items (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    model      TEXT NOT NULL,
    dim        INTEGER NOT NULL CHECK (dim > 0),
    vec        BLOB NOT NULL,    -- dim float32, little-endian, L2-normalised
    created_at TEXT NOT NULL,
    PRIMARY KEY (item_id, model)
);
CREATE INDEX dbmcp_mem_vectors_scope ON dbmcp_mem_vectors (user_id, agent_id, model);

-- Durable embedding queue: a row per item still to embed. The worker takes
-- rows whose next_attempt_at has passed, deletes them with the vector it
-- stores, or bumps attempts/next_attempt_at/last_error (backoff).
CREATE TABLE dbmcp_mem_jobs (
    item_id         INTEGER PRIMARY KEY REFERENCES dbmcp_mem_items (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    agent_id        TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT,
    created_at      TEXT NOT NULL
);
CREATE INDEX dbmcp_mem_jobs_due ON dbmcp_mem_jobs (next_attempt_at);

-- Working memory.
CREATE TABLE dbmcp_mem_sessions (
    id             TEXT PRIMARY KEY,  -- UUID
    user_id        TEXT NOT NULL,
    agent_id       TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_active_at TEXT NOT NULL,
    context_hash   TEXT,              -- hash over the message items, in order
    message_count  INTEGER NOT NULL DEFAULT 0,
    state          TEXT NOT NULL DEFAULT 'active'
                   CHECK (state IN ('active', 'compacted')),
    episode_id     INTEGER            -- the episode compaction made of it
);
CREATE INDEX dbmcp_mem_sessions_scope ON dbmcp_mem_sessions (user_id, agent_id, last_active_at);

CREATE TABLE dbmcp_mem_messages (
    id           INTEGER PRIMARY KEY,
    user_id      TEXT NOT NULL,
    agent_id     TEXT NOT NULL,
    session_id   TEXT NOT NULL REFERENCES dbmcp_mem_sessions (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,   -- 1, 2, … within the session
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    item_id      INTEGER REFERENCES dbmcp_mem_items (id), -- NULL for empty content
    tool_call_id TEXT,
    tool_name    TEXT,
    -- assistant: the tool calls it made, the OpenAI array
    -- [{"id","type":"function","function":{"name","arguments"}}]; else NULL
    tool_calls   TEXT CHECK (tool_calls IS NULL OR
                             (json_valid(tool_calls) AND json_type(tool_calls) = 'array')),
    metadata     TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
    created_at   TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
-- (item_id, scope) and no scope-only index: a scope index would tempt the
-- planner into scanning a whole scope for the occurrences of one item.
CREATE INDEX dbmcp_mem_messages_item ON dbmcp_mem_messages (item_id, user_id, agent_id);

-- Episodic memory.
CREATE TABLE dbmcp_mem_episodes (
    id           INTEGER PRIMARY KEY,
    user_id      TEXT NOT NULL,
    agent_id     TEXT NOT NULL,
    session_id   TEXT,               -- the session it came from, if any
    task_type    TEXT,
    description  TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('success', 'failed', 'partial')),
    summary      TEXT,
    item_id      INTEGER NOT NULL REFERENCES dbmcp_mem_items (id),
    started_at   TEXT NOT NULL,
    ended_at     TEXT NOT NULL,
    metadata     TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
    created_at   TEXT NOT NULL,
    compacted_at TEXT                -- raw messages dropped by retention
);
CREATE INDEX dbmcp_mem_episodes_scope ON dbmcp_mem_episodes (user_id, agent_id, ended_at);
CREATE INDEX dbmcp_mem_episodes_item ON dbmcp_mem_episodes (item_id, user_id, agent_id);

-- Semantic memory: one row per version; the current one has effective_to NULL.
CREATE TABLE dbmcp_mem_knowledge (
    id             INTEGER PRIMARY KEY,
    user_id        TEXT NOT NULL,
    agent_id       TEXT NOT NULL,
    category       TEXT NOT NULL,
    key            TEXT NOT NULL,
    value          TEXT NOT NULL,
    item_id        INTEGER NOT NULL REFERENCES dbmcp_mem_items (id),
    effective_from TEXT NOT NULL,
    effective_to   TEXT,             -- NULL = current
    source_episode INTEGER,
    metadata       TEXT CHECK (metadata IS NULL OR json_valid(metadata)),
    closed_by      TEXT CHECK (closed_by IS NULL OR closed_by IN ('update', 'forget'))
);
CREATE UNIQUE INDEX dbmcp_mem_knowledge_current
    ON dbmcp_mem_knowledge (user_id, agent_id, category, key) WHERE effective_to IS NULL;
CREATE INDEX dbmcp_mem_knowledge_key
    ON dbmcp_mem_knowledge (user_id, agent_id, key, effective_from);
CREATE INDEX dbmcp_mem_knowledge_item ON dbmcp_mem_knowledge (item_id, user_id, agent_id);

-- Typed edges between sessions, messages, episodes and knowledge of one scope.
CREATE TABLE dbmcp_mem_links (
    id         INTEGER PRIMARY KEY,
    user_id    TEXT NOT NULL,
    agent_id   TEXT NOT NULL,
    src_kind   TEXT NOT NULL CHECK (src_kind IN ('session', 'message', 'episode', 'knowledge')),
    src_id     TEXT NOT NULL,
    dst_kind   TEXT NOT NULL CHECK (dst_kind IN ('session', 'message', 'episode', 'knowledge')),
    dst_id     TEXT NOT NULL,
    relation   TEXT NOT NULL CHECK (length(relation) BETWEEN 1 AND 64),
    created_at TEXT NOT NULL,
    UNIQUE (user_id, agent_id, src_kind, src_id, dst_kind, dst_id, relation)
);
CREATE INDEX dbmcp_mem_links_dst ON dbmcp_mem_links (user_id, agent_id, dst_kind, dst_id);

-- Every memory read and write.
CREATE TABLE dbmcp_memory_log (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    operation   TEXT NOT NULL,   -- save_message, memory_search, compact, embed, …
    target      TEXT,            -- session id, key, query text (truncated), …
    results     INTEGER NOT NULL DEFAULT 0,
    duration_ms REAL NOT NULL DEFAULT 0
);
CREATE INDEX dbmcp_memory_log_scope ON dbmcp_memory_log (user_id, agent_id, ts);

-- Version counter of the memory vectors (search/engine.h rebuilds its cached
-- index when it changes); bumped by src/store/memory*.c.
INSERT INTO dbmcp_data_versions (name, version) VALUES ('memory', abs(random() % 281474976710656));
