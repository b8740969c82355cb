import type { Value } from '../expressions/types.js';
import { RowMap } from '../zset/row-map.js';
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
    const { rows, weights } = this.input.step(input);
    for (let i = 0; i < rows.length; i++) if (this.predicate(rows[i]!) === true) out.add(rows[i]!, weights[i]!);
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
    const { rows, weights } = this.input.step(input);
    const exprs = this.exprs;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const projected = new Array<Value>(exprs.length);
      for (let k = 0; k < exprs.length; k++) projected[k] = exprs[k]!(row);
      out.add(projected, weights[i]!);
    }
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
  private readonly counts = new RowMap<number>();
  constructor(private readonly input: Operator) {}
  step(input: StepInput): ZSet {
    const out = new ZSet();
    const { rows, weights } = this.input.step(input).consolidate();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const before = this.counts.addTo(row, weights[i]!);
      const after = before + weights[i]!;
      if (before <= 0 && after > 0) out.add(row, 1);
      else if (before > 0 && after <= 0) out.add(row, -1);
    }
    return out;
  }
  reset(): void {
    this.counts.clear();
    this.input.reset();
  }
}

/** A view's output: its delta consolidated (one change per row that changed, none that cancel). */
export class Consolidate implements Operator {
  constructor(private readonly input: Operator) {}
  step(input: StepInput): ZSet {
    return this.input.step(input).consolidate();
  }
  reset(): void {
    this.input.reset();
  }
}
