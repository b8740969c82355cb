// The parts of a pod spec the runner's StatefulSet uses besides storage: init containers that run
// to completion first, a ConfigMap volume (the deployment config file), an emptyDir shared between
// containers, workingDir, and env values naming paths under mounts; and the CPU weight a container
// gets from its CPU request (agent/cpu-weight.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConfig, createNamespace, deleteNamespace, waitForPod } from './helpers.js';
import { NODE, fixtureContainer, fixtureInfo, pod } from './specs.js';

/**
 * The fixture with its workingDir in a ConfigMap volume and its storage in an emptyDir that an init
 * container writes into first. /work on purpose: the repo itself lives under /work here, so a path
 * rewrite that touched the image's own (host) paths would break the start.
 */
function featuredPod(): k8s.V1Pod {
  const main = fixtureContainer(['--storage=/work/state']);
  main.workingDir = '/etc/svc';
  main.volumeMounts = [
    { name: 'config', mountPath: '/etc/svc' },
    { name: 'scratch', mountPath: '/work' },
  ];
  const init: k8s.V1Container = {
    name: 'prepare',
    image: NODE,
    args: ['-e', "require('fs').writeFileSync(process.env.MARK, 'init ran')"],
    env: [{ name: 'MARK', value: '/work/init-done' }],
    volumeMounts: [{ name: 'scratch', mountPath: '/work' }],
  };
  const body = pod('featured', [main]);
  body.spec = {
    ...body.spec,
    containers: [main],
    initContainers: [init],
    volumes: [
      { name: 'config', configMap: { name: 'deployment' } },
      { name: 'scratch', emptyDir: {} },
    ],
  };
  return body;
}

describe('pod spec features', () => {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let namespace = '';

  beforeAll(async () => {
    namespace = await createNamespace(kc, 'spec');
  });
  afterAll(async () => {
    await deleteNamespace(kc, namespace);
  });

  it('runs a container at the CPU weight of its request: none is the lowest, 250m a quarter', async () => {
    const requesting = fixtureContainer();
    requesting.resources = { requests: { cpu: '250m' }, limits: { cpu: '1' } };
    await Promise.all([
      core.createNamespacedPod({ namespace, body: pod('besteffort', [fixtureContainer()]) }),
      core.createNamespacedPod({ namespace, body: pod('burstable', [requesting]) }),
    ]);
    const niceOf = async (name: string) => {
      const ready = await waitForPod(kc, namespace, name, 'Ready', (p) =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined,
      );
      const { pid } = await fixtureInfo(ready.status?.podIP ?? '');
      // /proc/<pid>/stat: the 19th field is the nice value (fields after the command's ')').
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return Number(fields[16]);
    };
    expect(await niceOf('besteffort')).toBe(19);
    // 250m: cpu.shares 256, a quarter of an unweighted process's 1024: nice 6 (1024 / 1.25^6 ≈ 262).
    expect(await niceOf('burstable')).toBe(6);
  });

  it('runs init containers first and maps ConfigMap and emptyDir volumes to host directories', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'deployment' }, data: { 'deployment.yaml': 'id: 42\n' } },
    });
    const body = featuredPod();
    await core.createNamespacedPod({ namespace, body });

    const ready = await waitForPod(kc, namespace, 'featured', 'Ready', (p) =>
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined,
    );
    const initStatus = ready.status?.initContainerStatuses?.[0];
    expect(initStatus?.state?.terminated?.exitCode).toBe(0);
    expect(initStatus?.state?.terminated?.reason).toBe('Completed');
    expect(ready.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');

    const info = await fixtureInfo(ready.status?.podIP ?? '');
    // workingDir /etc/svc is the ConfigMap's directory, with the key as a file.
    expect(info.cwdFiles).toContain('deployment.yaml');
    expect(readFileSync(join(info.cwd, 'deployment.yaml'), 'utf8')).toBe('id: 42\n');
    // The init container's file is in the same emptyDir the main container's storage is under.
    const scratch = join(info.storage ?? '', '..');
    expect(readFileSync(join(scratch, 'init-done'), 'utf8')).toBe('init ran');
  });
});
