// Input backpressure under memory pressure (seed 2.6 max_rss_mb): the decision alone, so that it is
// tested without a process that really runs out of memory. Input is held from `high` (over 90 % of
// the budget) on and released only once the level is back to `low` (under 85 %): between the two the
// decision keeps what it had, so a process hovering around 90 % does not flap between taking input
// and refusing it at every sample.
import { MEMORY_PRESSURE_LEVELS, memoryPressure, type MemoryPressure } from './memory-pressure.js';

/** The level from which input is held. */
export const HOLD_FROM: MemoryPressure = 2;
/** The level at which held input is released (the level's own bound, 85 %). */
export const RELEASE_AT: MemoryPressure = 0;

export function nextHeld(held: boolean, level: MemoryPressure): boolean {
  return held ? level > RELEASE_AT : level >= HOLD_FROM;
}

/** What one sample measured, in the units a user reads (MB, as max_rss_mb). */
export interface MemorySample {
  level: MemoryPressure;
  levelName: (typeof MEMORY_PRESSURE_LEVELS)[number];
  rssMb: number;
  budgetMb: number;
}

export type HoldChange = 'held' | 'released' | undefined;

/**
 * The hold's state across samples: one per pipeline process (the controller's), sampled on a timer.
 * Without a budget there is no monitoring and input is never held.
 */
export class InputHold {
  private heldValue = false;
  private last: MemorySample | undefined;

  constructor(private readonly budgetMb: number | undefined) {}

  /** Whether there is a budget to watch at all. */
  get monitored(): boolean {
    return this.budgetMb !== undefined && this.budgetMb > 0;
  }

  get held(): boolean {
    return this.heldValue;
  }

  /** The last sample (undefined before the first, or without a budget). */
  get sample(): MemorySample | undefined {
    return this.last;
  }

  /** Takes one RSS reading; says whether the hold began or ended with it. */
  observe(rssBytes: number): HoldChange {
    if (!this.monitored || this.budgetMb === undefined) return undefined;
    const level = memoryPressure(rssBytes, this.budgetMb);
    this.last = {
      level,
      levelName: MEMORY_PRESSURE_LEVELS[level],
      rssMb: Math.round(rssBytes / 1_000_000),
      budgetMb: this.budgetMb,
    };
    const was = this.heldValue;
    this.heldValue = nextHeld(was, level);
    if (this.heldValue === was) return undefined;
    return this.heldValue ? 'held' : 'released';
  }
}
