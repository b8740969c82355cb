// The pod status the agent reports, computed from its containers' runtimes. Timestamps of unchanged
// conditions are kept from the previous status so that an unchanged pod produces an identical
// status and costs no write.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { now, type ContainerRuntime, type Termination } from './container.js';

export type JsonStatus = Record<string, unknown>;

/** JSON form of API data: Dates (from typed lists) and strings (from watch events) alike. */
export function toJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key];
      return raw instanceof Date ? raw.toISOString().replace(/\.\d+Z$/, 'Z') : v;
    }),
  );
}

function terminated(t: Termination): Record<string, unknown> {
  const { signal: _signal, ...rest } = t;
  return rest;
}

function containerStatus(c: V1Container, rt: ContainerRuntime | undefined, pendingReason: string): JsonStatus {
  const base = { name: c.name, image: c.image ?? '', imageID: '', ready: false, started: false };
  if (!rt) return { ...base, restartCount: 0, state: { waiting: { reason: pendingReason } }, lastState: {} };
  return { ...base, restartCount: rt.restartCount, ...runtimeState(rt, pendingReason) };
}

/** state and lastState (and readiness) of a container this agent has a runtime for. */
function runtimeState(rt: ContainerRuntime, pendingReason: string): JsonStatus {
  const last = rt.lastTermination;
  const lastState = last && (rt.running || rt.waiting) ? { terminated: terminated(last) } : {};
  if (rt.running) {
    const state = { running: { startedAt: rt.startedAt } };
    return { containerID: rt.containerID, ready: rt.ready, started: true, state, lastState };
  }
  if (rt.waiting || !last) return { state: { waiting: rt.waiting ?? { reason: pendingReason } }, lastState };
  return { containerID: last.containerID, state: { terminated: terminated(last) }, lastState: {} };
}

export interface StatusInput {
  pod: V1Pod;
  podIP: string;
  runtimes: Map<string, ContainerRuntime>;
  initDone: boolean;
  /** Set when an init container failed for good (restartPolicy Never). */
  initFailed: boolean;
  /** Whether a terminated container will not be restarted (per restartPolicy). */
  isFinal: (rt: ContainerRuntime) => boolean;
}

function phaseOf(input: StatusInput): string {
  const containers = input.pod.spec?.containers ?? [];
  if (input.initFailed) return 'Failed';
  if (!input.initDone) return 'Pending';
  const rts = containers.map((c) => input.runtimes.get(c.name));
  if (rts.some((rt) => !rt?.everStarted)) return 'Pending';
  const done = rts.every((rt) => rt && !rt.running && !rt.waiting && rt.lastTermination && input.isFinal(rt));
  if (!done) return 'Running';
  return rts.every((rt) => rt?.lastTermination?.exitCode === 0) ? 'Succeeded' : 'Failed';
}

type OldStatus = {
  conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }>;
  startTime?: string;
};

function podConditions(input: StatusInput, old: OldStatus, phase: string): JsonStatus[] {
  const unready = (input.pod.spec?.containers ?? [])
    .filter((c) => !input.runtimes.get(c.name)?.ready)
    .map((c) => c.name);
  const condition = (type: string, ok: boolean, reason?: string, message?: string) => {
    const status = ok ? 'True' : 'False';
    const prev = old.conditions?.find((c) => c.type === type);
    // Kept from the previous status while unchanged, so an unchanged pod needs no write.
    const lastTransitionTime = prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now();
    return { type, status, lastProbeTime: null, lastTransitionTime, ...(reason ? { reason, message } : {}) };
  };
  const completed = phase === 'Succeeded' || phase === 'Failed';
  const message = unready.length > 0 ? `containers with unready status: [${unready.join(' ')}]` : '';
  const reason = completed ? 'PodCompleted' : unready.length > 0 ? 'ContainersNotReady' : undefined;
  const initReason = input.initDone ? undefined : 'ContainersNotInitialized';
  return [
    condition('PodReadyToStartContainers', true),
    condition('Initialized', input.initDone, initReason, 'init containers have not completed'),
    condition('Ready', unready.length === 0, reason, message),
    condition('ContainersReady', unready.length === 0, reason, message),
    condition('PodScheduled', true),
  ];
}

export function buildStatus(input: StatusInput): JsonStatus {
  const { pod, podIP, runtimes } = input;
  const old = (toJson(pod.status ?? {}) ?? {}) as OldStatus;
  const inits = pod.spec?.initContainers ?? [];
  const pendingReason = input.initDone ? 'ContainerCreating' : 'PodInitializing';
  const statuses = (pod.spec?.containers ?? []).map((c) => containerStatus(c, runtimes.get(c.name), pendingReason));
  const initStatuses = inits.map((c) => containerStatus(c, runtimes.get(`init:${c.name}`), 'PodInitializing'));
  const phase = phaseOf(input);
  return {
    phase,
    conditions: podConditions(input, old, phase),
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: old.startTime ?? now(),
    ...(inits.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
  };
}

/** Sorted keys, without the null, empty-string and empty-object values the server omits. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = canonical((value as Record<string, unknown>)[key]);
    const empty =
      v === null ||
      v === undefined ||
      v === '' ||
      (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
    if (!empty) out[key] = v;
  }
  return out;
}

/** True when `next` says nothing that `pod.status` does not already say. */
export function sameStatus(pod: V1Pod, next: JsonStatus): boolean {
  const old = (toJson(pod.status ?? {}) ?? {}) as Record<string, unknown>;
  return Object.entries(next).every(
    ([key, value]) => JSON.stringify(canonical(old[key])) === JSON.stringify(canonical(value)),
  );
}
