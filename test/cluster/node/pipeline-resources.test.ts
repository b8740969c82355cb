import * as k8s from '@kubernetes/client-node';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../../chart/cluster.js';
import { client, objectsOf, type RunnerWorld } from '../../kubernetes/harness.js';
import { conditionOf, installCrd, type Json, pipelines } from '../../kubernetes/pipeline-resources.js';
import { waitFor } from '../control-plane/processes.js';
import { NODE, startRealNodeWorld } from './world.js';

// Issue 31's running parts on the real node: a Pipeline applied with kubectl runs as a container on
// the node (pod Running, Ready=True, `kubectl wait --for=condition=Ready` returns), is paused,
// resumed and suspended through its spec (the pipeline process's /pause, /start, /suspend), its
// state surviving the suspend, then stopped, and deleted: the finalizer stops it, clears its storage
// and deletes the record. The cluster project's test (test/kubernetes/pipeline-resources.test.ts)
// covers the rest on the node agent.

const NAME = 'orders';
const SQL =
  "CREATE TABLE t (x INT) WITH ('materialized' = 'true'); CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c FROM t;";

let world: RunnerWorld;
beforeAll(async () => {
  ({ world } = await startRealNodeWorld('real-crd', {}, ['--pipeline-resources']));
  await installCrd(world.admin);
});
afterAll(async () => world?.close());

/** `kubectl apply -f -` of the manifest with this spec. */
function apply(spec: Json): void {
  const manifest = { apiVersion: 'svc.dev/v1alpha1', kind: 'Pipeline', metadata: { name: NAME }, spec };
  const r = kubectl(['apply', '-n', world.namespace, '-f', '-'], dump(manifest));
  expect(r.status, r.stderr).toBe(0);
}

const statusOf = (r: Json) => (r['status'] ?? {}) as Json;

/** The resource once its status shows `deployment` at the current generation with Ready=True. */
async function reached(deployment: string): Promise<Json> {
  const k = pipelines(world.admin, world.namespace);
  let last: Json = {};
  try {
    return await waitFor(`${NAME}: ${deployment} and Ready`, 300_000, async () => {
      last = await k.get(NAME);
      const generation = (last['metadata'] as Json)['generation'];
      const s = statusOf(last);
      const ok =
        s['observedGeneration'] === generation &&
        s['deployment_status'] === deployment &&
        conditionOf(last, 'Ready')?.['status'] === 'True';
      return ok ? last : undefined;
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status: ${JSON.stringify(last['status'])}`, { cause: error });
  }
}

async function pipelinePods(): Promise<k8s.V1Pod[]> {
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  const pods = await core.listNamespacedPod({
    namespace: world.namespace,
    labelSelector: 'app.kubernetes.io/name=svc-pipeline',
  });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** The pipeline's one pod: on the real node, Running, its container of containerd ready. */
async function runningOnNode(id: string): Promise<k8s.V1Pod> {
  const pods = await pipelinePods();
  expect(pods.map((p) => p.metadata?.name)).toEqual([`pipeline-${id}-0`]);
  const pod = pods[0] as k8s.V1Pod;
  expect(pod.spec?.nodeName).toBe(NODE);
  expect(pod.status?.phase).toBe('Running');
  const container = pod.status?.containerStatuses?.find((c) => c.name === 'pipeline');
  expect(container?.containerID).toMatch(/^containerd:\/\//);
  expect(container?.ready).toBe(true);
  return pod;
}

describe('real node: a Pipeline resource', { timeout: 1_200_000 }, () => {
  it('kubectl apply → pod Running and Ready → Paused → Running → Suspended keeps its state → Stopped → delete', async () => {
    const rest = client(world);
    const spec = { description: 'orders', program: { sql: SQL }, desired_state: 'Running', storage_on_delete: 'Clear' };
    apply(spec);

    // `kubectl wait --for=condition=Ready`: the printer columns' condition, as a user waits for it.
    const wait = kubectl([
      'wait',
      '-n',
      world.namespace,
      '--for=condition=Ready',
      '--timeout=300s',
      `pipelines.svc.dev/${NAME}`,
    ]);
    expect(wait.status, wait.stderr).toBe(0);
    expect(wait.stdout).toContain('condition met');
    const running = await reached('Running');
    const id = String(statusOf(running)['pipeline_id']);
    const pod = await runningOnNode(id);

    // Rows in, through the API (data-path calls on a resource's pipeline still work).
    const ingress = await rest.call('POST', `/v0/pipelines/${NAME}/ingress/t?format=json&update_format=raw`, { x: 1 });
    expect(ingress.status).toBe(200);
    const count = async () =>
      (await rest.call('GET', `/v0/pipelines/${NAME}/query?format=json&sql=${encodeURIComponent('SELECT c FROM n')}`))
        .body;
    await expect.poll(count, { timeout: 60_000 }).toEqual({ c: 1 });

    // Paused through the spec: the same pod, its process paused (POST /pause), the resource Ready.
    apply({ ...spec, desired_state: 'Paused' });
    await reached('Paused');
    expect((await rest.call('GET', `/v0/pipelines/${NAME}`)).body).toMatchObject({
      deployment_runtime_status: 'Paused',
      deployment_resources_status: 'Provisioned',
    });
    expect((await pipelinePods()).map((p) => p.metadata?.uid)).toEqual([pod.metadata?.uid]);
    apply(spec);
    await reached('Running');
    expect((await pipelinePods()).map((p) => p.metadata?.uid)).toEqual([pod.metadata?.uid]);

    // Suspended: a checkpoint, then the process stops (pod gone, storage in use); Running again
    // resumes from it, the row still counted.
    apply({ ...spec, desired_state: 'Suspended' });
    const suspended = await reached('Stopped');
    expect(statusOf(suspended)['storage_status']).toBe('InUse');
    await waitFor('the pod gone after the suspend', 120_000, async () =>
      (await pipelinePods()).length === 0 ? true : undefined,
    );
    apply(spec);
    await reached('Running');
    await expect.poll(count, { timeout: 60_000 }).toEqual({ c: 1 });

    // Stopped: the pod goes, the resource is Ready in its desired state.
    apply({ ...spec, desired_state: 'Stopped' });
    await reached('Stopped');
    await waitFor('the pod gone after the stop', 120_000, async () =>
      (await pipelinePods()).length === 0 ? true : undefined,
    );

    // Delete: the finalizer clears the storage (the spec says Clear) and deletes the record.
    const del = kubectl(['delete', '-n', world.namespace, `pipelines.svc.dev/${NAME}`, '--timeout=240s']);
    expect(del.status, del.stderr).toBe(0);
    expect((await rest.call('GET', `/v0/pipelines/${NAME}`)).status).toBe(404);
    expect((await objectsOf(world, id)).pvcs).toEqual([]);
  });
});
