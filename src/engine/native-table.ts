import { equalityKey } from './expressions/values.js';
import type { SqlType } from './expressions/types.js';
import { hashRow, sameRow } from './zset/row-hash.js';
import { type Row, ZSet } from './zset/zset.js';

// One native table's rows and the input buffered for its next step, with docs/engine.md's "Input"
// semantics: with a primary key, an upsert table (the last change of a key in a step wins; an insert
// replaces the row of its key, a delete removes it whatever its other values); without one, a
// multiset (each distinct row's weights summed over the step; a negative sum deletes up to that many
// copies that exist). A row's identity is its values as PostgreSQL prints them (sameRow), which is
// what the PGlite path's multiset delete matches by (the row's text). A step is prepared without
// changing anything and committed only once the step as a whole went through.

interface Counted {
  row: Row;
  count: number;
}

export interface Prepared {
  delta: ZSet;
  commit: () => void;
}

export class NativeTable {
  private pending: { row: Row; weight: number }[] = [];
  /** Keyed: the row of each key (by SQL equality of the key's values). */
  private readonly byKey = new Map<string, Row>();
  /** Multiset: the rows with their number of copies, in buckets by row hash. */
  private readonly buckets = new Map<number, Counted[]>();
  private size = 0;

  constructor(
    private readonly types: readonly SqlType[],
    /** Column positions of the primary key; empty: a multiset. */
    private readonly key: readonly number[],
  ) {}

  private keyOf(row: Row): string {
    if (this.key.length === 1) return equalityKey(this.types[this.key[0]!]!.base, row[this.key[0]!]!);
    return JSON.stringify(this.key.map((k) => equalityKey(this.types[k]!.base, row[k]!)));
  }

  private find(row: Row): Counted | undefined {
    return this.buckets.get(hashRow(row))?.find((c) => sameRow(c.row, row));
  }

  get buffered(): number {
    return this.pending.length;
  }

  buffer(row: Row, weight: number): void {
    this.pending.push({ row, weight });
  }

  /** The input buffered for the next step, in arrival order. */
  bufferedChanges(): readonly { row: Row; weight: number }[] {
    return this.pending;
  }

  /** Rows held now. */
  count(): number {
    return this.key.length > 0 ? this.byKey.size : this.size;
  }

  /** Every row, each with its number of copies. */
  whole(): ZSet {
    const z = new ZSet();
    if (this.key.length > 0) for (const row of this.byKey.values()) z.add(row, 1);
    else for (const bucket of this.buckets.values()) for (const c of bucket) z.add(c.row, c.count);
    return z;
  }

  /** Drops every row (they went back into PGlite's copy, native-tables.ts). */
  clear(): void {
    this.byKey.clear();
    this.buckets.clear();
    this.size = 0;
  }

  /** Rows put in directly (a restore, the program's own inserts at load): as inserts applied now. */
  load(rows: ZSet): void {
    for (let i = 0; i < rows.size; i++) this.apply(rows.rows[i]!, rows.weights[i]!);
  }

  private apply(row: Row, weight: number): void {
    if (this.key.length > 0) {
      if (weight > 0) this.byKey.set(this.keyOf(row), row);
      else this.byKey.delete(this.keyOf(row));
      return;
    }
    const found = this.find(row);
    if (found) {
      found.count += weight;
      this.size += weight;
      if (found.count <= 0) {
        const bucket = this.buckets.get(hashRow(row))!;
        bucket.splice(bucket.indexOf(found), 1);
        if (bucket.length === 0) this.buckets.delete(hashRow(row));
      }
    } else if (weight > 0) {
      const h = hashRow(row);
      const bucket = this.buckets.get(h);
      if (bucket) bucket.push({ row, count: weight });
      else this.buckets.set(h, [{ row, count: weight }]);
      this.size += weight;
    }
  }

  /** The change the buffered input makes (read only); `commit` makes it and empties the buffer. */
  prepare(): Prepared {
    const delta = new ZSet();
    const applied: { row: Row; weight: number }[] = [];
    if (this.key.length > 0) {
      const last = new Map<string, { row: Row; weight: number }>();
      for (const change of this.pending) last.set(this.keyOf(change.row), change);
      for (const [k, { row, weight }] of last) {
        const old = this.byKey.get(k);
        if (old) {
          delta.add(old, -1);
          applied.push({ row: old, weight: -1 });
        }
        if (weight > 0) {
          delta.add(row, 1);
          applied.push({ row, weight: 1 });
        }
      }
    } else {
      const summed = new ZSet();
      for (const { row, weight } of this.pending) summed.add(row, weight);
      const sums = summed.consolidate();
      for (let i = 0; i < sums.size; i++) {
        const row = sums.rows[i]!;
        const weight = sums.weights[i]!;
        // A delete takes only the copies that exist (of an absent row: none).
        const w = weight > 0 ? weight : -Math.min(-weight, this.find(row)?.count ?? 0);
        if (w === 0) continue;
        delta.add(row, w);
        applied.push({ row, weight: w });
      }
    }
    return {
      delta: delta.consolidate(),
      commit: () => {
        for (const { row, weight } of applied) this.apply(row, weight);
        this.pending = [];
      },
    };
  }
}
