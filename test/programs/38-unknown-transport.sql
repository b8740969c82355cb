CREATE TABLE t (id int)
WITH ('materialized' = 'true',
      'connectors' = '[{"transport": {"name": "kafka_inptu", "config": {}}}]');
CREATE VIEW v WITH ('connectors' = '[{"transport": {"name": "file_input", "config": {"path": "/x"}}}]') AS SELECT id FROM t;
