CREATE TABLE t (id int PRIMARY KEY, v int);
CREATE VIEW v AS SELECT id, missing FROM t;
