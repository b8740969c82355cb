import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DeploymentConfig } from '../model/deployment.js';
import { DEFAULT_WORKERS } from '../model/runtime-config.js';
import { STORAGE_DEFAULTS } from '../model/runtime-config-parts.js';
import { parseOffset } from './clock.js';

// The deployment config file (written by the runner) and the parts of its runtime_config that the
// process acts on. runtime_config was validated when it was stored, so a member of an unexpected
// shape here is not fatal: it falls back to its default, and the fallback is reported.

export class DeploymentConfigError extends Error {
  override readonly name = 'DeploymentConfigError';
}

export async function readDeploymentConfig(path: string): Promise<DeploymentConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DeploymentConfigError(`cannot read the deployment config ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DeploymentConfigError(`the deployment config ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = DeploymentConfig.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(root)';
    throw new DeploymentConfigError(`invalid deployment config ${path}: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

export interface ProcessSettings {
  workers: number;
  /** resources.cpu_cores_max: the pipeline's CPU limit, which bounds its engine threads (engine-threads.ts). */
  cpuCoresMax: number | undefined;
  /** The level of runtime_config.logging when it is a plain level; undefined when unset. */
  logLevel: LogLevel | undefined;
  clockResolutionMs: number;
  /** Steps wait for this many buffered records (seed 2.6 min_batch_size_records)… */
  minBatchSizeRecords: number;
  /** …at most this long after the first of them arrived (max_buffering_delay_usecs). */
  maxBufferingDelayMs: number;
  /** Seconds between automatic checkpoints; undefined when fault tolerance is off. */
  checkpointIntervalSecs: number | undefined;
  nowHttpDriven: boolean;
  nowOffsetMs: number | undefined;
  /** Connectors started at once when the pipeline starts (their transports connect meanwhile). */
  maxParallelConnectorInit: number;
  /** dev_tweaks.storage_mb_max in bytes: checkpoints that would need more fail with StorageFull. */
  storageMaxBytes: number | undefined;
  /**
   * With runtime_config.storage set, its min_storage_bytes: the engine writes pages of a native
   * table's rows to storage once that many bytes of them wait. Undefined: no storage, they stay in memory.
   */
  spillMinBytes: number | undefined;
  /** The ad-hoc query pool in bytes (seed 2.6 datafusion_memory_mb; DEFAULT_POOL_MB without a budget). */
  queryPoolBytes: number;
  /** The memory budget (max_rss_mb, else resources.memory_mb_max): memory_pressure is measured against it. */
  memoryBudgetMb: number | undefined;
  /** An ad-hoc query's time limit (dev_tweaks.query_timeout_secs). */
  queryTimeoutMs: number;
  /** Views the native path covers are kept by it, unless dev_tweaks.native_engine is false. */
  nativeEngine: boolean;
  /** cpu_profiler: the native circuits' operators are timed for GET /circuit_profile (default on). */
  cpuProfiler: boolean;
  /** Members that had an unexpected shape and fell back to defaults (logged as warnings). */
  ignored: string[];
  /** Settings accepted but not acted on as asked (logged as warnings). */
  warnings: string[];
}

const DevTweaks = z.looseObject({
  now_http_driven: z.boolean().nullish(),
  now_offset: z.string().nullish(),
  storage_mb_max: z.int().min(0).nullish(),
  query_timeout_secs: z.number().positive().nullish(),
  native_engine: z.boolean().nullish(),
});
const Resources = z.looseObject({
  memory_mb_max: z.int().min(0).nullish(),
  cpu_cores_max: z.number().min(0).nullish(),
});
const MiB = 1024 * 1024;
/** Seed 2.6: an unset datafusion_memory_mb is 5 % of the budget, at most 2 GB. */
const POOL_SHARE = 0.05;
const POOL_CAP_MB = 2048;
/**
 * With no budget at all the seed sets no pool limit; svc bounds a query anyway, so that one query
 * cannot take the pipeline's memory (docs/data-path.md).
 */
export const DEFAULT_POOL_MB = 256;
/** An ad-hoc query's time limit unless dev_tweaks.query_timeout_secs says otherwise. */
const DEFAULT_QUERY_TIMEOUT_SECS = 600;

/**
 * Seed 2.6 datafusion_memory_mb: carved out of max_rss_mb (falling back to resources.memory_mb_max);
 * unset, 5 % of that budget capped at 2 GB; no budget at all, DEFAULT_POOL_MB.
 */
function queryPoolMb(set: number | undefined, budgetMb: number | undefined): number {
  if (set !== undefined) return set;
  return budgetMb === undefined ? DEFAULT_POOL_MB : Math.min(POOL_CAP_MB, budgetMb * POOL_SHARE);
}
const StorageOptions = z.looseObject({ min_storage_bytes: z.int().min(0).nullish() });
const Storage = z.union([z.boolean(), StorageOptions]);

/** Seed 2.6.5: storage set (true, or its options) has a min_storage_bytes; unset or false, none. */
function spillMinBytes(storage: z.infer<typeof Storage>): number | undefined {
  if (storage === false) return undefined;
  return (storage === true ? undefined : storage.min_storage_bytes) ?? STORAGE_DEFAULTS.min_storage_bytes;
}
const FaultTolerance = z.looseObject({ checkpoint_interval_secs: z.int().nullish() });

/** Seed 2.6: the tracing filter is honoured when it is a plain level; anything else means INFO. */
export function logLevelOf(filter: string): LogLevel {
  const level = filter.trim().toLowerCase();
  if (level === 'warning') return 'warn';
  return (LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : 'info';
}

export function processSettings(rc: Record<string, unknown>): ProcessSettings {
  const ignored: string[] = [];
  const pick = <T>(key: string, schema: z.ZodType<T>, fallback: T): T => {
    if (rc[key] === undefined || rc[key] === null) return fallback;
    const parsed = schema.safeParse(rc[key]);
    if (parsed.success) return parsed.data;
    ignored.push(key);
    return fallback;
  };
  const workers = pick('workers', z.int().min(1), DEFAULT_WORKERS);
  const pins = pick<number[]>('pin_cpus', z.array(z.int()), []);
  const warnings: string[] = [];
  // Seed 2.6: "Specify at least twice as many as workers. Pinning may not be honored." Fewer is
  // accepted, as the established service does, and said here, in the pipeline's own log.
  if (pins.length > 0 && pins.length < 2 * workers) {
    warnings.push(
      `pin_cpus lists ${pins.length} CPU(s), fewer than twice workers (${2 * workers}): pinning may not be honored`,
    );
  }
  const logging = pick<string | undefined>('logging', z.string(), undefined);
  const resolutionUsecs = pick('clock_resolution_usecs', z.int().min(0), 1_000_000);
  const minBatch = pick('min_batch_size_records', z.int().min(0), 0);
  const maxDelayUsecs = pick('max_buffering_delay_usecs', z.int().min(0), 0);
  const ft = pick<z.infer<typeof FaultTolerance> | undefined>('fault_tolerance', FaultTolerance, undefined);
  const tweaks = pick<z.infer<typeof DevTweaks>>('dev_tweaks', DevTweaks, {});
  const resources = pick<z.infer<typeof Resources>>('resources', Resources, {});
  const storage = pick<z.infer<typeof Storage>>('storage', Storage, false);
  const maxRssMb = pick<number | undefined>('max_rss_mb', z.int().min(0), undefined);
  const poolSetMb = pick<number | undefined>('datafusion_memory_mb', z.int().min(0), undefined);
  const memoryBudgetMb = maxRssMb ?? resources.memory_mb_max ?? undefined;
  const poolMb = queryPoolMb(poolSetMb, memoryBudgetMb);
  let nowOffsetMs: number | undefined;
  if (tweaks.now_offset != null) {
    nowOffsetMs = parseOffset(tweaks.now_offset);
    if (nowOffsetMs === undefined) ignored.push('dev_tweaks.now_offset');
  }
  return {
    workers,
    cpuCoresMax: resources.cpu_cores_max ?? undefined,
    logLevel: logging === undefined ? undefined : logLevelOf(logging),
    // A resolution of 0 would be a busy loop; 1 ms is as fine as a timer goes.
    clockResolutionMs: Math.max(1, Math.round(resolutionUsecs / 1000)),
    minBatchSizeRecords: minBatch,
    maxBufferingDelayMs: maxDelayUsecs / 1000,
    // Seed 2.6.2: present means enabled; the interval is forced into 1..3600, default 60.
    checkpointIntervalSecs:
      ft === undefined ? undefined : Math.min(3600, Math.max(1, ft.checkpoint_interval_secs ?? 60)),
    nowHttpDriven: tweaks.now_http_driven ?? false,
    nowOffsetMs,
    maxParallelConnectorInit: pick('max_parallel_connector_init', z.int().min(1), 10),
    storageMaxBytes: tweaks.storage_mb_max == null ? undefined : tweaks.storage_mb_max * MiB,
    spillMinBytes: spillMinBytes(storage),
    // MB here, as the seed says (the newer spelling `datafusion_memory: 1Gi` reads 1,074 MB).
    queryPoolBytes: Math.round(poolMb * 1_000_000),
    memoryBudgetMb,
    queryTimeoutMs: (tweaks.query_timeout_secs ?? DEFAULT_QUERY_TIMEOUT_SECS) * 1000,
    nativeEngine: tweaks.native_engine ?? true,
    cpuProfiler: pick('cpu_profiler', z.boolean(), true),
    ignored,
    warnings,
  };
}
