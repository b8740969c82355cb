import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitLines } from '../../../src/http/log-lines.js';
import { message, startSvc, type SvcProcess } from '../../support/svc-process.js';
import { client, type Json, type RunnerWorld } from '../../kubernetes/harness.js';
import { sortedIds, steadyIngress, tableIds } from './steady-ingress.js';
import { startRealNodeWorld } from './world.js';

// Issue 29 on the real node (containerd + kubelet): a fault-tolerant pipeline under steady ingress
// whose pod is deleted writes a checkpoint at SIGTERM, exits within its grace period, comes back in a
// new pod and holds exactly what was acknowledged; its log is read through the API (`GET /logs`, the
// runner reading `pods/log`), follow included; a ResourceQuota refusal is read at once.

const PROGRAM = `CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');`;
const GRACE_SECS = 120; // templates/pipeline-template.yaml terminationGracePeriodSeconds

let world: RunnerWorld;
let runner: SvcProcess;
/** `svc api-server --runner-url <the runner>`: the API whose /logs reads through the runner. */
let logsApi: string;
beforeAll(async () => {
  ({ world, runner } = await startRealNodeWorld('real-podloss', {}));
  const ready = runner.lines.find((l) => message(l).startsWith('svc runner ready'));
  const runnerUrl = String((ready?.['fields'] as Json | undefined)?.['url']);
  const api = startSvc(['api-server', '--port', '0', '--database-url', world.databaseUrl, '--runner-url', runnerUrl]);
  world.procs.push(api);
  const line = await api.waitForLine((l) => message(l).startsWith('svc manager ready at'), 90_000);
  logsApi = String((line['fields'] as Json)['url']);
}, 300_000);
afterAll(async () => world?.close());

describe('real node: pod loss', { timeout: 600_000 }, () => {
  it('delete pod under steady ingress: SIGTERM checkpoint, exit within the grace, back Running with everything acknowledged; /logs follows', async () => {
    const api = client(world);
    const created = await api.create('steady', { fault_tolerance: { checkpoint_interval_secs: 3600 } }, PROGRAM);
    const id = String(created['id']);
    expect((await api.call('POST', '/v0/pipelines/steady/start')).status).toBe(202);
    const before = await api.until('steady', (p) => p['deployment_status'] === 'Running', 300_000);
    const url = (path: string) => `${world.api}/v0/pipelines/steady${path}`;

    // The log through the API, followed: it must show the checkpoint at SIGTERM, then end with the container.
    const logs = await fetch(`${logsApi}/v0/pipelines/steady/logs`);
    expect(logs.status).toBe(200);
    const followed: string[] = [];
    const following = (async () => {
      for await (const line of splitLines(logs.body as AsyncIterable<Uint8Array>)) followed.push(line);
    })();

    // Steady ingress: one row every 50 ms; a row counts as acknowledged when its POST answered 200.
    const ingress = steadyIngress(url(''));
    await expect.poll(() => ingress.acknowledged.length, { timeout: 60_000 }).toBeGreaterThan(20);

    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const pod = `pipeline-${id}-0`;
    const oldUid = (await core.readNamespacedPod({ name: pod, namespace: world.namespace })).metadata?.uid;
    const t0 = Date.now();
    await core.deleteNamespacedPod({ name: pod, namespace: world.namespace });
    // The old pod is gone once its container exited (the checkpoint first) and the kubelet tore it down.
    let goneMs = 0;
    await expect
      .poll(
        async () => {
          const now = await core.readNamespacedPod({ name: pod, namespace: world.namespace }).catch(() => undefined);
          goneMs = Date.now() - t0;
          return now?.metadata?.uid !== oldUid;
        },
        { timeout: GRACE_SECS * 1000 + 60_000, interval: 200 },
      )
      .toBe(true);
    const back = await api.until(
      'steady',
      (p) => p['deployment_status'] === 'Running' && p['deployment_status_since'] !== before['deployment_status_since'],
      300_000,
    );
    const unavailableMs = Date.now() - t0;
    await ingress.stop();
    console.log(
      `pod deleted → old pod gone in ${goneMs} ms (grace ${GRACE_SECS} s); Running again after ${unavailableMs} ms`,
    );
    expect(goneMs).toBeLessThan(GRACE_SECS * 1000);
    expect(back['deployment_error'] ?? null).toBeNull();
    expect(back['deployment_id']).toBe(before['deployment_id']);

    // The old container's log, followed through the API until it ended, shows the checkpoint at SIGTERM.
    await following;
    const records = followed.map((l) => JSON.parse(l) as Json);
    // Seed 6.3: the payload is under `fields`.
    expect(
      records.some((r) => (r['fields'] as Json | undefined)?.['message'] === 'checkpoint written before exit'),
    ).toBe(true);

    // Everything acknowledged (before, during and after the loss) is there, and nothing else.
    expect(await tableIds(url(''))).toEqual(sortedIds(ingress.acknowledged));

    const events = await core.listNamespacedEvent({
      namespace: world.namespace,
      fieldSelector: `involvedObject.name=pipeline-${id},reason=PipelinePodLost`,
    });
    expect(events.items).toHaveLength(1);
    expect(runner.lines.some((l) => message(l).startsWith(`pipeline pod ${pod} lost`))).toBe(true);
    expect((await api.call('POST', '/v0/pipelines/steady/stop?force=true')).status).toBe(202);
    await api.until('steady', (p) => p['deployment_status'] === 'Stopped', 300_000);
  });

  it('a ResourceQuota refusing the pod: deployment_error FailedCreate naming the quota', async () => {
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedResourceQuota({
      namespace: world.namespace,
      body: { metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } },
    });
    try {
      const api = client(world);
      await api.create('quota', { fault_tolerance: {} }, PROGRAM);
      const t0 = Date.now();
      expect((await api.call('POST', '/v0/pipelines/quota/start')).status).toBe(202);
      const failed = await api.until('quota', (p) => p['deployment_error'] != null, 120_000);
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
