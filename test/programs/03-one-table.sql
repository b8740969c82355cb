CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL);
