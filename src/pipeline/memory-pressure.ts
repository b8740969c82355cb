// The `memory_pressure` level of seed 2.6 (max_rss_mb): the process's resident memory against the
// budget (max_rss_mb, falling back to resources.memory_mb_max), in the four levels the established
// ecosystem reports, 0 low (under 85 %), 1 moderate (85–90 %), 2 high (90–95 %), 3 critical (over
// 95 %). Without a budget there is no monitoring: always low.

export const MEMORY_PRESSURE_LEVELS = ['low', 'moderate', 'high', 'critical'] as const;
export type MemoryPressure = 0 | 1 | 2 | 3;

/** The shares of the budget where moderate, high and critical begin. */
export const THRESHOLDS = [0.85, 0.9, 0.95] as const;

export function memoryPressure(rssBytes: number, budgetMb: number | undefined): MemoryPressure {
  if (budgetMb === undefined || budgetMb <= 0) return 0;
  const used = rssBytes / (budgetMb * 1_000_000);
  return THRESHOLDS.filter((t) => used > t).length as MemoryPressure;
}
