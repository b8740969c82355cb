CREATE TABLE texts (a text, b varchar, c varchar(20), d char(3), e character, f "char", g name, h bytea, i bit(4), j bit varying(8));
