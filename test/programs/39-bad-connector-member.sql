CREATE TABLE t (id int) WITH (
  'connectors' = '[{"name": "k", "transport": {"name": "kafka_input", "config": {"bootstrap.servers": "localhost:9092", "topic": "a", "start_from": "oldest"}}, "format": {"name": "json", "config": {"update_fromat": "raw"}}},
                   {"transport": {"name": "postgres_input", "config": {"uri": "postgres://u:hunter2@db/x"}}}]'
);
