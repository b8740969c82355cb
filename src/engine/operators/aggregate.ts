import { type Row, ZSet } from '../zset/zset.js';
import type { Accumulator, AggregateKind } from './accumulators.js';
import type { Operator, StepInput } from './operator.js';
import type { Value } from '../expressions/types.js';
import { rowKey } from '../expressions/values.js';
import { hashString, hashValue, sameRow } from '../zset/row-hash.js';
import type { JsonValue } from '../../model/json.js';
import { CircuitStateError, decodeRow, encodeRow, entryOf, integerOf } from '../traces/codec.js';

// GROUP BY (DBSP's incremental aggregate): per group its row count, one accumulator per aggregate
// (updated in place) and the output row it has now; a step feeds each touched group the rows that
// came and went and emits the group's old output row (−1) and its new one (+1) when they differ. A
// group goes away when its count reaches 0. Without GROUP BY there is exactly one group, always
// present (its row exists for empty input). Output rows: the key values, then the aggregates'
// results. Groups are found by the key's value itself when there is one key column (keys are of
// types whose equality is identity: integers, text, boolean, canonical opaque types), else by text.

export interface AggregateSpec {
  kind: AggregateKind;
  /** The argument (undefined for COUNT(*)). */
  arg?: (row: Row) => Value;
  /** Its FILTER (WHERE …): whether the aggregate takes the row (undefined: every row). */
  filter?: (row: Row) => boolean;
}

interface Group {
  id: unknown;
  key: Row;
  count: number;
  accumulators: Accumulator[];
  /** The group's row in the view now (undefined: none). */
  out: Row | undefined;
  /** The last step that touched it. */
  stamp: number;
}

/** A one-column key as a Map key: the value itself (an opaque value by its canonical text). */
const single = (v: Value): unknown => (typeof v === 'object' && v !== null ? rowKey([v]) : v);

export class Aggregate implements Operator {
  private readonly groups = new Map<unknown, Group>();
  private stamp = 0;

  constructor(
    private readonly input: Operator,
    private readonly keys: readonly ((row: Row) => Value)[],
    private readonly aggregates: readonly AggregateSpec[],
  ) {
    this.reset();
  }

  private get global(): boolean {
    return this.keys.length === 0;
  }

  /** The shard route of a row: its group's hash (every row of a global aggregate to shard 0). */
  static route(keys: readonly ((row: Row) => Value)[]): (row: Row) => number {
    if (keys.length === 0) return () => 0;
    if (keys.length === 1) {
      const [key] = keys as [(row: Row) => Value];
      return (row) => {
        const id = single(key(row));
        return typeof id === 'string' ? hashString(id) : hashValue(id as Value);
      };
    }
    return (row) => hashString(rowKey(keys.map((k) => k(row))));
  }

  private group(row: Row): Group {
    const keys = this.keys;
    let id: unknown;
    let key: Row;
    if (keys.length === 1) {
      const v = keys[0]!(row);
      id = single(v);
      const g = this.groups.get(id);
      if (g) return g;
      key = [v];
    } else {
      key = keys.map((k) => k(row));
      id = rowKey(key);
      const g = this.groups.get(id);
      if (g) return g;
    }
    return this.added(id, key);
  }

  /** A new group of the key, with no row. */
  private added(id: unknown, key: Row): Group {
    const g: Group = {
      id,
      key,
      count: 0,
      accumulators: this.aggregates.map((a) => a.kind.make()),
      out: undefined,
      stamp: 0,
    };
    this.groups.set(id, g);
    return g;
  }

  private output(g: Group): Row | undefined {
    if (g.count <= 0 && !this.global) return undefined;
    const row = g.key.slice();
    for (const a of g.accumulators) row.push(a.result());
    return row;
  }

  step(input: StepInput): ZSet {
    const stamp = ++this.stamp;
    const touched: Group[] = [];
    const { rows, weights } = this.input.step(input);
    const specs = this.aggregates;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const weight = weights[i]!;
      const g = this.group(row);
      if (g.stamp !== stamp) {
        g.stamp = stamp;
        touched.push(g);
      }
      g.count += weight;
      for (let a = 0; a < specs.length; a++) {
        const { arg, filter } = specs[a]!;
        if (filter && !filter(row)) continue;
        g.accumulators[a]!.add(arg ? arg(row) : null, weight);
      }
    }
    const out = new ZSet();
    for (const g of touched) {
      if (g.count === 0 && !this.global) this.groups.delete(g.id);
      const old = g.out;
      const now = this.output(g);
      g.out = now;
      if (old && now && sameRow(old, now)) continue;
      if (old) out.add(old, -1);
      if (now) out.add(now, 1);
    }
    return out;
  }

  reset(): void {
    this.groups.clear();
    if (this.global) {
      const g = this.group([]);
      g.out = this.output(g);
    }
    this.input.reset();
  }

  sources(): readonly Operator[] {
    return [this.input];
  }

  /** Groups. */
  held(): number {
    return this.groups.size;
  }

  /**
   * Each group: `[key, count, accumulators]` (its output row is the one they give), then, for an
   * accumulator too large for one entry (a MIN/MAX of many values), `[key, null, a, part]` for each
   * further part of accumulator `a`.
   */
  *save(): Iterable<JsonValue> {
    for (const g of this.groups.values()) {
      const key = encodeRow(g.key);
      yield [key, g.count, g.accumulators.map((a) => a.save())];
      for (let a = 0; a < g.accumulators.length; a++)
        for (const part of g.accumulators[a]!.saveMore?.() ?? []) yield [key, null, a, part];
    }
  }

  load(entry: unknown): void {
    const [key, count, states, part] = entryOf(entry, 3);
    const row = decodeRow(key);
    const id = row.length === 1 ? single(row[0]!) : rowKey(row);
    if (count === null) return this.loadMore(id, states, part);
    if (row.length !== this.keys.length || !Array.isArray(states) || states.length !== this.aggregates.length)
      throw new CircuitStateError('a group of circuit state has the wrong shape');
    this.groups.delete(id);
    const g = this.added(id, row);
    g.count = integerOf(count);
    states.forEach((state, a) => g.accumulators[a]!.load(state));
    g.out = this.output(g);
  }

  /** A further part of a group's accumulator (the group's own entry came before it). */
  private loadMore(id: unknown, a: unknown, part: unknown): void {
    const g = this.groups.get(id);
    const acc = g?.accumulators[integerOf(a)];
    if (!g || !acc?.loadMore) throw new CircuitStateError('a part of circuit state names no group or accumulator');
    acc.loadMore(part);
    g.out = this.output(g);
  }
}
