import { getHeapStatistics } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { fullCollector } from './full-collection.js';
import { type IdleCollection, collectWhenIdle } from './idle-collection.js';
import type { IdleRule } from './idle-rule.js';

// The real V8 of this thread: garbage made to outlive the young generation, then left idle.

const MiB = 2 ** 20;
const RULE = {
  checkMs: 100,
  quietMs: 300,
  maxQuietMs: 60_000,
  maxBusyShare: 0.5,
  worthBytes: 8 * MiB,
  cheapPauseMs: 50,
};

/** ~60 MiB allocated, kept alive long enough to be promoted to the old generation, then dropped. */
function oldGarbage(): void {
  let ring: { i: number; s: string }[] = [];
  for (let i = 0; i < 1_500_000; i++) {
    ring.push({ i, s: `row ${i}` });
    if (ring.length > 200_000) ring = ring.slice(100_000);
  }
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(20);
}

function spin(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

/** `body` with a collectWhenIdle of `rule` on this thread, stopped after it. */
async function withIdle(rule: IdleRule, body: (idle: IdleCollection) => Promise<void>): Promise<void> {
  const idle = collectWhenIdle(rule);
  try {
    await body(idle);
  } finally {
    idle.stop();
  }
}

describe('collectWhenIdle', () => {
  it('collects an idle thread’s dead old objects and gives their pages back', async () => {
    await withIdle(RULE, async (idle) => {
      oldGarbage();
      const before = getHeapStatistics();
      await until(() => idle.collections > 0, 5_000);
      const after = getHeapStatistics();
      expect(idle.collections).toBe(1);
      expect(before.used_heap_size - after.used_heap_size).toBeGreaterThan(16 * MiB);
      expect(before.total_heap_size - after.total_heap_size).toBeGreaterThan(16 * MiB);
    });
  }, 20_000);

  it('leaves a busy thread to V8, and collects it once it is idle', async () => {
    await withIdle({ ...RULE, quietMs: 0 }, async (idle) => {
      const end = Date.now() + 1_500;
      while (Date.now() < end) {
        spin(40);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(idle.collections).toBe(0);
      await until(() => idle.collections > 0, 2_000);
      expect(idle.collections).toBeGreaterThan(0);
    });
  });

  it('counts its quiet time from V8’s own full collections', async () => {
    await withIdle({ ...RULE, quietMs: 1_500 }, async (idle) => {
      await sleep(1_000);
      fullCollector()();
      await sleep(1_000);
      expect(idle.collections).toBe(0);
      await until(() => idle.collections > 0, 2_000);
      expect(idle.collections).toBe(1);
    });
  });

  it('waits twice as long after each collection that found nothing worth it', async () => {
    // Every 300 ms for 2.5 s would be ~8 collections; doubling: at ~0.3, 0.9 and 2.1 s. Our own
    // collections' gc entries must not count as V8's, or the quiet time would start over each time.
    await withIdle({ ...RULE, checkMs: 50, worthBytes: 2 ** 40, cheapPauseMs: -1 }, async (idle) => {
      await sleep(2_500);
      expect(idle.collections).toBeGreaterThanOrEqual(2);
      expect(idle.collections).toBeLessThanOrEqual(4);
    });
  });
});
