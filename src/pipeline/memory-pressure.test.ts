import { describe, expect, it } from 'vitest';
import { memoryPressure } from './memory-pressure.js';
import { processSettings } from './settings.js';

describe('memory_pressure (seed 2.6 max_rss_mb)', () => {
  it('levels by RSS over the budget: low < 85 % ≤ moderate < 90 % ≤ high < 95 % ≤ critical', () => {
    const mb = 1_000_000;
    expect(memoryPressure(800 * mb, 1000)).toBe(0);
    expect(memoryPressure(860 * mb, 1000)).toBe(1);
    expect(memoryPressure(920 * mb, 1000)).toBe(2);
    expect(memoryPressure(960 * mb, 1000)).toBe(3);
    expect(memoryPressure(5000 * mb, undefined)).toBe(0);
  });

  it('the budget: max_rss_mb, else resources.memory_mb_max, else none', () => {
    const budget = (rc: Record<string, unknown>) => processSettings(rc).memoryBudgetMb;
    expect(budget({ max_rss_mb: 512, resources: { memory_mb_max: 2000 } })).toBe(512);
    expect(budget({ resources: { memory_mb_max: 2000 } })).toBe(2000);
    expect(budget({})).toBeUndefined();
  });
});
