-- 0003_thesaurus.sql — the thesaurus: schemes, concepts, labels, notes and
-- relations (SKOS-shaped; MyThes imports map onto the same tables).
-- See docs/thesaurus.md and src/thesaurus/thesaurus.h.
--
-- Relations are stored with their inverses materialised: an imported
-- broader edge A→B is stored together with narrower B→A (and vice versa),
-- a related edge in both directions. "Outgoing edges of X" is therefore a
-- complete answer and graph walks read one index per direction.
--
-- labels.norm is the label's match key: text_tokenize(label, TEXT_LANG_NONE)
-- tokens joined by single spaces (NFKC, case folded, CJK bigrams). Every
-- lookup, expansion and text match compares norm, never label.

CREATE TABLE dbmcp_thesaurus_schemes (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    uri         TEXT NOT NULL DEFAULT '',   -- skos:ConceptScheme URI, '' for MyThes
    title       TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',   -- file imported from
    format      TEXT NOT NULL CHECK (format IN ('skos-turtle', 'skos-rdfxml', 'mythes')),
    imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE dbmcp_thesaurus_concepts (
    id        INTEGER PRIMARY KEY,
    scheme_id INTEGER NOT NULL REFERENCES dbmcp_thesaurus_schemes (id) ON DELETE CASCADE,
    uri       TEXT NOT NULL UNIQUE CHECK (length(uri) BETWEEN 1 AND 2048)
);
CREATE INDEX dbmcp_thesaurus_concepts_scheme ON dbmcp_thesaurus_concepts (scheme_id);

CREATE TABLE dbmcp_thesaurus_labels (
    id         INTEGER PRIMARY KEY,
    concept_id INTEGER NOT NULL REFERENCES dbmcp_thesaurus_concepts (id) ON DELETE CASCADE,
    lang       TEXT NOT NULL DEFAULT '',    -- BCP 47 tag, lower case; '' when untagged
    kind       TEXT NOT NULL CHECK (kind IN ('pref', 'alt', 'hidden')),
    label      TEXT NOT NULL CHECK (length(label) BETWEEN 1 AND 1024),
    norm       TEXT NOT NULL,               -- match key, see above
    ntokens    INTEGER NOT NULL DEFAULT 1,  -- tokens in norm
    UNIQUE (concept_id, lang, kind, label)
);
-- Lookup by match key, and by key prefix ("arbeits zeit" under "arbeits ").
CREATE INDEX dbmcp_thesaurus_labels_norm ON dbmcp_thesaurus_labels (norm, concept_id);

CREATE TABLE dbmcp_thesaurus_notes (
    concept_id INTEGER NOT NULL REFERENCES dbmcp_thesaurus_concepts (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,               -- definition, scopeNote, note, example
    lang       TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL,
    PRIMARY KEY (concept_id, kind, lang, text)
) WITHOUT ROWID;

CREATE TABLE dbmcp_thesaurus_relations (
    from_id  INTEGER NOT NULL REFERENCES dbmcp_thesaurus_concepts (id) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('broader', 'narrower', 'related')),
    to_id    INTEGER NOT NULL REFERENCES dbmcp_thesaurus_concepts (id) ON DELETE CASCADE,
    asserted INTEGER NOT NULL DEFAULT 1 CHECK (asserted IN (0, 1)), -- 0: materialised inverse
    PRIMARY KEY (from_id, kind, to_id),
    CHECK (from_id <> to_id)
) WITHOUT ROWID;
-- Incoming edges (direction "in") use this one; outgoing ones the primary key.
CREATE INDEX dbmcp_thesaurus_relations_to ON dbmcp_thesaurus_relations (to_id, kind, from_id);
