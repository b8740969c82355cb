import type { DeploymentConfig } from '../model/deployment.js';
import type { ErrorBody } from '../model/errors.js';
import type { StartInitial } from '../model/status.js';

// The seam between the runner's automaton and where pipelines run (LIFECYCLE.md "Backends"): the
// local backend (child processes) and the Kubernetes backend implement the same interface.

export interface Deployment {
  pipelineId: string;
  pipelineName: string;
  deploymentId: string;
  initial: StartInitial;
  config: DeploymentConfig;
}

export type Readiness =
  { kind: 'not-ready' } | { kind: 'ready'; location: string } | { kind: 'fatal'; error: ErrorBody };

/**
 * What the runner knows about a pipeline beyond its id: where it runs (a Kubernetes namespace) and
 * which phase it is in (a missing pod is "not yet" while Provisioning but fatal once Provisioned).
 */
export interface PipelineContext {
  phase?: 'provisioning' | 'provisioned';
  namespace?: string;
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
  /** Starts the deployment; idempotent. Throws a SvcError for a failure found at once. */
  provision(deployment: Deployment): Promise<void>;
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
