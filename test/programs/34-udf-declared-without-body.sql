CREATE FUNCTION score(x int, label text) RETURNS numeric;
CREATE TABLE t (id int PRIMARY KEY, label text);
CREATE VIEW v AS SELECT id, score(id, label) AS s FROM t;
