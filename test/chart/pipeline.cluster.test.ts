// End to end with the chart (issue 7): `helm install` of the split control plane with logJson, a
// pipeline created through the API runs as a StatefulSet (`kubectl get pods -l
// app.kubernetes.io/name=svc-pipeline` shows it) whose JSON logs carry svc-service: pipeline;
// `helm upgrade` rolls the control plane and keeps the pipeline and the database; `helm uninstall`
// leaves the pipeline's PVC only. The runner authenticates as the chart's ServiceAccount, so it has
// the chart's Role and nothing more: a call outside it would fail the run.
//
// The test cluster has no DNS, no kube-proxy and no service-account token files in pods, so: the
// database is reached at 127.0.0.1:<free port>, the compiler-server at its pod IP (set with a
// `helm upgrade` once the pod has one), pipelines at their pod IP, and the runner gets a kubeconfig
// with a token of the chart's runner ServiceAccount through kubernetesRunner.kubeconfigSecret.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitFor } from '../cluster/helpers.js';
import { api, helmOk, installRelease, kubectl, podIP, readyPod } from './cluster.js';
import { chartDir } from './helm.js';

const RELEASE = 'e2e';
const NAME = 'orders';

/** The log file the node agent writes for a pod's container. */
function podLog(namespace: string, pod: k8s.V1Pod, container: string): string {
  const dir = join(inject('clusterState'), 'node', 'pods');
  const entry = readdirSync(dir).find((d) => d === `${namespace}_${pod.metadata?.name}_${pod.metadata?.uid}`);
  return entry ? readFileSync(join(dir, entry, `${container}.log`), 'utf8') : '';
}

describe('the chart runs pipelines as StatefulSets (split control plane, chart RBAC)', { timeout: 600_000 }, () => {
  const admin = adminConfig();
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const apps = admin.makeApiClient(k8s.AppsV1Api);
  let namespace = '';
  let base = '';
  let key = '';
  let pipelineId = '';
  const call = (method: string, path: string, body?: unknown) => api(base, path, { method, key, body });
  const status = async () =>
    (await call('GET', `/v0/pipelines/${NAME}?selector=status`)).body as Record<string, unknown>;
  const until = (what: string, pred: (p: Record<string, unknown>) => boolean) =>
    waitFor(`pipeline ${what}`, 180_000, async () => {
      const p = await status();
      return pred(p) ? p : undefined;
    });

  beforeAll(async () => {
    namespace = await createNamespace(admin, 'chart-e2e');
    ({ base, key } = await installRelease(admin, namespace, RELEASE, ['logJson=true']));
  });
  afterAll(async () => {
    await deleteNamespace(admin, namespace);
  });

  it('runs a pipeline created through the API as a StatefulSet with JSON logs', async () => {
    const created = await call('POST', '/v0/pipelines', {
      name: NAME,
      program_code: 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x FROM t;',
      runtime_config: {},
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    pipelineId = String((created.body as { id: string }).id);
    await until('compiled', (p) => p['program_status'] === 'Success');
    expect((await call('POST', `/v0/pipelines/${NAME}/start`)).status).toBe(202);
    await until('Running', (p) => p['deployment_status'] === 'Running');

    const sts = await apps.readNamespacedStatefulSet({ name: `pipeline-${pipelineId}`, namespace });
    expect(sts.metadata?.labels?.['app.kubernetes.io/name']).toBe('svc-pipeline');
    const shown = kubectl(['get', 'pods', '-n', namespace, '-l', 'app.kubernetes.io/name=svc-pipeline', '-o', 'name']);
    expect(shown.stdout.trim()).toBe(`pod/pipeline-${pipelineId}-0`);
    const pod = await core.readNamespacedPod({ name: `pipeline-${pipelineId}-0`, namespace });
    expect(pod.spec?.serviceAccountName).toBe(`${RELEASE}-svc-pipeline`);
    expect(pod.spec?.containers[0]?.env?.find((e) => e.name === 'SVC_LOG_JSON')?.value).toBe('1');
    const lines = await waitFor('a JSON log line of the pipeline', 60_000, async () => {
      const found = podLog(namespace, pod, 'pipeline')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return found.length > 0 ? found : undefined;
    });
    expect(lines.every((l) => l['svc-service'] === 'pipeline')).toBe(true);
  });

  it('the runner used no call outside the chart Role', async () => {
    const runner = await readyPod(admin, namespace, RELEASE, 'kubernetes-runner');
    const log = podLog(namespace, runner, 'kubernetes-runner');
    expect(log).toMatch(/"svc-service":"(kubernetes-)?runner"/);
    expect(log).not.toMatch(/forbidden|\b403\b/i);
  });

  it('helm upgrade with a changed value rolls the control plane and keeps the pipeline and the database', async () => {
    const before = await core.readNamespacedPod({ name: `pipeline-${pipelineId}-0`, namespace });
    const oldApi = await readyPod(admin, namespace, RELEASE, 'api-server');
    helmOk(['upgrade', RELEASE, chartDir, '--namespace', namespace, '--reuse-values', '--set', 'logLevel=debug']);
    const apiServer = await readyPod(
      admin,
      namespace,
      RELEASE,
      'api-server',
      (p) => p.metadata?.uid !== oldApi.metadata?.uid,
    );
    await readyPod(
      admin,
      namespace,
      RELEASE,
      'kubernetes-runner',
      (p) => p.spec?.containers[0]?.env?.some((e) => e.name === 'SVC_LOG_LEVEL' && e.value === 'debug') ?? false,
    );
    base = `http://${podIP(apiServer)}:8080`;
    const p = await until('Running after the upgrade', (r) => r['deployment_status'] === 'Running');
    expect(p['deployment_status']).toBe('Running');
    const after = await core.readNamespacedPod({ name: `pipeline-${pipelineId}-0`, namespace });
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
  });

  it('helm uninstall leaves the pipeline PVC only', async () => {
    expect((await call('POST', `/v0/pipelines/${NAME}/stop?force=true`)).status).toBe(202);
    await until('Stopped', (p) => p['deployment_status'] === 'Stopped');
    helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
    const pvcs = await waitFor('only the pipeline PVC left', 120_000, async () => {
      const items = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items;
      return items.length === 1 ? items : undefined;
    });
    expect(pvcs[0]?.metadata?.name).toBe(`storage-pipeline-${pipelineId}-0`);
    expect(pvcs[0]?.metadata?.labels?.['app.kubernetes.io/name']).toBe('svc-pipeline');
  });
});
