CREATE TABLE orders (id int PRIMARY KEY, amount numeric(12, 2))
WITH (
  'connectors' = '[{"name": "in", "transport": {"name": "datagen", "config": {"plan": [{"limit": 5}]}}}]'
);
CREATE VIEW big_orders
WITH ('connectors' = '[{"transport": {"name": "file_output", "config": {"path": "/tmp/out.csv"}}}]')
AS SELECT id FROM orders WHERE amount > 100;
