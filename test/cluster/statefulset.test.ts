// A StatefulSet with a volumeClaimTemplate and a readiness probe runs as a local process on its own
// loopback address, with its PVC's hostPath PV as its storage; scaling to 0 stops the process and
// removes the pod but keeps the claim; deleting the claim releases the volume.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from './control-plane/processes.js';
import { adminConfig, createNamespace, deleteNamespace, isGone, waitFor, waitForPod } from './helpers.js';
import { fixtureInfo, statefulSet } from './specs.js';

describe('StatefulSet with storage', () => {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createNamespace(kc, 'sts');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  // One scenario in steps that share state; each step needs the one before.
  let podIP = '';
  let hostPath = '';
  let pvName = '';
  let pid = 0;

  it('runs the pod Ready on its own loopback address', async () => {
    await apps.createNamespacedStatefulSet({ namespace, body: statefulSet('web') });
    const ready = await waitForPod(kc, namespace, 'web-0', 'Running and Ready', (p) =>
      p.status?.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
        ? p
        : undefined,
    );
    podIP = ready.status?.podIP ?? '';
    expect(podIP).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(podIP).not.toBe('127.0.0.1');
    expect(ready.spec?.nodeName).toBe('svc-test-node');
    const cs = ready.status?.containerStatuses?.[0];
    expect(cs?.ready).toBe(true);
    expect(cs?.restartCount).toBe(0);
    expect(cs?.state?.running).toBeDefined();
  });

  it('binds the claim to a hostPath PV that the process writes into', async () => {
    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: 'storage-web-0', namespace });
    expect(pvc.status?.phase).toBe('Bound');
    const pv = await core.readPersistentVolume({ name: pvc.spec?.volumeName ?? '' });
    pvName = pv.metadata?.name ?? '';
    hostPath = pv.spec?.hostPath?.path ?? '';
    expect(hostPath).toMatch(/^\/tmp\/hostpath_pv\//);
    expect(pv.spec?.storageClassName).toBe('standard');

    // The process got /data/pipeline rewritten to the PV's directory, and wrote there.
    const info = await fixtureInfo(podIP);
    pid = info.pid;
    expect(info.host).toBe(podIP);
    expect(info.storage).toBe(join(hostPath, 'pipeline'));
    expect(info.greeting).toBe('hello from web-0');
    expect(isAlive(pid)).toBe(true);
    expect(readFileSync(join(hostPath, 'pipeline', 'fixture.log'), 'utf8')).toContain(`started pid=${pid}`);
  });

  it('stops the process and removes the pod when scaled to 0, keeping the claim', async () => {
    await apps.patchNamespacedStatefulSetScale(
      { name: 'web', namespace, body: { spec: { replicas: 0 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await waitFor('pod web-0 deleted', 90_000, () => isGone(core.readNamespacedPod({ name: 'web-0', namespace })));
    expect(isAlive(pid)).toBe(false);
    // Stopped with SIGTERM first (the fixture logs it), not killed outright.
    expect(readFileSync(join(hostPath, 'pipeline', 'fixture.log'), 'utf8')).toContain(`stopped pid=${pid}`);
    const kept = await core.readNamespacedPersistentVolumeClaim({ name: 'storage-web-0', namespace });
    expect(kept.status?.phase).toBe('Bound');
    expect(existsSync(hostPath)).toBe(true);
  });

  it('releases the volume when the claim is deleted', async () => {
    await core.deleteNamespacedPersistentVolumeClaim({ name: 'storage-web-0', namespace });
    await waitFor('PVC deleted', 60_000, () =>
      isGone(core.readNamespacedPersistentVolumeClaim({ name: 'storage-web-0', namespace })),
    );
    // reclaimPolicy Delete: the controller manager deletes the PV and its directory.
    await waitFor('PV deleted', 60_000, () => isGone(core.readPersistentVolume({ name: pvName })));
    expect(existsSync(hostPath)).toBe(false);
  });
});
