CREATE DOMAIN positive AS int NOT NULL CHECK (VALUE > 0);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE t (id positive PRIMARY KEY, m mood, ms mood[]);
CREATE VIEW v AS SELECT m FROM t;
