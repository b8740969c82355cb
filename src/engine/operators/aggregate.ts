import { type Row, ZSet } from '../zset/zset.js';
import type { Accumulator, AggregateKind } from './accumulators.js';
import type { Operator, StepInput } from './operator.js';
import type { Value } from '../expressions/types.js';
import { rowKey } from '../expressions/values.js';

// GROUP BY (DBSP's incremental aggregate): per group its row count and one accumulator per
// aggregate; a step feeds each touched group the rows that came and went and emits the group's old
// output row (−1) and its new one (+1) when they differ. A group goes away when its count reaches
// 0. Without GROUP BY there is exactly one group, always present (its row exists for empty input).
// Output rows: the key values, then the aggregates' results.

export interface AggregateSpec {
  kind: AggregateKind;
  /** The argument (undefined for COUNT(*)). */
  arg?: (row: Row) => Value;
}

interface Group {
  key: Row;
  count: number;
  accumulators: Accumulator[];
}

export class Aggregate implements Operator {
  private readonly groups = new Map<string, Group>();

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

  private newGroup(key: Row): Group {
    return { key, count: 0, accumulators: this.aggregates.map((a) => a.kind.make()) };
  }

  private output(g: Group): Row | undefined {
    if (g.count <= 0 && !this.global) return undefined;
    return [...g.key, ...g.accumulators.map((a) => a.result())];
  }

  step(input: StepInput): ZSet {
    const touched = new Map<string, Group>();
    const before = new Map<string, Row | undefined>();
    for (const { row, weight } of this.input.step(input)) {
      const key = this.keys.map((k) => k(row));
      const gk = rowKey(key);
      let g = touched.get(gk);
      if (!g) {
        g = this.groups.get(gk) ?? this.newGroup(key);
        touched.set(gk, g);
        before.set(gk, this.output(g));
        this.groups.set(gk, g);
      }
      g.count += weight;
      this.aggregates.forEach((a, i) => g.accumulators[i]!.add(a.arg ? a.arg(row) : null, weight));
    }
    const out = new ZSet();
    for (const [gk, g] of touched) {
      if (g.count === 0 && !this.global) this.groups.delete(gk);
      const old = before.get(gk);
      const now = this.output(g);
      const oldKey = old && rowKey(old);
      const nowKey = now && rowKey(now);
      if (oldKey === nowKey) continue;
      if (old) out.add(old, -1, oldKey);
      if (now) out.add(now, 1, nowKey);
    }
    return out;
  }

  reset(): void {
    this.groups.clear();
    if (this.global) this.groups.set(rowKey([]), this.newGroup([]));
    this.input.reset();
  }
}
