-- /v0/cluster_healthz answers, per component, since when its health has not changed
-- (`unchanged_since`): the start of an instance's current run of beats. A beat after a gap longer
-- than the freshness window (src/store/heartbeat.ts) starts a new run.
ALTER TABLE component_heartbeat ADD COLUMN since timestamptz NOT NULL DEFAULT clock_timestamp();
UPDATE component_heartbeat SET since = last_seen;
