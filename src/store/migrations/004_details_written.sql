-- When the runner last wrote a running pipeline's status details (runtime or storage). Details that
-- change on their own (counters, the checkpoint list) are written at most once per interval measured
-- from here: deployment_runtime_status_since never moves on a details-only write, so measuring from
-- it made every look after the first interval a write.
ALTER TABLE pipeline ADD COLUMN deployment_details_written_at timestamptz;
