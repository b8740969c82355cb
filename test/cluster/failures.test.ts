// The container failures the runner must recognise: an image the node cannot pull, and a process
// that keeps exiting.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitForPod } from './helpers.js';
import { EXIT_AT_ONCE, pod } from './specs.js';

describe('container failures', () => {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createNamespace(kc, 'fail');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  it('reports ImagePullBackOff for an image the node does not know', async () => {
    const body = pod('no-image', [{ name: 'main', image: 'registry.invalid/nothing-here:1' }]);
    await core.createNamespacedPod({ namespace, body });
    const seen = new Set<string>();
    const p = await waitForPod(kc, namespace, 'no-image', 'ImagePullBackOff', (p) => {
      const reason = p.status?.containerStatuses?.[0]?.state?.waiting?.reason;
      if (reason) seen.add(reason);
      return reason === 'ImagePullBackOff' ? p : undefined;
    });
    expect(p.status?.phase).toBe('Pending');
    expect(p.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect(p.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain('registry.invalid/nothing-here:1');
    expect([...seen].every((r) => r === 'ErrImagePull' || r === 'ImagePullBackOff')).toBe(true);
  });

  it('reports CrashLoopBackOff with restarts for a process that exits at once', async () => {
    await core.createNamespacedPod({ namespace, body: pod('crasher', [{ name: 'main', image: EXIT_AT_ONCE }]) });
    const p = await waitForPod(kc, namespace, 'crasher', 'CrashLoopBackOff after 2 restarts', (p) => {
      const cs = p.status?.containerStatuses?.[0];
      return cs?.state?.waiting?.reason === 'CrashLoopBackOff' && cs.restartCount >= 2 ? p : undefined;
    });
    const cs = p.status?.containerStatuses?.[0];
    // The fixture exits with 3; the last exit is kept as lastState while the container waits.
    expect(cs?.lastState?.terminated?.exitCode).toBe(3);
    expect(cs?.lastState?.terminated?.reason).toBe('Error');
    expect(cs?.ready).toBe(false);
    expect(p.status?.phase).toBe('Running');
    expect(p.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it('does not restart a failed container of a restartPolicy Never pod', async () => {
    await core.createNamespacedPod({ namespace, body: pod('once', [{ name: 'main', image: EXIT_AT_ONCE }], 'Never') });
    const p = await waitForPod(kc, namespace, 'once', 'Failed', (p) => (p.status?.phase === 'Failed' ? p : undefined));
    const cs = p.status?.containerStatuses?.[0];
    expect(cs?.state?.terminated?.exitCode).toBe(3);
    expect(cs?.restartCount).toBe(0);
  });
});
