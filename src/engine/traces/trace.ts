import { RowStore } from '../zset/row-store.js';
import { Bucket } from './bucket.js';
import { type Row, ZSet } from '../zset/zset.js';

// An indexed, integrated trace (DBSP): the sum of every delta an operator's input has had, indexed
// by a key (join keys), so that a step looks up only the keys its delta touches. The total weight
// of each key is kept beside it: a left join asks whether a key has any match at all.
//
// A key's rows are a batch appended to (zset.ts): a join is bilinear, so rows that came and went
// may stay side by side until their weights are summed. That happens when a key has had deletes
// and has grown by half since it was last consolidated (amortized: each row is hashed a bounded
// number of times), or when its total reaches 0 (then the key goes away). The rows are kept by
// column in a RowStore (row-store.ts), a key holding their ids; a lookup reads its rows back.

/** A join or group key: one column's value as a Map key, or several columns' keys as one string. */
export type Key = string | number | bigint | boolean;

export class Trace {
  private readonly byKey = new Map<Key, Bucket>();
  private readonly store = new RowStore();

  /** `keep`: the columns of an input row the trace holds (all when undefined); its rows are those. */
  constructor(private readonly keep?: readonly number[]) {}

  /** The key's rows (read back from the store), or undefined when it has none. */
  get(key: Key): ZSet | undefined {
    const b = this.byKey.get(key);
    return b && this.rowsOf(b);
  }

  private rowsOf(b: Bucket): ZSet {
    const rows = new Array<Row>(b.length);
    for (let i = 0; i < rows.length; i++) rows[i] = this.store.row(b.id(i));
    return new ZSet(rows, b.weightList());
  }

  /** How many rows the key holds (0 when none). */
  total(key: Key): number {
    return this.byKey.get(key)?.total ?? 0;
  }

  /** Integrates one key's delta (whole input rows: the trace keeps its columns of them). */
  addAt(key: Key, delta: ZSet): void {
    this.integrate(key, delta, this.keep);
  }

  /** Takes back rows as buckets() gave them (already the kept columns), for a resume. */
  addHeld(key: Key, rows: ZSet): void {
    this.integrate(key, rows, undefined);
  }

  private integrate(key: Key, delta: ZSet, keep: readonly number[] | undefined): void {
    let b = this.byKey.get(key);
    if (!b) this.byKey.set(key, (b = new Bucket()));
    const { rows, weights } = delta;
    for (let i = 0; i < rows.length; i++) {
      const w = weights[i]!;
      if (w === 0) continue;
      b.push(keep ? this.store.addPicked(rows[i]!, keep) : this.store.add(rows[i]!), w);
    }
    if (b.total === 0 || (b.deletes && b.length - b.clean >= Math.max(8, b.clean >> 1))) {
      this.consolidate(b);
      if (b.length === 0) this.byKey.delete(key);
    }
  }

  /** Sums the bucket's weights per distinct row: its rows stored again, one id per distinct row. */
  private consolidate(b: Bucket): void {
    const rows = this.rowsOf(b).consolidate();
    for (let i = 0; i < b.length; i++) this.store.release(b.id(i));
    b.reset(
      rows.rows.map((row) => this.store.add(row)),
      rows.weights,
    );
  }

  /** Integrates an indexed delta. */
  addIndexed(delta: ReadonlyMap<Key, ZSet>): void {
    for (const [key, z] of delta) this.addAt(key, z);
  }

  /** Every key's rows as they are held (a batch: not consolidated). */
  *buckets(): IterableIterator<[Key, ZSet]> {
    for (const [key, b] of this.byKey) yield [key, this.rowsOf(b)];
  }

  get keys(): number {
    return this.byKey.size;
  }

  /** Rows held (a row that came twice and not yet consolidated counts twice). */
  get rows(): number {
    return this.store.size;
  }

  clear(): void {
    this.byKey.clear();
    this.store.clear();
  }
}

/** A delta indexed by key: rows whose key is null (they match nothing) go to `unmatched`. */
export function indexBy(delta: ZSet, keyOf: (row: Row) => Key | null): { indexed: Map<Key, ZSet>; unmatched: ZSet } {
  const indexed = new Map<Key, ZSet>();
  const unmatched = new ZSet();
  const { rows, weights } = delta;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const key = keyOf(row);
    if (key === null) {
      unmatched.add(row, weights[i]!);
      continue;
    }
    let z = indexed.get(key);
    if (!z) indexed.set(key, (z = new ZSet()));
    z.add(row, weights[i]!);
  }
  return { indexed, unmatched };
}
