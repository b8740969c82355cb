import { describe, expect, it } from 'vitest';
import { IDLE_RULE, idleCollectionDue, type IdleSample, nextQuietMs } from './idle-rule.js';

const MiB = 2 ** 20;
const idle: IdleSample = { nowMs: 10 * 60_000, busyShare: 0.003, lastFullMs: 0, quietMs: IDLE_RULE.quietMs };

describe('idleCollectionDue', () => {
  it('is due for an idle thread with no full collection for the quiet time', () => {
    expect(idleCollectionDue(idle)).toBe(true);
  });

  it('is not due for a thread at work: V8 collects its heap itself', () => {
    expect(idleCollectionDue({ ...idle, busyShare: 0.05 })).toBe(false);
    expect(idleCollectionDue({ ...idle, busyShare: IDLE_RULE.maxBusyShare })).toBe(true);
  });

  it('is not due sooner than quietMs after the last full collection', () => {
    expect(idleCollectionDue({ ...idle, lastFullMs: idle.nowMs - IDLE_RULE.quietMs + 1 })).toBe(false);
    expect(idleCollectionDue({ ...idle, lastFullMs: idle.nowMs - IDLE_RULE.quietMs })).toBe(true);
  });
});

describe('nextQuietMs', () => {
  it('stays at quietMs while collections free something', () => {
    expect(nextQuietMs(IDLE_RULE.quietMs, IDLE_RULE.worthBytes)).toBe(IDLE_RULE.quietMs);
    expect(nextQuietMs(4 * IDLE_RULE.quietMs, 50 * MiB)).toBe(IDLE_RULE.quietMs);
  });

  it('doubles, up to maxQuietMs, while they find the heap clean', () => {
    let quiet = IDLE_RULE.quietMs;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((quiet = nextQuietMs(quiet, IDLE_RULE.worthBytes - 1)));
    expect(seen.map((ms) => ms / 60_000)).toEqual([10, 20, 40, 60, 60, 60]);
  });
});
