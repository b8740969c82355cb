import { describe, expect, it } from 'vitest';
import { Periodic } from './periodic.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Periodic', () => {
  it('afterEach: the next run starts the interval after the last one ended, however long it took', async () => {
    const errors: unknown[] = [];
    const periodic = new Periodic((e) => errors.push(e));
    const runs: { start: number; end: number }[] = [];
    periodic.afterEach(40, async () => {
      const start = performance.now();
      await sleep(100); // longer than the interval
      runs.push({ start, end: performance.now() });
      if (runs.length === 2) throw new Error('a failed run is reported; the task goes on');
    });
    await sleep(900);
    periodic.stop();
    const count = runs.length;
    expect(count).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.start - runs[i - 1]!.end).toBeGreaterThanOrEqual(38);
    expect(errors).toHaveLength(1);
    await sleep(300);
    expect(runs.length).toBeLessThanOrEqual(count + 1); // at most the run under way when stopped
  });

  it('every: a run still busy when the next is due is skipped', async () => {
    const periodic = new Periodic(() => undefined);
    let running = 0;
    let most = 0;
    let runs = 0;
    periodic.every(20, async () => {
      running++;
      most = Math.max(most, running);
      await sleep(70);
      running--;
      runs++;
    });
    await sleep(400);
    periodic.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(3);
  });
});
