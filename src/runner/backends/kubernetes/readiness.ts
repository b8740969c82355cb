import type {
  CoreV1Event,
  V1ContainerStatus,
  V1PersistentVolumeClaim,
  V1Pod,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { Readiness } from '../../backend.js';
import { resourceError } from './resource-error.js';
import { containerDown, PIPELINE_CONTAINER, podGone } from './pod-loss.js';
import { LABEL_DEPLOYMENT_ID } from './template/index.js';

// Pure: what the cluster shows of one pipeline → ready, not yet, or failed for good (KUBERNETES.md
// "Observing"). No I/O here; the backend hands in what its informers hold.

export interface Observed {
  statefulSet?: V1StatefulSet;
  pod?: V1Pod;
  pvc?: V1PersistentVolumeClaim;
  /** Warning events whose involved object is this pipeline's pod or PVC. */
  warnings: readonly CoreV1Event[];
}

export interface ClassifyOptions {
  /** `{id}`, for errors about objects that are gone. */
  objectName: string;
  phase: 'provisioning' | 'provisioned';
  deploymentId: string;
  now: number;
  /** A pod Unschedulable for longer than this is a fatal resource error. */
  unschedulableGraceMs: number;
  /**
   * The same for the pod that replaces a lost one of a fault-tolerant pipeline (tolerateLoss, once
   * Provisioned): waiting for a node during maintenance (every node cordoned or full) is expected
   * there, so it gets its own, longer bound. Default: unschedulableGraceMs.
   */
  rescheduleGraceMs?: number;
  /** A FailedMount that lasts this long, on a pod that has started no container, is fatal. */
  mountGraceMs: number;
  /** Where the pipeline process is reached once the pod is Ready. */
  address(pod: V1Pod): string | undefined;
  /**
   * Fault tolerance is on: once Provisioned, a pod that went away or a container that exited is an
   * interruption (the StatefulSet brings it back and the process resumes from its checkpoint), not a
   * failure; the backend counts them (pod-loss.ts).
   */
  tolerateLoss?: boolean;
}

/** Container waiting reasons that do not resolve by themselves. */
const FATAL_WAITING = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'CrashLoopBackOff',
]);
const FATAL_EVENTS: Record<string, string> = {
  FailedMount: 'Pod',
  ProvisioningFailed: 'PersistentVolumeClaim',
  FailedCreate: 'StatefulSet',
};

/**
 * The StatefulSet controller's FailedCreate is an admission refusal of the pod (ResourceQuota,
 * LimitRange, Pod Security, a validating webhook) when the API server said Forbidden or a webhook
 * denied it: the controller retries with back-off, but nothing changes until an operator does, so
 * the user hears the reason at once instead of at the provisioning timeout. Other FailedCreates
 * (a conflict with a pod still being deleted, a timeout) pass with the next retry.
 */
export function admissionRefusal(message: string | undefined): boolean {
  return message !== undefined && /\bis forbidden\b|denied the request|\bexceeded quota\b/.test(message);
}

const fatal = (kind: string, name: string, reason: string, message: string): Readiness => ({
  kind: 'fatal',
  error: resourceError(kind, name, reason, message),
});
const NOT_READY: Readiness = { kind: 'not-ready' };
const INTERRUPTED: Readiness = { kind: 'interrupted' };

export function classify(observed: Observed, opts: ClassifyOptions): Readiness {
  const { statefulSet, pod, pvc } = observed;
  if (!statefulSet || statefulSet.metadata?.deletionTimestamp) {
    return opts.phase === 'provisioned'
      ? fatal('StatefulSet', opts.objectName, 'Deleted', 'the StatefulSet is gone')
      : NOT_READY;
  }
  const failure = podFailure(pod, opts);
  if (failure && failure.kind !== 'interrupted') return failure;
  // A pod that is away may also be refused (FailedCreate) or unable to mount: those win.
  const refused = eventFailure(observed, opts, pod, pvc, statefulSet);
  if (refused) return refused;
  if (failure) return failure;
  const location = readyAt(pod, pvc, opts);
  return location ? { kind: 'ready', location } : NOT_READY;
}

const podReady = (pod: V1Pod | undefined): boolean =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Provisioned = the pod of this deployment is Ready and its PVC Bound: then, where to reach it. */
function readyAt(pod: V1Pod | undefined, pvc: V1PersistentVolumeClaim | undefined, opts: ClassifyOptions) {
  if (!pod || pod.metadata?.labels?.[LABEL_DEPLOYMENT_ID] !== opts.deploymentId) return undefined;
  if (pvc?.status?.phase !== 'Bound') return undefined;
  return podReady(pod) ? opts.address(pod) : undefined;
}

function podFailure(pod: V1Pod | undefined, opts: ClassifyOptions): Readiness | undefined {
  const tolerant = opts.tolerateLoss === true && opts.phase === 'provisioned';
  if (tolerant) {
    const away = interruption(pod, opts);
    if (away) return away;
  }
  if (!pod || pod.metadata?.deletionTimestamp) {
    const gone = fatal('Pod', `${opts.objectName}-0`, 'Deleted', 'the pipeline pod was deleted');
    return opts.phase === 'provisioned' ? gone : undefined;
  }
  const name = pod.metadata?.name ?? `${opts.objectName}-0`;
  const status = pod.status ?? {};
  if (status.phase === 'Failed')
    return fatal('Pod', name, status.reason ?? 'Failed', status.message ?? 'the pod failed');
  return containersFailure(name, pod, tolerant) ?? unschedulable(name, pod, opts);
}

function containersFailure(name: string, pod: V1Pod, tolerant: boolean): Readiness | undefined {
  const status = pod.status ?? {};
  const containers = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  for (const container of containers) {
    // A tolerant pipeline's OOM kills and crashes are counted as losses (pod-loss.ts) instead.
    const restartable = tolerant && container.name === PIPELINE_CONTAINER && !pullFailure(container);
    const found = restartable ? undefined : containerFailure(name, container);
    if (found) return found;
  }
  return undefined;
}

/**
 * A fault-tolerant pipeline's pod that is away (gone, or its container not running) is an
 * interruption, unless the pod that comes back cannot be placed (a drained node and no other with
 * room) or get its image: a restart cannot mend those.
 */
function interruption(pod: V1Pod | undefined, opts: ClassifyOptions): Readiness | undefined {
  if (!pod || podGone(pod)) return INTERRUPTED;
  const grace = opts.rescheduleGraceMs ?? opts.unschedulableGraceMs;
  const stuck = unschedulable(pod.metadata?.name ?? `${opts.objectName}-0`, pod, opts, grace);
  if (stuck) return stuck;
  const container = pod.status?.containerStatuses?.find((c) => c.name === PIPELINE_CONTAINER);
  return containerDown(pod) && !(container && pullFailure(container)) ? INTERRUPTED : undefined;
}

/** Waiting for an image or a container config that a restart does not change. */
function pullFailure(status: V1ContainerStatus): boolean {
  const reason = status.state?.waiting?.reason;
  return reason !== undefined && reason !== 'CrashLoopBackOff' && FATAL_WAITING.has(reason);
}

/**
 * kube-scheduler's reason while a claim of the pod (Immediate binding) has no volume yet. That is the
 * claim's state, not the nodes': the PV controller binds it in a moment, or a while under load, and
 * a claim that cannot be provisioned has its own failure (ProvisioningFailed; else the provisioning
 * timeout). Counting it toward the grace failed a real pod as Unschedulable before the scheduler had
 * looked at a node: the condition keeps its first lastTransitionTime when its message changes.
 */
const UNBOUND_CLAIMS = 'pod has unbound immediate PersistentVolumeClaims';

/** The pod waits for a node (not for its claim): since when (or `now` if unknown), and the scheduler's why. */
export function waitingForNode(pod: V1Pod | undefined, now: number): { since: number; message: string } | undefined {
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return undefined;
  if (scheduled.message?.includes(UNBOUND_CLAIMS)) return undefined;
  const since = scheduled.lastTransitionTime ? new Date(scheduled.lastTransitionTime).getTime() : now;
  return { since, message: scheduled.message ?? 'no node can run the pod' };
}

function unschedulable(
  name: string,
  pod: V1Pod,
  opts: ClassifyOptions,
  graceMs = opts.unschedulableGraceMs,
): Readiness | undefined {
  const waiting = waitingForNode(pod, opts.now);
  if (!waiting || opts.now - waiting.since < graceMs) return undefined;
  return fatal('Pod', name, 'Unschedulable', waiting.message);
}

function containerFailure(pod: string, status: V1ContainerStatus): Readiness | undefined {
  const waiting = status.state?.waiting;
  const last = status.lastState?.terminated;
  const current = status.state?.terminated;
  if (current?.reason === 'OOMKilled' || last?.reason === 'OOMKilled') {
    return fatal('Pod', pod, 'OOMKilled', `container ${status.name} ran out of memory`);
  }
  if (!waiting?.reason || !FATAL_WAITING.has(waiting.reason)) return undefined;
  if (waiting.reason === 'CrashLoopBackOff' && last) {
    // The back-off message says little; the last exit says why it keeps crashing.
    const why = [`exit code ${last.exitCode}`, last.reason, last.message].filter(Boolean).join(': ');
    return fatal('Pod', pod, 'CrashLoopBackOff', `container ${status.name} keeps exiting (${why})`);
  }
  return fatal('Pod', pod, waiting.reason, waiting.message ?? '');
}

/**
 * FailedMount on the current pod, ProvisioningFailed on the current PVC (matched by uid). A real
 * kubelet also reports FailedMount for a claim the scheduler saw bound a moment before the kubelet
 * did ("PVC is not bound"), or that it failed to fetch under load, then retries and succeeds: so
 * FailedMount is fatal only once the pod's first one is `mountGraceMs` old and the pod has still
 * started no container (an event of a mount that later succeeded stays in the informer's store for
 * an hour and must not stop a running pipeline); the error then carries the latest one, which says
 * why mounting still fails (the first may be a transient one the kubelet got past).
 */
function eventFailure(
  observed: Observed,
  opts: ClassifyOptions,
  pod?: V1Pod,
  pvc?: V1PersistentVolumeClaim,
  statefulSet?: V1StatefulSet,
): Readiness | undefined {
  const mounts: CoreV1Event[] = [];
  const current = { Pod: pod, PersistentVolumeClaim: pvc, StatefulSet: statefulSet };
  for (const event of observed.warnings) {
    const kind = event.reason ? FATAL_EVENTS[event.reason] : undefined;
    const involved = event.involvedObject;
    if (!kind || involved.kind !== kind) continue;
    const object = current[kind as keyof typeof current];
    if (!object || involved.uid !== object.metadata?.uid) continue;
    // A pod that exists was created after all (the refusal is an hour-old event in the store).
    if (event.reason === 'FailedCreate' && (!admissionRefusal(event.message) || !podGone(pod))) continue;
    if (event.reason === 'FailedMount') mounts.push(event);
    else return fatal(kind, involved.name ?? '', event.reason ?? '', event.message ?? '');
  }
  return mountFailure(mounts, pod, opts);
}

const timeOf = (at: Date | string | undefined, fallback: number): number => (at ? new Date(at).getTime() : fallback);
const firstSeen = (e: CoreV1Event, now: number) =>
  timeOf(e.firstTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp, now);
const lastSeen = (e: CoreV1Event, now: number) =>
  timeOf(e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? e.firstTimestamp, now);

function mountFailure(events: CoreV1Event[], pod: V1Pod | undefined, opts: ClassifyOptions): Readiness | undefined {
  if (events.length === 0) return undefined;
  const status = pod?.status;
  const started =
    podReady(pod) || (status?.containerStatuses ?? []).some((c) => c.state?.running || c.state?.terminated);
  if (started) return undefined;
  const since = Math.min(...events.map((e) => firstSeen(e, opts.now)));
  if (opts.now - since < opts.mountGraceMs) return undefined;
  const latest = events.reduce((a, b) => (lastSeen(b, opts.now) > lastSeen(a, opts.now) ? b : a));
  return fatal('Pod', latest.involvedObject.name ?? '', 'FailedMount', latest.message ?? '');
}
