CREATE TABLE t (id int NOT NULL PRIMARY KEY, price numeric(8, 2), tags text[]);
CREATE VIEW v AS SELECT id, price * 2 AS p2, tags[1] AS first_tag, ROW(id, price) AS pair, now() AS at FROM t;
