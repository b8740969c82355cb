import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, helmOk, kubectl, podIP, readyPod, secretValue } from '../../chart/cluster.js';
import { chartDir, helm } from '../../chart/helm.js';
import { adminConfig, adminKubeconfigPath, createNamespace, deleteNamespace, waitFor } from '../helpers.js';
import { BoundVolumes, installOnRealNode, splitImage } from './helm-release.js';
import { type SteadyIngress, sortedIds, steadyIngress, tableIds } from './steady-ingress.js';

// Issue 29 on the real node, the chart's side: `helm upgrade` to a new image (images.sh's svc-next:
// the same svc, a label and a file more) while a fault-tolerant pipeline runs under steady ingress
// rolls the control plane (api-server, compiler-server, runner: new pods on the new image) and leaves
// the pipeline running on its old image and managed, its record Running throughout; the upgrade also
// scales the compiler-server to two replicas. Then the move to the new image, as docs/kubernetes.md
// says (a stop with a checkpoint, then a start), after the compiler-server pods were deleted: the
// pipeline's new pod runs the new image, fetches its program from a compiler-server that never
// compiled it (an empty data dir), which rebuilds it from the record, and holds every row
// acknowledged before the stop.

const RELEASE = 'roll';
const FULL = `${RELEASE}-svc`;
const PIPELINE = 'kept';
const PROGRAM = "CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');";
const CONTROL_PLANE = ['api-server', 'compiler-server', 'kubernetes-runner'] as const;
/** The file images.sh adds to the next image (its content: that image's reference). */
const VARIANT_FILE = '/usr/local/share/svc-variant';

type Json = Record<string, unknown>;

const admin = adminConfig();
const core = admin.makeApiClient(k8s.CoreV1Api);
let namespace = '';
let volumes: BoundVolumes;
let key = '';
let id = '';
/** The steady ingress of each test (ids from 1, then from 1,000,000). */
const runs: SteadyIngress[] = [];

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

const auth = () => ({ authorization: `Bearer ${key}` });

/** The pipeline's URL at whichever api-server pod is Ready now (the upgrade replaces it). */
async function pipelineUrl(): Promise<string | undefined> {
  const [pod] = await readyPods('api-server');
  return pod ? `http://${podIP(pod)}:8080/v0/pipelines/${PIPELINE}` : undefined;
}

// A test that fails part way leaves no ingress running into the next one: rows sent while that one
// stops the pipeline may be applied without their POST answering 200, which its exact count of
// acknowledged rows would then report as a second, unrelated failure.
afterEach(async () => {
  await Promise.all(runs.map((run) => run.stop()));
});

/** Steady ingress until more than `rows` more rows were acknowledged. */
async function ingestSteadily(firstId: number, rows: number): Promise<SteadyIngress> {
  const run = steadyIngress(pipelineUrl, auth(), firstId);
  runs.push(run);
  await expect.poll(() => run.acknowledged.length, { timeout: 120_000 }).toBeGreaterThan(rows);
  return run;
}

/** The view: the ids of t, through the API. */
const viewIds = async () => tableIds(String(await pipelineUrl()), auth());

/** The pipeline pod's image as its spec names it and as the kubelet runs it (imageID), and the pod's uid. */
async function pipelineImage(): Promise<{ uid?: string; image?: string; imageID?: string }> {
  const pod = await core.readNamespacedPod({ name: `pipeline-${id}-0`, namespace });
  const spec = pod.spec?.containers.find((c) => c.name === 'pipeline');
  const status = pod.status?.containerStatuses?.find((c) => c.name === 'pipeline');
  return { uid: pod.metadata?.uid, image: spec?.image, imageID: status?.imageID };
}

/** `cat VARIANT_FILE` in the pipeline's container: the next image's reference, or undefined (no such file). */
function variantInPod(): string | undefined {
  const r = kubectl(['exec', '-n', namespace, `pipeline-${id}-0`, '-c', 'pipeline', '--', 'cat', VARIANT_FILE]);
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** `image.repository` and `image.tag` of the next image, for `helm upgrade --set`. */
function nextImageValues(): string {
  const next = splitImage(inject('svcNextImage'));
  return `image.repository=${next.repository},image.tag=${next.tag}`;
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
  for (const run of runs) await run.stop();
  if (namespace) {
    helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
    await deleteNamespace(admin, namespace);
  }
  await volumes?.removeAll();
});

describe('real node: helm upgrade and a lost compiler-server under a running pipeline', { timeout: 600_000 }, () => {
  it('helm upgrade to a new image rolls the control plane; the pipeline keeps its pod and image, keeps Running under ingress and stays managed', async () => {
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
    const first = await ingestSteadily(1, 20);
    const onOld = await pipelineImage();
    expect(onOld.image).toBe(inject('svcImage'));
    expect(onOld.imageID).toBeTruthy();
    expect(variantInPod()).toBeUndefined();
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
        ...['--set', `controlPlane.podAnnotations.upgraded=yes,compilerServer.replicas=2,${nextImageValues()}`],
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
    // The control plane runs the new image; the pipeline still the old one, in the same container.
    for (const component of CONTROL_PLANE) {
      for (const pod of await readyPods(component)) expect(pod.spec?.containers[0]?.image).toBe(inject('svcNextImage'));
    }
    expect(await pipelineImage()).toEqual(onOld);
    expect(variantInPod()).toBeUndefined();
    // Ingress went on through the new api-server into the pipeline on the old image.
    const sent = first.acknowledged.length;
    await expect.poll(() => first.acknowledged.length, { timeout: 60_000 }).toBeGreaterThan(sent + 20);
    await first.stop();
    expect(await viewIds()).toEqual(sortedIds(first.acknowledged));
    // Managed by the new control plane: a pause reaches the pipeline and comes back in the record.
    expect([200, 202]).toContain((await call(`/v0/pipelines/${PIPELINE}/pause`, { method: 'POST' }))?.status);
    await until('Paused', (p) => p['deployment_status'] === 'Paused');
    expect([200, 202]).toContain((await call(`/v0/pipelines/${PIPELINE}/resume`, { method: 'POST' }))?.status);
    await until('Running again', (p) => p['deployment_status'] === 'Running');
  });

  it('the move to the new image (stop with a checkpoint, start), compiler-server pods deleted: the new image, the program rebuilt from the record, nothing acknowledged lost', async () => {
    const onOld = await pipelineImage();
    const second = await ingestSteadily(1_000_000, 20);
    await second.stop();
    // The documented move: a stop with a checkpoint; the next start is a new pod that fetches its program again.
    const suspended = await call(`/v0/pipelines/${PIPELINE}/stop?force=false`, { method: 'POST' });
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
    const onNew = await pipelineImage();
    expect(onNew.uid).not.toBe(onOld.uid);
    expect(onNew.image).toBe(inject('svcNextImage'));
    expect(onNew.imageID).toBeTruthy();
    expect(onNew.imageID).not.toBe(onOld.imageID);
    expect(inject('svcNextImage').endsWith(String(variantInPod()))).toBe(true);
    const acknowledged = [...(runs[0]?.acknowledged ?? []), ...second.acknowledged];
    expect(await viewIds()).toEqual(sortedIds(acknowledged));
    console.log(
      `moved from ${onOld.imageID} to ${onNew.imageID}; ${acknowledged.length} acknowledged rows, all in the view`,
    );
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
