import { z } from 'zod';
import { DEV_TWEAKS_DEFAULTS, DevTweaksInput } from './dev-tweaks.js';
import { dropNulls } from './defaults.js';
import { JsonValue, uint64 } from './json.js';
import {
  clampCheckpointInterval,
  FAULT_TOLERANCE_SPELLINGS,
  FaultToleranceInput,
  PipelineTemplateConfigmapInput,
  RESOURCES_SPELLINGS,
  ResourcesInput,
  STORAGE_DEFAULTS,
  STORAGE_SPELLINGS,
  StorageInput,
} from './runtime-config-parts.js';
import { checkOneSpelling, type Spelling, toSeedSpelling } from './spellings.js';
import { BYTES, durationIn, NANOS, sizeIn } from './units.js';
import { splitKnown } from './unknown-members.js';

// Seed 2.6: raw input (every member optional, null meaning unset) → one compile step (defaults,
// validation, normalisation) → the stored and served runtime_config. Members this version does not
// know are kept as sent at every depth (loose objects); the newer clients' duration and size
// spellings become the seed's members.

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

export const TOP_LEVEL_SPELLINGS: readonly Spelling[] = [
  ['clock_resolution', 'clock_resolution_usecs'],
  ['datafusion_memory', 'datafusion_memory_mb'],
  ['max_buffering_delay', 'max_buffering_delay_usecs'],
  ['max_rss', 'max_rss_mb'],
  ['provisioning_timeout', 'provisioning_timeout_secs'],
];

export const RuntimeConfigInput = z
  .looseObject({
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
    pipeline_template_configmap: PipelineTemplateConfigmapInput.nullish(),
    provisioning_timeout_secs: uint64.min(1).nullish(),
    resources: ResourcesInput.nullish(),
    // `true` is the newer clients' "storage with its defaults", `false` "no storage" (unset).
    storage: z.union([z.boolean(), StorageInput]).nullish(),
    tracing: z.boolean().nullish(),
    tracing_endpoint_jaeger: z.string().max(2048).nullish(),
    workers: workerCount.nullish(),
    // The newer spellings of the seed's integer members (duration and size strings).
    clock_resolution: durationIn(NANOS.us, uint64).nullish(),
    datafusion_memory: sizeIn(BYTES.MB, uint64).nullish(),
    max_buffering_delay: durationIn(NANOS.us, uint64).nullish(),
    max_rss: sizeIn(BYTES.MB, uint64.min(1)).nullish(),
    provisioning_timeout: durationIn(NANOS.s, uint64.min(1)).nullish(),
  })
  .superRefine((rc, ctx) => {
    checkOneSpelling(rc, TOP_LEVEL_SPELLINGS, ctx);
    // Fewer than twice `workers` is accepted ("pinning may not be honored", seed 2.6): the pipeline
    // process warns in its log. A CPU listed twice is a mistake whatever the count.
    const pins = rc.pin_cpus ?? [];
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

/** A nested object: newer spellings onto the seed's members, known nulls dropped, unknown members as sent. */
function normalised<T extends Record<string, unknown>>(
  schema: z.ZodType,
  value: T,
  spellings: readonly Spelling[] = [],
) {
  const { known, unknown } = splitKnown(schema, toSeedSpelling(value, spellings));
  return { ...dropNulls(known), ...unknown };
}

type Known = ReturnType<typeof dropNulls<z.infer<typeof RuntimeConfigInput>>>;

/** The nested objects that have defaults or spellings of their own (seed 2.6.2 to 2.6.5). */
function compileNested({ fault_tolerance, pipeline_template_configmap, resources, storage }: Known) {
  const ft = fault_tolerance && normalised(FaultToleranceInput, fault_tolerance, FAULT_TOLERANCE_SPELLINGS);
  const template =
    pipeline_template_configmap && normalised(PipelineTemplateConfigmapInput, pipeline_template_configmap);
  const store = storage === true ? {} : storage || undefined;
  return {
    // Absent fault_tolerance means disabled (seed 2.6.2), so it gets no defaults of its own.
    ...(ft && {
      fault_tolerance: { ...ft, checkpoint_interval_secs: clampCheckpointInterval(ft.checkpoint_interval_secs ?? 60) },
    }),
    ...(template && { pipeline_template_configmap: { ...template, key: template.key ?? 'pipelineTemplate' } }),
    ...(resources && { resources: normalised(ResourcesInput, resources, RESOURCES_SPELLINGS) }),
    ...(store && { storage: { ...STORAGE_DEFAULTS, ...normalised(StorageInput, store, STORAGE_SPELLINGS) } }),
  };
}

export function compileRuntimeConfig(input: z.infer<typeof RuntimeConfigInput> | null | undefined) {
  const { known, unknown } = splitKnown(RuntimeConfigInput, toSeedSpelling(input ?? {}, TOP_LEVEL_SPELLINGS));
  const raw = dropNulls(known);
  const workers = raw.workers ?? DEFAULT_WORKERS;
  const { dev_tweaks, fault_tolerance: _f, pipeline_template_configmap: _p, resources: _r, storage: _s, ...rest } = raw;
  return {
    ...TOP_LEVEL_DEFAULTS,
    ...rest,
    workers,
    http_workers: raw.http_workers ?? workers,
    io_workers: raw.io_workers ?? workers,
    dev_tweaks: { ...DEV_TWEAKS_DEFAULTS, ...normalised(DevTweaksInput, dev_tweaks ?? {}) },
    ...compileNested(raw),
    ...unknown,
  };
}
export type RuntimeConfig = ReturnType<typeof compileRuntimeConfig>;
