import type { RowChanges } from '../lifecycle/changes.js';
import type { Queryable } from '../store/database.js';
import type { VersionedRunnerRow } from '../model/pipeline-row.js';
import { applyAllIfUnchanged, type PendingWrite } from '../store/runner/batch.js';
import { applyIfUnchanged } from '../store/runner/queries.js';

/** A conditional write of the runner (applyIfUnchanged's contract): the row written, or undefined. */
export type WriteIfUnchanged = (
  row: VersionedRunnerRow,
  changes: RowChanges,
) => Promise<VersionedRunnerRow | undefined>;

/**
 * Write statements of the runner at once; the writes that come meanwhile wait and go as one. Below
 * the pool's 10 connections, so a read (after a NOTIFY) does not queue behind writes.
 */
const MAX_IN_FLIGHT = 8;
/** Writes per statement. */
const MAX_BATCH = 64;

interface Queued extends PendingWrite {
  resolve(row: VersionedRunnerRow | undefined): void;
  reject(error: unknown): void;
}

/**
 * The runner's writes, with group commit: a write goes at once while fewer than MAX_IN_FLIGHT are
 * on their way; past that, the writes that come wait for one to finish and then go together, as one
 * statement. When 200 pipelines start at once, their reads and writes queued for the connection
 * pool, and the first pods to turn Ready had their Provisioned write wait behind a hundred
 * statements (100-170 ms). A write is never held back while the database keeps up: gathering
 * writes over a turn of the event loop instead cost every write up to a whole poll phase (measured:
 * ~200 ms at the end of a wave).
 */
export function writeBatcher(db: Queryable, onStatement?: (writes: number) => void): WriteIfUnchanged {
  const queue: Queued[] = [];
  let inFlight = 0;

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

  /** The next statement's writes: in order, one per pipeline (a pipeline has one look at a time). */
  const take = (): Queued[] => {
    const ids = new Set<string>();
    const batch: Queued[] = [];
    for (let i = 0; i < queue.length && batch.length < MAX_BATCH;) {
      const w = queue[i] as Queued;
      if (ids.has(w.row.id)) i += 1;
      else {
        ids.add(w.row.id);
        batch.push(w);
        queue.splice(i, 1);
      }
    }
    return batch;
  };

  const pump = () => {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      inFlight += 1;
      void send(take()).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  };

  return (row, changes) =>
    new Promise((resolve, reject) => {
      queue.push({ row, changes, resolve, reject });
      pump();
    });
}
