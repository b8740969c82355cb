-- MAP<K, V> runs as jsonb but is reported as the established dialect reports it: a MAP with its key
-- (never NULL) and value types, nested maps and arrays included, and in the views that pass it on.
CREATE TABLE prefs (
  id INT NOT NULL PRIMARY KEY,
  m MAP<STRING, DOUBLE> NOT NULL,
  nested MAP<VARCHAR(10), MAP<INT, BIGINT ARRAY>>,
  plain VARIANT
);
CREATE MATERIALIZED VIEW passed AS SELECT id, m, nested FROM prefs;
CREATE VIEW computed AS SELECT id, m -> 'a' AS a FROM prefs;
