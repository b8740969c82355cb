// Under memory pressure the garbage collectors work harder before input is held (max_rss_mb). V8
// sizes a heap for speed: after a full collection it lets the heap grow to up to four times what
// survived, and on bench:engine's workload (the engine on the lane's thread) that heap was 283–361 MiB
// after 1,000,000 orders, with 77–78 MiB of it alive. So a pipeline with a budget would hold its input
// for memory that was mostly garbage. An engine caps that at half again what survived
// (host/heap.ts GROWING_PERCENT); from `moderate` (85 % of the budget) on, its heaps grow by a fifth
// past what survived instead; back below 75 % by half again. Measured (before the cap) with
// bench/engine-lane.ts --eager-from 400 (bench/results/2026-11-29-eager-collection.md): 539–593 MiB
// after 1,000,000 orders instead of 656–683, at 59,000–69,000 records/s instead of 72,000–76,000:
// slower only near the budget, where holding the input would stop it altogether.

import { THRESHOLDS } from './memory-pressure.js';

/** The share of the budget from which collection is eager (where `moderate` begins)… */
export const EAGER_FROM = THRESHOLDS[0];
/** …and below which it is as usual again (apart, so that a process at 85 % does not flap). */
export const EAGER_UNTIL = 0.75;

export function nextEager(eager: boolean, rssBytes: number, budgetMb: number): boolean {
  const used = rssBytes / (budgetMb * 1_000_000);
  return eager ? used >= EAGER_UNTIL : used >= EAGER_FROM;
}
