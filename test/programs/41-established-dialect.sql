-- The established dialect's surface, translated at compile time.
CREATE TABLE events (
  id BIGINT NOT NULL PRIMARY KEY,
  payload VARIANT,
  tags MAP<VARCHAR, MAP<VARCHAR, INT>>,
  scores DOUBLE ARRAY,
  flags TINYINT,
  raw VARBINARY(16),
  label STRING,
  ts TIMESTAMP(3) NOT NULL LATENESS INTERVAL '1' HOUR,
  seen TIMESTAMP WITH LOCAL TIME ZONE,
  "MixedCase" INT
) WITH ('materialized' = 'true', 'append_only' = 'true');
LATENESS events.ts INTERVAL '1' HOUR;
CREATE LOCAL VIEW recent AS SELECT id, CAST(payload AS VARIANT) AS p, flags::DOUBLE AS f FROM events;
CREATE MATERIALIZED VIEW counts WITH ('emit_final' = 'n') AS SELECT count(*) AS n FROM recent;
