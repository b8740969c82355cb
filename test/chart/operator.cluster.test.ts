// The operator's pipeline.* values on the test cluster (issue 19): with the chart's values, a pipeline
// pod lands on the labelled node and carries the priority class and the default resources (Burstable);
// a start asking for more memory than pipeline.memoryMb.max is refused with a 400 and applies nothing.
// The API answers over HTTPS with the certificate of the chart's https.secretRef, as NOTES say. A
// pipeline in a namespace of kubernetesRunner.allowedNamespaces runs there with the chart's Role
// only; one naming another namespace is refused.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitFor } from '../cluster/helpers.js';
import { httpsRequest, selfSignedCert } from '../support/https-request.js';
import { api, installRelease, kubectl } from './cluster.js';

const RELEASE = 'ops';

describe('operator values: pipeline placement, sizes and bounds; the API over TLS', { timeout: 600_000 }, () => {
  const admin = adminConfig();
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const apps = admin.makeApiClient(k8s.AppsV1Api);
  const scheduling = admin.makeApiClient(k8s.SchedulingV1Api);
  let namespace = '';
  let second = '';
  let node = '';
  let label = '';
  let priorityClass = '';
  let base = '';
  let key = '';
  let notes = '';
  const certDir = mkdtempSync(join(tmpdir(), 'svc-chart-tls-'));
  const tls = selfSignedCert(certDir);
  const ca = readFileSync(tls.cert);
  const call = (method: string, path: string, body?: unknown) => api(base, path, { method, key, body, ca });
  const create = async (name: string, runtimeConfig: unknown) => {
    const created = await call('POST', '/v0/pipelines', {
      name,
      program_code: 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x FROM t;',
      runtime_config: runtimeConfig,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return String((created.body as { id: string }).id);
  };

  beforeAll(async () => {
    namespace = await createNamespace(admin, 'chart-ops');
    second = await createNamespace(admin, 'chart-ops-team');
    // A label of our own on the one node, and a PriorityClass of our own (both cluster-scoped).
    node = (await core.listNode()).items[0]?.metadata?.name ?? '';
    label = `svc-test/pool-${namespace}`;
    expect(kubectl(['label', 'node', node, `${label}=pipelines`]).status).toBe(0);
    priorityClass = `svc-test-${namespace}`;
    await scheduling.createPriorityClass({ body: { metadata: { name: priorityClass }, value: 1000 } });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'api-tls' },
        type: 'kubernetes.io/tls',
        stringData: { 'tls.crt': ca.toString('utf8'), 'tls.key': readFileSync(tls.key, 'utf8') },
      },
    });
    ({ base, key, notes } = await installRelease(admin, namespace, RELEASE, [
      'https.secretRef=api-tls',
      `pipeline.priorityClassName=${priorityClass}`,
      `pipeline.nodeSelector.${label}=pipelines`,
      'pipeline.memoryMb.max=2048',
      `kubernetesRunner.allowedNamespaces={${second}}`,
    ]));
  });
  afterAll(async () => {
    await deleteNamespace(admin, namespace);
    await deleteNamespace(admin, second);
    if (node) kubectl(['label', 'node', node, `${label}-`]);
    if (priorityClass) await scheduling.deletePriorityClass({ name: priorityClass }).catch(() => undefined);
    rmSync(certDir, { recursive: true, force: true });
  });

  it("the API answers over HTTPS with the Secret's certificate, as NOTES tell", async () => {
    expect(base).toMatch(/^https:\/\//);
    const r = await httpsRequest(`${base}/v0/pipelines`, {
      ca,
      headers: { authorization: `Bearer ${key}` },
      anyHostName: true,
    });
    expect(r.status).toBe(200);
    expect(r.fingerprint).toBe(new X509Certificate(ca).fingerprint256);
    expect(notes).toContain('get secret api-tls');
    expect(notes).toContain('curl --cacert svc-api.crt');
    expect(notes).toContain('https://127.0.0.1:8080/v0/pipelines');
  });

  it('a pipeline pod carries the node selector, the priority class and the default resources', async () => {
    const id = await create('placed', {});
    expect((await call('POST', '/v0/pipelines/placed/start')).status).toBe(202);
    const name = `pipeline-${id}`;
    const pod = await waitFor('the pipeline pod bound to the node', 240_000, async () => {
      const p = await core.readNamespacedPod({ name: `${name}-0`, namespace }).catch(() => undefined);
      return p?.spec?.nodeName ? p : undefined;
    });
    expect(pod.spec?.nodeName).toBe(node);
    expect(pod.spec?.nodeSelector).toEqual({ [label]: 'pipelines' });
    expect(pod.spec?.priorityClassName).toBe(priorityClass);
    // The Priority admission plugin resolved the class: the pod is not among the first evicted.
    expect(pod.spec?.priority).toBe(1000);
    const container = pod.spec?.containers.find((c) => c.name === 'pipeline');
    expect(container?.resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '4Gi' } });
    expect(pod.status?.qosClass).toBe('Burstable');
    const sts = await apps.readNamespacedStatefulSet({ name, namespace });
    expect(sts.spec?.template.spec?.priorityClassName).toBe(priorityClass);
  });

  it('a start over pipeline.memoryMb.max is refused with a 400 and applies nothing', async () => {
    const id = await create('greedy', { resources: { memory_mb_max: 4096 } });
    const r = await call('POST', '/v0/pipelines/greedy/start');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error_code: 'InvalidRuntimeConfig',
      details: { field: 'runtime_config.resources.memory_mb_max', bound: 'pipeline.memoryMb.max', limit: 2048 },
    });
    const status = (await call('GET', '/v0/pipelines/greedy?selector=status')).body as Record<string, unknown>;
    expect(status['deployment_desired_status']).toBe('Stopped');
    const sts = await apps.readNamespacedStatefulSet({ name: `pipeline-${id}`, namespace }).catch((e: unknown) => e);
    expect(sts).toBeInstanceOf(Error);
  });

  it('a pipeline runs in an allowed second namespace; another namespace is refused', async () => {
    const id = await create('team', { resources: { namespace: second } });
    expect((await call('POST', '/v0/pipelines/team/start')).status).toBe(202);
    await waitFor('the pipeline Running in the second namespace', 240_000, async () => {
      const p = (await call('GET', '/v0/pipelines/team?selector=status')).body as Record<string, unknown>;
      return p['deployment_status'] === 'Running' ? p : undefined;
    });
    const pod = await core.readNamespacedPod({ name: `pipeline-${id}-0`, namespace: second });
    expect(pod.spec?.serviceAccountName).toBe(`${RELEASE}-svc-pipeline`);

    await create('stray', { resources: { namespace: 'kube-system' } });
    const r = await call('POST', '/v0/pipelines/stray/start');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      details: { field: 'runtime_config.resources.namespace', bound: 'kubernetesRunner.allowedNamespaces' },
    });
  });
});
