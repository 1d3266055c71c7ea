-- The PostgreSQL twin of script.sql for `dbmcp sql < script_pg.sql`:
-- several statements, a trigger function whose dollar-quoted body holds
-- semicolons, a function with a BEGIN ATOMIC body, quotes holding
-- semicolons and comments.
CREATE TABLE journal (id SERIAL PRIMARY KEY, note TEXT NOT NULL);
CREATE TABLE journal_log (note TEXT);
CREATE FUNCTION journal_logged() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO journal_log VALUES ('logged; ' || NEW.note);
  UPDATE journal_log SET note = CASE WHEN note LIKE '%;%' THEN note ELSE 'no' END;
  RETURN NULL;
END;
$body$;
CREATE TRIGGER journal_logged AFTER INSERT ON journal FOR EACH ROW EXECUTE FUNCTION journal_logged();
CREATE FUNCTION journal_logged_count() RETURNS bigint LANGUAGE sql
BEGIN ATOMIC
  SELECT count(*) FROM journal_log;
END;
INSERT INTO journal (note) VALUES ('first; with a semicolon'), ('it''s /* not a comment */');
SELECT journal_logged_count(); -- 2
