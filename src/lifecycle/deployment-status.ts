import type {
  DeploymentDesiredStatus,
  DeploymentStatus,
  ResourcesDesiredStatus,
  ResourcesStatus,
  RuntimeDesiredStatus,
  RuntimeStatus,
} from '../model/status.js';

// The combined statuses of LIFECYCLE.md ("Combined deployment status"), derived on every read
// from the resources and runtime statuses, never stored, so they cannot disagree with them.

/** The later of two RFC 3339 timestamps of the same fixed format (string order is time order). */
export const later = (a: string, b: string | null | undefined): string => (b != null && b > a ? b : a);

export function deploymentStatus(resources: ResourcesStatus, runtime: RuntimeStatus | null): DeploymentStatus {
  return resources === 'Provisioned' ? (runtime ?? 'Unavailable') : resources;
}

export function deploymentDesiredStatus(
  resourcesDesired: ResourcesDesiredStatus,
  runtimeDesired: RuntimeDesiredStatus | null,
  initial: RuntimeDesiredStatus | null,
): DeploymentDesiredStatus {
  if (resourcesDesired === 'Stopped') return 'Stopped';
  // Coordination is a runtime desired status but not a combined one (seed 2.1): while the pipeline
  // coordinates, the user still wants what they asked for at start.
  const wanted = runtimeDesired ?? initial ?? 'Running';
  if (wanted !== 'Coordination') return wanted;
  return initial != null && initial !== 'Coordination' ? initial : 'Running';
}
