import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldOf } from './validation.js';
import { unknownMembers } from './unknown-members.js';
import { compileRuntimeConfig, isReservedEnvName, RuntimeConfigInput } from './runtime-config.js';

describe('runtime_config compile step', () => {
  it('is idempotent: compiling a compiled config gives it back unchanged', () => {
    const once = compileRuntimeConfig(
      RuntimeConfigInput.parse({ workers: 3, storage: {}, fault_tolerance: { checkpoint_interval_secs: 9999 } }),
    );
    expect(compileRuntimeConfig(RuntimeConfigInput.parse(once))).toEqual(once);
  });

  it.each([
    ['RUST_LOG', true],
    ['RUST_LOGGER', false],
    ['SVC_', true],
    ['SVC_ANY', true],
    ['svc_lower', false],
    ['KUBERNETES_SERVICE_HOST', true],
    ['TOKIO_WORKER_THREADS', true],
    ['MY_SVC_VAR', false],
  ])('reserved env name %s: %s', (name, reserved) => {
    expect(isReservedEnvName(name)).toBe(reserved);
  });

  it('accepts fewer pinned CPUs than twice workers (the pipeline warns), refuses duplicates and negatives', () => {
    expect(RuntimeConfigInput.safeParse({ workers: 2, pin_cpus: [0, 1, 2, 3] }).success).toBe(true);
    expect(RuntimeConfigInput.safeParse({ workers: 2, pin_cpus: [0, 1, 2] }).success).toBe(true);
    expect(RuntimeConfigInput.safeParse({ workers: 1, pin_cpus: [0, 0] }).success).toBe(false);
    expect(RuntimeConfigInput.safeParse({ workers: 1, pin_cpus: [-1, 2] }).success).toBe(false);
    expect(RuntimeConfigInput.safeParse({ pin_cpus: [] }).success).toBe(true);
  });
});

const compile = (input: unknown) => compileRuntimeConfig(RuntimeConfigInput.parse(input));

describe('runtime_config forward compatibility (issue 17)', () => {
  it('keeps members it does not know, at any depth, as sent (null included)', () => {
    const rc = compile({
      clock_timezone_offset: '+02:00',
      resources: { volume_attributes_class: null, storage_min: '1Gi', cpu_cores_max: 2 },
      dev_tweaks: { some_newer_tweak: { a: [1] } },
      fault_tolerance: { model: 'at_least_once', extra: true },
      storage: { newer: 1 },
      pipeline_template_configmap: { name: 'tpl', also: 'x' },
    });
    expect(rc).toMatchObject({
      clock_timezone_offset: '+02:00',
      resources: { volume_attributes_class: null, storage_min: '1Gi', cpu_cores_max: 2 },
      dev_tweaks: { some_newer_tweak: { a: [1] }, adaptive_joins: false },
      fault_tolerance: { model: 'at_least_once', extra: true, checkpoint_interval_secs: 60 },
      storage: { newer: 1, compression: 'default' },
      pipeline_template_configmap: { name: 'tpl', key: 'pipelineTemplate', also: 'x' },
    });
    expect(unknownMembers(RuntimeConfigInput, rc).sort()).toEqual([
      'clock_timezone_offset',
      'dev_tweaks.some_newer_tweak',
      'fault_tolerance.extra',
      'pipeline_template_configmap.also',
      'resources.storage_min',
      'resources.volume_attributes_class',
      'storage.newer',
    ]);
  });

  it('still validates the members it knows', () => {
    expect(RuntimeConfigInput.safeParse({ workers: 0, newer: 1 }).success).toBe(false);
    expect(RuntimeConfigInput.safeParse({ resources: { cpu_cores_min: -1, newer: 1 } }).success).toBe(false);
  });

  it.each([
    [{ fault_tolerance: { checkpoint_interval: '60s' } }, 'fault_tolerance.checkpoint_interval_secs', 60],
    [{ fault_tolerance: { checkpoint_interval: '1500ms' } }, 'fault_tolerance.checkpoint_interval_secs', 2],
    [{ fault_tolerance: { checkpoint_interval: '2h' } }, 'fault_tolerance.checkpoint_interval_secs', 3600],
    [{ fault_tolerance: { checkpoint_interval: '0s' } }, 'fault_tolerance.checkpoint_interval_secs', 1],
    [{ max_buffering_delay: '1ms' }, 'max_buffering_delay_usecs', 1000],
    [{ clock_resolution: '100ms' }, 'clock_resolution_usecs', 100_000],
    [{ provisioning_timeout: '5m' }, 'provisioning_timeout_secs', 300],
    [{ provisioning_timeout: '1ms' }, 'provisioning_timeout_secs', 1],
    [{ datafusion_memory: '1Gi' }, 'datafusion_memory_mb', 1074],
    [{ max_rss: '16G' }, 'max_rss_mb', 16_000],
    [{ max_rss: 512 }, 'max_rss_mb', 512],
    [{ resources: { memory_max: '4Gi' } }, 'resources.memory_mb_max', 4295],
    [{ resources: { storage_max: '400Gi' } }, 'resources.storage_mb_max', 429_497],
    [{ storage: { min_spill_size: '10Mi' } }, 'storage.min_storage_bytes', 10 * 1024 * 1024],
  ])('normalises %j onto the seed member %s', (input, path, value) => {
    const rc = compile(input) as Record<string, unknown>;
    const at = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], rc);
    expect(at).toBe(value);
    expect(unknownMembers(RuntimeConfigInput, rc)).toEqual([]);
    expect(JSON.stringify(rc)).not.toMatch(
      /"(checkpoint_interval|max_rss|memory_max|min_spill_size|clock_resolution)"/,
    );
  });

  it.each([
    [{ provisioning_timeout: '0s' }, 'provisioning_timeout'],
    [{ max_rss: '0G' }, 'max_rss'],
    [{ max_rss: '16000' }, 'max_rss'],
    [{ clock_resolution: 'soon' }, 'clock_resolution'],
    [{ fault_tolerance: { checkpoint_interval: '-5s' } }, 'fault_tolerance.checkpoint_interval'],
    [{ max_rss: '1G', max_rss_mb: 1000 }, 'max_rss'],
    [{ resources: { memory_min: '2G', memory_max: '1G' } }, 'resources.memory_mb_min'],
  ])('refuses %j naming %s', (input, field) => {
    const result = RuntimeConfigInput.safeParse(input);
    expect(result.success).toBe(false);
    expect(fieldOf(result.error!.issues[0]!)).toBe(field);
  });

  it('reads storage: true as storage with its defaults and false as none', () => {
    expect(compile({ storage: true }).storage).toEqual({ compression: 'default', min_storage_bytes: 10_048_576 });
    expect(compile({ storage: false })).not.toHaveProperty('storage');
  });

  it('null for an optional member is unset, under either spelling', () => {
    const rc = compile({ max_rss: null, max_rss_mb: 100, clock_resolution: null, workers: null });
    expect(rc).toMatchObject({ max_rss_mb: 100, clock_resolution_usecs: 1_000_000, workers: 8 });
    expect(rc).not.toHaveProperty('max_rss');
  });

  // 3,000 generated configs, CPU-bound: about 1 s on an idle machine, 3 s on a loaded 2-core one.
  it(
    'fuzzed: parses or names a field; a parsed config compiles, round-trips and re-parses',
    { timeout: 60_000 },
    () => {
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.stringMatching(/^[0-9]{1,4}(\.[0-9]{1,3})?(ms|s|m|h|Gi|M|G|x)?$/),
      );
      const members = [...Object.keys(RuntimeConfigInput.shape), 'volume_attributes_class', 'newer'] as const;
      const nested = fc.dictionary(
        fc.constantFrom(...members, 'checkpoint_interval', 'memory_max', 'min_spill_size'),
        value,
        {
          maxKeys: 3,
        },
      );
      const config = fc.dictionary(fc.constantFrom(...members), fc.oneof(value, nested), { maxKeys: 5 });
      fc.assert(
        fc.property(config, (input) => {
          const result = RuntimeConfigInput.safeParse(input);
          if (!result.success) {
            for (const issue of result.error.issues) expect(fieldOf(issue)).not.toBe('');
            return;
          }
          const rc = compileRuntimeConfig(result.data);
          const again = JSON.parse(JSON.stringify(rc)) as unknown;
          expect(compileRuntimeConfig(RuntimeConfigInput.parse(again))).toEqual(again);
        }),
        { numRuns: 3000 },
      );
    },
  );
});
