-- The Kubernetes resource (kind Pipeline, group svc.dev) that declares this pipeline, as
-- {api_version, kind, namespace, name}; NULL for a pipeline made over REST. The API refuses edits,
-- deletes and start/stop of a managed pipeline with a 409 naming the resource: its spec is the truth.
ALTER TABLE pipeline ADD COLUMN managed_by jsonb;
