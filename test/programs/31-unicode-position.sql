CREATE TABLE t (id int PRIMARY KEY);
-- unicode: é ü 漢字
CREATE VIEW v AS SELECT id, "ünknown" FROM t;
