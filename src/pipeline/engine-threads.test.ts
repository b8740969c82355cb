import { describe, expect, it } from 'vitest';
import { engineThreads } from './engine-threads.js';

describe('engineThreads', () => {
  it.each([
    // workers, cpu_cores_max, machine cores → threads, cores
    [8, undefined, 2, 1, 2],
    [8, undefined, 1, 1, 1],
    [1, undefined, 16, 1, 16],
    [3, undefined, 4, 3, 4],
    [8, undefined, 4, 3, 4],
    [2, undefined, 16, 2, 16],
    [8, 4, 16, 3, 4],
    [8, 2.5, 16, 1, 2],
    [8, 0.5, 16, 1, 1],
    [8, 0, 16, 1, 1],
    [8, 32, 4, 3, 4],
  ])('workers %d, cpu_cores_max %s, %d cores → %d thread(s)', (workers, max, machine, threads, cores) =>
    expect(engineThreads(workers, max, machine)).toEqual({ threads, cores }),
  );

  it('counts the machine by default', () => {
    const { threads, cores } = engineThreads(1_000, undefined);
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(threads).toBe(Math.max(1, cores - 1));
  });
});
