import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// The operator's bounds (chart values pipeline.memoryMb, storageMb, storageClasses; issue 19): a start
// asking for more is a 400 naming the field and the bound, and changes nothing (the runner, which
// acts only on the desired status, applies nothing).

describe('start within the operator bounds', () => {
  let h: Harness;
  let n = 0;
  const withResources = async (resources: Record<string, unknown>) => {
    const name = `bounds-${n++}`;
    const r = await h.request('POST', '/v0/pipelines', pipelineBody(name, { runtime_config: { resources } }));
    expect(r.status).toBe(201);
    return name;
  };
  const start = (name: string) => h.request('POST', `/v0/pipelines/${name}/start`);

  beforeAll(async () => {
    h = await startHarness('pglite', {
      bounds: {
        memoryMbMin: 256,
        memoryMbMax: 8192,
        storageMbMax: 20_480,
        storageClasses: ['fast', 'standard'],
        namespaces: ['svc', 'team-a'],
        // The chart's defaults (issue 27): its pipeline account only, no init container images.
        serviceAccounts: ['svc-pipeline'],
        initContainerImages: [],
      },
    });
  });
  afterAll(async () => h.close());

  it.each([
    [{ memory_mb_max: 9000 }, 'runtime_config.resources.memory_mb_max', 'pipeline.memoryMb.max', 8192],
    [{ memory_mb_min: 9000 }, 'runtime_config.resources.memory_mb_min', 'pipeline.memoryMb.max', 8192],
    [{ memory_mb_min: 100 }, 'runtime_config.resources.memory_mb_min', 'pipeline.memoryMb.min', 256],
    // The newer spelling is stored as the seed's, so it is held to the same bound.
    [{ memory_max: '16Gi' }, 'runtime_config.resources.memory_mb_max', 'pipeline.memoryMb.max', 8192],
    [{ storage_mb_max: 30_000 }, 'runtime_config.resources.storage_mb_max', 'pipeline.storageMb.max', 20_480],
    [{ storage_class: 'gold' }, 'runtime_config.resources.storage_class', 'pipeline.storageClasses', 'fast,standard'],
    [{ namespace: 'other' }, 'runtime_config.resources.namespace', 'kubernetesRunner.allowedNamespaces', 'svc,team-a'],
    // The runner's own account (whose token mounts by default) or any other the chart did not list.
    [
      { service_account_name: 'svc-runner' },
      'runtime_config.resources.service_account_name',
      'pipeline.serviceAccounts',
      'svc-pipeline',
    ],
  ])('%j: 400 naming %s and %s', async (resources, field, bound, limit) => {
    const name = await withResources(resources);
    const before = (await h.request('GET', `/v0/pipelines/${name}`)).body;
    const r = await start(name);
    expect(r.status).toBe(400);
    expect(r.body.error_code).toBe('InvalidRuntimeConfig');
    expect(r.body.details).toMatchObject({ field, bound, limit });
    expect(r.body.message).toContain(field);
    const after = (await h.request('GET', `/v0/pipelines/${name}`)).body;
    expect(after).toMatchObject({ deployment_desired_status: 'Stopped', refresh_version: before.refresh_version });
  });

  it('refuses any init container while the chart lists no image: 400 naming the field', async () => {
    const name = `bounds-${n++}`;
    const init_containers = [{ name: 'root', image: 'busybox', securityContext: { privileged: true } }];
    expect(
      (await h.request('POST', '/v0/pipelines', pipelineBody(name, { runtime_config: { init_containers } }))).status,
    ).toBe(201);
    const r = await start(name);
    expect(r.status).toBe(400);
    expect(r.body.details).toMatchObject({
      field: 'runtime_config.init_containers[0].image',
      bound: 'pipeline.initContainerImages',
    });
    expect((await h.request('GET', `/v0/pipelines/${name}`)).body['deployment_desired_status']).toBe('Stopped');
  });

  it('starts a pipeline inside the bounds, or one that asks for nothing', async () => {
    const inside = await withResources({
      memory_mb_min: 256,
      memory_mb_max: 8192,
      storage_mb_max: 20_480,
      storage_class: 'fast',
      service_account_name: 'svc-pipeline',
    });
    expect((await start(inside)).status).toBe(202);
    expect((await start(await withResources({}))).status).toBe(202);
  });
});
