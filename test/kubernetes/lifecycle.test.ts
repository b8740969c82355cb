import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcProcess } from '../support/svc-process.js';
import { client, objectsOf, type RunnerWorld, startRunner, startWorld } from './harness.js';

// Issue 6, the full lifecycle through the HTTP API on the test cluster: StatefulSet, Service and
// ConfigMap appear and go, the PVC outlives a stop and carries the data into the next start, /clear
// deletes it.

let world: RunnerWorld;
let runner: SvcProcess;
beforeAll(async () => {
  world = await startWorld('runner-life');
  runner = await startRunner(world);
});
afterAll(async () => world?.close());

/** The objects of a running deployment, as KUBERNETES.md lists them; returns the PVC's uid. */
async function expectDeploymentObjects(id: string, deploymentId: string): Promise<string | undefined> {
  const objects = await objectsOf(world, id);
  expect(objects.statefulSets).toHaveLength(1);
  const sts = objects.statefulSets[0] as k8s.V1StatefulSet;
  expect(sts.metadata?.labels).toMatchObject({
    'app.kubernetes.io/managed-by': 'svc-runner',
    'app.kubernetes.io/name': 'svc-pipeline',
    'svc/pipeline-id': id,
    'svc/pipeline-name': 'life',
    'svc/deployment-id': deploymentId,
  });
  expect(sts.spec).toMatchObject({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' } });
  const managers = (sts.metadata?.managedFields ?? []).map((f) => `${f.manager}/${f.operation}`);
  expect(managers).toContain('svc-runner/Apply');
  for (const owned of [...objects.services, ...objects.configMaps]) {
    expect(owned.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'StatefulSet', uid: sts.metadata?.uid });
  }
  expect(objects.services[0]?.spec?.clusterIP).toBe('None');
  const config = JSON.parse(objects.configMaps[0]?.data?.['config.json'] ?? '{}') as Record<string, unknown>;
  expect(config['deployment_id']).toBe(deploymentId);
  await expectPodListed(id);
  expect(objects.pvcs).toHaveLength(1);
  return objects.pvcs[0]?.metadata?.uid;
}

/** What `kubectl get pods -l app.kubernetes.io/name=svc-pipeline` shows. */
async function expectPodListed(id: string): Promise<void> {
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  const pods = await core.listNamespacedPod({
    namespace: world.namespace,
    labelSelector: 'app.kubernetes.io/name=svc-pipeline',
  });
  expect(pods.items.map((p) => p.metadata?.name)).toEqual([`pipeline-${id}-0`]);
}

const checkpointsOf = (p: Record<string, unknown>): unknown[] =>
  (p['storage_status_details'] as { checkpoints?: unknown[] } | undefined)?.checkpoints ?? [];

describe('kubernetes runner: lifecycle', { timeout: 600_000 }, () => {
  it('create → start → Running → pause/resume → stop → start (same PVC, same data) → stop → clear → delete', async () => {
    const api = client(world);
    const created = await api.create('life');
    const id = String(created['id']);

    expect((await api.call('POST', '/v0/pipelines/life/start')).status).toBe(202);
    const running = await api.until('life', (p) => p['deployment_status'] === 'Running');

    const pvcUid = await expectDeploymentObjects(id, String(running['deployment_id']));

    // Forwarded calls reach the pod at the same address.
    expect((await api.call('POST', '/v0/pipelines/life/pause')).status).toBeLessThan(300);
    await api.until('life', (p) => p['deployment_status'] === 'Paused');
    expect((await api.call('POST', '/v0/pipelines/life/resume')).status).toBeLessThan(300);
    await api.until('life', (p) => p['deployment_status'] === 'Running');
    expect((await api.call('POST', '/v0/pipelines/life/checkpoint')).status).toBeLessThan(300);
    const checkpoints = checkpointsOf(await api.until('life', (p) => checkpointsOf(p).length > 0));

    expect((await api.call('POST', '/v0/pipelines/life/stop?force=true')).status).toBe(202);
    const stopped = await api.until('life', (p) => p['deployment_status'] === 'Stopped');
    expect(stopped['storage_status']).toBe('InUse');
    expect(stopped['deployment_error'] ?? null).toBeNull();
    const afterStop = await objectsOf(world, id);
    expect(afterStop.statefulSets).toEqual([]);
    expect(afterStop.pods).toEqual([]);
    expect(afterStop.services).toEqual([]);
    expect(afterStop.configMaps).toEqual([]);
    expect(afterStop.pvcs.map((p) => p.metadata?.uid)).toEqual([pvcUid]);

    // Started again: the same PVC, and the checkpoint written before is still there.
    expect((await api.call('POST', '/v0/pipelines/life/start')).status).toBe(202);
    const again = await api.until('life', (p) => p['deployment_status'] === 'Running');
    expect(again['deployment_id']).not.toBe(running['deployment_id']);
    expect((await objectsOf(world, id)).pvcs.map((p) => p.metadata?.uid)).toEqual([pvcUid]);
    const restored = await api.until('life', (p) => checkpointsOf(p).length > 0);
    expect(checkpointsOf(restored)).toEqual(expect.arrayContaining(checkpoints));

    expect((await api.call('POST', '/v0/pipelines/life/stop?force=true')).status).toBe(202);
    await api.until('life', (p) => p['deployment_status'] === 'Stopped');
    expect((await api.call('POST', '/v0/pipelines/life/clear')).status).toBe(202);
    await api.until('life', (p) => p['storage_status'] === 'Cleared');
    expect((await objectsOf(world, id)).pvcs).toEqual([]);

    // Each transition left an Event on the StatefulSet (`kubectl describe`).
    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const events = await core.listNamespacedEvent({
      namespace: world.namespace,
      fieldSelector: `involvedObject.name=pipeline-${id}`,
    });
    const reasons = events.items.map((e) => e.reason);
    for (const reason of ['Provisioning', 'Provisioned', 'Stopping', 'Stopped']) expect(reasons).toContain(reason);

    expect((await api.call('DELETE', '/v0/pipelines/life')).status).toBe(200);
    // The chart's Role was enough: no request of the runner was refused.
    expect(runner.lines.filter((l) => /forbidden/i.test(JSON.stringify(l)))).toEqual([]);
  });

  it('refuses a custom template when the runner does not allow them', async () => {
    const api = client(world);
    await api.create('custom', { pipeline_template_configmap: { name: 'svc-pipeline-template' } });
    expect((await api.call('POST', '/v0/pipelines/custom/start')).status).toBe(202);
    const stopped = await api.until('custom', (p) => p['deployment_error'] != null);
    expect(stopped['deployment_status']).toBe('Stopped');
    expect(stopped['deployment_error']).toMatchObject({
      error_code: 'TemplateError',
      details: { config_map: 'svc-pipeline-template', key: 'pipelineTemplate' },
    });
    expect(String((stopped['deployment_error'] as Record<string, unknown>)['message'])).toContain('not allowed');
    expect((await objectsOf(world, String(stopped['id']))).statefulSets).toEqual([]);
  });
});
