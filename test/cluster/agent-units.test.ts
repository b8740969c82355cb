// The node agent's pure rules (image lookup, argv, path rewriting, $(VAR) expansion), checked
// without the cluster's help; they decide what a pod's process actually gets.
import { describe, expect, it } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import { cpuShares, milliCpu, niceForShares } from './agent/cpu-weight.js';
import { expandRefs, processEnv } from './agent/env.js';
import { containerArgv, findImage, type ImageConfig } from './agent/images.js';
import { toHostPath, type Mounts } from './agent/volumes.js';

const config: ImageConfig = {
  images: {
    'svc/pipeline-executor': { entrypoint: ['svc', 'pipeline'] },
    'exact:2': { entrypoint: ['exact'], cmd: ['--default'] },
  },
};

describe('node agent rules', () => {
  it('finds an image by exact name, else by repository without tag', () => {
    expect(findImage(config, 'svc/pipeline-executor:0.3.1')?.entrypoint).toEqual(['svc', 'pipeline']);
    expect(findImage(config, 'svc/pipeline-executor')?.entrypoint).toEqual(['svc', 'pipeline']);
    expect(findImage(config, 'exact:2')?.entrypoint).toEqual(['exact']);
    expect(findImage(config, 'exact:3')).toBeUndefined();
    expect(findImage(config, 'registry:5000/other')).toBeUndefined();
  });

  it('combines entrypoint/cmd with command/args as a container runtime does', () => {
    const spec = config.images['exact:2'];
    if (!spec) throw new Error('missing spec');
    expect(containerArgv(spec, { name: 'c' })).toEqual(['exact', '--default']);
    expect(containerArgv(spec, { name: 'c', args: ['--x'] })).toEqual(['exact', '--x']);
    expect(containerArgv(spec, { name: 'c', command: ['sh'], args: ['-c', 'true'] })).toEqual(['sh', '-c', 'true']);
    // Only what the pod wrote is mapped; the image's entrypoint is a host path already.
    const upper = (arg: string) => arg.toUpperCase();
    expect(containerArgv(spec, { name: 'c', args: ['x'] }, upper)).toEqual(['exact', 'X']);
    expect(containerArgv(spec, { name: 'c' }, upper)).toEqual(['exact', '--default']);
  });

  it('rewrites container paths under a mount to the host path', () => {
    const mounts: Mounts = {
      entries: [
        ['/data/config', '/host/cm'],
        ['/data', '/tmp/hostpath_pv/abc'],
      ],
    };
    expect(toHostPath(mounts, '/data')).toBe('/tmp/hostpath_pv/abc');
    expect(toHostPath(mounts, '/data/state/x')).toBe('/tmp/hostpath_pv/abc/state/x');
    expect(toHostPath(mounts, '/data/config/file.yaml')).toBe('/host/cm/file.yaml');
    expect(toHostPath(mounts, '--storage=/data/s')).toBe('--storage=/tmp/hostpath_pv/abc/s');
    expect(toHostPath(mounts, '/database')).toBe('/database');
    expect(toHostPath(mounts, 'data')).toBe('data');
  });

  it('expands $(VAR) references like the kubelet', () => {
    const env = { A: 'x' };
    expect(expandRefs('$(A)-$(B)', env)).toBe('x-$(B)');
    expect(expandRefs('$$(A)', env)).toBe('$(A)');
  });

  it("layers the image's env under the pod's and keeps the agent's credentials out", () => {
    const ctx = {
      core: {} as CoreV1Api,
      pod: { metadata: { name: 'p-0', uid: 'u1' } },
      container: { name: 'c' },
      podIP: '127.11.0.7',
      mounts: { entries: [], storagePath: '/tmp/hostpath_pv/x' },
      marker: 'n@/state',
    };
    const image = { SVC_BIND_ADDRESS: '$(POD_IP)', FROM_IMAGE: 'image' };
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = '/secret/admin.kubeconfig';
    try {
      const env = processEnv(ctx, { FROM_IMAGE: 'pod' }, image);
      expect(env.SVC_BIND_ADDRESS).toBe('127.11.0.7');
      expect(env.FROM_IMAGE).toBe('pod');
      expect(env.POD_IP).toBe('127.11.0.7');
      expect(env.SVC_STORAGE_PATH).toBe('/tmp/hostpath_pv/x');
      expect(env.KUBECONFIG).toBeUndefined();
      expect(env.PATH).toBe(process.env.PATH);
      // The agent's marker names its state dir: a new agent stops its predecessor's processes only.
      expect(env.SVC_AGENT_NODE).toBe('n@/state');
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('weighs a container by its CPU request as the kubelet does, as a nice value', () => {
    expect(milliCpu('250m')).toBe(250);
    expect(milliCpu('1.5')).toBe(1500);
    expect(milliCpu(2)).toBe(2000);
    expect(milliCpu('1Ki')).toBeUndefined();
    expect(milliCpu(undefined)).toBeUndefined();
    // cpu.shares: milliCPU × 1024 / 1000, at least 2 (no request: BestEffort's 2).
    expect(cpuShares({})).toBe(2);
    expect(cpuShares({ resources: { limits: { memory: '1Gi' } } })).toBe(2);
    expect(cpuShares({ resources: { requests: { cpu: '1' } } })).toBe(1024);
    expect(cpuShares({ resources: { requests: { cpu: '250m' } } })).toBe(256);
    expect(cpuShares({ resources: { requests: { cpu: '1m' } } })).toBe(2);
    // nice n weighs 1024 / 1.25^n: a full core runs as the control plane does, no request at the lowest.
    expect(niceForShares(1024)).toBe(0);
    expect(niceForShares(4096)).toBe(0);
    expect(niceForShares(256)).toBe(6);
    expect(niceForShares(102)).toBe(10);
    expect(niceForShares(2)).toBe(19);
  });
});
