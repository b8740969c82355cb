import { describe, expect, it } from 'vitest';
import { ZSet } from '../zset/zset.js';
import { Consolidate, Distinct, type Operator, Scan, type StepInput, UnionAll } from './operator.js';
import { CircuitProfile, type OperatorProfile, sumProfiles } from './profile.js';

/** A scan that takes `ms` of the thread per step: time that is its own, not its parent's. */
class SlowScan extends Scan {
  constructor(
    relation: string,
    private readonly ms: number,
  ) {
    super(relation);
  }
  override step(input: StepInput): ZSet {
    const end = performance.now() + this.ms;
    while (performance.now() < end);
    return super.step(input);
  }
}

const rows = (...values: number[]) =>
  new ZSet(
    values.map((v) => [v]),
    values.map(() => 1),
  );

describe('CircuitProfile', () => {
  it('lists the operators depth first, with what they hold, their steps, rows and own time', () => {
    const distinct = new Distinct(new UnionAll([new SlowScan('a', 30), new Scan('b')]));
    const root = new Consolidate(distinct);
    const profile = new CircuitProfile(root, true);
    const deltas: Record<string, ZSet> = { a: rows(1, 2), b: rows(2, 3, 3) };
    root.step({ delta: (r) => deltas[r] ?? new ZSet() });
    root.step({ delta: () => new ZSet() });
    const read = profile.read();
    expect(read.map((p) => [p.operator, p.depth])).toEqual([
      ['Consolidate', 0],
      ['Distinct', 1],
      ['UnionAll', 2],
      ['SlowScan', 3],
      ['Scan', 3],
    ]);
    expect(read.map((p) => p.steps)).toEqual([2, 2, 2, 2, 2]);
    expect(read.map((p) => p.rows_out)).toEqual([3, 3, 5, 2, 3]);
    expect(read.map((p) => p.held)).toEqual([null, 3, null, null, null]);
    // The slow scan's 60 ms are its own; its parents' time is theirs alone.
    const [consolidate, d, union, slow] = read as [OperatorProfile, OperatorProfile, OperatorProfile, OperatorProfile];
    expect(slow.self_ms).toBeGreaterThanOrEqual(60);
    for (const parent of [consolidate, d, union]) expect(parent.self_ms).toBeLessThan(20);
  });

  it('untimed: the operators run as they are, and the profile has what they hold only', () => {
    const root: Operator = new Distinct(new Scan('a'));
    const step = root.step;
    const profile = new CircuitProfile(root, false);
    expect(root.step).toBe(step);
    root.step({ delta: () => rows(1, 1, 2) });
    expect(profile.read()).toEqual([
      { operator: 'Distinct', depth: 0, held: 2, steps: null, self_ms: null, rows_out: null },
      { operator: 'Scan', depth: 1, held: null, steps: null, self_ms: null, rows_out: null },
    ]);
  });
});

describe('sumProfiles', () => {
  it('adds what the shards hold, their time and rows; steps are each shard’s', () => {
    const shard = (held: number, ms: number, out: number): OperatorProfile[] => [
      { operator: 'Aggregate', depth: 0, held, steps: 4, self_ms: ms, rows_out: out },
      { operator: 'Scan', depth: 1, held: null, steps: 4, self_ms: null, rows_out: null },
    ];
    expect(sumProfiles([shard(2, 1.5, 3), shard(5, 0.25, 4), shard(0, 0, 0)])).toEqual([
      { operator: 'Aggregate', depth: 0, held: 7, steps: 4, self_ms: 1.75, rows_out: 7 },
      { operator: 'Scan', depth: 1, held: null, steps: 4, self_ms: null, rows_out: null },
    ]);
    expect(sumProfiles([])).toEqual([]);
  });
});
