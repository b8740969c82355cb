import type { VersionedRunnerRow } from '../model/pipeline-row.js';

// The driver's memory of one pipeline between looks, and the rules for when a kept row may be
// reused. Pure: the driver calls these; the unit tests check the rules without a database.

export interface Slot {
  busy: boolean;
  again: boolean;
  failures: number;
  retry?: NodeJS.Timeout;
  /** When the last reconcile of this pipeline finished (ms). */
  lastRun: number;
  /**
   * The row as the last look left it (read or written). The next look starts from it instead of
   * reading again, unless the row may have changed since: a NOTIFY, a different row version seen
   * by the poll, a failure. Most looks are polls and backend events that change nothing in the
   * database; reading the row for each was most of the runner's database work.
   */
  row?: VersionedRunnerRow;
  /** Set when the kept row must not be used; an in-flight look then does not keep its result. */
  stale: boolean;
  /** When the first wake-up not yet answered by a look came in (ms): the runner's own latency. */
  wokenAt?: number;
}

/** Why a pipeline is looked at: NOTIFY and retries read the row again, the others may reuse it. */
export type Reason = { kind: 'notify' | 'backend' | 'retry' } | { kind: 'poll'; rowVersion: string };

export const newSlot = (): Slot => ({ busy: false, again: false, failures: 0, lastRun: 0, stale: false });

/** The kept row must not be used (and a look in flight must not keep what it read). */
export function forget(slot: Slot): void {
  slot.row = undefined;
  slot.stale = true;
}

/** Records a wake-up: its time, and whether it makes the kept row unusable. */
export function noteWake(slot: Slot, reason: Reason, now: number): void {
  slot.wokenAt ??= now;
  if (reason.kind === 'notify' || reason.kind === 'retry') forget(slot);
  else if (reason.kind === 'poll' && slot.row?.row_version !== reason.rowVersion) forget(slot);
}

/** What a look starts from: the kept row if still good, and the wake-up it answers. */
export function beginLook(slot: Slot): { known: VersionedRunnerRow | undefined; wokenAt: number | undefined } {
  const look = { known: slot.stale ? undefined : slot.row, wokenAt: slot.wokenAt };
  slot.stale = false;
  slot.wokenAt = undefined;
  return look;
}

/** Keeps the row a look ended with, unless something made it unusable while the look ran. */
export function endLook(slot: Slot, row: VersionedRunnerRow | undefined): void {
  slot.row = slot.stale ? undefined : row;
}
