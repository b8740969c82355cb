CREATE TABLE t (id int) WITH ('connectors' = '[not json');
