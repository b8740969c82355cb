// helm install, upgrade and uninstall of the chart into the test cluster. The node agent runs the
// chart's image svc/svc as the local `svc` program (dist/, so `npm run build` first) and its postgres
// image as the machine's PostgreSQL 15 (test/chart/postgres-image.sh): the bundled database is real.
// The test cluster has no kube-proxy and no DNS, so the control plane reaches PostgreSQL at
// 127.0.0.1:<free port> (postgresql.host/port) and the test reaches the API at the manager pod's IP.
// Pods get no service-account token files here, so the manager's Kubernetes runner gets a kubeconfig
// with a token of the chart's runner ServiceAccount (kubernetesRunner.kubeconfigSecret).
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitFor } from '../cluster/helpers.js';
import { freePort } from '../cluster/control-plane/processes.js';
import { api, helmOk, podIP, readyPod, runnerKubeconfig, secretValue } from './cluster.js';
import { chartDir, readRepoFile } from './helm.js';

const RELEASE = 'demo';
const PIPELINE = {
  name: 'orders',
  description: 'kept across helm upgrade',
  program_code: 'CREATE TABLE orders (id INT, customer TEXT);',
  runtime_config: { workers: 1 },
};

describe('helm install, upgrade, uninstall (combined control plane, bundled PostgreSQL)', () => {
  const admin = adminConfig();
  const core = admin.makeApiClient(k8s.CoreV1Api);
  let namespace = '';
  let base = '';
  let apiKey = '';
  let managerUid = '';
  let postgresUid = '';

  beforeAll(async () => {
    namespace = await createNamespace(admin, 'chart-install');
    const pgPort = await freePort();
    helmOk([
      'install',
      RELEASE,
      chartDir,
      '--namespace',
      namespace,
      '--set',
      [
        'controlPlane.mode=combined',
        'postgresql.host=127.0.0.1',
        `postgresql.port=${pgPort}`,
        'kubernetesRunner.pipelineAddress=pod-ip',
        `kubernetesRunner.kubeconfigSecret.name=${RELEASE}-runner-kubeconfig`,
      ].join(','),
    ]);
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: `${RELEASE}-runner-kubeconfig` },
        stringData: { kubeconfig: await runnerKubeconfig(admin, namespace, RELEASE) },
      },
    });
  });
  afterAll(async () => {
    await deleteNamespace(admin, namespace);
  });

  it('installs: PostgreSQL and the control plane Ready, the API reachable with the generated key', async () => {
    const postgres = await readyPod(admin, namespace, RELEASE, 'postgresql');
    postgresUid = postgres.metadata?.uid ?? '';
    const manager = await readyPod(admin, namespace, RELEASE, 'manager');
    managerUid = manager.metadata?.uid ?? '';
    base = `http://${podIP(manager)}:8080`;
    apiKey = await secretValue(admin, namespace, `${RELEASE}-svc-api-key`, 'api-key');
    expect(apiKey).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(await api(base, '/v0/pipelines', { key: apiKey })).toEqual({ status: 200, body: [] });
    expect((await api(base, '/v0/pipelines')).status).toBe(401);
    expect((await api(base, '/v0/pipelines', { key: 'wrong' })).status).toBe(401);
    const created = await api(base, '/v0/pipelines', { method: 'POST', key: apiKey, body: PIPELINE });
    expect(created.status).toBe(201);
    // The manager runs the Kubernetes runner with the chart's RBAC: it holds the chart's Lease.
    const coordination = admin.makeApiClient(k8s.CoordinationV1Api);
    const lease = await waitFor('the runner Lease held', 60_000, async () => {
      const l = await coordination.readNamespacedLease({ name: `${RELEASE}-svc-runner`, namespace });
      return l.spec?.holderIdentity ? l : undefined;
    });
    expect(lease.spec?.holderIdentity).toBeTruthy();
  });

  it('ships the pipeline template ConfigMap <release>-pipeline-template', async () => {
    const cm = await core.readNamespacedConfigMap({ name: `${RELEASE}-pipeline-template`, namespace });
    expect(cm.data).toEqual({ pipelineTemplate: readRepoFile('templates/pipeline-template.yaml') });
  });

  it('helm upgrade with a changed value rolls the control plane and keeps the key and the database', async () => {
    const pvcBefore = await core.readNamespacedPersistentVolumeClaim({
      name: `data-${RELEASE}-svc-postgresql-0`,
      namespace,
    });
    helmOk(['upgrade', RELEASE, chartDir, '--namespace', namespace, '--reuse-values', '--set', 'logLevel=debug']);
    const manager = await readyPod(admin, namespace, RELEASE, 'manager', (p) => p.metadata?.uid !== managerUid);
    const env = manager.spec?.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === 'SVC_LOG_LEVEL')?.value).toBe('debug');
    // The old pod is gone (readyPod waits for exactly one), the database pod and its PVC are the same.
    const postgres = await readyPod(admin, namespace, RELEASE, 'postgresql');
    expect(postgres.metadata?.uid).toBe(postgresUid);
    const pvcAfter = await core.readNamespacedPersistentVolumeClaim({
      name: `data-${RELEASE}-svc-postgresql-0`,
      namespace,
    });
    expect(pvcAfter.metadata?.uid).toBe(pvcBefore.metadata?.uid);
    // Generated once: the same key works against the new pod, and the pipeline is still there.
    expect(await secretValue(admin, namespace, `${RELEASE}-svc-api-key`, 'api-key')).toBe(apiKey);
    base = `http://${podIP(manager)}:8080`;
    const got = await api(base, `/v0/pipelines/${PIPELINE.name}`, { key: apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: PIPELINE.name, description: PIPELINE.description });
  });

  it('helm uninstall removes the release, its database PVC and Secrets, and leaves pipelines’ PVCs', async () => {
    // A PVC as the runner's StatefulSets leave behind (labels of KUBERNETES.md): not the chart's to delete.
    const pipelinePvc = 'storage-pipeline-00000000-0000-0000-0000-000000000001-0';
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: {
          name: pipelinePvc,
          labels: { 'app.kubernetes.io/managed-by': 'svc-runner', 'app.kubernetes.io/name': 'svc-pipeline' },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
      },
    });
    helmOk(['uninstall', RELEASE, '--namespace', namespace, '--wait', '--timeout', '3m']);
    const pvcs = await waitFor('only the pipeline PVC left', 120_000, async () => {
      const names = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items.map((p) => p.metadata?.name);
      return names.length === 1 ? names : undefined;
    });
    expect(pvcs).toEqual([pipelinePvc]);
    await waitFor('no pods left', 120_000, async () =>
      (await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined,
    );
    // Only the Secret the test made for the runner's kubeconfig: none of the chart's.
    const secrets = (await core.listNamespacedSecret({ namespace })).items.map((s) => s.metadata?.name);
    expect(secrets).toEqual([`${RELEASE}-runner-kubeconfig`]);
    const configMaps = (await core.listNamespacedConfigMap({ namespace })).items.map((c) => c.metadata?.name);
    expect(configMaps).toEqual(['kube-root-ca.crt']);
  });
});
