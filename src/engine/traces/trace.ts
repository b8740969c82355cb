import { type Row, ZSet } from '../zset/zset.js';

// An indexed, integrated trace (DBSP): the sum of every delta an operator's input has had, indexed
// by a key (join keys), so that a step looks up only the keys its delta touches. The total weight
// of each key is kept beside it: a left join asks whether a key has any match at all.

export class Trace {
  private readonly byKey = new Map<string, ZSet>();
  private readonly totals = new Map<string, number>();

  get(key: string): ZSet | undefined {
    return this.byKey.get(key);
  }

  /** How many rows the key holds (0 when none). */
  total(key: string): number {
    return this.totals.get(key) ?? 0;
  }

  add(key: string, row: Row, weight: number, rowKey?: string): void {
    let z = this.byKey.get(key);
    if (!z) this.byKey.set(key, (z = new ZSet()));
    z.add(row, weight, rowKey);
    const total = (this.totals.get(key) ?? 0) + weight;
    if (z.size === 0) {
      this.byKey.delete(key);
      this.totals.delete(key);
    } else this.totals.set(key, total);
  }

  /** Integrates an indexed delta. */
  addIndexed(delta: Map<string, ZSet>): void {
    for (const [key, z] of delta) for (const [rk, { row, weight }] of z.keyed()) this.add(key, row, weight, rk);
  }

  get keys(): number {
    return this.byKey.size;
  }

  clear(): void {
    this.byKey.clear();
    this.totals.clear();
  }
}

/** A delta indexed by key: rows whose key is null (they match nothing) go to `unmatched`. */
export function indexBy(
  delta: ZSet,
  keyOf: (row: Row) => string | null,
): { indexed: Map<string, ZSet>; unmatched: ZSet } {
  const indexed = new Map<string, ZSet>();
  const unmatched = new ZSet();
  for (const [rk, { row, weight }] of delta.keyed()) {
    const key = keyOf(row);
    if (key === null) {
      unmatched.add(row, weight, rk);
      continue;
    }
    let z = indexed.get(key);
    if (!z) indexed.set(key, (z = new ZSet()));
    z.add(row, weight, rk);
  }
  return { indexed, unmatched };
}
