import type { JsonValue } from '../../model/json.js';
import { countEntries, loadCount } from './codec.js';
import { RowMap } from '../zset/row-map.js';
import { type Row, ZSet } from '../zset/zset.js';

// A relation's value as the sum of its deltas (DBSP's integral, unindexed): a materialized native
// view's rows, held here so that its snapshots and its query replica's seed read them without
// PGlite keeping a copy of the view in step (measured in bench:engine: writing the `revenue` view's
// delta and state back into PGlite was 24 of a 55 ms step).

export class Integral {
  private readonly counts = new RowMap<number>();

  /** Integrates a step's delta. */
  add(delta: ZSet): void {
    for (let i = 0; i < delta.size; i++) {
      this.counts.addTo(delta.rows[i]!, delta.weights[i]!);
    }
  }

  /** Replaces the value (a view evaluated from scratch at load or after a restore). */
  replace(whole: ZSet): void {
    this.counts.clear();
    this.add(whole);
  }

  clear(): void {
    this.counts.clear();
  }

  /** Each row held with its copies, `[row, n]`, for a checkpoint (operators/circuit-state.ts). */
  save(): Iterable<JsonValue> {
    return countEntries(this.counts);
  }

  /** Takes back one entry that save() gave. */
  load(entry: unknown): void {
    loadCount(this.counts, entry);
  }

  /** Distinct rows held. */
  get size(): number {
    return this.counts.size;
  }

  /** Every row with its number of copies. */
  whole(): ZSet {
    const z = new ZSet();
    for (const [row, n] of this.counts.entries()) z.add(row as Row, n);
    return z;
  }
}
