import {
  constants,
  type EventLoopUtilization,
  type NodeGCPerformanceDetail,
  performance,
  PerformanceObserver,
} from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { fullCollector } from './full-collection.js';
import { IDLE_RULE, type IdleRule, idleCollectionDue, nextQuietMs } from './idle-rule.js';

// Each long-running thread of svc (every command's main thread, the pipeline's engine, replica and
// shard threads) collects its own heap when it has been idle: the rule is idle-rule.ts's. V8 tells
// the thread of its own full collections (perf_hooks' `gc` entries), so a working thread, whose heap
// V8 collects anyway, is never made to pause.

/** This thread's heap (process.memoryUsage() would read the process's RSS too). */
const heapUsed = (): number => getHeapStatistics().used_heap_size;

export interface IdleCollection {
  /** Full collections this thread has forced so far. */
  readonly collections: number;
  stop(): void;
}

export function collectWhenIdle(rule: IdleRule = IDLE_RULE): IdleCollection {
  const collect = fullCollector('last-resort');
  let lastFullMs = performance.now();
  let quietMs = rule.quietMs;
  let collections = 0;
  // Times on the performance clock, as gc entries give theirs.
  /** When our last collection ran: its entries arrive after the fact. */
  let ours = { from: -1, to: -1 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // A `gc` entry's detail (the entry's type leaves it out).
      const { detail } = entry as unknown as { detail?: NodeGCPerformanceDetail };
      if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      if (entry.startTime >= ours.from && entry.startTime <= ours.to) continue;
      lastFullMs = entry.startTime + entry.duration;
      quietMs = rule.quietMs;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busyShare = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (!idleCollectionDue({ nowMs: performance.now(), busyShare, lastFullMs, quietMs }, rule)) return;
    const before = heapUsed();
    const from = performance.now();
    collect();
    ours = { from, to: performance.now() };
    collections++;
    lastFullMs = ours.to;
    quietMs = nextQuietMs(quietMs, { freedBytes: before - heapUsed(), pauseMs: ours.to - ours.from }, rule);
    // What the collection did itself is not activity for the next look.
    last = performance.eventLoopUtilization();
  }, rule.checkMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop() {
      clearInterval(timer);
      observer.disconnect();
    },
  };
}
