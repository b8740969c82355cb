import { randomUUID } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterCache } from '../../src/runner/backends/kubernetes/cache.js';
import { connect } from '../../src/runner/backends/kubernetes/kube.js';
import { createRunnerMetrics } from '../../src/runner/metrics.js';
import { adminConfig, createNamespace, deleteNamespace, serviceAccountAccess, waitFor } from '../cluster/helpers.js';
import { chartRunnerRules } from './harness.js';

// The runner's informers against a real API server with a real fault: the account may not list pods
// at first (403), so the pod informer fails and is restarted with a back-off until the Role is fixed;
// then it syncs, and a change to a labelled object wakes that pipeline.

const admin = adminConfig();
let namespace: string;
beforeAll(async () => {
  namespace = await createNamespace(admin, 'informers');
});
afterAll(async () => deleteNamespace(admin, namespace));

describe('runner informers', { timeout: 180_000 }, () => {
  it('restart after a failed list, sync once allowed, and wake the pipeline an event belongs to', async () => {
    const rules = chartRunnerRules();
    const withoutPods = rules.map((r) => ({ ...r, resources: r.resources?.filter((x) => x !== 'pods') }));
    const access = await serviceAccountAccess(admin, {
      namespace,
      name: 'runner',
      rules: withoutPods.filter((r) => (r.resources?.length ?? 0) > 0),
    });
    const registry = new Registry();
    const metrics = createRunnerMetrics(registry);
    const kube = connect({ kubeconfig: access.kubeconfigPath, namespace, metrics });
    const woken: string[] = [];
    const cache = new ClusterCache({
      kube,
      log: pino({ level: 'silent' }),
      metrics,
      onPipeline: (id) => woken.push(id),
    });
    try {
      let synced = false;
      const first = cache.watch(namespace).then(() => (synced = true));
      first.catch(() => undefined);
      const restarts = async () =>
        (await metrics.informerRestarts.get()).values.find((v) => v.labels.resource === 'pods')?.value ?? 0;
      await waitFor('pod informer restarted', 30_000, async () => ((await restarts()) >= 2 ? true : undefined));
      expect(synced).toBe(false);

      await admin.makeApiClient(k8s.RbacAuthorizationV1Api).replaceNamespacedRole({
        name: 'runner',
        namespace,
        body: { metadata: { name: 'runner', namespace }, rules },
      });
      await cache.watch(namespace);

      const pipelineId = randomUUID();
      await admin.makeApiClient(k8s.CoreV1Api).createNamespacedPod({
        namespace,
        body: {
          metadata: {
            name: `pipeline-${pipelineId}-0`,
            labels: { 'app.kubernetes.io/managed-by': 'svc-runner', 'svc/pipeline-id': pipelineId },
          },
          spec: { containers: [{ name: 'c', image: 'svc-test/no-such-image:1' }] },
        },
      });
      await waitFor('the pod wakes its pipeline', 30_000, async () => (woken.includes(pipelineId) ? true : undefined));
      const observed = await cache.observed(namespace, pipelineId);
      expect(observed.pod?.metadata?.name).toBe(`pipeline-${pipelineId}-0`);
    } finally {
      await cache.close();
    }
  });
});
