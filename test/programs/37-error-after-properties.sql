CREATE TABLE t (x int) WITH ('a' = 'b');
CREATE VIEW v WITH ('c' = 'd') AS SELECT y FROM t;
