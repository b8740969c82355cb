import type { V1ContainerStatus, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { classify, type ClassifyOptions, type Observed } from './readiness.js';

// What the readiness tests observe: one pipeline's objects as the informers would hold them.

export const DEP = '11111111-2222-3333-4444-555555555555';
export const NOW = Date.parse('2026-11-22T12:00:00Z');
export const opts = (over: Partial<ClassifyOptions> = {}): ClassifyOptions => ({
  objectName: 'pipeline-x',
  phase: 'provisioning',
  deploymentId: DEP,
  now: NOW,
  unschedulableGraceMs: 30_000,
  mountGraceMs: 30_000,
  address: (pod) => (pod.status?.podIP ? `http://${pod.status.podIP}:8080` : undefined),
  ...over,
});

export function pod(
  over: { ready?: boolean; containers?: V1ContainerStatus[]; phase?: string; deployment?: string } = {},
): V1Pod {
  return {
    metadata: { name: 'pipeline-x-0', uid: 'pod-uid', labels: { 'svc/deployment-id': over.deployment ?? DEP } },
    status: {
      phase: over.phase ?? 'Running',
      podIP: '127.11.0.5',
      conditions: [{ type: 'Ready', status: over.ready === false ? 'False' : 'True' }],
      containerStatuses: over.containers ?? [],
    },
  };
}
export const pvc = (phase = 'Bound'): V1PersistentVolumeClaim => ({
  metadata: { name: 'storage-pipeline-x-0', uid: 'pvc-uid' },
  status: { phase },
});
export const observed = (over: Partial<Observed> = {}): Observed => ({
  statefulSet: { metadata: { name: 'pipeline-x' } },
  pod: pod(),
  pvc: pvc(),
  warnings: [],
  ...over,
});
export const waiting = (reason: string, message = 'm'): V1ContainerStatus => ({
  name: 'pipeline',
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 3,
  state: { waiting: { reason, message } },
  lastState: { terminated: { exitCode: 2, reason: 'Error', message: 'boom' } },
});
export const detailsOf = (o: Observed, over: Partial<ClassifyOptions> = {}) => {
  const r = classify(o, opts(over));
  if (r.kind !== 'fatal') throw new Error(`expected fatal, got ${r.kind}`);
  expect(r.error.error_code).toBe('ResourceError');
  return r.error.details;
};
