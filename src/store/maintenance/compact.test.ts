import { describe, expect, it } from 'vitest';
import { FULL_FLOOR_BYTES, needsRewrite, type CompactionReport } from './compact.js';
import { startCompactionLoop } from './loop.js';

const report: CompactionReport = { rewritten: [], bytesBefore: 0, bytesAfter: 0 };

describe('needsRewrite', () => {
  it('rewrites only tables well past their live size and past the floor', () => {
    expect(needsRewrite(FULL_FLOOR_BYTES / 2, 0)).toBe(false);
    expect(needsRewrite(FULL_FLOOR_BYTES * 8, FULL_FLOOR_BYTES)).toBe(true);
    expect(needsRewrite(FULL_FLOOR_BYTES * 2, FULL_FLOOR_BYTES)).toBe(false);
  });
});

describe('startCompactionLoop', () => {
  it('never runs two rounds at once, and stop waits for the round in flight', async () => {
    let inFlight = 0;
    let most = 0;
    let rounds = 0;
    let finished = 0;
    const stop = startCompactionLoop({
      intervalMs: 5,
      round: async () => {
        rounds++;
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        finished++;
        return report;
      },
      onReport: () => undefined,
      onError: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 100));
    await stop();
    expect(most).toBe(1);
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(finished).toBe(rounds);
    await new Promise((r) => setTimeout(r, 30));
    expect(finished).toBe(rounds);
  });

  it('reports a failed round and keeps going', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const stop = startCompactionLoop({
      intervalMs: 5,
      round: async () => {
        if (++calls === 1) throw new Error('disk');
        return report;
      },
      onReport: () => undefined,
      onError: (e) => errors.push(e),
    });
    await expect.poll(() => calls, { timeout: 1_000 }).toBeGreaterThanOrEqual(2);
    await stop();
    expect(errors).toHaveLength(1);
  });
});
