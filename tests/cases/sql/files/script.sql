-- A script for `dbmcp sql < script.sql`: several statements, a trigger
-- whose body holds semicolons, quotes holding semicolons and comments.
CREATE TABLE journal (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
CREATE TABLE journal_log (note TEXT);
CREATE TRIGGER journal_logged AFTER INSERT ON journal BEGIN
  INSERT INTO journal_log VALUES ('logged; ' || NEW.note);
  UPDATE journal_log SET note = CASE WHEN note LIKE '%;%' THEN note ELSE 'no' END;
END;
INSERT INTO journal (note) VALUES ('first; with a semicolon'), ('it''s /* not a comment */');
SELECT count(*) FROM journal_log; -- 2
