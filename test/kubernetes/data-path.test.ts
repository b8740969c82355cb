import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, type SvcProcess } from '../support/svc-process.js';
import { client, type RunnerWorld, startRunner, startWorld } from './harness.js';

// Issue 15 on the test cluster: the data path through the API to a pipeline pod the Kubernetes
// runner deployed (the manager forwards to the pod's address): ingress → egress stream → query →
// checkpoint → the pod killed (fault tolerance: the StatefulSet brings it back, the pipeline resumes
// from the checkpoint with no deployment_error; issue 29) → stop → start → intact → clear → empty.

let world: RunnerWorld;
let runner: SvcProcess;
beforeAll(async () => {
  world = await startWorld('runner-data');
  runner = await startRunner(world);
});
afterAll(async () => world?.close());

const PROGRAM = `CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW big AS SELECT id FROM t WHERE id > 1;`;

describe('kubernetes runner: data path', { timeout: 600_000 }, () => {
  it('ingress → egress → query → checkpoint → pod killed → back, resumed → stop → start → clear → empty', async () => {
    const api = client(world);
    const created = await api.create('flow', { fault_tolerance: {} }, PROGRAM);
    const url = (path: string) => `${world.api}/v0/pipelines/flow${path}`;
    const running = () => api.until('flow', (p) => p['deployment_status'] === 'Running');
    const start = async () => {
      expect((await api.call('POST', '/v0/pipelines/flow/start')).status).toBe(202);
      await running();
    };
    const query = async () =>
      (await fetch(url(`/query?format=json&sql=${encodeURIComponent('SELECT id FROM big ORDER BY id')}`))).text();
    const push = async (ids: number[]) => {
      const r = await fetch(url('/ingress/t?format=json&update_format=raw&array=true'), {
        method: 'POST',
        body: JSON.stringify(ids.map((id) => ({ id }))),
      });
      expect(r.status).toBe(200);
      const { token } = (await r.json()) as { token: string };
      await expect
        .poll(async () => (await fetch(url(`/completion_status?token=${token}`))).status, {
          timeout: 30_000,
          interval: 100,
        })
        .toBe(200);
    };
    await start();

    const egress = await fetch(url('/egress/big?format=json'), { method: 'POST' });
    expect(egress.status).toBe(200);
    const reader = egress.body!.getReader();
    await push([1, 2, 3]);
    let streamed = '';
    while (!streamed.includes('json_data')) streamed += new TextDecoder().decode((await reader.read()).value);
    const chunk = JSON.parse(streamed.split('\n').find((l) => l.includes('json_data'))!) as { json_data: unknown[] };
    expect(chunk.json_data).toHaveLength(2);
    expect(chunk.json_data).toEqual(expect.arrayContaining([{ insert: { id: 2 } }, { insert: { id: 3 } }]));
    await reader.cancel();
    expect(await query()).toBe('{"id":2}\n{"id":3}\n');

    const cp = await fetch(url('/checkpoint'), { method: 'POST' });
    expect(cp.status).toBe(200);
    await push([4]);
    expect(await query()).toBe('{"id":2}\n{"id":3}\n{"id":4}\n');

    // The pod is killed (grace 0: no time for a checkpoint at SIGTERM). With fault tolerance the
    // StatefulSet brings it back and it resumes from the checkpoint, at a new address (pod-ip), with
    // no deployment_error and the same deployment. 4 came after the checkpoint and is not replayed.
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const before = await api.get('flow');
    await core.deleteNamespacedPod({
      name: `pipeline-${String(created['id'])}-0`,
      namespace: world.namespace,
      gracePeriodSeconds: 0,
    });
    await runner.waitForLine((l) => message(l).startsWith(`pipeline pod pipeline-${String(created['id'])}-0 lost`));
    // Running again since then (Unavailable meanwhile moved the status's since).
    const back = await api.until(
      'flow',
      (p) => p['deployment_status'] === 'Running' && p['deployment_status_since'] !== before['deployment_status_since'],
    );
    expect(back['deployment_error'] ?? null).toBeNull();
    expect(back['deployment_id']).toBe(before['deployment_id']);
    expect(await query()).toBe('{"id":2}\n{"id":3}\n');

    expect([200, 202]).toContain((await api.call('POST', '/v0/pipelines/flow/stop?force=false')).status);
    await api.until('flow', (p) => p['deployment_status'] === 'Stopped');
    await start();
    expect(await query()).toBe('{"id":2}\n{"id":3}\n');

    expect((await api.call('POST', '/v0/pipelines/flow/stop?force=true')).status).toBe(202);
    await api.until('flow', (p) => p['deployment_status'] === 'Stopped');
    expect((await api.call('POST', '/v0/pipelines/flow/clear')).status).toBe(202);
    await api.until('flow', (p) => p['storage_status'] === 'Cleared');
    await start();
    expect(await query()).toBe('');
    expect((await api.call('POST', '/v0/pipelines/flow/stop?force=true')).status).toBe(202);
  });
});
