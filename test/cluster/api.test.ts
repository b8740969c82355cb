// API behaviour the runner builds on: server-side apply is idempotent (a re-apply after a crash
// writes nothing), and a watch delivers a pod's life in order.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitFor } from './helpers.js';
import { fixtureContainer, pod } from './specs.js';

describe('API semantics', () => {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createNamespace(kc, 'api');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  const apply = <T extends k8s.KubernetesObject>(obj: T) =>
    objects.patch(obj, undefined, undefined, 'svc-runner', true, k8s.PatchStrategy.ServerSideApply);

  it('server-side apply of the same object twice is a no-op', async () => {
    const cm = (data: Record<string, string>): k8s.V1ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'config', namespace, labels: { 'app.kubernetes.io/managed-by': 'svc-runner' } },
      data,
    });
    const first = await apply(cm({ 'deployment.yaml': 'a: 1\n' }));
    const again = await apply(cm({ 'deployment.yaml': 'a: 1\n' }));
    expect(first.metadata?.resourceVersion).toBeDefined();
    expect(again.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(again.metadata?.managedFields?.map((f) => f.manager)).toEqual(['svc-runner']);
    // A real change does write (so the equality above is not vacuous).
    const changed = await apply(cm({ 'deployment.yaml': 'a: 2\n' }));
    expect(changed.metadata?.resourceVersion).not.toBe(first.metadata?.resourceVersion);
  });

  it("a watch sees the pod's transitions in order", async () => {
    const states: string[] = [];
    const stateOf = (phase: string, p: k8s.V1Pod): string => {
      if (phase === 'DELETED') return 'Deleted';
      if (p.metadata?.deletionTimestamp) return 'Terminating';
      if (!p.spec?.nodeName) return 'Pending/unscheduled';
      const ready = p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return `${p.status?.phase ?? 'Pending'}/${ready ? 'ready' : 'not-ready'}`;
    };
    const watch = new k8s.Watch(kc);
    const request = await watch.watch(
      `/api/v1/namespaces/${namespace}/pods`,
      { fieldSelector: 'metadata.name=watched' },
      (phase, obj: k8s.V1Pod) => {
        const state = stateOf(phase, obj);
        if (states.at(-1) !== state) states.push(state);
      },
      () => undefined,
    );
    try {
      await core.createNamespacedPod({ namespace, body: pod('watched', [fixtureContainer()]) });
      await waitFor('pod Ready in the watch', 90_000, async () =>
        states.includes('Running/ready') ? true : undefined,
      );
      await core.deleteNamespacedPod({ name: 'watched', namespace });
      await waitFor('pod deletion in the watch', 90_000, async () => (states.includes('Deleted') ? true : undefined));
    } finally {
      request.abort();
    }
    expect(states).toEqual([
      'Pending/unscheduled',
      'Pending/not-ready',
      'Running/not-ready',
      'Running/ready',
      'Terminating',
      'Deleted',
    ]);
  });
});
