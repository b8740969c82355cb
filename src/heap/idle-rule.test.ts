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
  const slow = IDLE_RULE.cheapPauseMs + 1;

  it('stays at quietMs while collections free something', () => {
    expect(nextQuietMs(IDLE_RULE.quietMs, { freedBytes: IDLE_RULE.worthBytes, pauseMs: slow })).toBe(IDLE_RULE.quietMs);
    expect(nextQuietMs(4 * IDLE_RULE.quietMs, { freedBytes: 50 * MiB, pauseMs: slow })).toBe(IDLE_RULE.quietMs);
  });

  it('stays at quietMs while collections are cheap, whatever they free', () => {
    const cheap = { freedBytes: 0, pauseMs: IDLE_RULE.cheapPauseMs };
    expect(nextQuietMs(2 * IDLE_RULE.quietMs, cheap)).toBe(IDLE_RULE.quietMs);
  });

  it('doubles, up to maxQuietMs, while costly ones find the heap clean', () => {
    let quiet = IDLE_RULE.quietMs;
    const seen: number[] = [];
    const clean = { freedBytes: IDLE_RULE.worthBytes - 1, pauseMs: slow };
    for (let i = 0; i < 6; i++) seen.push((quiet = nextQuietMs(quiet, clean)));
    expect(seen.map((ms) => ms / 60_000)).toEqual([10, 20, 40, 60, 60, 60]);
  });
});
