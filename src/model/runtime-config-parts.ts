import { z } from 'zod';
import { byteCount, JsonObject, JsonValue, uint64 } from './json.js';
import { configMapKey, dnsLabel, dnsSubdomain } from './k8s-names.js';
import { checkOneSpelling, type Spelling } from './spellings.js';
import { BYTES, durationIn, NANOS, sizeIn } from './units.js';

// The nested objects of runtime_config: seed 2.6.2 to 2.6.5. Loose objects: a member this version
// does not know is kept as sent (issue 17, forward compatibility); known members are validated.

export const FAULT_TOLERANCE_SPELLINGS: readonly Spelling[] = [['checkpoint_interval', 'checkpoint_interval_secs']];

export const FaultToleranceInput = z
  .looseObject({
    // Out-of-range values are forced into 1..3600, not rejected (seed 2.6.2).
    checkpoint_interval_secs: z.number().int().nullish(),
    /** Newer spelling: a duration ("60s"), rounded up to whole seconds, then clamped like the seed's. */
    checkpoint_interval: durationIn(NANOS.s, z.number().int()).nullish(),
    // Structure not shown by the seed (2.7): stored as given.
    model: JsonValue.optional(),
  })
  .superRefine((ft, ctx) => checkOneSpelling(ft, FAULT_TOLERANCE_SPELLINGS, ctx));

export const clampCheckpointInterval = (secs: number): number => Math.min(3600, Math.max(1, secs));

export const PipelineTemplateConfigmapInput = z.looseObject({
  name: dnsSubdomain,
  key: configMapKey.nullish(),
});

const cores = z.number().min(0).max(1_000_000);

export const RESOURCES_SPELLINGS: readonly Spelling[] = [
  ['memory_min', 'memory_mb_min'],
  ['memory_max', 'memory_mb_max'],
  ['storage_max', 'storage_mb_max'],
];

export const ResourcesInput = z
  .looseObject({
    cpu_cores_min: cores.nullish(),
    cpu_cores_max: cores.nullish(),
    memory_mb_min: uint64.nullish(),
    memory_mb_max: uint64.nullish(),
    storage_mb_max: uint64.nullish(),
    storage_class: dnsSubdomain.nullish(),
    namespace: dnsLabel.nullish(),
    service_account_name: dnsSubdomain.nullish(),
    /** Newer spellings: sizes ("4Gi"), rounded up to whole megabytes (10^6 bytes). */
    memory_min: sizeIn(BYTES.MB, uint64).nullish(),
    memory_max: sizeIn(BYTES.MB, uint64).nullish(),
    storage_max: sizeIn(BYTES.MB, uint64).nullish(),
  })
  .superRefine((r, ctx) => {
    checkOneSpelling(r, RESOURCES_SPELLINGS, ctx);
    const pairs = [
      ['cpu_cores_min', 'cpu_cores_max', r.cpu_cores_min, r.cpu_cores_max],
      ['memory_mb_min', 'memory_mb_max', r.memory_mb_min ?? r.memory_min, r.memory_mb_max ?? r.memory_max],
    ] as const;
    for (const [min, max, lo, hi] of pairs) {
      if (lo != null && hi != null && lo > hi) {
        ctx.addIssue({ code: 'custom', path: [min], message: `must not exceed ${max} (${hi})` });
      }
    }
  });

export const STORAGE_SPELLINGS: readonly Spelling[] = [['min_spill_size', 'min_storage_bytes']];

export const StorageInput = z
  .looseObject({
    // Structure not shown by the seed (2.7): stored as given.
    backend: JsonObject.nullish(),
    cache_mib: uint64.nullish(),
    compression: z.enum(['default', 'none', 'snappy']).nullish(),
    min_storage_bytes: byteCount.nullish(),
    min_step_storage_bytes: byteCount.nullish(),
    /** Newer spelling: a size ("10Mi", or bare bytes). */
    min_spill_size: sizeIn(BYTES.byte, byteCount).nullish(),
  })
  .superRefine((s, ctx) => checkOneSpelling(s, STORAGE_SPELLINGS, ctx));

export const STORAGE_DEFAULTS = {
  compression: 'default',
  min_storage_bytes: 10_048_576,
} as const;
