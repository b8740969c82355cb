import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Json, type RunnerWorld } from '../../kubernetes/harness.js';
import { realNodeTemplate, startRealNodeWorld, withTemplate } from './world.js';

// Issue 18, item 4: the failures that come from the volumes and the scheduler, each produced for real
// on the real node (kubelet, the controller manager's PV controller, kube-scheduler) and each ending
// in its deployment_error through `svc runner --backend kubernetes`. They run at once: each waits
// out the runner's grace for its failure (FailedMount 30 s, Unschedulable 60 s) rather than working.

/** The real node's template with a Secret volume whose Secret does not exist: the kubelet cannot mount it. */
const ABSENT_SECRET_TEMPLATE = realNodeTemplate(
  '      volumes:\n',
  '      volumes:\n        - name: absent\n          secret: {secretName: svc-absent-secret}\n',
).replace(
  '            - name: tmp\n              mountPath: /tmp\n',
  '            - name: tmp\n              mountPath: /tmp\n            - name: absent\n              mountPath: /etc/absent\n',
);

let world: RunnerWorld;
/** A class of the in-tree hostPath provisioner with mount options, which that provisioner refuses. */
let storageClass: string;
beforeAll(async () => {
  expect(ABSENT_SECRET_TEMPLATE).toContain('mountPath: /etc/absent');
  ({ world } = await startRealNodeWorld('real-node-failures', { 'absent-secret': ABSENT_SECRET_TEMPLATE }));
  storageClass = `${world.namespace}-no-mount-options`;
  await world.admin.makeApiClient(k8s.StorageV1Api).createStorageClass({
    body: {
      metadata: { name: storageClass },
      provisioner: 'kubernetes.io/host-path',
      mountOptions: ['ro'],
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    },
  });
});
afterAll(async () => {
  if (storageClass) await world.admin.makeApiClient(k8s.StorageV1Api).deleteStorageClass({ name: storageClass });
  await world?.close();
});

/** Starts pipeline `name` with `runtimeConfig` and returns its deployment_error once it has one, and it is Stopped. */
async function failureOf(
  name: string,
  runtimeConfig: Json,
): Promise<{ kind: string; reason: string; message: string }> {
  const api = client(world);
  await api.create(name, runtimeConfig);
  expect((await api.call('POST', `/v0/pipelines/${name}/start`)).status).toBe(202);
  const failed = await api.until(name, (p) => p['deployment_error'] !== undefined, 300_000);
  expect(failed['deployment_error']).toMatchObject({ error_code: 'ResourceError' });
  await api.until(name, (p) => p['deployment_status'] === 'Stopped', 180_000);
  return (failed['deployment_error'] as { details: { kind: string; reason: string; message: string } }).details;
}

describe.concurrent(
  'real node: volume and scheduling failures end in their deployment_error',
  { timeout: 600_000 },
  () => {
    it('a volume whose Secret does not exist: FailedMount from the kubelet, once it lasted the grace', async () => {
      const details = await failureOf('mount', withTemplate('absent-secret'));
      expect(details).toMatchObject({ kind: 'Pod', reason: 'FailedMount' });
      // The kubelet's own words: MountVolume.SetUp failed for volume "absent" : secret "svc-absent-secret" not found
      expect(details.message).toContain('"svc-absent-secret" not found');
    });

    it('a claim whose storage class cannot provision: ProvisioningFailed from the PV controller', async () => {
      const details = await failureOf('provision', { resources: { storage_class: storageClass } });
      expect(details).toMatchObject({ kind: 'PersistentVolumeClaim', reason: 'ProvisioningFailed' });
      expect(details.message).toContain('Mount options are not supported');
    });

    it('a CPU request no node has: Unschedulable from kube-scheduler, once it lasted the grace', async () => {
      const details = await failureOf('unschedulable', { resources: { cpu_cores_min: 64 } });
      expect(details).toMatchObject({ kind: 'Pod', reason: 'Unschedulable' });
      // kube-scheduler's verdict (the node agent writes nothing on a pod for the real node).
      expect(details.message).toContain('Insufficient cpu');
    });
  },
);
