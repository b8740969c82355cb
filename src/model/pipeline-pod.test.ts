import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { checkPipelineBounds, NO_BOUNDS, type PipelineBounds, PipelinePodDefaults } from './pipeline-pod.js';

const BOUNDS: PipelineBounds = { memoryMbMin: 100, memoryMbMax: 1000, storageMbMax: 5000, storageClasses: ['fast'] };

function refusal(resources: Parameters<typeof checkPipelineBounds>[0], bounds = BOUNDS): SvcError {
  try {
    checkPipelineBounds(resources, bounds);
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('checkPipelineBounds', () => {
  it('lets through what is inside, at the bounds, or unset', () => {
    for (const r of [undefined, {}, { memory_mb_min: 100, memory_mb_max: 1000, storage_mb_max: 5000 }]) {
      expect(() => checkPipelineBounds(r, BOUNDS)).not.toThrow();
    }
    expect(() => checkPipelineBounds({ storage_class: 'fast', memory_mb_max: null }, BOUNDS)).not.toThrow();
    expect(() => checkPipelineBounds({ memory_mb_max: 1e9, storage_class: 'any' }, NO_BOUNDS)).not.toThrow();
  });

  it('refuses with a 400 naming the field and the bound', () => {
    const e = refusal({ memory_mb_max: 1001 });
    expect(e.status).toBe(400);
    expect(e.message).toContain('runtime_config.resources.memory_mb_max');
    expect(e.message).toContain('1000');
    expect(e.details).toMatchObject({ bound: 'pipeline.memoryMb.max', limit: 1000 });
    expect(refusal({ memory_mb_min: 99 }).details).toMatchObject({ bound: 'pipeline.memoryMb.min' });
    expect(refusal({ storage_mb_max: 5001 }).details).toMatchObject({ bound: 'pipeline.storageMb.max' });
    expect(refusal({ storage_class: 'slow' }).details).toMatchObject({ bound: 'pipeline.storageClasses' });
    const namespaced = { ...BOUNDS, namespaces: ['svc'] };
    expect(refusal({ namespace: 'other' }, namespaced).details).toMatchObject({
      field: 'runtime_config.resources.namespace',
      bound: 'kubernetesRunner.allowedNamespaces',
    });
    expect(() => checkPipelineBounds({ namespace: 'svc' }, namespaced)).not.toThrow();
  });
});

describe('PipelinePodDefaults', () => {
  it('fills every member and turns numeric quantities into strings', () => {
    const parsed = PipelinePodDefaults.parse({ resources: { limits: { cpu: 2 } } });
    expect(parsed.resources).toEqual({ limits: { cpu: '2' } });
    expect(Object.keys(parsed).sort()).toEqual([
      'affinity',
      'annotations',
      'env',
      'imagePullSecrets',
      'labels',
      'nodeSelector',
      'priorityClassName',
      'resources',
      'tolerations',
    ]);
    expect(parsed.tolerations).toEqual([]);
  });

  it('refuses unknown members and wrong types', () => {
    expect(PipelinePodDefaults.safeParse({ nodeselector: {} }).success).toBe(false);
    expect(PipelinePodDefaults.safeParse({ env: [{ name: 'A' }] }).success).toBe(false);
    expect(PipelinePodDefaults.safeParse({ resources: { requests: { gpu: '1' } } }).success).toBe(false);
  });
});
