CREATE TABLE t (id int PRIMARY KEY, used int, unused_col int);
CREATE VIEW v AS SELECT id, used FROM t;
