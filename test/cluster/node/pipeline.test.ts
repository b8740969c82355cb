import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SvcProcess } from '../../support/svc-process.js';
import { client, DEFAULT_TEMPLATE, type RunnerWorld, startRunner, startWorld } from '../../kubernetes/harness.js';
import { adminConfig } from '../helpers.js';

// Issue 18: a pipeline started through the API runs, through `svc runner --backend kubernetes`, as a
// real container from the image the project's Dockerfile builds, on the real node (containerd +
// kubelet), and its JSON log lines come back through the kubelet (`kubectl logs`).

const NODE = 'svc-real-node';

/**
 * The default template, for the real node (kube-scheduler binds pods that select it, once their PVC
 * is bound; the node agent binds every other Pending pod to itself), with an init container that hands the storage volume to the
 * pipeline's uid: the hostPath provisioner makes it root-owned 0750, and fsGroup does not apply to
 * hostPath volumes.
 */
const REAL_NODE_TEMPLATE = DEFAULT_TEMPLATE.replace(
  '    spec:\n      securityContext:\n',
  `    spec:
      nodeSelector: {kubernetes.io/hostname: ${NODE}}
      initContainers:
        - name: storage-owner
          image: '{pipeline_executor_image}'
          command: [chown, '1000:1000', '{pipeline_storage_path}']
          securityContext: {runAsNonRoot: false, runAsUser: 0}
          volumeMounts:
            - name: storage
              mountPath: '{pipeline_storage_path}'
      securityContext:
`,
);

/** The real node's template with an image no registry here has, for ErrImagePull. */
const ABSENT_IMAGE_TEMPLATE = REAL_NODE_TEMPLATE.replace(
  "        - name: pipeline\n          image: '{pipeline_executor_image}'",
  '        - name: pipeline\n          image: svc-local/absent:1',
);

/** The real node's template with a flag `svc pipeline` refuses, so the container exits at once. */
const EXITING_TEMPLATE = REAL_NODE_TEMPLATE.replace(
  '            - pipeline\n',
  '            - pipeline\n            - --no-such-flag\n',
);

let world: RunnerWorld;
let runner: SvcProcess;
beforeAll(async () => {
  expect(REAL_NODE_TEMPLATE).not.toBe(DEFAULT_TEMPLATE);
  const node = await adminConfig().makeApiClient(k8s.CoreV1Api).readNode({ name: NODE });
  const nodeIp = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
  expect(nodeIp).toBeDefined();
  // Pods fetch the program from the compiler's artifact server: on the node's bridge address.
  world = await startWorld('real-node', true, ['--bind-address', String(nodeIp)]);
  await world.admin.makeApiClient(k8s.CoreV1Api).replaceNamespacedConfigMap({
    name: 'svc-pipeline-template',
    namespace: world.namespace,
    body: { metadata: { name: 'svc-pipeline-template' }, data: { pipelineTemplate: REAL_NODE_TEMPLATE } },
  });
  await world.admin.makeApiClient(k8s.CoreV1Api).createNamespacedConfigMap({
    namespace: world.namespace,
    body: { metadata: { name: 'absent-image' }, data: { pipelineTemplate: ABSENT_IMAGE_TEMPLATE } },
  });
  await world.admin.makeApiClient(k8s.CoreV1Api).createNamespacedConfigMap({
    namespace: world.namespace,
    body: { metadata: { name: 'exiting' }, data: { pipelineTemplate: EXITING_TEMPLATE } },
  });
  runner = await startRunner(world, [
    '--pipeline-executor-image',
    inject('svcImage'),
    '--allow-custom-pipeline-template',
  ]);
});
afterAll(async () => world?.close());

describe('real node: a pipeline in a container from the svc image', { timeout: 600_000 }, () => {
  it('runs, is listed by label on the real node, and its JSON log lines come back through the kubelet', async () => {
    expect(runner.child.exitCode).toBeNull();
    const api = client(world);
    const created = await api.create('real');
    const id = String(created['id']);
    expect((await api.call('POST', '/v0/pipelines/real/start')).status).toBe(202);
    const running = await api.until(
      'real',
      (p) => p['deployment_status'] === 'Running' || p['deployment_error'] !== undefined,
      300_000,
    );
    expect(running['deployment_error']).toBeUndefined();

    const core = world.admin.makeApiClient(k8s.CoreV1Api);
    const pods = await core.listNamespacedPod({
      namespace: world.namespace,
      labelSelector: 'app.kubernetes.io/name=svc-pipeline',
    });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual([`pipeline-${id}-0`]);
    const pod = pods.items[0] as k8s.V1Pod;
    expect(pod.spec?.nodeName).toBe(NODE);
    const status = pod.status?.containerStatuses?.find((c) => c.name === 'pipeline');
    // A container of the node's containerd, from the image the Dockerfile built.
    expect(status?.containerID).toMatch(/^containerd:\/\//);
    expect(status?.image).toBe(inject('svcImage'));
    expect(status?.ready).toBe(true);

    const text = await core.readNamespacedPodLog({
      name: `pipeline-${id}-0`,
      namespace: world.namespace,
      container: 'pipeline',
    });
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const record of records) expect(record).toHaveProperty('level');
    expect(records.some((r) => r['svc-service'] === 'pipeline' || String(r['target']).includes('pipeline'))).toBe(true);

    expect((await api.call('POST', '/v0/pipelines/real/stop?force=true')).status).toBe(202);
    const stopped = await api.until('real', (p) => p['deployment_status'] === 'Stopped', 180_000);
    expect(stopped['deployment_error']).toBeUndefined();
  });

  it('a memory limit exceeded ends in deployment_error OOMKilled, produced by the kernel', async () => {
    const api = client(world);
    await api.create('oom', { resources: { memory_mb_max: 20 } });
    expect((await api.call('POST', '/v0/pipelines/oom/start')).status).toBe(202);
    const failed = await api.until('oom', (p) => p['deployment_error'] !== undefined, 300_000);
    expect(failed['deployment_error']).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', reason: 'OOMKilled' },
    });
    await api.until('oom', (p) => p['deployment_status'] === 'Stopped', 180_000);
  });

  it('an image that does not exist ends in deployment_error ErrImagePull or ImagePullBackOff', async () => {
    expect(ABSENT_IMAGE_TEMPLATE).not.toBe(REAL_NODE_TEMPLATE);
    const api = client(world);
    await api.create('absent', { pipeline_template_configmap: { name: 'absent-image', key: 'pipelineTemplate' } });
    expect((await api.call('POST', '/v0/pipelines/absent/start')).status).toBe(202);
    const failed = await api.until('absent', (p) => p['deployment_error'] !== undefined, 300_000);
    expect(failed['deployment_error']).toMatchObject({ error_code: 'ResourceError', details: { kind: 'Pod' } });
    const details = (failed['deployment_error'] as { details: { reason: string; message: string } }).details;
    expect(['ErrImagePull', 'ImagePullBackOff']).toContain(details.reason);
    expect(details.message).toContain('svc-local/absent:1');
    await api.until('absent', (p) => p['deployment_status'] === 'Stopped', 180_000);
  });

  it('a container that exits ends in deployment_error CrashLoopBackOff with its exit code', async () => {
    expect(EXITING_TEMPLATE).not.toBe(REAL_NODE_TEMPLATE);
    const api = client(world);
    await api.create('exiting', { pipeline_template_configmap: { name: 'exiting', key: 'pipelineTemplate' } });
    expect((await api.call('POST', '/v0/pipelines/exiting/start')).status).toBe(202);
    const failed = await api.until('exiting', (p) => p['deployment_error'] !== undefined, 300_000);
    expect(failed['deployment_error']).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', reason: 'CrashLoopBackOff' },
    });
    // svc exits with code 2 on a flag it does not know (commander's usage error).
    const details = (failed['deployment_error'] as { details: { message: string } }).details;
    expect(details.message).toMatch(/keeps exiting \(exit code [1-9]/);
    await api.until('exiting', (p) => p['deployment_status'] === 'Stopped', 180_000);
  });
});
