import type { Value } from '../expressions/types.js';
import { hashRow, sameRow } from './row-hash.js';

// A Z-set (DBSP): rows with integer weights, +n for n copies inserted, −n for n copies deleted. A
// row is an array of values. Held as a batch, two parallel arrays appended to, not necessarily
// consolidated (a row may appear more than once, weights summing): the linear operators and the
// joins give the right sums either way, so only where identity matters (a view's output, DISTINCT)
// is it consolidated, by hashing rows once (row-hash.ts), never by sorting or by text keys.

export type Row = readonly Value[];
export interface Entry {
  row: Row;
  weight: number;
}

export class ZSet {
  /** Known to hold each row once, with no zero weight. */
  private consolidatedFlag = true;

  constructor(
    readonly rows: Row[] = [],
    readonly weights: number[] = [],
  ) {
    this.consolidatedFlag = rows.length <= 1 && !weights.includes(0);
  }

  /** Adds `weight` copies of the row (negative: removes). */
  add(row: Row, weight: number): void {
    if (weight === 0) return;
    this.rows.push(row);
    this.weights.push(weight);
    if (this.rows.length > 1) this.consolidatedFlag = false;
  }

  addAll(other: ZSet, sign = 1): void {
    for (let i = 0; i < other.rows.length; i++) this.add(other.rows[i]!, other.weights[i]! * sign);
  }

  clear(): void {
    this.rows.length = 0;
    this.weights.length = 0;
    this.consolidatedFlag = true;
  }

  /** Entries held (of a consolidated Z-set: its distinct rows). */
  get size(): number {
    return this.rows.length;
  }

  /** Total weight: the number of rows a relation holds (weights of a relation are positive). */
  count(): number {
    let n = 0;
    for (const w of this.weights) n += w;
    return n;
  }

  /** The same Z-set with one entry per distinct row and no zero weights (this one when it is so already). */
  consolidate(): ZSet {
    if (this.consolidatedFlag) return this;
    const n = this.rows.length;
    // Open addressing over the distinct rows' positions: no Map entry or object per row.
    let cap = 16;
    while (cap < n * 2) cap *= 2;
    const mask = cap - 1;
    const slots = new Int32Array(cap).fill(-1);
    const hashes = new Int32Array(n);
    const rows: Row[] = [];
    const weights: number[] = [];
    for (let i = 0; i < n; i++) {
      const row = this.rows[i]!;
      const h = hashRow(row);
      for (let s = h & mask; ; s = (s + 1) & mask) {
        const at = slots[s]!;
        if (at < 0) {
          slots[s] = rows.length;
          hashes[rows.length] = h;
          rows.push(row);
          weights.push(this.weights[i]!);
          break;
        }
        if (hashes[at] === h && sameRow(rows[at]!, row)) {
          weights[at] = weights[at]! + this.weights[i]!;
          break;
        }
      }
    }
    const out = new ZSet();
    for (let i = 0; i < rows.length; i++)
      if (weights[i] !== 0) {
        out.rows.push(rows[i]!);
        out.weights.push(weights[i]!);
      }
    return out;
  }

  *[Symbol.iterator](): IterableIterator<Entry> {
    for (let i = 0; i < this.rows.length; i++) yield { row: this.rows[i]!, weight: this.weights[i]! };
  }

  /**
   * A Z-set of rows the caller knows to be distinct, none of weight 0 (a table's change built from
   * a consolidated one): no consolidation will hash them again.
   */
  static distinct(rows: Row[], weights: number[]): ZSet {
    const z = new ZSet(rows, weights);
    z.consolidatedFlag = true;
    return z;
  }

  static of(entries: Iterable<Entry>): ZSet {
    const z = new ZSet();
    for (const { row, weight } of entries) z.add(row, weight);
    return z.consolidate();
  }
}
