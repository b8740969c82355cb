import type { CoreV1Event, V1ContainerStatus } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { admissionRefusal, classify, waitingForNode } from './readiness.js';
import { detailsOf, NOW, observed, opts, pod, waiting } from './readiness.fixture.js';

// Fault tolerance on (issue 29): once Provisioned, a pod that is away is an interruption, not a
// failure; a pod the cluster refuses to create is a failure at once.

const tolerant = opts({ phase: 'provisioned', tolerateLoss: true });
const oomRunning: V1ContainerStatus = {
  name: 'pipeline',
  image: 'i',
  imageID: '',
  ready: true,
  restartCount: 1,
  state: { running: {} },
  lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
};

describe('classify with tolerateLoss', () => {
  it.each([
    ['no pod', observed({ pod: undefined })],
    [
      'pod being deleted',
      observed({ pod: { ...pod(), metadata: { ...pod().metadata, deletionTimestamp: new Date(NOW) } } }),
    ],
    ['pod Failed (evicted)', observed({ pod: pod({ phase: 'Failed' }) })],
    [
      'container in CrashLoopBackOff',
      observed({ pod: pod({ ready: false, containers: [waiting('CrashLoopBackOff')] }) }),
    ],
  ])('%s: interrupted', (_, o) => {
    expect(classify(o, tolerant)).toEqual({ kind: 'interrupted' });
    // Without fault tolerance the same is fatal, as before.
    expect(classify(o, opts({ phase: 'provisioned' })).kind).toBe('fatal');
  });

  it('a container that came back after an OOM kill is ready (the loss is counted elsewhere)', () => {
    expect(classify(observed({ pod: pod({ containers: [oomRunning] }) }), tolerant).kind).toBe('ready');
    expect(classify(observed({ pod: pod({ containers: [oomRunning] }) }), opts({ phase: 'provisioned' })).kind).toBe(
      'fatal',
    );
  });

  it('an image the new pod cannot pull is still fatal: a restart cannot mend it', () => {
    expect(
      detailsOf(observed({ pod: pod({ ready: false, containers: [waiting('ImagePullBackOff')] }) }), tolerant),
    ).toMatchObject({
      reason: 'ImagePullBackOff',
    });
  });

  it('while Provisioning nothing changes: a crash before the first Ready is fatal', () => {
    const crashing = observed({ pod: pod({ ready: false, containers: [waiting('CrashLoopBackOff')] }) });
    expect(classify(crashing, opts({ tolerateLoss: true })).kind).toBe('fatal');
  });

  describe('the pod replacing a lost one waits for a node (node maintenance)', () => {
    const pending = { ...pod({ ready: false, phase: 'Pending' }), status: { phase: 'Pending' } };
    /** PodScheduled False since `ago` ms, with the scheduler's `message`. */
    const stuckFor = (ago: number, message = '0/1 nodes are available: 1 node(s) were unschedulable') => ({
      ...pending,
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message,
            lastTransitionTime: new Date(NOW - ago),
          },
        ],
      },
    });
    const waitFor = (ago: number, over = {}) => classify(observed({ pod: stuckFor(ago) }), { ...tolerant, ...over });

    it('before its container started: interrupted', () => {
      expect(classify(observed({ pod: pending }), tolerant)).toEqual({ kind: 'interrupted' });
    });

    it('Unschedulable past the first-start grace but within the reschedule grace: still interrupted', () => {
      const over = { unschedulableGraceMs: 30_000, rescheduleGraceMs: 600_000 };
      expect(waitFor(31_000, over)).toEqual({ kind: 'interrupted' });
      expect(waitFor(599_000, over)).toEqual({ kind: 'interrupted' });
      // The first start of a pipeline keeps the short grace: nothing ran there yet to wait for.
      expect(classify(observed({ pod: stuckFor(31_000) }), opts({ tolerateLoss: true, ...over })).kind).toBe('fatal');
      // Without fault tolerance a lost pod is fatal anyway; an unscheduled first pod keeps the short grace.
      expect(classify(observed({ pod: stuckFor(31_000) }), opts({ phase: 'provisioned', ...over })).kind).toBe('fatal');
    });

    it("Unschedulable past the reschedule grace: fatal, with the scheduler's message", () => {
      const over = { unschedulableGraceMs: 30_000, rescheduleGraceMs: 600_000 };
      expect(detailsOf(observed({ pod: stuckFor(600_000) }), { ...tolerant, ...over })).toEqual({
        kind: 'Pod',
        name: 'pipeline-x-0',
        reason: 'Unschedulable',
        message: '0/1 nodes are available: 1 node(s) were unschedulable',
      });
    });

    it('without a reschedule grace the first-start grace applies', () => {
      expect(detailsOf(observed({ pod: stuckFor(31_000) }), tolerant)).toMatchObject({ reason: 'Unschedulable' });
    });

    it("waitingForNode: the scheduler's reason and since when, not a claim waiting for its volume", () => {
      expect(waitingForNode(stuckFor(5_000), NOW)).toEqual({
        since: NOW - 5_000,
        message: '0/1 nodes are available: 1 node(s) were unschedulable',
      });
      expect(waitingForNode(stuckFor(5_000, '0/1 nodes: pod has unbound immediate PersistentVolumeClaims'), NOW)).toBe(
        undefined,
      );
      expect(waitingForNode(pending, NOW)).toBeUndefined();
      expect(waitingForNode(pod(), NOW)).toBeUndefined();
      expect(waitingForNode(undefined, NOW)).toBeUndefined();
    });
  });

  it('a lost StatefulSet is fatal: nothing would bring the pod back', () => {
    expect(classify(observed({ statefulSet: undefined }), tolerant).kind).toBe('fatal');
  });
});

describe('FailedCreate of the StatefulSet', () => {
  const refusal = (message: string, uid = 'sts-uid'): CoreV1Event => ({
    metadata: {},
    involvedObject: { kind: 'StatefulSet', name: 'pipeline-x', uid },
    reason: 'FailedCreate',
    message,
    type: 'Warning',
  });
  const quota =
    'create Pod pipeline-x-0 in StatefulSet pipeline-x failed error: pods "pipeline-x-0" is forbidden: exceeded quota: tiny, requested: pods=1, used: pods=1, limited: pods=1';
  /** No pod: the StatefulSet controller could not create it. */
  const withSts = (warnings: CoreV1Event[], created = false) =>
    observed({
      statefulSet: { metadata: { name: 'pipeline-x', uid: 'sts-uid' } },
      pod: created ? pod() : undefined,
      warnings,
    });

  it('an admission refusal with no pod is fatal at once, naming the reason', () => {
    expect(detailsOf(withSts([refusal(quota)]))).toEqual({
      kind: 'StatefulSet',
      name: 'pipeline-x',
      reason: 'FailedCreate',
      message: quota,
    });
  });

  it('a refusal of the pod that comes back after a loss is fatal too, not an interruption', () => {
    expect(detailsOf(withSts([refusal(quota)]), tolerant)).toMatchObject({ reason: 'FailedCreate' });
  });

  it('ignores a refusal of an earlier StatefulSet, one the pod got past, and other FailedCreates', () => {
    expect(classify(withSts([refusal(quota, 'old-uid')]), opts()).kind).toBe('not-ready');
    expect(classify(withSts([refusal(quota)], true), opts()).kind).toBe('ready');
    const conflict = 'create Pod pipeline-x-0 in StatefulSet pipeline-x failed error: object is being deleted';
    expect(classify(withSts([refusal(conflict)]), opts()).kind).toBe('not-ready');
  });

  it.each([
    [quota, true],
    ['pods "p" is forbidden: maximum memory usage per Container is 1Gi, but limit is 4Gi', true],
    ['pods "p" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true', true],
    ['admission webhook "deny.example.com" denied the request: no', true],
    ['Timeout: request did not complete within requested timeout', false],
  ])('admissionRefusal(%s) = %s', (message, expected) => {
    expect(admissionRefusal(message)).toBe(expected);
  });
});
