-- Tables whose CREATE text carries comments in every supported style, a
-- virtual table (its shadow tables must not be listed) and a commented view.
CREATE TABLE styles -- styles: comment between the name and the parenthesis
(   a INT, -- trailing comment of a
    -- standalone line describing b
    b TEXT /* block comment of b */,
    "odd""name" TEXT, -- comment of a quoted name
    c TEXT CHECK (c <> '-- not a comment'), -- comment of c
    CONSTRAINT styles_a UNIQUE (a) -- a constraint's comment is dropped
);
CREATE TABLE two_lines ( -- ==========
    -- First line of the table comment,
    -- second line.
    x INT -- last column, no comma
);
CREATE VIRTUAL TABLE notes_fts USING fts5(body);
CREATE VIEW one AS /* a view's comment */ SELECT 1 AS one;
