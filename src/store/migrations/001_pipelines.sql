-- The pipeline record of seed 2.1. Each writer owns its columns (ARCHITECTURE.md, data flow):
-- the API the desired state, program and configuration; the compiler program_*; the runner the
-- observed deployment_* and storage_*.
CREATE TABLE pipeline (
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  tags jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  platform_version text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  program_version bigint NOT NULL DEFAULT 1,
  refresh_version bigint NOT NULL DEFAULT 1,

  program_code text NOT NULL,
  udf_rust text NOT NULL DEFAULT '',
  udf_toml text NOT NULL DEFAULT '',
  program_config jsonb NOT NULL,
  runtime_config jsonb NOT NULL,
  program_status text NOT NULL DEFAULT 'Pending' CHECK (program_status IN
    ('Pending','CompilingSql','SqlCompiled','CompilingRust','Success','SqlError','RustError','SystemError')),
  program_status_since timestamptz NOT NULL DEFAULT clock_timestamp(),
  program_error jsonb NOT NULL DEFAULT '{}',
  program_info jsonb,

  deployment_id uuid,
  deployment_initial text CHECK (deployment_initial IN
    ('Unavailable','Coordination','Standby','Paused','Running','Suspended')),
  deployment_bootstrap_policy text CHECK (deployment_bootstrap_policy IN ('allow','reject','await_approval')),
  deployment_config jsonb,
  deployment_error jsonb,
  deployment_resources_desired_status text NOT NULL DEFAULT 'Stopped'
    CHECK (deployment_resources_desired_status IN ('Stopped','Provisioned')),
  deployment_resources_desired_status_since timestamptz NOT NULL DEFAULT clock_timestamp(),
  deployment_resources_status text NOT NULL DEFAULT 'Stopped'
    CHECK (deployment_resources_status IN ('Stopped','Provisioning','Provisioned','Stopping')),
  deployment_resources_status_since timestamptz NOT NULL DEFAULT clock_timestamp(),
  deployment_resources_status_details jsonb,
  deployment_runtime_status text CHECK (deployment_runtime_status IN
    ('Unavailable','Coordination','Standby','Initializing','AwaitingApproval','Bootstrapping','Replaying','Paused','Running','Suspended')),
  deployment_runtime_status_since timestamptz,
  deployment_runtime_status_details jsonb,
  deployment_runtime_desired_status text CHECK (deployment_runtime_desired_status IN
    ('Unavailable','Coordination','Standby','Paused','Running','Suspended')),
  deployment_runtime_desired_status_since timestamptz,

  storage_status text NOT NULL DEFAULT 'Cleared' CHECK (storage_status IN ('Cleared','InUse','Clearing')),
  storage_status_since timestamptz NOT NULL DEFAULT clock_timestamp(),
  storage_status_details jsonb
);

-- Wake-ups for the compiler and the runner (LISTEN/NOTIFY), raised by the database itself so that
-- no writer can forget one. The payload is the pipeline id.
CREATE FUNCTION svc_notify_pipeline() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT'
     OR NEW.program_version <> OLD.program_version
     OR NEW.program_status <> OLD.program_status THEN
    PERFORM pg_notify('svc_compiler', NEW.id::text);
  END IF;
  IF TG_OP = 'INSERT'
     OR NEW.deployment_resources_desired_status <> OLD.deployment_resources_desired_status
     OR NEW.deployment_runtime_desired_status IS DISTINCT FROM OLD.deployment_runtime_desired_status
     OR NEW.deployment_initial IS DISTINCT FROM OLD.deployment_initial
     OR NEW.storage_status <> OLD.storage_status
     OR NEW.program_status <> OLD.program_status THEN
    PERFORM pg_notify('svc_runner', NEW.id::text);
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER pipeline_notify AFTER INSERT OR UPDATE ON pipeline
  FOR EACH ROW EXECUTE FUNCTION svc_notify_pipeline();

CREATE FUNCTION svc_notify_pipeline_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_runner', OLD.id::text);
  PERFORM pg_notify('svc_compiler', OLD.id::text);
  RETURN OLD;
END;
$$;

CREATE TRIGGER pipeline_notify_deleted AFTER DELETE ON pipeline
  FOR EACH ROW EXECUTE FUNCTION svc_notify_pipeline_deleted();

-- Liveness of the components, for /v0/cluster_healthz: each running component refreshes its row.
CREATE TABLE component_heartbeat (
  component text NOT NULL,
  instance text NOT NULL,
  last_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
  message text NOT NULL DEFAULT '',
  PRIMARY KEY (component, instance)
);
