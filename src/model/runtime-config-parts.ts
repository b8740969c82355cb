import { z } from 'zod';
import { byteCount, JsonObject, JsonValue, uint64 } from './json.js';
import { configMapKey, dnsLabel, dnsSubdomain } from './k8s-names.js';

// The nested objects of runtime_config: seed 2.6.2 to 2.6.5.

export const FaultToleranceInput = z.strictObject({
  // Out-of-range values are forced into 1..3600, not rejected (seed 2.6.2).
  checkpoint_interval_secs: z.number().int().nullish(),
  // Structure not shown by the seed (2.7): stored as given.
  model: JsonValue.optional(),
});

export const clampCheckpointInterval = (secs: number): number => Math.min(3600, Math.max(1, secs));

export const PipelineTemplateConfigMapInput = z.strictObject({
  name: dnsSubdomain,
  key: configMapKey.nullish(),
});

const cores = z.number().min(0).max(1_000_000);

export const ResourcesInput = z
  .strictObject({
    cpu_cores_min: cores.nullish(),
    cpu_cores_max: cores.nullish(),
    memory_mb_min: uint64.nullish(),
    memory_mb_max: uint64.nullish(),
    storage_mb_max: uint64.nullish(),
    storage_class: dnsSubdomain.nullish(),
    namespace: dnsLabel.nullish(),
    service_account_name: dnsSubdomain.nullish(),
  })
  .superRefine((r, ctx) => {
    const pairs = [
      ['cpu_cores_min', 'cpu_cores_max'],
      ['memory_mb_min', 'memory_mb_max'],
    ] as const;
    for (const [min, max] of pairs) {
      const lo = r[min];
      const hi = r[max];
      if (lo != null && hi != null && lo > hi) {
        ctx.addIssue({ code: 'custom', path: [min], message: `must not exceed ${max} (${hi})` });
      }
    }
  });

export const StorageInput = z.strictObject({
  // Structure not shown by the seed (2.7): stored as given.
  backend: JsonObject.nullish(),
  cache_mib: uint64.nullish(),
  compression: z.enum(['default', 'none', 'snappy']).nullish(),
  min_storage_bytes: byteCount.nullish(),
  min_step_storage_bytes: byteCount.nullish(),
});

export const STORAGE_DEFAULTS = {
  compression: 'default',
  min_storage_bytes: 10_048_576,
} as const;
