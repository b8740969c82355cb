import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, helmOk, kubectl, podIP, readyPod, secretValue } from '../../chart/cluster.js';
import { chartDir, helm } from '../../chart/helm.js';
import { adminConfig, adminKubeconfigPath, createNamespace, deleteNamespace, waitFor } from '../helpers.js';
import { BoundVolumes, installOnRealNode } from './helm-release.js';

// Issue 29 on the real node, the chart's side: `helm upgrade` while a pipeline runs rolls the
// control plane (api-server, compiler-server, runner: new pods) and leaves the pipeline running and
// managed, its record Running throughout; the upgrade also scales the compiler-server to two
// replicas. Then the compiler-server pod is deleted: a pipeline compiled before, stopped with a
// checkpoint and started again, fetches its program from a compiler-server that never compiled it
// (an empty data dir), which rebuilds it from the record, and resumes with its data.

const RELEASE = 'roll';
const FULL = `${RELEASE}-svc`;
const PIPELINE = 'kept';
const PROGRAM = "CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');";
const CONTROL_PLANE = ['api-server', 'compiler-server', 'kubernetes-runner'] as const;

type Json = Record<string, unknown>;

const admin = adminConfig();
const core = admin.makeApiClient(k8s.CoreV1Api);
let namespace = '';
let volumes: BoundVolumes;
let key = '';
let id = '';

const isReady = (pod: k8s.V1Pod) =>
  !pod.metadata?.deletionTimestamp &&
  (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The release's Ready pods of `component`. */
async function readyPods(component: string): Promise<k8s.V1Pod[]> {
  const labelSelector = `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`;
  return (await core.listNamespacedPod({ namespace, labelSelector })).items.filter(isReady);
}

/** A call to the API at whichever api-server pod is Ready now (the upgrade replaces it). */
async function call(path: string, init: { method?: string; body?: unknown } = {}) {
  for (const pod of await readyPods('api-server')) {
    const answer = await api(`http://${podIP(pod)}:8080`, path, { ...init, key }).catch(() => undefined);
    if (answer) return answer;
  }
  return undefined;
}

const record = async (): Promise<Json | undefined> => (await call(`/v0/pipelines/${PIPELINE}`))?.body as Json;

const until = (what: string, pred: (p: Json) => boolean, timeout = 240_000): Promise<Json> =>
  waitFor(`pipeline ${PIPELINE}: ${what}`, timeout, async () => {
    const p = await record();
    if (p?.['deployment_error'] != null) throw new Error(`deployment_error: ${JSON.stringify(p)}`);
    return p && pred(p) ? p : undefined;
  });

/** Rows of t, as JSON lines through the API (the data path: `api()` would send one JSON array). */
async function ingest(ids: number[]): Promise<void> {
  const [pod] = await readyPods('api-server');
  const r = await fetch(
    `http://${podIP(pod as k8s.V1Pod)}:8080/v0/pipelines/${PIPELINE}/ingress/t?format=json&update_format=raw`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: ids.map((n) => JSON.stringify({ id: n })).join('\n'),
    },
  );
  expect(r.status, await r.text()).toBe(200);
}

async function count(): Promise<unknown> {
  const sql = encodeURIComponent('SELECT count(*) AS n FROM t');
  const answer = await call(`/v0/pipelines/${PIPELINE}/query?format=json&sql=${sql}`);
  expect(answer?.status).toBe(200);
  return answer?.body;
}

const uidsOf = async (component: string) => (await readyPods(component)).map((p) => p.metadata?.uid);
const pipelinePodUid = async () =>
  (await core.readNamespacedPod({ name: `pipeline-${id}-0`, namespace })).metadata?.uid;

beforeAll(async () => {
  namespace = await createNamespace(admin, 'helm-upgrade');
  volumes = new BoundVolumes(core, namespace);
  await volumes.make(`data-${FULL}-postgresql-0`, 999);
  installOnRealNode(namespace, RELEASE);
  for (const component of CONTROL_PLANE) await readyPod(admin, namespace, RELEASE, component);
  key = await secretValue(admin, namespace, `${FULL}-api-key`, 'api-key');
});
afterAll(async () => {
  if (namespace) {
    helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
    await deleteNamespace(admin, namespace);
  }
  await volumes?.removeAll();
});

describe('real node: helm upgrade and a lost compiler-server under a running pipeline', { timeout: 600_000 }, () => {
  it('helm upgrade rolls the control plane; the pipeline keeps its pod, keeps Running and stays managed', async () => {
    const created = await call('/v0/pipelines', {
      method: 'POST',
      body: { name: PIPELINE, program_code: PROGRAM, runtime_config: { fault_tolerance: {} } },
    });
    expect(created?.status, JSON.stringify(created?.body)).toBe(201);
    id = String((created?.body as Json)['id']);
    await volumes.make(`storage-pipeline-${id}-0`, 1000);
    await until('compiled', (p) => p['program_status'] === 'Success');
    expect((await call(`/v0/pipelines/${PIPELINE}/start`, { method: 'POST' }))?.status).toBe(202);
    const before = await until('Running', (p) => p['deployment_status'] === 'Running');
    await ingest([1, 2, 3]);
    const pipelinePod = await pipelinePodUid();
    const old = Object.fromEntries(await Promise.all(CONTROL_PLANE.map(async (c) => [c, await uidsOf(c)])));

    // The record as the API shows it, every 500 ms through the upgrade (whichever api-server answers).
    const seen: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const p = await record();
        if (p) seen.push(`${String(p['deployment_status'])}${p['deployment_error'] ? ' with error' : ''}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    // helm as a child process (not helmOk's spawnSync), so that the watcher keeps polling meanwhile.
    const upgraded = await promisify(execFile)(
      helm(),
      [
        ...['upgrade', RELEASE, chartDir, '--namespace', namespace, '--reuse-values'],
        ...['--set', 'controlPlane.podAnnotations.upgraded=yes,compilerServer.replicas=2'],
        ...['--wait', '--timeout', '5m'],
      ],
      { env: { ...process.env, KUBECONFIG: adminKubeconfigPath() } },
    );
    expect(upgraded.stdout).toContain('has been upgraded');
    // Every old control-plane pod replaced by a new one (--wait: the new ReplicaSets are Ready).
    for (const component of CONTROL_PLANE) {
      await waitFor(`${component} rolled`, 180_000, async () => {
        const now = await uidsOf(component);
        const want = component === 'compiler-server' ? 2 : 1;
        return now.length === want && now.every((uid) => !old[component]?.includes(uid)) ? true : undefined;
      });
    }
    // The new runner holds the Lease and acts: a change of the pipeline's desired state goes through it.
    const [runner] = await readyPods('kubernetes-runner');
    await waitFor('the new runner holds the Lease', 120_000, async () => {
      const lease = await admin
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: `${FULL}-runner`, namespace });
      return lease.spec?.holderIdentity?.includes(String(runner?.metadata?.name)) ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 5_000)); // a few looks of the new runner
    watching = false;
    await watcher;

    console.log(`record during the upgrade: ${seen.length} looks, ${JSON.stringify([...new Set(seen)])}`);
    expect(seen.length).toBeGreaterThan(10);
    expect(new Set(seen)).toEqual(new Set(['Running']));
    const after = await until('Running after the upgrade', (p) => p['deployment_status'] === 'Running');
    expect(after['deployment_id']).toBe(before['deployment_id']);
    expect(after['deployment_status_since']).toBe(before['deployment_status_since']);
    expect(await pipelinePodUid()).toBe(pipelinePod);
    await ingest([4, 5]);
    expect(await count()).toEqual({ n: 5 });
    // Managed by the new control plane: a pause reaches the pipeline and comes back in the record.
    expect([200, 202]).toContain((await call(`/v0/pipelines/${PIPELINE}/pause`, { method: 'POST' }))?.status);
    await until('Paused', (p) => p['deployment_status'] === 'Paused');
    expect([200, 202]).toContain((await call(`/v0/pipelines/${PIPELINE}/resume`, { method: 'POST' }))?.status);
    await until('Running again', (p) => p['deployment_status'] === 'Running');
  });

  it('compiler-server pods deleted: the pipeline compiled before starts, its program rebuilt from the record', async () => {
    // A stop with a checkpoint: the next start is a new pod that fetches its program again.
    const suspended = await call(`/v0/pipelines/${PIPELINE}/stop`, { method: 'POST' });
    expect(suspended?.status, JSON.stringify(suspended?.body)).toBe(202);
    await until('Stopped', (p) => p['deployment_status'] === 'Stopped');

    const old = await uidsOf('compiler-server');
    const deleted = kubectl([
      ...['delete', 'pod', '-n', namespace, '--wait=true'],
      ...['-l', `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=compiler-server`],
    ]);
    expect(deleted.status, deleted.stderr).toBe(0);
    const fresh = await waitFor('two new compiler-server pods Ready', 180_000, async () => {
      const pods = await readyPods('compiler-server');
      return pods.length === 2 && pods.every((p) => !old.includes(p.metadata?.uid)) ? pods : undefined;
    });

    expect((await call(`/v0/pipelines/${PIPELINE}/start`, { method: 'POST' }))?.status).toBe(202);
    const running = await until('Running from the new compiler-servers', (p) => p['deployment_status'] === 'Running');
    expect(running['program_status']).toBe('Success');
    expect(await count()).toEqual({ n: 5 });
    // One of the new pods (none of which compiled it) rebuilt the program when the pipeline's pod asked.
    const logs = fresh.map((p) => {
      const r = kubectl(['logs', '-n', namespace, String(p.metadata?.name)]);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    });
    expect(logs.some((text) => text.includes('from the pipeline record'))).toBe(true);

    expect((await call(`/v0/pipelines/${PIPELINE}/stop?force=true`, { method: 'POST' }))?.status).toBe(202);
    await until('Stopped at the end', (p) => p['deployment_status'] === 'Stopped');
  });
});
