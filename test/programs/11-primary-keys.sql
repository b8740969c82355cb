CREATE TABLE single (id int PRIMARY KEY);
CREATE TABLE composite (b int, a int, c text, PRIMARY KEY (a, b));
CREATE TABLE none (x int);
