import { describe, expect, it, vi } from 'vitest';
import { StartSlots } from './start-slots.js';

describe('StartSlots', () => {
  it('admits `size` starts, queues the rest in order, and passes each freed slot on', async () => {
    const slots = new StartSlots(2);
    const order: number[] = [];
    const releases = await Promise.all([slots.acquire(), slots.acquire()]);
    const third = slots.acquire().then((r) => (order.push(3), r));
    const fourth = slots.acquire().then((r) => (order.push(4), r));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    releases[0]?.();
    releases[0]?.(); // idempotent: frees one slot, not two
    await third;
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([3]);
    releases[1]?.();
    await fourth;
    expect(order).toEqual([3, 4]);
  });
});

describe('StartSlots reservations (pipelines wait in line while still Stopped)', () => {
  it('grants at once while there is room; queues the rest in order and reports each turn', async () => {
    const granted: string[] = [];
    const slots = new StartSlots(1, (id) => granted.push(id));
    expect(slots.reserve('a')).toBe(true);
    expect(slots.reserve('a')).toBe(true); // asked again: still holds it, takes no second slot
    expect(slots.reserve('b')).toBe(false);
    expect(slots.reserve('c')).toBe(false);
    expect(slots.reserve('b')).toBe(false); // asked again: one place in line, not two
    const runningA = await slots.claim('a');
    expect(granted).toEqual([]);
    runningA();
    expect(granted).toEqual(['b']);
    expect(slots.reserve('b')).toBe(true);
    (await slots.claim('b'))();
    expect(granted).toEqual(['b', 'c']);
  });

  it('claim without a reservation waits for a slot like acquire (a start after a restart)', async () => {
    const slots = new StartSlots(1);
    expect(slots.reserve('a')).toBe(true);
    let claimed = false;
    const other = slots.claim('x').then((r) => ((claimed = true), r));
    await new Promise((r) => setTimeout(r, 10));
    expect(claimed).toBe(false);
    (await slots.claim('a'))();
    (await other)();
    expect(claimed).toBe(true);
    expect(slots.reserve('y')).toBe(true);
  });

  it('a reservation nobody claims frees its slot after 10 s (the pipeline was stopped while in line)', async () => {
    vi.useFakeTimers();
    try {
      const granted: string[] = [];
      const slots = new StartSlots(1, (id) => granted.push(id));
      expect(slots.reserve('gone')).toBe(true);
      expect(slots.reserve('next')).toBe(false);
      vi.advanceTimersByTime(9_999);
      expect(granted).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(granted).toEqual(['next']);
    } finally {
      vi.useRealTimers();
    }
  });
});
