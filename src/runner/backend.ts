import type { DeploymentConfig } from '../model/deployment.js';
import type { ErrorBody } from '../model/errors.js';
import type { RuntimeConfig } from '../model/runtime-config.js';
import type { StartInitial } from '../model/status.js';

// The seam between the runner's automaton and where pipelines run (LIFECYCLE.md "Backends"): the
// local backend (child processes) and the Kubernetes backend implement the same interface.

/** The members of the stored runtime_config a backend reads: how and where the deployment runs. */
export type BackendRuntimeConfig = Pick<
  RuntimeConfig,
  'env' | 'resources' | 'pipeline_template_configmap' | 'init_containers'
>;

export interface Deployment {
  pipelineId: string;
  pipelineName: string;
  deploymentId: string;
  /** The deployment's HTTP token: the backend hands it to the process only (docs/security.md). */
  token: string;
  initial: StartInitial;
  /** The file the pipeline process is started with (its runtime_config is for the process). */
  config: DeploymentConfig;
  /** What the backend itself reads of runtime_config, typed. */
  runtime: BackendRuntimeConfig;
  /** The namespace the pipeline asked for (deployment-config.ts namespaceOf), if any. */
  namespace?: string;
}

/** How a start went: a failure found at once is an observation (deployment_error), not an exception. */
export type ProvisionResult = { kind: 'started' } | { kind: 'failed'; error: ErrorBody };

/** interrupted: a fault-tolerant pipeline's pod is away and coming back (runtime status Unavailable). */
export type Readiness =
  | { kind: 'not-ready' }
  | { kind: 'interrupted' }
  | { kind: 'ready'; location: string }
  | { kind: 'fatal'; error: ErrorBody };

/**
 * What the runner knows about a pipeline beyond its id: where it runs (a Kubernetes namespace) and
 * which phase it is in (a missing pod is "not yet" while Provisioning but fatal once Provisioned).
 */
export interface PipelineContext {
  phase?: 'provisioning' | 'provisioned';
  namespace?: string;
  /** The pipeline's name, for what the backend records about it (Kubernetes Events' labels). */
  pipelineName?: string;
  /** runtime_config.fault_tolerance is set: the process resumes from its checkpoints after a restart. */
  faultTolerant?: boolean;
}

export interface Backend {
  readonly name: string;
  /** Where this backend wants the pipeline's storage, given to the process in its config. */
  storagePath(pipelineId: string): string;
  /**
   * May this pipeline leave Stopped for Provisioning now? For a backend that limits how many
   * deployments start at once (local: processes competing for the CPU). False: it is in line, and
   * the backend reports it through onChange when its turn comes. Optional: absent means yes.
   */
  admit?(pipelineId: string): boolean;
  /** Starts the deployment; idempotent. Throws only for what the runner should retry. */
  provision(deployment: Deployment): Promise<ProvisionResult>;
  /** Is the deployment up (or failed for good)? Cheap: called on every wake-up. */
  readiness(pipelineId: string, deploymentId: string, context?: PipelineContext): Promise<Readiness>;
  /** Tears the deployment down; true once nothing of it runs. Storage stays. */
  stop(pipelineId: string, context?: PipelineContext): Promise<boolean>;
  /** Deletes the pipeline's storage; true once it is gone. */
  clear(pipelineId: string, context?: PipelineContext): Promise<boolean>;
  /** Pipelines whose deployment changed (process exit, pod event): the runner looks at once. */
  onChange(listener: (pipelineId: string) => void): void;
  /** The record's resources status moved (Kubernetes: an Event on the StatefulSet). Optional. */
  onTransition?(transition: Transition): void;
  close(): Promise<void>;
}

export interface Transition {
  pipelineId: string;
  pipelineName: string;
  namespace?: string;
  from: string;
  to: string;
  error?: ErrorBody;
}
