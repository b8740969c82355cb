import { describe, expect, it } from 'vitest';
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
