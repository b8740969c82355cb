import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, type SvcProcess } from '../support/svc-process.js';
import { client, type Json, type RunnerWorld, startRunner, startWorld } from './harness.js';

// Issue 29 on the test cluster (the node agent runs pods as processes; the real node's tests are in
// test/cluster/node/pod-loss.test.ts): a fault-tolerant pipeline survives the loss of its pod, a
// SIGTERM checkpoint keeps what was acknowledged, more losses than tolerated end in deployment_error,
// a pipeline without fault tolerance stops at the first, and a ResourceQuota refusal is read at once.

let world: RunnerWorld;
let runner: SvcProcess;
beforeAll(async () => {
  world = await startWorld('runner-podloss');
  // One loss tolerated within 10 minutes: the second is fatal.
  runner = await startRunner(world, ['--pod-restart-limit', '1', '--pod-restart-window-secs', '600']);
});
afterAll(async () => world?.close());

const PROGRAM = `CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');`;

function pipeline(name: string) {
  const api = client(world);
  const url = (path: string) => `${world.api}/v0/pipelines/${name}${path}`;
  return {
    api,
    async start() {
      expect((await api.call('POST', `/v0/pipelines/${name}/start`)).status).toBe(202);
      return api.until(name, (p) => p['deployment_status'] === 'Running');
    },
    async push(ids: number[]) {
      const r = await fetch(url('/ingress/t?format=json&update_format=raw&array=true'), {
        method: 'POST',
        body: JSON.stringify(ids.map((id) => ({ id }))),
      });
      expect(r.status).toBe(200);
    },
    async rows() {
      return (await fetch(url(`/query?format=json&sql=${encodeURIComponent('SELECT id FROM t ORDER BY id')}`))).text();
    },
  };
}

const deletePod = async (id: unknown, gracePeriodSeconds?: number) =>
  world.admin.makeApiClient(k8s.CoreV1Api).deleteNamespacedPod({
    name: `pipeline-${String(id)}-0`,
    namespace: world.namespace,
    ...(gracePeriodSeconds !== undefined && { gracePeriodSeconds }),
  });

/** The runner told the loss (its log line); then Running again, since a status change after `before`. */
async function backAfterLoss(p: ReturnType<typeof pipeline>, name: string, id: unknown, before: Json) {
  await runner.waitForLine((l) => message(l).startsWith(`pipeline pod pipeline-${String(id)}-0 lost`));
  return p.api.until(
    name,
    (r) => r['deployment_status'] === 'Running' && r['deployment_status_since'] !== before['deployment_status_since'],
  );
}

describe('kubernetes runner: pod loss', { timeout: 600_000 }, () => {
  it('fault tolerance: a deleted pod comes back with everything acknowledged (SIGTERM checkpoint); a second loss is fatal', async () => {
    const p = pipeline('ft');
    // An hour between automatic checkpoints: the only one is written at SIGTERM.
    const created = await p.api.create('ft', { fault_tolerance: { checkpoint_interval_secs: 3600 } }, PROGRAM);
    const before = await p.start();
    await p.push([1, 2, 3]);
    expect(await p.rows()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');

    await deletePod(created['id']); // the default grace: SIGTERM, then the checkpoint, then exit
    const back = await backAfterLoss(p, 'ft', created['id'], before);
    expect(back['deployment_error'] ?? null).toBeNull();
    expect(back['deployment_id']).toBe(before['deployment_id']);
    expect(await p.rows()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');

    // The loss is an Event on the StatefulSet (kubectl describe statefulset pipeline-<id>).
    const events = await world.admin.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({
      namespace: world.namespace,
      fieldSelector: `involvedObject.name=pipeline-${String(created['id'])},reason=PipelinePodLost`,
    });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]?.message).toMatch(/^pod pipeline-.*-0 lost \(.+\); restart 1 of 1 tolerated within 600 s/);

    // A second loss within the window: more than the one tolerated.
    await deletePod(created['id'], 0);
    const failed = await p.api.until('ft', (r) => r['deployment_status'] === 'Stopped');
    expect(failed['deployment_error']).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', message: expect.stringContaining('2 restarts within 600 s, more than the 1 tolerated') },
    });
    expect(failed['storage_status']).toBe('InUse');

    // The StatefulSet is gone with the stop; its Events are found by the pipeline's name.
    const byName = await world.admin.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({
      namespace: world.namespace,
      labelSelector: 'svc/pipeline-name=ft',
    });
    expect(new Set(byName.items.map((e) => e.reason))).toEqual(
      new Set(['Provisioning', 'Provisioned', 'PipelinePodLost', 'Stopping', 'Stopped']),
    );
  });

  it('without fault tolerance the first loss stops the pipeline with the error, as before', async () => {
    const p = pipeline('noft');
    const created = await p.api.create('noft', {}, PROGRAM);
    await p.start();
    await deletePod(created['id'], 0);
    const failed = await p.api.until('noft', (r) => r['deployment_status'] === 'Stopped');
    expect(failed['deployment_error']).toMatchObject({ error_code: 'ResourceError', details: { kind: 'Pod' } });
  });

  it('a ResourceQuota refusing the pod: deployment_error FailedCreate naming the quota, not the timeout', async () => {
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedResourceQuota({
      namespace: world.namespace,
      body: { metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } },
    });
    try {
      const p = pipeline('quota');
      await p.api.create('quota', { fault_tolerance: {}, provisioning_timeout_secs: 600 }, PROGRAM);
      const t0 = Date.now();
      expect((await p.api.call('POST', '/v0/pipelines/quota/start')).status).toBe(202);
      const failed = await p.api.until('quota', (r) => r['deployment_error'] != null, 120_000);
      console.log(`quota refusal → deployment_error in ${Date.now() - t0} ms`);
      expect(failed['deployment_error']).toMatchObject({
        error_code: 'ResourceError',
        details: { kind: 'StatefulSet', reason: 'FailedCreate', message: expect.stringContaining('no-pods') },
      });
    } finally {
      await core.deleteNamespacedResourceQuota({ name: 'no-pods', namespace: world.namespace });
    }
  });
});
