CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $body$ SELECT x * 2; $body$;
CREATE TABLE t (id int PRIMARY KEY, note text DEFAULT 'a;b');
CREATE VIEW v AS SELECT id, twice(id) AS t2 FROM t;
