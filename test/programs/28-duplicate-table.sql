CREATE TABLE t (id int);
CREATE TABLE t (id int);
