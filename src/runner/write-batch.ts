import type { RowChanges } from '../lifecycle/changes.js';
import type { Queryable } from '../store/database.js';
import type { VersionedRunnerRow } from '../store/pipelines/row.js';
import { applyAllIfUnchanged, type PendingWrite } from '../store/runner/batch.js';
import { applyIfUnchanged } from '../store/runner/queries.js';

/** A conditional write of the runner (applyIfUnchanged's contract): the row written, or undefined. */
export type WriteIfUnchanged = (
  row: VersionedRunnerRow,
  changes: RowChanges,
) => Promise<VersionedRunnerRow | undefined>;

/** Writes per statement. */
const MAX_BATCH = 64;

interface Queued extends PendingWrite {
  resolve(row: VersionedRunnerRow | undefined): void;
  reject(error: unknown): void;
}

/**
 * The runner's writes, gathered over one turn of the event loop and sent as one statement. Tens of
 * pods turning Ready at once arrive in one read of the watch stream; their looks each write at
 * once, and one statement for all wakes one server process instead of one per pipeline, which on
 * a saturated machine each had to wait for a CPU. A lone write goes as it is.
 */
export function writeBatcher(db: Queryable, onStatement?: (writes: number) => void): WriteIfUnchanged {
  let queue: Queued[] = [];

  const one = (w: Queued) => applyIfUnchanged(db, w.row, w.changes).then(w.resolve, w.reject);

  const send = async (batch: Queued[]) => {
    onStatement?.(batch.length);
    if (batch.length === 1) return one(batch[0] as Queued);
    try {
      const written = await applyAllIfUnchanged(db, batch);
      for (const w of batch) w.resolve(written.get(w.row.id));
    } catch {
      // Each write's error must be its own: again one by one. The writes are conditional, so one
      // that did land before the failure is not applied twice (its row version moved).
      await Promise.all(batch.map(one));
    }
  };

  const flush = () => {
    const pending = queue;
    queue = [];
    // A pipeline has one look, so one write, at a time; a second one would wait for the next batch.
    const seen = new Set<string>();
    const now = pending.filter((w) => !seen.has(w.row.id) && seen.add(w.row.id));
    for (const w of pending) if (!now.includes(w)) enqueue(w);
    for (let i = 0; i < now.length; i += MAX_BATCH) void send(now.slice(i, i + MAX_BATCH));
  };

  const enqueue = (w: Queued) => {
    queue.push(w);
    if (queue.length === 1) setImmediate(flush);
  };

  return (row, changes) => new Promise((resolve, reject) => enqueue({ row, changes, resolve, reject }));
}
