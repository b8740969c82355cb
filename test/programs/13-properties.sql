CREATE TABLE src (id int PRIMARY KEY, v text) WITH ('materialized' = 'true', 'append_only' = 'false');
CREATE VIEW out WITH ('emit_final' = 'id') AS SELECT id FROM src;
