import type { Value } from '../expressions/types.js';
import { type Row, ZSet } from '../zset/zset.js';

// The operators of a view's circuit (DBSP). A step asks the root for its output delta; each
// operator asks its inputs for theirs, computes its own from them and from its state, and integrates
// its inputs' deltas into that state. The linear ones (scan, filter, map, UNION ALL) keep none.
// A step that fails part way leaves state half integrated: the owner then rebuilds before going on.

export interface StepInput {
  /** The delta of a relation (table or view) in this step; empty when it did not change. */
  delta(relation: string): ZSet;
}

export interface Operator {
  step(input: StepInput): ZSet;
  /** Forgets all state (before a rebuild from the inputs' whole contents). */
  reset(): void;
}

export class Scan implements Operator {
  constructor(readonly relation: string) {}
  step(input: StepInput): ZSet {
    return input.delta(this.relation);
  }
  reset(): void {}
}

export class Filter implements Operator {
  constructor(
    private readonly input: Operator,
    private readonly predicate: (row: Row) => Value,
  ) {}
  step(input: StepInput): ZSet {
    const out = new ZSet();
    for (const [key, { row, weight }] of this.input.step(input).keyed())
      if (this.predicate(row) === true) out.add(row, weight, key);
    return out;
  }
  reset(): void {
    this.input.reset();
  }
}

export class Project implements Operator {
  constructor(
    private readonly input: Operator,
    private readonly exprs: readonly ((row: Row) => Value)[],
  ) {}
  step(input: StepInput): ZSet {
    const out = new ZSet();
    for (const { row, weight } of this.input.step(input))
      out.add(
        this.exprs.map((e) => e(row)),
        weight,
      );
    return out;
  }
  reset(): void {
    this.input.reset();
  }
}

export class UnionAll implements Operator {
  constructor(private readonly inputs: readonly Operator[]) {}
  step(input: StepInput): ZSet {
    const out = new ZSet();
    for (const op of this.inputs) out.addAll(op.step(input));
    return out;
  }
  reset(): void {
    for (const op of this.inputs) op.reset();
  }
}

/** SELECT DISTINCT: a row is in the output while its count is positive (per-row counts kept). */
export class Distinct implements Operator {
  private readonly counts = new ZSet();
  constructor(private readonly input: Operator) {}
  step(input: StepInput): ZSet {
    const out = new ZSet();
    const delta = this.input.step(input);
    for (const [key, { row, weight }] of delta.keyed()) {
      const before = this.countOf(key);
      this.counts.add(row, weight, key);
      const after = this.countOf(key);
      if (before <= 0 && after > 0) out.add(row, 1, key);
      else if (before > 0 && after <= 0) out.add(row, -1, key);
    }
    return out;
  }
  private countOf(key: string): number {
    return this.counts.weightOf(key);
  }
  reset(): void {
    this.counts.clear();
    this.input.reset();
  }
}
