import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, type Harness, pipelineBody, startHarness } from '../support/api-harness.js';

// Every member of seed 2.6 and 2.3 through the real API: accepted with a good value, rejected with
// a bad one by a 400 that names the member, defaults filled in the response.

/** [path inside runtime_config, a valid value, an invalid value]. */
const RUNTIME_FIELDS: Array<[string, unknown, unknown]> = [
  ['checkpoint_during_suspend', true, 'yes'],
  ['clock_resolution_usecs', 5000, -1],
  ['cpu_profiler', false, 1],
  ['datafusion_memory_mb', 512, 1.5],
  ['env', { MY_VAR: 'v' }, { TOKIO_WORKERS: '1' }],
  ['hosts', 2, 0],
  ['http_workers', 2, 'two'],
  ['init_containers', [{ name: 'side', image: 'busybox' }], undefined],
  ['io_workers', 2, 0],
  ['logging', 'info,svc=debug', 5],
  ['max_buffering_delay_usecs', 10, -5],
  ['max_parallel_connector_init', 4, 0],
  ['max_rss_mb', 4096, 'lots'],
  ['min_batch_size_records', 100, -1],
  ['pin_cpus', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [0, 1, 1]],
  ['provisioning_timeout_secs', 30, 0],
  ['tracing', true, 'no'],
  ['tracing_endpoint_jaeger', 'localhost:6831', 42],
  ['workers', 4, 0],
  ['fault_tolerance.checkpoint_interval_secs', 30, 'often'],
  ['fault_tolerance.model', 'exactly_once', undefined],
  ['pipeline_template_configmap.name', 'my-template', 'Not_A_Name'],
  ['resources.cpu_cores_min', 0.5, -1],
  ['resources.cpu_cores_max', 2, 'two'],
  ['resources.memory_mb_min', 256, -1],
  ['resources.memory_mb_max', 1024, 1.5],
  ['resources.storage_mb_max', 10_000, -1],
  ['resources.storage_class', 'fast-ssd', 'Fast SSD'],
  ['resources.namespace', 'pipelines', 'UPPER'],
  ['resources.service_account_name', 'pipeline-sa', 'bad/name'],
  ['storage.backend', { name: 'default' }, 'file'],
  ['storage.cache_mib', 128, -1],
  ['storage.compression', 'snappy', 'zstd'],
  ['storage.min_storage_bytes', 0, -1],
  ['storage.min_step_storage_bytes', 1024, 'big'],
  ['dev_tweaks.adaptive_joins', true, 'on'],
  ['dev_tweaks.balancer_balance_tax', 1.5, 'x'],
  ['dev_tweaks.balancer_key_distribution_refresh_threshold', 0.2, 'x'],
  ['dev_tweaks.balancer_min_absolute_improvement_threshold', 5, -1],
  ['dev_tweaks.balancer_min_relative_improvement_threshold', 1.5, 'x'],
  ['dev_tweaks.bloom_false_positive_rate', 0.01, 'x'],
  ['dev_tweaks.buffer_cache_allocation_strategy', 'global', 'local'],
  ['dev_tweaks.buffer_cache_strategy', 'lru', 'fifo'],
  ['dev_tweaks.buffer_max_buckets', 16, 0],
  ['dev_tweaks.disable_auto_transaction', true, 'x'],
  ['dev_tweaks.eager_evict', true, 'x'],
  ['dev_tweaks.enable_roaring', true, 'x'],
  ['dev_tweaks.fbuf_slab_bytes_per_class', 1024, -1],
  ['dev_tweaks.fetch_distinct', true, 'x'],
  ['dev_tweaks.fetch_join', true, 'x'],
  ['dev_tweaks.max_level0_batch_size_records', 1000, 0],
  ['dev_tweaks.merger', 'list_merger', 'merge_sort'],
  ['dev_tweaks.merger_threads', 2, 0],
  ['dev_tweaks.negative_weight_multiplier', 3, -1],
  ['dev_tweaks.now_http_driven', true, 'x'],
  ['dev_tweaks.now_offset', '2020-02-29T12:00:00Z', '2021-02-29T12:00:00Z'],
  ['dev_tweaks.splitter_chunk_size_records', 500, 0],
  ['dev_tweaks.stack_overflow_backtrace', true, 'x'],
  ['dev_tweaks.storage_mb_max', 1000, -1],
  ['dev_tweaks.streaming_exchange', true, 'x'],
];

const ENUMS: Record<string, string[]> = {
  'storage.compression': ['default', 'none', 'snappy'],
  'dev_tweaks.buffer_cache_allocation_strategy': ['shared_per_worker_pair', 'per_thread', 'global'],
  'dev_tweaks.buffer_cache_strategy': ['s3_fifo', 'lru'],
  'dev_tweaks.merger': ['push_merger', 'list_merger'],
};

function nest(path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  return { [head as string]: rest.length ? nest(rest.join('.'), value) : value };
}
function pick(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

describe.each(BACKENDS)('runtime_config and program_config on %s', (backend) => {
  let h: Harness;
  let n = 0;
  const create = (runtime_config: unknown, extra: Record<string, unknown> = {}) =>
    h.request('POST', '/v0/pipelines', pipelineBody(`rc-${n++}`, { runtime_config, ...extra }));
  beforeAll(async () => {
    h = await startHarness(backend);
  });
  afterAll(async () => h.close());

  it.each(RUNTIME_FIELDS)('accepts a valid %s and serves it back', async (path, good) => {
    const r = await create(nest(path, good));
    expect(r.status, r.text).toBe(201);
    expect(pick(r.body.runtime_config, path)).toEqual(good);
  });

  it.each(RUNTIME_FIELDS.filter(([, , bad]) => bad !== undefined))(
    'rejects a wrong %s with 400 InvalidRuntimeConfig naming it',
    async (path, _good, bad) => {
      const r = await create(nest(path, bad));
      expect(r.status, r.text).toBe(400);
      expect(r.body.error_code).toBe('InvalidRuntimeConfig');
      expect(r.body.message).toContain(`runtime_config.${path}`);
      expect(r.body.details.field).toContain(`runtime_config.${path}`);
    },
  );

  it.each(Object.entries(ENUMS))('accepts every value of the %s enum', async (path, values) => {
    for (const v of values) expect((await create(nest(path, v))).status).toBe(201);
  });

  it('fills the documented defaults', async () => {
    const r = await create({ fault_tolerance: {}, storage: {}, pipeline_template_configmap: { name: 'tpl' } });
    expect(r.body.runtime_config).toMatchObject({
      clock_resolution_usecs: 1_000_000,
      cpu_profiler: true,
      hosts: 1,
      max_buffering_delay_usecs: 0,
      max_parallel_connector_init: 10,
      min_batch_size_records: 0,
      workers: 8,
      http_workers: 8,
      io_workers: 8,
      fault_tolerance: { checkpoint_interval_secs: 60 },
      storage: { compression: 'default', min_storage_bytes: 10_048_576 },
      pipeline_template_configmap: { name: 'tpl', key: 'pipelineTemplate' },
      dev_tweaks: {
        adaptive_joins: false,
        balancer_balance_tax: 1.1,
        balancer_key_distribution_refresh_threshold: 0.1,
        balancer_min_absolute_improvement_threshold: 10_000,
        balancer_min_relative_improvement_threshold: 1.2,
        bloom_false_positive_rate: 0.0001,
        eager_evict: false,
        fbuf_slab_bytes_per_class: 16 * 1024 * 1024,
        negative_weight_multiplier: 0,
        splitter_chunk_size_records: 10_000,
        streaming_exchange: false,
      },
    });
    // Absent fault_tolerance means disabled: no defaults invented for it.
    expect((await create({})).body.runtime_config).not.toHaveProperty('fault_tolerance');
  });

  it('http_workers and io_workers default to workers', async () => {
    const r = await create({ workers: 5 });
    expect(r.body.runtime_config).toMatchObject({ workers: 5, http_workers: 5, io_workers: 5 });
  });

  it.each([
    [0, 1],
    [-20, 1],
    [1, 1],
    [3600, 3600],
    [3601, 3600],
    [1e9, 3600],
  ])('clamps checkpoint_interval_secs %d into 1..3600 (%d)', async (given, served) => {
    const r = await create({ fault_tolerance: { checkpoint_interval_secs: given } });
    expect(r.body.runtime_config.fault_tolerance.checkpoint_interval_secs).toBe(served);
  });

  it('accepts bloom_false_positive_rate outside (0, 1) as "disabled" and stores it as given', async () => {
    for (const f of [0, 1, 2.5]) {
      const r = await create({ dev_tweaks: { bloom_false_positive_rate: f } });
      expect(r.body.runtime_config.dev_tweaks.bloom_false_positive_rate).toBe(f);
    }
  });

  it('lists every reserved env name in one error', async () => {
    const r = await create({ env: { RUST_LOG: 'x', SVC_A: '1', KUBERNETES_B: '2', TOKIO_C: '3', FINE: 'ok' } });
    expect(r.status).toBe(400);
    for (const k of ['RUST_LOG', 'SVC_A', 'KUBERNETES_B', 'TOKIO_C']) expect(r.body.message).toContain(k);
    expect(r.body.message).not.toContain('FINE');
  });

  it('keeps members it does not know at any depth as sent, and logs each once as ignored', async () => {
    const rc = {
      wrokers: 4,
      resources: { volume_attributes_class: null, cpu: 1 },
      dev_tweaks: { turbo: true },
    };
    const first = await create(rc);
    expect(first.status, first.text).toBe(201);
    expect(first.body.runtime_config).toMatchObject(rc);
    const again = await h.request('GET', `/v0/pipelines/${first.body.name}`);
    expect(again.body.runtime_config).toMatchObject(rc);
    expect((await create(rc)).status).toBe(201);
    const lines = h.logs.filter((l) => JSON.stringify(l).includes('kept as sent and ignored'));
    expect(lines).toHaveLength(1);
    for (const path of ['wrokers', 'resources.volume_attributes_class', 'resources.cpu', 'dev_tweaks.turbo'])
      expect(JSON.stringify(lines[0])).toContain(`runtime_config.${path}`);
  });

  it('understands the newer duration and size spellings, normalised onto the seed members', async () => {
    const r = await create({
      max_buffering_delay: '5ms',
      clock_resolution: '250ms',
      provisioning_timeout: '2m',
      datafusion_memory: '512M',
      max_rss: '2Gi',
      fault_tolerance: { model: 'at_least_once', checkpoint_interval: '90s' },
      resources: { memory_max: '1G' },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.runtime_config).toMatchObject({
      max_buffering_delay_usecs: 5000,
      clock_resolution_usecs: 250_000,
      provisioning_timeout_secs: 120,
      datafusion_memory_mb: 512,
      max_rss_mb: 2148,
      fault_tolerance: { model: 'at_least_once', checkpoint_interval_secs: 90 },
      resources: { memory_mb_max: 1000 },
    });
    for (const [rc, field] of [
      [{ provisioning_timeout: '0s' }, 'runtime_config.provisioning_timeout'],
      [{ fault_tolerance: { checkpoint_interval: 'often' } }, 'runtime_config.fault_tolerance.checkpoint_interval'],
      [{ max_rss: '2G', max_rss_mb: 10 }, 'runtime_config.max_rss'],
    ] as const) {
      const bad = await create(rc);
      expect(bad.status, bad.text).toBe(400);
      expect(bad.body.error_code).toBe('InvalidRuntimeConfig');
      expect(bad.body.details.field).toBe(field);
    }
  });

  it('rejects min above max in resources', async () => {
    const r = await create({ resources: { cpu_cores_min: 4, cpu_cores_max: 2 } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('runtime_config.resources.cpu_cores_min');
  });

  it('rejects now_offset in year 0000 and accepts years 0001 and 9999', async () => {
    expect((await create({ dev_tweaks: { now_offset: '0000-01-01T00:00:00Z' } })).status).toBe(400);
    expect((await create({ dev_tweaks: { now_offset: '0001-01-01T00:00:00Z' } })).status).toBe(201);
    expect((await create({ dev_tweaks: { now_offset: '9999-12-31T23:59:59+01:00' } })).status).toBe(201);
  });

  it('treats null members as unset', async () => {
    const r = await create({ workers: null, storage: null, fault_tolerance: null });
    expect(r.status).toBe(201);
    expect(r.body.runtime_config.workers).toBe(8);
    expect(r.body.runtime_config).not.toHaveProperty('storage');
  });

  it('validates program_config: every profile accepted, wrong values named', async () => {
    for (const profile of ['dev', 'unoptimized', 'optimized', 'optimized_symbols']) {
      const r = await create({}, { program_config: { profile } });
      expect(r.body.program_config).toEqual({ cache: true, use_platform_compiler: false, profile });
    }
    for (const [pc, field] of [
      [{ profile: 'fast' }, 'program_config.profile'],
      [{ cache: 'yes' }, 'program_config.cache'],
      [{ use_platform_compiler: 1 }, 'program_config.use_platform_compiler'],
      [{ runtime_version: 7 }, 'program_config.runtime_version'],
    ] as const) {
      const r = await create({}, { program_config: pc });
      expect(r.status).toBe(400);
      expect(r.body.error_code).toBe('InvalidProgramConfig');
      expect(r.body.message).toContain(field);
    }
    const kept = await create({}, { program_config: { color: 'red', runtime_version: null } });
    expect(kept.body.program_config).toEqual({ cache: true, use_platform_compiler: false, color: 'red' });
    const v = await create({}, { program_config: { cache: false, runtime_version: 'v0.1.0' } });
    expect(v.body.program_config).toEqual({ cache: false, use_platform_compiler: false, runtime_version: 'v0.1.0' });
  });
});
