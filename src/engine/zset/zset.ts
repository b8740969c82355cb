import { rowKey } from '../expressions/values.js';
import type { Value } from '../expressions/types.js';

// A Z-set (DBSP): rows with integer weights, +n for n copies inserted, −n for n copies deleted,
// kept consolidated (one entry per distinct row, no zero weights). A row is an array of values,
// identified by rowKey (the values as PostgreSQL prints them).

export type Row = readonly Value[];
export interface Entry {
  row: Row;
  weight: number;
}

export class ZSet {
  private readonly entries = new Map<string, Entry>();

  /** Adds `weight` copies of the row (negative: removes), dropping it at zero. */
  add(row: Row, weight: number, key: string = rowKey(row)): void {
    if (weight === 0) return;
    const entry = this.entries.get(key);
    if (!entry) this.entries.set(key, { row, weight });
    else if ((entry.weight += weight) === 0) this.entries.delete(key);
  }

  addAll(other: ZSet, sign = 1): void {
    for (const [key, { row, weight }] of other.entries) this.add(row, weight * sign, key);
  }

  weightOf(key: string): number {
    return this.entries.get(key)?.weight ?? 0;
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Total weight: the number of rows a relation holds (weights of a relation are positive). */
  count(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.weight;
    return n;
  }

  [Symbol.iterator](): IterableIterator<Entry> {
    return this.entries.values();
  }

  /** Entries with their keys (so that a consumer need not compute them again). */
  keyed(): IterableIterator<[string, Entry]> {
    return this.entries.entries();
  }

  static of(entries: Iterable<Entry>): ZSet {
    const z = new ZSet();
    for (const { row, weight } of entries) z.add(row, weight);
    return z;
  }
}
