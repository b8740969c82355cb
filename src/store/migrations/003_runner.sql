-- The runner's columns: the address at which the pipeline process answers (what the API forwards
-- to) and the deployment config it was given (null until the backend has been asked to provision).
ALTER TABLE pipeline ADD COLUMN deployment_location text;
-- The build the runner deploys: the compiler records its artifact's checksums with Success.
ALTER TABLE pipeline ADD COLUMN program_binary_source_checksum text;
ALTER TABLE pipeline ADD COLUMN program_binary_integrity_checksum text;
