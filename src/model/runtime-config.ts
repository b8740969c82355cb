import { z } from 'zod';
import { DEV_TWEAKS_DEFAULTS, DevTweaksInput } from './dev-tweaks.js';
import { dropNulls, withDefaults } from './defaults.js';
import { JsonValue, uint64 } from './json.js';
import {
  clampCheckpointInterval,
  FaultToleranceInput,
  PipelineTemplateConfigMapInput,
  ResourcesInput,
  STORAGE_DEFAULTS,
  StorageInput,
} from './runtime-config-parts.js';

// Seed 2.6: raw input (every member optional, null meaning unset) → one compile step (defaults,
// validation, normalisation) → the stored and served runtime_config.

/** Reserved names: the runtime's own variables (seed 2.6, `env`). */
const RESERVED_ENV = [/^RUST_LOG$/, /^SVC_/, /^KUBERNETES_/, /^TOKIO_/];
export const isReservedEnvName = (name: string): boolean => RESERVED_ENV.some((re) => re.test(name));

const envName = z.string().regex(/^[^=\0]+$/, 'environment variable names must be non-empty without "=" or NUL');
const envValue = z.string().regex(/^[^\0]*$/, 'environment variable values must not contain NUL');

const EnvInput = z.record(envName, envValue).superRefine((env, ctx) => {
  const reserved = Object.keys(env).filter(isReservedEnvName).sort();
  if (reserved.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message:
        `reserved environment variable(s) ${reserved.join(', ')}: RUST_LOG and names starting ` +
        'SVC_, KUBERNETES_ or TOKIO_ are set by the platform and cannot be overridden',
      params: { reserved },
    });
  }
});

const workerCount = z.int().min(1).max(65_535);

export const RuntimeConfigInput = z
  .strictObject({
    checkpoint_during_suspend: z.boolean().nullish(),
    clock_resolution_usecs: uint64.nullish(),
    cpu_profiler: z.boolean().nullish(),
    datafusion_memory_mb: uint64.nullish(),
    dev_tweaks: DevTweaksInput.nullish(),
    env: EnvInput.nullish(),
    fault_tolerance: FaultToleranceInput.nullish(),
    hosts: z.int().min(1).max(1024).nullish(),
    http_workers: workerCount.nullish(),
    // Structure not shown by the seed (2.7): stored as given.
    init_containers: JsonValue.optional(),
    io_workers: workerCount.nullish(),
    logging: z.string().max(4096).nullish(),
    max_buffering_delay_usecs: uint64.nullish(),
    max_parallel_connector_init: uint64.min(1).nullish(),
    max_rss_mb: uint64.min(1).nullish(),
    min_batch_size_records: uint64.nullish(),
    pin_cpus: z.array(z.int().min(0).max(65_535)).max(65_536).nullish(),
    pipeline_template_configmap: PipelineTemplateConfigMapInput.nullish(),
    provisioning_timeout_secs: uint64.min(1).nullish(),
    resources: ResourcesInput.nullish(),
    storage: StorageInput.nullish(),
    tracing: z.boolean().nullish(),
    tracing_endpoint_jaeger: z.string().max(2048).nullish(),
    workers: workerCount.nullish(),
  })
  .superRefine((rc, ctx) => {
    const pins = rc.pin_cpus ?? [];
    const workers = rc.workers ?? DEFAULT_WORKERS;
    if (pins.length > 0 && pins.length < 2 * workers) {
      ctx.addIssue({
        code: 'custom',
        path: ['pin_cpus'],
        message: `lists ${pins.length} CPU(s); at least twice as many as workers (${2 * workers}) are needed`,
      });
    }
    if (new Set(pins).size !== pins.length) {
      ctx.addIssue({ code: 'custom', path: ['pin_cpus'], message: 'lists a CPU more than once' });
    }
  });
export type RuntimeConfigInput = z.input<typeof RuntimeConfigInput>;

/**
 * The seed gives no default for `workers` ("typical range 4 to 16"); 8 is the established
 * manager's default, which existing clients expect to see.
 */
export const DEFAULT_WORKERS = 8;

const TOP_LEVEL_DEFAULTS = {
  clock_resolution_usecs: 1_000_000,
  cpu_profiler: true,
  hosts: 1,
  max_buffering_delay_usecs: 0,
  max_parallel_connector_init: 10,
  min_batch_size_records: 0,
} as const;

export function compileRuntimeConfig(input: z.infer<typeof RuntimeConfigInput> | null | undefined) {
  const raw = dropNulls(input ?? {});
  const workers = raw.workers ?? DEFAULT_WORKERS;
  const { dev_tweaks, fault_tolerance, pipeline_template_configmap, resources, storage, ...rest } = raw;
  return {
    ...TOP_LEVEL_DEFAULTS,
    ...rest,
    workers,
    http_workers: raw.http_workers ?? workers,
    io_workers: raw.io_workers ?? workers,
    dev_tweaks: withDefaults(dev_tweaks, DEV_TWEAKS_DEFAULTS),
    // Absent fault_tolerance means disabled (seed 2.6.2), so it gets no defaults of its own.
    ...(fault_tolerance && {
      fault_tolerance: {
        ...dropNulls(fault_tolerance),
        checkpoint_interval_secs: clampCheckpointInterval(fault_tolerance.checkpoint_interval_secs ?? 60),
      },
    }),
    ...(pipeline_template_configmap && {
      pipeline_template_configmap: {
        name: pipeline_template_configmap.name,
        key: pipeline_template_configmap.key ?? 'pipelineTemplate',
      },
    }),
    ...(resources && { resources: dropNulls(resources) }),
    ...(storage && { storage: withDefaults(storage, STORAGE_DEFAULTS) }),
  };
}
export type RuntimeConfig = ReturnType<typeof compileRuntimeConfig>;
