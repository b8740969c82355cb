import type { CoreV1Event, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { classify } from './readiness.js';
import { detailsOf, NOW, observed, opts, pod, pvc, waiting } from './readiness.fixture.js';

describe('classify', () => {
  it('is ready when the pod is Ready, of this deployment, and the PVC Bound', () => {
    expect(classify(observed(), opts())).toEqual({ kind: 'ready', location: 'http://127.11.0.5:8080' });
  });

  it.each([
    ['no pod yet', observed({ pod: undefined })],
    ['pod not Ready', observed({ pod: pod({ ready: false }) })],
    ['PVC Pending', observed({ pvc: pvc('Pending') })],
    ['no PVC', observed({ pvc: undefined })],
    ['pod of another deployment', observed({ pod: pod({ deployment: 'other' }) })],
    ['no StatefulSet yet', observed({ statefulSet: undefined })],
  ])('is not ready while provisioning: %s', (_, o) => {
    expect(classify(o, opts())).toEqual({ kind: 'not-ready' });
  });

  it('is not ready when no address is known yet', () => {
    expect(classify(observed(), opts({ address: () => undefined }))).toEqual({ kind: 'not-ready' });
  });

  it.each([
    'ImagePullBackOff',
    'ErrImagePull',
    'InvalidImageName',
    'CreateContainerConfigError',
    'CreateContainerError',
  ])('%s is fatal with the kubelet message', (reason) => {
    expect(detailsOf(observed({ pod: pod({ containers: [waiting(reason, 'why')] }) }))).toEqual({
      kind: 'Pod',
      name: 'pipeline-x-0',
      reason,
      message: 'why',
    });
  });

  it('CrashLoopBackOff carries the last exit', () => {
    const details = detailsOf(observed({ pod: pod({ containers: [waiting('CrashLoopBackOff')] }) }));
    expect(details).toMatchObject({ reason: 'CrashLoopBackOff' });
    expect(String(details?.['message'])).toContain('exit code 2: Error: boom');
  });

  it('ContainerCreating and PodInitializing are not fatal', () => {
    for (const reason of ['ContainerCreating', 'PodInitializing']) {
      expect(classify(observed({ pod: pod({ ready: false, containers: [waiting(reason)] }) }), opts()).kind).toBe(
        'not-ready',
      );
    }
  });

  it('OOMKilled (now or last time) is fatal', () => {
    const oom: V1ContainerStatus = {
      ...waiting('x'),
      state: {},
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
    };
    expect(detailsOf(observed({ pod: pod({ containers: [oom] }) }))).toMatchObject({ reason: 'OOMKilled' });
  });

  it('a Failed pod is fatal', () => {
    expect(detailsOf(observed({ pod: pod({ phase: 'Failed' }) }))).toMatchObject({ kind: 'Pod', reason: 'Failed' });
  });

  it('Unschedulable is fatal only after the grace period', () => {
    const unschedulable = (since: number, message = "node(s) didn't match"): V1Pod => ({
      ...pod({ ready: false }),
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message,
            lastTransitionTime: new Date(since),
          },
        ],
      },
    });
    expect(classify(observed({ pod: unschedulable(NOW - 10_000) }), opts()).kind).toBe('not-ready');
    expect(detailsOf(observed({ pod: unschedulable(NOW - 30_000) }))).toEqual({
      kind: 'Pod',
      name: 'pipeline-x-0',
      reason: 'Unschedulable',
      message: "node(s) didn't match",
    });
    // kube-scheduler's word for a claim not bound yet: the claim's wait, however long, not the nodes'.
    const unbound = '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found';
    expect(classify(observed({ pod: unschedulable(NOW - 120_000, unbound) }), opts()).kind).toBe('not-ready');
  });

  it('a missing pod or StatefulSet is fatal once Provisioned', () => {
    expect(detailsOf(observed({ pod: undefined }), { phase: 'provisioned' })).toMatchObject({
      kind: 'Pod',
      reason: 'Deleted',
      name: 'pipeline-x-0',
    });
    expect(detailsOf(observed({ statefulSet: undefined }), { phase: 'provisioned' })).toMatchObject({
      kind: 'StatefulSet',
      name: 'pipeline-x',
      reason: 'Deleted',
    });
    const deleting = { ...pod(), metadata: { ...pod().metadata, deletionTimestamp: new Date(NOW) } };
    expect(detailsOf(observed({ pod: deleting }), { phase: 'provisioned' })).toMatchObject({ reason: 'Deleted' });
  });

  const event = (reason: string, kind: string, uid: string, ageMs = 60_000): CoreV1Event => ({
    metadata: {},
    firstTimestamp: new Date(NOW - ageMs),
    involvedObject: { kind, name: kind === 'Pod' ? 'pipeline-x-0' : 'storage-pipeline-x-0', uid },
    reason,
    message: `${reason} happened`,
    type: 'Warning',
  });

  it('FailedMount on the current pod and ProvisioningFailed on the current PVC are fatal', () => {
    const notStarted = pod({ ready: false });
    expect(detailsOf(observed({ pod: notStarted, warnings: [event('FailedMount', 'Pod', 'pod-uid')] }))).toEqual({
      kind: 'Pod',
      name: 'pipeline-x-0',
      reason: 'FailedMount',
      message: 'FailedMount happened',
    });
    expect(
      detailsOf(
        observed({ pvc: pvc('Pending'), warnings: [event('ProvisioningFailed', 'PersistentVolumeClaim', 'pvc-uid')] }),
      ),
    ).toMatchObject({ kind: 'PersistentVolumeClaim', reason: 'ProvisioningFailed' });
  });

  it('ignores events of earlier objects of the same name and other reasons', () => {
    const o = observed({
      warnings: [
        event('FailedMount', 'Pod', 'old-uid'),
        event('BackOff', 'Pod', 'pod-uid'),
        event('ProvisioningFailed', 'PersistentVolumeClaim', 'old'),
      ],
    });
    expect(classify(o, opts()).kind).toBe('ready');
  });

  it('FailedMount is fatal only once it lasted the grace on a pod that started no container', () => {
    const notStarted = pod({ ready: false });
    // The kubelet's first try before the claim is bound on its side: it retries, the runner waits.
    const young = observed({ pod: notStarted, warnings: [event('FailedMount', 'Pod', 'pod-uid', 3_000)] });
    expect(classify(young, opts()).kind).toBe('not-ready');
    const lasting = observed({ pod: notStarted, warnings: [event('FailedMount', 'Pod', 'pod-uid', 30_000)] });
    expect(classify(lasting, opts()).kind).toBe('fatal');
    // The mount succeeded later: the event stays in the store, the running pod is not stopped.
    const running: V1ContainerStatus = {
      name: 'pipeline',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { running: { startedAt: new Date(NOW - 1_000) } },
    };
    const started = pod({ ready: false, containers: [running] });
    expect(classify(observed({ pod: started, warnings: [event('FailedMount', 'Pod', 'pod-uid')] }), opts()).kind).toBe(
      'not-ready',
    );
    expect(classify(observed({ warnings: [event('FailedMount', 'Pod', 'pod-uid')] }), opts()).kind).toBe('ready');
  });

  it('a lasting FailedMount carries the latest event: the first may be one the kubelet got past', () => {
    const transient = { ...event('FailedMount', 'Pod', 'pod-uid', 40_000), message: 'PVC is not bound' };
    const lasting: CoreV1Event = {
      ...event('FailedMount', 'Pod', 'pod-uid', 20_000),
      lastTimestamp: new Date(NOW - 2_000),
      message: 'secret "absent" not found',
    };
    // 40 s since the first: past the grace, though the latest began 20 s ago.
    const o = observed({ pod: pod({ ready: false }), warnings: [transient, lasting] });
    expect(detailsOf(o)).toMatchObject({ reason: 'FailedMount', message: 'secret "absent" not found' });
  });
});
