import { parseExact } from '../../src/model/exact-json.js';
import { expect } from 'vitest';
import type { Change, DataEngine, Row } from '../../src/engine/types.js';

// What the engine's property tests compare with (src/engine/*.property.test.ts): rows as multisets
// (a bag: row text → count), and a model of their two tables, t1 a multiset and t2 keyed by its
// primary key `k`, fed the same random operations as the engine.

export type Bag = Map<string, number>;

export const key = (row: Row): string => JSON.stringify(row);

/** Adds `n` copies of the row `k` (removes them when `n` < 0); a count of 0 leaves the bag. */
export function add(bag: Bag, k: string, n: number): void {
  const next = (bag.get(k) ?? 0) + n;
  if (next === 0) bag.delete(k);
  else bag.set(k, next);
}

export function bagOf(rows: Row[]): Bag {
  const bag: Bag = new Map();
  for (const row of rows) add(bag, key(row), 1);
  return bag;
}

/** The bag in one order (code points), for comparing two bags with toEqual. */
export const sortedBag = (bag: Bag): [string, number][] => [...bag].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** One random operation of the tests: an insert or a delete in t1 (with a weight) or t2. */
export interface TableOp {
  table: 't1' | 't2';
  insert: boolean;
  /** Deletes of t1: which present row (modulo the count), or an absent one when none is. */
  which: number;
  weight: number;
}

/** What the tables hold: t1 a multiset (each step's weights summed per row), t2 by primary key. */
export class TwoTables<O extends TableOp> {
  readonly t1: Bag = new Map();
  readonly t2 = new Map<number, Row>();

  /** `rowOf` is the row an operation inserts (or, when t1 holds nothing, deletes). */
  constructor(private readonly rowOf: (op: O) => Row) {}

  changes(ops: O[]): { t1: Change[]; t2: Change[] } {
    const t1: Change[] = [];
    const t2: Change[] = [];
    const present = [...this.t1.keys()];
    for (const o of ops) {
      if (o.table === 't2') t2.push({ weight: o.insert ? 1 : -1, row: this.rowOf(o) });
      else if (o.insert) t1.push({ weight: o.weight, row: this.rowOf(o) });
      else {
        const row = present.length > 0 ? (parseExact(present[o.which % present.length]!) as Row) : this.rowOf(o);
        t1.push({ weight: -o.weight, row });
      }
    }
    return { t1, t2 };
  }

  /** A step's changes as the engine applies them: a multiset never holds fewer than zero copies. */
  apply({ t1, t2 }: { t1: Change[]; t2: Change[] }): void {
    const net: Bag = new Map();
    for (const c of t1) add(net, key(c.row), c.weight);
    for (const [k, n] of net) add(this.t1, k, n > 0 ? n : -Math.min(-n, this.t1.get(k) ?? 0));
    for (const c of t2) {
      if (c.weight > 0) this.t2.set(c.row['k'] as number, c.row);
      else this.t2.delete(c.row['k'] as number);
    }
  }

  rows(): { t1: Row[]; t2: Row[] } {
    const t1: Row[] = [];
    for (const [k, n] of this.t1) for (let i = 0; i < n; i++) t1.push(parseExact(k) as Row);
    return { t1, t2: [...this.t2.values()] };
  }
}

/** Watches every view; each view's bag of emitted changes starts as its rows now. */
export async function watchAll(engine: DataEngine, views: readonly { name: string }[]): Promise<Map<string, Bag>> {
  const emitted = new Map<string, Bag>();
  for (const v of views) {
    emitted.set(v.name, bagOf(await engine.snapshot(v.name)));
    engine.watch(v.name);
  }
  return emitted;
}

/** One step's operations into both tables (none may be refused), and into the model. */
export async function feed<O extends TableOp>(engine: DataEngine, model: TwoTables<O>, ops: O[]): Promise<void> {
  const changes = model.changes(ops);
  for (const t of ['t1', 't2'] as const) {
    const result = await engine.ingest(t, changes[t]);
    expect(result.errors).toEqual([]);
  }
  model.apply(changes);
}
