import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SvcProcess } from '../../support/svc-process.js';
import { client, type RunnerWorld } from '../../kubernetes/harness.js';
import { waitFor } from '../control-plane/processes.js';
import { NODE, realNodeTemplate, resolveInPod, startRealNodeWorld, statusFromPod, withTemplate } from './world.js';

// Issue 18: a pipeline started through the API runs, through `svc runner --backend kubernetes`, as a
// real container from the image the project's Dockerfile builds, on the real node (containerd +
// kubelet), its JSON log lines come back through the kubelet (`kubectl logs`), and in the pod the
// pipeline's Service DNS names resolve (CoreDNS).

/** The real node's template with an image no registry here has, for ErrImagePull. */
const ABSENT_IMAGE_TEMPLATE = realNodeTemplate(
  "        - name: pipeline\n          image: '{pipeline_executor_image}'",
  '        - name: pipeline\n          image: svc-local/absent:1',
);

/** The real node's template with a flag `svc pipeline` refuses, so the container exits at once. */
const EXITING_TEMPLATE = realNodeTemplate(
  '            - pipeline\n',
  '            - pipeline\n            - --no-such-flag\n',
);

let world: RunnerWorld;
let runner: SvcProcess;
beforeAll(async () => {
  ({ world, runner } = await startRealNodeWorld('real-node', {
    'absent-image': ABSENT_IMAGE_TEMPLATE,
    exiting: EXITING_TEMPLATE,
  }));
});
afterAll(async () => world?.close());

describe('real node: a pipeline in a container from the svc image', { timeout: 600_000 }, () => {
  it('runs on the real node, logs JSON through the kubelet, resolves Service DNS, reaches a ClusterIP Service', async () => {
    expect(runner.child.exitCode).toBeNull();
    const api = client(world);
    const created = await api.create('real');
    const id = String(created['id']);
    expect((await api.call('POST', '/v0/pipelines/real/start')).status).toBe(202);
    const running = await api.until(
      'real',
      (p) => p['deployment_status'] === 'Running' || p['deployment_error'] != null,
      300_000,
    );
    expect(running['deployment_error'] ?? null).toBeNull();

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

    // Service DNS in the pod (CoreDNS on the node, the kubelet's clusterDNS): the runner's default
    // address of the pipeline ({id}-0.{id}.{namespace}.svc, the search list adds cluster.local) and
    // the headless Service's full name both resolve to the pod's IP.
    expect(pod.status?.podIP).toMatch(/^10\./);
    for (const name of [
      `pipeline-${id}-0.pipeline-${id}.${world.namespace}.svc`,
      `pipeline-${id}.${world.namespace}.svc.cluster.local`,
    ]) {
      expect(await resolveInPod(world.namespace, `pipeline-${id}-0`, name), name).toBe(pod.status?.podIP);
    }
    // A Service with a cluster IP in front of the pod (kube-proxy's NAT): reached by name from the pod.
    await core.createNamespacedService({
      namespace: world.namespace,
      body: {
        metadata: { name: 'probe' },
        spec: {
          selector: { 'statefulset.kubernetes.io/pod-name': `pipeline-${id}-0` },
          ports: [{ port: 80, targetPort: 8080 }],
        },
      },
    });
    expect(await resolveInPod(world.namespace, `pipeline-${id}-0`, 'probe')).toMatch(/^10\.96\./);
    // Refused until the EndpointSlice controller and kube-proxy have caught up with the new Service.
    const answer = await waitFor('the probe Service to answer', 60_000, () =>
      statusFromPod(world.namespace, `pipeline-${id}-0`, 'http://probe/status'),
    );
    // The pipeline answered through the Service: 401, since a caller without its deployment's token
    // (this probe) is refused (docs/security.md); the API's own calls carry it.
    expect(answer).toBe('401');

    expect((await api.call('POST', '/v0/pipelines/real/stop?force=true')).status).toBe(202);
    const stopped = await api.until('real', (p) => p['deployment_status'] === 'Stopped', 180_000);
    expect(stopped['deployment_error'] ?? null).toBeNull();
  });

  it('a memory limit exceeded ends in deployment_error OOMKilled, produced by the kernel', async () => {
    const api = client(world);
    await api.create('oom', { resources: { memory_mb_max: 20 } });
    expect((await api.call('POST', '/v0/pipelines/oom/start')).status).toBe(202);
    const failed = await api.until('oom', (p) => p['deployment_error'] != null, 300_000);
    expect(failed['deployment_error']).toMatchObject({
      error_code: 'ResourceError',
      details: { kind: 'Pod', reason: 'OOMKilled' },
    });
    await api.until('oom', (p) => p['deployment_status'] === 'Stopped', 180_000);
  });

  it('an image that does not exist ends in deployment_error ErrImagePull or ImagePullBackOff', async () => {
    const api = client(world);
    await api.create('absent', withTemplate('absent-image'));
    expect((await api.call('POST', '/v0/pipelines/absent/start')).status).toBe(202);
    const failed = await api.until('absent', (p) => p['deployment_error'] != null, 300_000);
    expect(failed['deployment_error']).toMatchObject({ error_code: 'ResourceError', details: { kind: 'Pod' } });
    const details = (failed['deployment_error'] as { details: { reason: string; message: string } }).details;
    expect(['ErrImagePull', 'ImagePullBackOff']).toContain(details.reason);
    expect(details.message).toContain('svc-local/absent:1');
    await api.until('absent', (p) => p['deployment_status'] === 'Stopped', 180_000);
  });

  it('a container that exits ends in deployment_error CrashLoopBackOff with its exit code', async () => {
    const api = client(world);
    await api.create('exiting', withTemplate('exiting'));
    expect((await api.call('POST', '/v0/pipelines/exiting/start')).status).toBe(202);
    const failed = await api.until('exiting', (p) => p['deployment_error'] != null, 300_000);
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
