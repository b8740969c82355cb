import { z } from 'zod';

// Every enum of seed 2.1, spelled exactly as the contract writes it.

export const ResourcesDesiredStatus = z.enum(['Stopped', 'Provisioned']);
export type ResourcesDesiredStatus = z.infer<typeof ResourcesDesiredStatus>;

export const ResourcesStatus = z.enum(['Stopped', 'Provisioning', 'Provisioned', 'Stopping']);
export type ResourcesStatus = z.infer<typeof ResourcesStatus>;

/** deployment_initial and deployment_runtime_desired_status share this list. */
export const RuntimeDesiredStatus = z.enum([
  'Unavailable',
  'Coordination',
  'Standby',
  'Paused',
  'Running',
  'Suspended',
]);
export type RuntimeDesiredStatus = z.infer<typeof RuntimeDesiredStatus>;

export const RuntimeStatus = z.enum([
  'Unavailable',
  'Coordination',
  'Standby',
  'Initializing',
  'AwaitingApproval',
  'Bootstrapping',
  'Replaying',
  'Paused',
  'Running',
  'Suspended',
]);
export type RuntimeStatus = z.infer<typeof RuntimeStatus>;

export const DeploymentDesiredStatus = z.enum(['Stopped', 'Unavailable', 'Standby', 'Paused', 'Running', 'Suspended']);
export type DeploymentDesiredStatus = z.infer<typeof DeploymentDesiredStatus>;

export const DeploymentStatus = z.enum([
  'Stopped',
  'Provisioning',
  'Unavailable',
  'Coordination',
  'Standby',
  'AwaitingApproval',
  'Initializing',
  'Bootstrapping',
  'Replaying',
  'Paused',
  'Running',
  'Suspended',
  'Stopping',
]);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export const ProgramStatus = z.enum([
  'Pending',
  'CompilingSql',
  'SqlCompiled',
  'CompilingRust',
  'Success',
  'SqlError',
  'RustError',
  'SystemError',
]);
export type ProgramStatus = z.infer<typeof ProgramStatus>;

export const StorageStatus = z.enum(['Cleared', 'InUse', 'Clearing']);
export type StorageStatus = z.infer<typeof StorageStatus>;

/** Query parameter `initial` of /start (lower case on the wire, as the established clients send it). */
export const StartInitial = z.enum(['running', 'paused', 'standby']);
export type StartInitial = z.infer<typeof StartInitial>;

export const BootstrapPolicy = z.enum(['allow', 'reject', 'await_approval']);
export type BootstrapPolicy = z.infer<typeof BootstrapPolicy>;

export const Selector = z.enum(['all', 'status', 'status_with_connectors']);
export type Selector = z.infer<typeof Selector>;
