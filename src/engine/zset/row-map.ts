import type { Value } from '../expressions/types.js';
import { hashRow } from './row-hash.js';
import { RowStore } from './row-store.js';

// A map from rows (by their identity, row-hash.ts) to values: per-row state such as DISTINCT's
// counts, a multiset table's copies, a held view's rows. An open-addressing table (linear probing,
// deletion by shifting the run back, no tombstones) in parallel arrays: an entry costs no object of
// its own, so a table of a million rows is three arrays rather than a million allocations for the
// collector to trace (measured in bench:engine: a Map of buckets of {row, count} objects was a tenth
// of a step, and much of its collection time). A probe reads the hashes alone until one matches
// (0 marks an empty slot; a row hashing to 0 is stored as 1): a table of a million rows is far larger
// than the cache, and the rows' array was a second miss on every probe, an insert's included. The
// rows themselves are kept by column in a RowStore (row-store.ts): a slot holds the row's id.

const EMPTY = 0;
/** The hash a slot stores: never 0, which marks it empty. */
const stored = (h: number): number => h | 0 || 1;

export class RowMap<T> {
  private readonly store = new RowStore();
  private ids = new Int32Array(16);
  private values: (T | undefined)[] = new Array<undefined>(16).fill(undefined);
  private hashes = new Int32Array(16);
  private mask = 15;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The slot of the row (its stored hash `h`), or of the empty slot where it would go. */
  private slotOf(row: readonly Value[], h: number): number {
    const { hashes, mask } = this;
    let i = h & mask;
    for (;;) {
      const at = hashes[i];
      if (at === EMPTY || (at === h && this.store.same(this.ids[i]!, row))) return i;
      i = (i + 1) & mask;
    }
  }

  get(row: readonly Value[], h = hashRow(row)): T | undefined {
    return this.values[this.slotOf(row, stored(h))];
  }

  /** Sets the row's value (`undefined` removes the row) and returns the value it had: one probe. */
  set(row: readonly Value[], value: T | undefined, hash = hashRow(row)): T | undefined {
    const h = stored(hash);
    const i = this.slotOf(row, h);
    if (this.hashes[i] === EMPTY) {
      if (value !== undefined) this.insert(i, row, value, h);
      return undefined;
    }
    const before = this.values[i];
    if (value !== undefined) this.values[i] = value;
    else this.remove(i);
    return before;
  }

  /**
   * Adds `delta` to a count kept per row (a count reaching 0 removes the row) and returns the count
   * before: one probe, where get and then set took two (a table of a million rows misses the cache
   * on each).
   */
  addTo(this: RowMap<number>, row: readonly Value[], delta: number, hash = hashRow(row)): number {
    const h = stored(hash);
    const i = this.slotOf(row, h);
    if (this.hashes[i] === EMPTY) {
      if (delta !== 0) this.insert(i, row, delta, h);
      return 0;
    }
    const before = this.values[i]!;
    if (before + delta === 0) this.remove(i);
    else this.values[i] = before + delta;
    return before;
  }

  /** Puts the row into empty slot `i`. */
  private insert(i: number, row: readonly Value[], value: T, h: number): void {
    this.ids[i] = this.store.add(row);
    this.values[i] = value;
    this.hashes[i] = h;
    this.count += 1;
    if (this.count * 4 > this.ids.length * 3) this.grow();
  }

  /** Empties slot `i` and moves later entries of its run back, so that every lookup still finds them. */
  private remove(i: number): void {
    this.count -= 1;
    this.store.release(this.ids[i]!);
    let hole = i;
    for (let j = (i + 1) & this.mask; this.hashes[j] !== EMPTY; j = (j + 1) & this.mask) {
      const home = this.hashes[j]! & this.mask;
      // Entry j may fill the hole only when the hole lies between its home slot and j.
      if (((hole - home) & this.mask) >= ((j - home) & this.mask)) continue;
      this.ids[hole] = this.ids[j]!;
      this.values[hole] = this.values[j];
      this.hashes[hole] = this.hashes[j]!;
      hole = j;
    }
    this.values[hole] = undefined;
    this.hashes[hole] = EMPTY;
  }

  private grow(): void {
    const { ids, values, hashes } = this;
    const size = ids.length * 2;
    this.ids = new Int32Array(size);
    this.values = new Array<undefined>(size).fill(undefined);
    this.hashes = new Int32Array(size);
    this.mask = size - 1;
    for (let k = 0; k < ids.length; k++) {
      const h = hashes[k]!;
      if (h === EMPTY) continue;
      let i = h & this.mask;
      while (this.hashes[i] !== EMPTY) i = (i + 1) & this.mask;
      this.ids[i] = ids[k]!;
      this.values[i] = values[k];
      this.hashes[i] = h;
    }
  }

  clear(): void {
    this.store.clear();
    this.ids = new Int32Array(16);
    this.values = new Array<undefined>(16).fill(undefined);
    this.hashes = new Int32Array(16);
    this.mask = 15;
    this.count = 0;
  }

  /** Every value (no row read back). */
  *allValues(): IterableIterator<T> {
    for (let i = 0; i < this.ids.length; i++) if (this.hashes[i] !== EMPTY) yield this.values[i]!;
  }

  /** Every row (a fresh array) with its value. */
  *entries(): IterableIterator<[readonly Value[], T]> {
    for (let i = 0; i < this.ids.length; i++)
      if (this.hashes[i] !== EMPTY) yield [this.store.row(this.ids[i]!), this.values[i]!];
  }
}
