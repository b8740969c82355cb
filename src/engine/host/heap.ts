import { setFlagsFromString } from 'node:v8';

// The heap of a thread that runs steps (the engine's thread, a shard worker). A step's input batch,
// its rows and their values live until the step ends: at bench:engine's 10,000 orders a step that is
// ~26 MB of young objects. V8's default semi-space (16 MiB) is smaller, so every scavenge during a
// step found the batch alive, copied it and then promoted it to the old generation, where a
// mark-compact collected it later: a fifth of the engine thread's time went to the collector.
// A 32 MiB semi-space lets the batch die young. Measured on bench:engine's native lane (1,000,000
// orders, alternating runs): ~177,000 → ~203,000 records/s, for ~50 MiB more RSS.

/** The semi-space of a stepping thread's young generation, MiB (V8's --max-semi-space-size). */
export const STEP_SEMI_SPACE_MB = 32;

/** Worker resourceLimits for a stepping thread: V8's young generation is three semi-spaces. */
export const STEP_THREAD_LIMITS = { maxYoungGenerationSizeMb: 3 * STEP_SEMI_SPACE_MB };

/**
 * How far a heap may grow past what survived its last full collection, as a percentage, when
 * collection is eager (the pipeline under memory pressure, src/pipeline/eager-collection.ts).
 */
export const EAGER_GROWING_PERCENT = 20;

/**
 * The same, otherwise. V8 sizes a heap for throughput, up to four times what survived (a factor it
 * picks from the collector's speed against the program's); half as much again is enough. Measured
 * on bench:engine's native lane (1,000,000 orders, the engine on the lane's thread, alternating runs,
 * 2026-11-29): peak RSS 411–434 MiB instead of 531–533, at 578,000–616,000 records/s instead of
 * 616,000–640,000 (35 %: no smaller, and slower).
 */
export const GROWING_PERCENT = 50;

/**
 * Eager collection on or off, for every thread of the process at once: V8's flags are the process's,
 * and each heap reads this one when it sets its next limit, so the engine's thread and the shard
 * workers follow without being told. An engine starts with it off (open.ts).
 */
export function collectEagerly(on: boolean): void {
  setFlagsFromString(`--heap-growing-percent=${on ? EAGER_GROWING_PERCENT : GROWING_PERCENT}`);
}
