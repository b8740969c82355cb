import { z } from 'zod';
import { byteCount, finiteDouble, int32, uint64 } from './json.js';

// Seed 2.6.1. Unstable, but still typed: a known tweak with a wrong value is a 400; a tweak this
// version does not know is kept as sent and logged as ignored (the newer clients send newer tweaks).

/** RFC 3339 with an offset, years 0001 through 9999 (zod's pattern already checks day-of-month). */
const nowOffset = z.iso
  .datetime({ offset: true, local: false })
  .refine((s) => !s.startsWith('0000'), 'year must be between 0001 and 9999');

export const DevTweaksInput = z.looseObject({
  adaptive_joins: z.boolean().nullish(),
  balancer_balance_tax: finiteDouble.nullish(),
  balancer_key_distribution_refresh_threshold: finiteDouble.nullish(),
  balancer_min_absolute_improvement_threshold: uint64.nullish(),
  balancer_min_relative_improvement_threshold: finiteDouble.nullish(),
  // Outside (0, 1) disables Bloom filters: accepted as given (seed 2.6.1).
  bloom_false_positive_rate: finiteDouble.nullish(),
  buffer_cache_allocation_strategy: z.enum(['shared_per_worker_pair', 'per_thread', 'global']).nullish(),
  buffer_cache_strategy: z.enum(['s3_fifo', 'lru']).nullish(),
  buffer_max_buckets: z
    .int()
    .min(1)
    .max(2 ** 30)
    .nullish(),
  disable_auto_transaction: z.boolean().nullish(),
  eager_evict: z.boolean().nullish(),
  enable_roaring: z.boolean().nullish(),
  fbuf_slab_bytes_per_class: byteCount.nullish(),
  fetch_distinct: z.boolean().nullish(),
  fetch_join: z.boolean().nullish(),
  max_level0_batch_size_records: int32.min(1).nullish(),
  merger: z.enum(['push_merger', 'list_merger']).nullish(),
  merger_threads: int32.min(1).nullish(),
  // svc's own: false keeps every view on the PGlite path (docs/engine.md).
  native_engine: z.boolean().nullish(),
  negative_weight_multiplier: int32.min(0).nullish(),
  now_http_driven: z.boolean().nullish(),
  now_offset: nowOffset.nullish(),
  splitter_chunk_size_records: uint64.min(1).nullish(),
  stack_overflow_backtrace: z.boolean().nullish(),
  storage_mb_max: uint64.nullish(),
  streaming_exchange: z.boolean().nullish(),
});

export const DEV_TWEAKS_DEFAULTS = {
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
} as const;
