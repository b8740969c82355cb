// The node agent's pure rules (image lookup, argv, path rewriting, $(VAR) expansion), checked
// without the cluster's help; they decide what a pod's process actually gets.
import { describe, expect, it } from 'vitest';
import { expandRefs } from './agent/env.js';
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
});
