import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, helmOk, kubectl, podIP, readyPod, secretValue } from '../../chart/cluster.js';
import { adminConfig, createNamespace, deleteNamespace, GaveUp, waitFor } from '../helpers.js';
import { BoundVolumes, installOnRealNode } from './helm-release.js';
import { tcpProbe } from './probe.js';
import { NODE } from './world.js';

// Issue 18, item 3: the chart installed with `helm install` on the real node, its defaults kept
// (split control plane, bundled PostgreSQL, API key, the runner with its ServiceAccount's in-cluster
// config, pipelines reached at their Service DNS name): every pod a container from the images built
// here, and a pipeline's whole lifecycle through the API. The test reaches the API at the api-server
// pod's IP: this machine routes the pod subnet (the node's bridge), not the Service range, which only
// the node's pods route to kube-proxy.

const RELEASE = 'demo';
const FULL = `${RELEASE}-svc`;
const PIPELINE = 'shop';
const PROGRAM =
  "CREATE TABLE orders (id INT NOT NULL, amount INT) WITH ('materialized' = 'true');\n" +
  'CREATE MATERIALIZED VIEW big AS SELECT id, amount FROM orders WHERE amount > 100;';

type Json = Record<string, unknown>;

const admin = adminConfig();
const core = admin.makeApiClient(k8s.CoreV1Api);
let namespace = '';
/** A further namespace of the runner's, Pod Security `restricted` enforced (issue 27). */
let restricted = '';
let volumes: BoundVolumes;
let restrictedVolumes: BoundVolumes;
let base = '';
let key = '';
let id = '';
let uninstalled = false;

const call = (path: string, init: { method?: string; body?: unknown } = {}) => api(base, path, { ...init, key });

/** The pipeline's record once `pred` holds (polled). */
const until = (what: string, pred: (p: Json) => boolean, timeout = 240_000): Promise<Json> =>
  waitFor(`pipeline ${PIPELINE}: ${what}`, timeout, async () => {
    const p = (await call(`/v0/pipelines/${PIPELINE}`)).body as Json;
    if (p['deployment_error'] != null) throw new Error(`deployment_error: ${JSON.stringify(p)}`);
    return pred(p) ? p : undefined;
  });

/** An ad-hoc query's answer, rows as JSON lines. */
async function query(sql: string): Promise<string> {
  const r = await fetch(`${base}/v0/pipelines/${PIPELINE}/query?format=json&sql=${encodeURIComponent(sql)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`query ${sql}: ${r.status} ${text}`);
  return text.trim();
}

/** The storage claim of the pipeline: its UID, or undefined once it is gone. */
async function claimUid(): Promise<string | undefined> {
  const claims = await core.listNamespacedPersistentVolumeClaim({
    namespace,
    labelSelector: 'app.kubernetes.io/name=svc-pipeline',
  });
  expect(claims.items.length).toBeLessThanOrEqual(1);
  return claims.items[0]?.metadata?.uid;
}

/** The pipeline's pod as `kubectl get pods -l app.kubernetes.io/name=svc-pipeline -o json` shows it. */
function pipelinePods(): k8s.V1Pod[] {
  const r = kubectl(['get', 'pods', '-n', namespace, '-l', 'app.kubernetes.io/name=svc-pipeline', '-o', 'json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { items: k8s.V1Pod[] }).items;
}

beforeAll(async () => {
  namespace = await createNamespace(admin, 'helm-real');
  restricted = await createNamespace(admin, 'helm-restricted');
  const label = kubectl(['label', 'namespace', restricted, 'pod-security.kubernetes.io/enforce=restricted']);
  expect(label.status, label.stderr).toBe(0);
  volumes = new BoundVolumes(core, namespace);
  restrictedVolumes = new BoundVolumes(core, restricted);
  await volumes.make(`data-${FULL}-postgresql-0`, 999);
  installOnRealNode(namespace, RELEASE, [`kubernetesRunner.allowedNamespaces={${restricted}}`]);
});
afterAll(async () => {
  if (namespace && !uninstalled) helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
  if (namespace) await deleteNamespace(admin, namespace);
  if (restricted) await deleteNamespace(admin, restricted);
  await volumes?.removeAll();
  await restrictedVolumes?.removeAll();
});

describe('real node: the chart installed with helm, a pipeline through its API', { timeout: 600_000 }, () => {
  it('PostgreSQL and the control plane Ready as containers on the real node; the runner on its in-cluster config', async () => {
    for (const [component, image] of [
      ['postgresql', inject('postgresImage')],
      ['api-server', inject('svcImage')],
      ['compiler-server', inject('svcImage')],
      ['kubernetes-runner', inject('svcImage')],
    ] as const) {
      const pod = await readyPod(admin, namespace, RELEASE, component);
      expect(pod.spec?.nodeName, component).toBe(NODE);
      const status = pod.status?.containerStatuses?.[0];
      expect(status?.containerID, component).toMatch(/^containerd:\/\//);
      expect(status?.image, component).toBe(image);
    }
    // The runner has no kubeconfig: the ServiceAccount token the kubelet projects into its pod, and
    // the API server at the `kubernetes` Service (10.96.0.1, kube-proxy, node.sh's forward). It
    // holds the chart's Lease, so its calls go through.
    const runner = await readyPod(admin, namespace, RELEASE, 'kubernetes-runner');
    expect(runner.spec?.containers[0]?.env?.map((e) => e.name)).not.toContain('SVC_KUBECONFIG');
    expect(runner.spec?.volumes?.some((v) => v.projected?.sources?.some((s) => s.serviceAccountToken))).toBe(true);
    const lease = await waitFor('the runner Lease held', 60_000, async () => {
      const l = await admin
        .makeApiClient(k8s.CoordinationV1Api)
        .readNamespacedLease({ name: `${FULL}-runner`, namespace });
      return l.spec?.holderIdentity ? l : undefined;
    });
    expect(lease.spec?.holderIdentity).toContain(runner.metadata?.name);

    base = `http://${podIP(await readyPod(admin, namespace, RELEASE, 'api-server'))}:8080`;
    key = await secretValue(admin, namespace, `${FULL}-api-key`, 'api-key');
    expect((await api(base, '/v0/pipelines')).status).toBe(401);
    expect(await call('/v0/pipelines')).toEqual({ status: 200, body: [] });
  });

  it('a pipeline runs as a container from the svc image, kubectl shows it, its logs are JSON lines', async () => {
    const created = await call('/v0/pipelines', {
      method: 'POST',
      body: { name: PIPELINE, program_code: PROGRAM, runtime_config: { fault_tolerance: {} } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = String((created.body as Json)['id']);
    await volumes.make(`storage-pipeline-${id}-0`, 1000);
    await until('compiled', (p) => p['program_status'] === 'Success');
    expect((await call(`/v0/pipelines/${PIPELINE}/start`, { method: 'POST' })).status).toBe(202);
    await until('Running', (p) => p['deployment_status'] === 'Running');

    const pod = `pipeline-${id}-0`;
    const [listed, ...others] = pipelinePods();
    expect(others).toEqual([]);
    expect(listed?.metadata?.name).toBe(pod);
    expect(listed?.spec?.nodeName).toBe(NODE);
    const status = listed?.status?.containerStatuses?.find((c) => c.name === 'pipeline');
    expect(status?.containerID).toMatch(/^containerd:\/\//);
    expect(status?.image).toBe(inject('svcImage'));
    expect(status?.ready).toBe(true);
    const table = kubectl(['get', 'pods', '-n', namespace, '-l', 'app.kubernetes.io/name=svc-pipeline', '-o', 'wide']);
    expect(table.stdout).toMatch(new RegExp(`^${pod}\\s+1/1\\s+Running\\s.*\\s${NODE}\\s`, 'm'));

    // logJson: the runner passes SVC_LOG_JSON to the pod; `kubectl logs` reads it through the kubelet.
    const logs = kubectl(['logs', '-n', namespace, pod, '-c', 'pipeline']);
    expect(logs.status, logs.stderr).toBe(0);
    const records = logs.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Json);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) expect(record).toHaveProperty('level');
    expect(records.some((r) => r['svc-service'] === 'pipeline' && r['pipeline-name'] === PIPELINE)).toBe(true);

    // The runner's address of the pipeline (kubernetesRunner.pipelineAddress, default service-dns),
    // as the chart's database holds it: the runner (in its pod) reads the pipeline's runtime status
    // there, which Running needs, and the api-server forwards the data path to it.
    const location = kubectl([
      ...['exec', '-n', namespace, `${FULL}-postgresql-0`, '--', 'sh', '-c'],
      `PGPASSWORD="$POSTGRES_PASSWORD" psql -h 127.0.0.1 -U svc -d svc -tAc "SELECT deployment_location FROM pipeline WHERE name = '${PIPELINE}'"`,
    ]);
    expect(location.stderr).toBe('');
    expect(location.stdout.trim()).toBe(`http://pipeline-${id}-0.pipeline-${id}.${namespace}.svc:8080`);
  });

  it('ingress and a query through the API reach the pipeline at its Service DNS name', async () => {
    const pushed = await fetch(
      `${base}/v0/pipelines/${PIPELINE}/ingress/orders?format=json&update_format=insert_delete`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: '{"insert":{"id":1,"amount":50}}\n{"insert":{"id":2,"amount":500}}',
      },
    );
    expect(pushed.status, await pushed.clone().text()).toBe(200);
    const rows = await waitFor('the view to have the big order', 60_000, async () => {
      const answer = await query('SELECT id, amount FROM big ORDER BY id');
      return answer === '' ? undefined : answer;
    });
    expect(rows).toBe('{"id":2,"amount":500}');
  });

  it("the pipeline pod answers 401 without its deployment's token, which is a Secret, not in the StatefulSet", async () => {
    const [pod] = pipelinePods();
    const at = `http://${podIP(pod as k8s.V1Pod)}:8080`;
    const anonymous = await fetch(`${at}/status`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as Json)['error_code']).toBe('Unauthorized');
    expect((await fetch(`${at}/pause`, { method: 'POST' })).status).toBe(401);
    const token = await secretValue(admin, namespace, `pipeline-${id}`, 'auth-token');
    const authorized = await fetch(`${at}/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(authorized.status).toBe(200);
    const sts = kubectl(['get', 'statefulset', '-n', namespace, `pipeline-${id}`, '-o', 'json']);
    expect(sts.status, sts.stderr).toBe(0);
    expect(sts.stdout).not.toContain(token);
    expect(sts.stdout).toContain('"secretKeyRef"');
    expect(JSON.stringify((await call(`/v0/pipelines/${PIPELINE}`)).body)).not.toContain(token);
  });

  it("the chart's NetworkPolicy, enforced by the node: only the control plane reaches a pipeline pod", async () => {
    const [pod] = pipelinePods();
    const pipeline = podIP(pod as k8s.V1Pod);
    const from = { namespace, image: inject('svcImage'), node: NODE };
    // A pod of no control-plane component, in the pipelines' own namespace: refused (kube-router
    // rejects; an enforcer that drops would make it a time-out).
    const stranger = await tcpProbe(core, { ...from, name: 'probe-stranger' }, pipeline, 8080);
    expect(['ECONNREFUSED', 'timeout']).toContain(stranger);
    // The same probe labelled as the release's api-server: admitted, to the same address and port.
    const labels = { 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/instance': RELEASE };
    const asApi = {
      ...from,
      name: 'probe-as-api-server',
      labels: { ...labels, 'app.kubernetes.io/component': 'api-server' },
    };
    expect(await tcpProbe(core, asApi, pipeline, 8080)).toBe('open');
    // The control plane itself still does: the api-server forwards a query.
    expect(await query('SELECT count(*) AS n FROM big')).toBe('{"n":1}');
  });

  it('a pipeline runs in a namespace that enforces Pod Security restricted (which refuses a privileged pod)', async () => {
    const refused = await core
      .createNamespacedPod({
        namespace: restricted,
        body: {
          metadata: { name: 'privileged' },
          spec: { containers: [{ name: 'c', image: inject('svcImage'), securityContext: { privileged: true } }] },
        },
      })
      .then(
        () => 'admitted',
        (e: unknown) => String((e as { code?: number }).code ?? e),
      );
    expect(refused).toBe('403');
    const name = 'locked';
    const created = await call('/v0/pipelines', {
      method: 'POST',
      body: { name, program_code: PROGRAM, runtime_config: { resources: { namespace: restricted } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await restrictedVolumes.make(`storage-pipeline-${String((created.body as Json)['id'])}-0`, 1000);
    await waitFor('locked compiled', 240_000, async () =>
      ((await call(`/v0/pipelines/${name}`)).body as Json)['program_status'] === 'Success' ? true : undefined,
    );
    expect((await call(`/v0/pipelines/${name}/start`, { method: 'POST' })).status).toBe(202);
    // On a time-out, say where it stood: the record, the pods and the namespace's Events (it timed
    // out once in CI with nothing else to go on).
    let seen: Json = {};
    const running = await waitFor('locked Running', 240_000, async () => {
      const p = (await call(`/v0/pipelines/${name}`)).body as Json;
      seen = p;
      if (p['deployment_error'] != null) throw new GaveUp(`deployment_error: ${JSON.stringify(p)}`);
      return p['deployment_status'] === 'Running' ? p : undefined;
    }).catch((error: Error) => {
      const where = kubectl(['get', 'pods,pvc,events', '-n', restricted, '-o', 'wide']).stdout;
      throw new Error(`${error.message}\nlast seen: ${JSON.stringify(seen)}\n${where}`);
    });
    expect(running['deployment_status']).toBe('Running');
    const pods = kubectl(['get', 'pods', '-n', restricted, '-l', 'app.kubernetes.io/name=svc-pipeline', '-o', 'json']);
    expect((JSON.parse(pods.stdout) as { items: k8s.V1Pod[] }).items.map((p) => p.spec?.nodeName)).toEqual([NODE]);
    expect((await call(`/v0/pipelines/${name}/stop?force=true`, { method: 'POST' })).status).toBe(202);
    await waitFor('locked Stopped', 120_000, async () =>
      ((await call(`/v0/pipelines/${name}`)).body as Json)['deployment_status'] === 'Stopped' ? true : undefined,
    );
    expect((await call(`/v0/pipelines/${name}/clear`, { method: 'POST' })).status).toBe(202);
    await waitFor('locked Cleared', 120_000, async () =>
      ((await call(`/v0/pipelines/${name}`)).body as Json)['storage_status'] === 'Cleared' ? true : undefined,
    );
    expect((await call(`/v0/pipelines/${name}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('stop (a checkpoint) and start: the same PVC, the data kept', async () => {
    const claim = await claimUid();
    expect(claim).toBeDefined();
    const podUid = pipelinePods()[0]?.metadata?.uid;
    // A stop that is not forced suspends: it answers 202 once the pipeline wrote its checkpoint.
    const suspended = await call(`/v0/pipelines/${PIPELINE}/stop`, { method: 'POST' });
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(202);
    expect(suspended.body).toMatchObject({ runtime_status: 'Suspended', checkpoint: expect.any(String) });
    const stopped = await until('Stopped', (p) => p['deployment_status'] === 'Stopped');
    expect(stopped['storage_status']).toBe('InUse');
    expect(pipelinePods()).toEqual([]);
    expect(await claimUid()).toBe(claim);

    expect((await call(`/v0/pipelines/${PIPELINE}/start`, { method: 'POST' })).status).toBe(202);
    await until('Running again', (p) => p['deployment_status'] === 'Running');
    const [again] = pipelinePods();
    expect(again?.metadata?.uid).not.toBe(podUid);
    expect(await claimUid()).toBe(claim);
    expect(await query('SELECT count(*) AS n FROM orders')).toBe('{"n":2}');
  });

  it('stop and clear: the PVC goes; delete', async () => {
    expect((await call(`/v0/pipelines/${PIPELINE}/stop?force=true`, { method: 'POST' })).status).toBe(202);
    await until('Stopped', (p) => p['deployment_status'] === 'Stopped');
    expect((await call(`/v0/pipelines/${PIPELINE}/clear`, { method: 'POST' })).status).toBe(202);
    await until('Cleared', (p) => p['storage_status'] === 'Cleared');
    await waitFor('the claim gone', 60_000, async () => ((await claimUid()) === undefined ? true : undefined));
    expect((await call(`/v0/pipelines/${PIPELINE}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(`/v0/pipelines/${PIPELINE}`)).status).toBe(404);
  });

  it('helm uninstall: no pod and no claim left', async () => {
    helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
    uninstalled = true;
    await waitFor('no pods left', 120_000, async () =>
      (await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined,
    );
    await waitFor('no claims left', 120_000, async () =>
      (await core.listNamespacedPersistentVolumeClaim({ namespace })).items.length === 0 ? true : undefined,
    );
  });
});
