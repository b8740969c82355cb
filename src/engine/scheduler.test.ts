import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import { type SchedulerIo, StepScheduler } from './scheduler.js';

// The scheduler over a real engine, with time driven by the test.

class ManualTime implements SchedulerIo {
  private t = 0;
  private timers: { at: number; fn: () => void }[] = [];
  now(): number {
    return this.t;
  }
  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => (this.timers = this.timers.filter((x) => x !== timer));
  }
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
  }
  get pending(): number {
    return this.timers.length;
  }
}

describe('StepScheduler', { timeout: 60_000 }, () => {
  let engine: ProgramEngine;
  const steps: number[] = [];
  beforeAll(async () => {
    engine = await openEngine('CREATE TABLE t (x int); CREATE VIEW v AS SELECT count(*) AS n FROM t;');
    engine.onStep((r) => void steps.push(r.inputRecords));
  }, 60_000);
  afterAll(() => engine?.close());

  const rows = (n: number) => Array.from({ length: n }, (_, x) => ({ weight: 1, row: { x } }));

  it('steps at once with the defaults (min batch 0)', async () => {
    const scheduler = new StepScheduler(
      engine,
      { minBatchRecords: 0, maxDelayMs: 0, enabled: () => true, onError: () => undefined },
      new ManualTime(),
    );
    steps.length = 0;
    await engine.ingest('t', rows(3));
    scheduler.inputArrived();
    await scheduler.idle();
    expect(steps).toEqual([3]);
  });

  it('waits for min_batch_size_records, at most max_buffering_delay after the first record', async () => {
    const time = new ManualTime();
    const errors: unknown[] = [];
    const scheduler = new StepScheduler(
      engine,
      { minBatchRecords: 10, maxDelayMs: 500, enabled: () => true, onError: (e) => errors.push(e) },
      time,
    );
    steps.length = 0;
    await engine.ingest('t', rows(4));
    scheduler.inputArrived();
    time.advance(300);
    await engine.ingest('t', rows(4));
    scheduler.inputArrived();
    await scheduler.idle();
    expect(steps).toEqual([]); // 8 < 10 and 300 ms < 500 ms
    time.advance(199);
    await scheduler.idle();
    expect(steps).toEqual([]);
    time.advance(1); // 500 ms after the first record
    await scheduler.idle();
    expect(steps).toEqual([8]);
    await engine.ingest('t', rows(12));
    scheduler.inputArrived(); // enough records: no waiting
    await scheduler.idle();
    expect(steps).toEqual([8, 12]);
    expect(time.pending).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a clock tick steps without input; nothing runs while disabled', async () => {
    let enabled = false;
    const scheduler = new StepScheduler(
      engine,
      { minBatchRecords: 0, maxDelayMs: 0, enabled: () => enabled, onError: () => undefined },
      new ManualTime(),
    );
    steps.length = 0;
    scheduler.requestStep();
    await scheduler.idle();
    expect(steps).toEqual([]);
    enabled = true;
    scheduler.consider();
    await scheduler.idle();
    expect(steps).toEqual([0]);
  });

  it('times each step by its clock: the step time /stats and /metrics report', async () => {
    const time = new ManualTime();
    const scheduler = new StepScheduler(
      engine,
      { minBatchRecords: 0, maxDelayMs: 0, enabled: () => true, onError: () => undefined },
      time,
    );
    // The step "takes" 7 ms, then 5 ms, of the scheduler's clock: its listeners run inside it.
    const took = [7, 5];
    const off = engine.onStep(() => time.advance(took.shift() ?? 0));
    try {
      for (const n of [2, 3]) {
        await engine.ingest('t', rows(n));
        scheduler.inputArrived();
        await scheduler.idle();
      }
    } finally {
      off();
    }
    expect(scheduler.timing).toEqual({ steps: 2, totalMs: 12, lastMs: 5 });
  });
});
