CREATE TABLE broken (id int PRIMARY KEY, v notatype);
CREATE VIEW uses_broken AS SELECT id FROM broken;
