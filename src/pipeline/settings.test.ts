import { describe, expect, it } from 'vitest';
import { logLevelOf, processSettings } from './settings.js';

describe('logLevelOf: runtime_config.logging (seed 2.6: invalid → INFO)', () => {
  it.each([
    ['debug', 'debug'],
    [' WARN ', 'warn'],
    ['warning', 'warn'],
    ['trace', 'trace'],
    ['info,svc=debug', 'info'],
    ['nonsense', 'info'],
  ])('%s → %s', (filter, level) => expect(logLevelOf(filter)).toBe(level));
});

describe('processSettings', () => {
  it('defaults for an empty runtime_config', () => {
    expect(processSettings({})).toEqual({
      workers: 8,
      cpuCoresMax: undefined,
      logLevel: undefined,
      clockResolutionMs: 1000,
      minBatchSizeRecords: 0,
      maxBufferingDelayMs: 0,
      checkpointIntervalSecs: undefined,
      nowHttpDriven: false,
      nowOffsetMs: undefined,
      maxParallelConnectorInit: 10,
      storageMaxBytes: undefined,
      spillMinBytes: undefined,
      queryPoolBytes: 256_000_000,
      queryTimeoutMs: 600_000,
      nativeEngine: true,
      cpuProfiler: true,
      ignored: [],
      warnings: [],
    });
  });

  it('max_parallel_connector_init: a positive integer, else the default', () => {
    expect(processSettings({ max_parallel_connector_init: 2 }).maxParallelConnectorInit).toBe(2);
    expect(processSettings({ max_parallel_connector_init: 0 })).toMatchObject({
      maxParallelConnectorInit: 10,
      ignored: ['max_parallel_connector_init'],
    });
  });

  it('the ad-hoc query pool: datafusion_memory_mb, else 5 % of max_rss_mb or memory_mb_max (≤ 2 GB), else 256 MB', () => {
    const pool = (rc: Record<string, unknown>) => processSettings(rc).queryPoolBytes;
    expect(pool({ datafusion_memory_mb: 64, max_rss_mb: 100_000 })).toBe(64_000_000);
    expect(pool({ max_rss_mb: 1000, resources: { memory_mb_max: 20_000 } })).toBe(50_000_000);
    expect(pool({ resources: { memory_mb_max: 2000 } })).toBe(100_000_000);
    expect(pool({ max_rss_mb: 100_000 })).toBe(2048_000_000);
    expect(pool({ resources: {} })).toBe(256_000_000);
  });

  it('dev_tweaks.query_timeout_secs: the ad-hoc query time limit, 600 s unless set', () => {
    expect(processSettings({ dev_tweaks: { query_timeout_secs: 2.5 } }).queryTimeoutMs).toBe(2500);
    expect(processSettings({ dev_tweaks: { query_timeout_secs: 0 } }).ignored).toEqual(['dev_tweaks']);
  });

  it('dev_tweaks.native_engine: the native path unless set to false', () => {
    expect(processSettings({}).nativeEngine).toBe(true);
    expect(processSettings({ dev_tweaks: { native_engine: false } }).nativeEngine).toBe(false);
    expect(processSettings({ dev_tweaks: { native_engine: 'no' } }).ignored).toEqual(['dev_tweaks']);
  });

  it('cpu_profiler: the circuits timed unless set to false', () => {
    expect(processSettings({ cpu_profiler: null }).cpuProfiler).toBe(true);
    expect(processSettings({ cpu_profiler: false }).cpuProfiler).toBe(false);
    const odd = processSettings({ cpu_profiler: 'off' });
    expect([odd.cpuProfiler, odd.ignored]).toEqual([true, ['cpu_profiler']]);
  });

  it('dev_tweaks.storage_mb_max in bytes (MiB)', () => {
    expect(processSettings({ dev_tweaks: { storage_mb_max: 3 } }).storageMaxBytes).toBe(3 * 1024 * 1024);
  });

  it('storage (seed 2.6.5): set, pages of native tables go to it past min_storage_bytes; unset or false, none', () => {
    const spill = (storage: unknown) => processSettings({ storage }).spillMinBytes;
    expect(spill(undefined)).toBeUndefined();
    expect(spill(false)).toBeUndefined();
    expect(spill(true)).toBe(10_048_576);
    expect(spill({ compression: 'default' })).toBe(10_048_576);
    expect(spill({ min_storage_bytes: 0 })).toBe(0);
    const odd = processSettings({ storage: { min_storage_bytes: 'many' } });
    expect(odd.spillMinBytes).toBeUndefined();
    expect(odd.ignored).toContain('storage');
  });

  it('warns (does not refuse) when pin_cpus lists fewer than twice workers', () => {
    expect(processSettings({ workers: 2, pin_cpus: [0, 1, 2] }).warnings).toEqual([
      'pin_cpus lists 3 CPU(s), fewer than twice workers (4): pinning may not be honored',
    ]);
    expect(processSettings({ workers: 2, pin_cpus: [0, 1, 2, 3] }).warnings).toEqual([]);
    expect(processSettings({ workers: 2 }).warnings).toEqual([]);
  });

  it('reads what it acts on; fault_tolerance present means automatic checkpoints, clamped', () => {
    const s = processSettings({
      workers: 4,
      logging: 'debug',
      clock_resolution_usecs: 250_000,
      min_batch_size_records: 1000,
      max_buffering_delay_usecs: 2500,
      fault_tolerance: { checkpoint_interval_secs: 0 },
      dev_tweaks: { now_http_driven: true, now_offset: '2001-02-03T04:05:06Z' },
    });
    expect(s).toMatchObject({ workers: 4, logLevel: 'debug', clockResolutionMs: 250, checkpointIntervalSecs: 1 });
    expect(s).toMatchObject({ minBatchSizeRecords: 1000, maxBufferingDelayMs: 2.5 });
    expect(s.nowOffsetMs).toBe(Date.parse('2001-02-03T04:05:06Z'));
    expect(processSettings({ fault_tolerance: {} }).checkpointIntervalSecs).toBe(60);
    expect(processSettings({ fault_tolerance: { checkpoint_interval_secs: 99_999 } }).checkpointIntervalSecs).toBe(
      3600,
    );
  });

  it('a member of an unexpected shape falls back to its default and is named', () => {
    const s = processSettings({ workers: 'many', dev_tweaks: { now_offset: 'yesterday' } });
    expect(s.workers).toBe(8);
    expect(s.nowOffsetMs).toBeUndefined();
    expect(s.ignored).toEqual(['workers', 'dev_tweaks.now_offset']);
  });
});
