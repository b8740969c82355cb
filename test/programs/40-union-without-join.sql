CREATE TABLE e (name text);
CREATE TABLE f (name text);
CREATE VIEW allnames AS SELECT name FROM e UNION ALL SELECT name FROM f;
