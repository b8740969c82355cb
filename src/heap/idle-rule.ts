// When a quiet thread's heap is collected (idle-collection.ts does it). V8 starts a full collection
// when a heap reaches the limit it set after the last one; a thread that allocates a little at a time
// (an idle pipeline: timers, status requests, NOW() ticks) takes hours to get there, and meanwhile
// its dead objects keep their pages. Measured on an idle pipeline (bench/results/2026-11-29-idle.md):
// RSS +4–6 KiB/s for 80 minutes with no full collection, and back to its start value (231 → 219 MiB)
// after one forced by hand.

export interface IdleRule {
  /** How often the thread looks (its busy share is measured over this interval). */
  checkMs: number;
  /** The least time since the last full collection, V8's or ours, while the thread is idle. */
  quietMs: number;
  /** The longest the quiet time grows to while collections find little (see nextQuietMs). */
  maxQuietMs: number;
  /** Busier than this share of the last interval, the thread is working: V8 manages its heap. */
  maxBusyShare: number;
  /** A collection that frees less than this found the heap clean: the next waits twice as long… */
  worthBytes: number;
  /** …unless it stopped the thread for no longer than this: a small heap is collected every time. */
  cheapPauseMs: number;
}

export const IDLE_RULE: IdleRule = {
  checkMs: 60_000,
  quietMs: 5 * 60_000,
  maxQuietMs: 60 * 60_000,
  maxBusyShare: 0.02,
  worthBytes: 4 * 2 ** 20,
  cheapPauseMs: 50,
};

export interface IdleSample {
  nowMs: number;
  /** The share of the last interval the thread's event loop was busy (0–1). */
  busyShare: number;
  /** When the last full collection ended, or the thread started. */
  lastFullMs: number;
  /** The quiet time in force (nextQuietMs). */
  quietMs: number;
}

/**
 * Due when the thread is idle and no full collection has run for the quiet time. Idle matters: a
 * full collection with compaction stops the thread for ~1–3 ms per MiB of live heap, which a
 * working thread must not pay and an idle one does not notice.
 */
export function idleCollectionDue(s: IdleSample, rule: IdleRule = IDLE_RULE): boolean {
  return s.busyShare <= rule.maxBusyShare && s.nowMs - s.lastFullMs >= s.quietMs;
}

/**
 * The quiet time after one of our collections: as configured when it was cheap or freed something
 * worth it, else twice the last (up to maxQuietMs), so that a large heap left idle with nothing dead
 * in it is not stopped every few minutes for nothing. An idle pipeline's threads (~20 MiB alive) make
 * ~2 MiB of garbage in 5 minutes and are collected in ~20 ms: every 5 minutes. V8's own full
 * collection (the thread worked) starts over from rule.quietMs.
 */
export function nextQuietMs(
  quietMs: number,
  { freedBytes, pauseMs }: { freedBytes: number; pauseMs: number },
  rule: IdleRule = IDLE_RULE,
): number {
  const worth = pauseMs <= rule.cheapPauseMs || freedBytes >= rule.worthBytes;
  return worth ? rule.quietMs : Math.min(quietMs * 2, rule.maxQuietMs);
}
