CREATE TABLE t (id int PRIMARY KEY, s text);
CREATE VIEW v AS SELECT id + s AS bad FROM t;
