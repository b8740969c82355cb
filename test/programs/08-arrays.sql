CREATE TABLE arrs (a int[], b text[][], c varchar(5)[] NOT NULL, d numeric(4,1)[]);
