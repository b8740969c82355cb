CREATE TYPE address AS (street text, zip varchar(10));
CREATE TYPE person AS (name text, home address, phones text[]);
CREATE TABLE people (id bigint PRIMARY KEY, p person, history address[]);
