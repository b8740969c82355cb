import { describe, expect, it } from 'vitest';
import { nextEager } from './eager-collection.js';

// When a pipeline with a memory budget collects garbage eagerly; the real process is in
// test/cli/memory-pressure.test.ts.
const MB = 1_000_000;

describe('eager collection under memory pressure', () => {
  it('from 85 % of the budget on, until below 75 %', () => {
    const budget = 1000;
    let eager = false;
    const seen = [500, 840, 850, 900, 800, 760, 750, 749, 800, 849, 851].map((mb) => {
      eager = nextEager(eager, mb * MB, budget);
      return eager;
    });
    expect(seen).toEqual([false, false, true, true, true, true, true, false, false, false, true]);
  });
});
