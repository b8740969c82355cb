CREATE TABLE a (id int PRIMARY KEY, x int);
CREATE TABLE b (a_id int, y int);
CREATE VIEW j AS SELECT a.id, b.y FROM a JOIN b ON a.id = b.a_id;
