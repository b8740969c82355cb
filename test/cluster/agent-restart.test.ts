// The node agent keeps no state of its own: killed outright and started again, it stops the
// processes its predecessor left and brings the pods back from the API server's objects alone.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { restartNodeAgent } from './control-plane/cluster.js';
import { isAlive } from './control-plane/processes.js';
import { adminConfig, createNamespace, deleteNamespace, waitForPod } from './helpers.js';
import { fixtureContainer, fixtureInfo, pod } from './specs.js';

const isReady = (p: k8s.V1Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('node agent restart', () => {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createNamespace(kc, 'restart');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  it('converges after a crash: same pod address, one restart, new process', async () => {
    await core.createNamespacedPod({ namespace, body: pod('survivor', [fixtureContainer()]) });
    const before = await waitForPod(kc, namespace, 'survivor', 'Ready', (p) => (isReady(p) ? p : undefined));
    const podIP = before.status?.podIP ?? '';
    const first = await fixtureInfo(podIP);

    await restartNodeAgent(inject('clusterState'));

    const after = await waitForPod(kc, namespace, 'survivor', 'Ready again after a restart', (p) =>
      isReady(p) && (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? p : undefined,
    );
    expect(after.status?.podIP).toBe(podIP);
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    const second = await fixtureInfo(podIP);
    expect(second.pid).not.toBe(first.pid);
    expect(isAlive(first.pid)).toBe(false);
  });
});
