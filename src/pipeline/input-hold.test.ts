import { describe, expect, it } from 'vitest';
import { InputHold, nextHeld } from './input-hold.js';

// The decision of input backpressure under memory pressure. The RSS readings here are made up (a
// fake RSS reader): the real process is in test/cli/memory-pressure.test.ts.
const MB = 1_000_000;

describe('input hold under memory pressure (max_rss_mb)', () => {
  it('holds from high on, releases only at low', () => {
    expect(nextHeld(false, 0)).toBe(false);
    expect(nextHeld(false, 1)).toBe(false);
    expect(nextHeld(false, 2)).toBe(true);
    expect(nextHeld(false, 3)).toBe(true);
    // Held: moderate (85–90 %) keeps it, so that a process hovering at 90 % does not flap.
    expect(nextHeld(true, 3)).toBe(true);
    expect(nextHeld(true, 2)).toBe(true);
    expect(nextHeld(true, 1)).toBe(true);
    expect(nextHeld(true, 0)).toBe(false);
  });

  it('says once when the hold begins and once when it ends, with the level, RSS and budget', () => {
    const hold = new InputHold(1000);
    const fakeRssReadings = [500, 870, 910, 960, 880, 905, 870, 840, 860, 800].map((mb) => mb * MB);
    const changes = fakeRssReadings.map((rss) => hold.observe(rss));
    expect(changes).toEqual([
      undefined,
      undefined,
      'held',
      undefined,
      undefined,
      undefined,
      undefined,
      'released',
      undefined,
      undefined,
    ]);
    expect(hold.held).toBe(false);
    hold.observe(960 * MB);
    expect(hold.held).toBe(true);
    expect(hold.sample).toEqual({ level: 3, levelName: 'critical', rssMb: 960, budgetMb: 1000 });
  });

  it('without a budget nothing is monitored and input is never held', () => {
    const hold = new InputHold(undefined);
    expect(hold.observe(1e12)).toBeUndefined();
    expect(hold.held).toBe(false);
    expect(hold.sample).toBeUndefined();
  });
});
