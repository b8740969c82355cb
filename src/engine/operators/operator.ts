import type { Value } from '../expressions/types.js';
import type { JsonValue } from '../../model/json.js';
import { countEntries, loadCount } from '../traces/codec.js';
import { RowMap } from '../zset/row-map.js';
import { type Row, ZSet } from '../zset/zset.js';

// The operators of a view's circuit (DBSP). A step asks the root for its output delta; each
// operator asks its inputs for theirs, computes its own from them and from its state, and integrates
// its inputs' deltas into that state. The linear ones (scan, filter, map, UNION ALL) keep none.
// A step that fails part way leaves state half integrated: the owner then rebuilds before going on.

export interface StepInput {
  /** The delta of a relation (table or view) in this step; empty when it did not change. */
  delta(relation: string): ZSet;
  /**
   * Whether a part of a table's delta is kept on the shard threads that decoded it, besides
   * `delta` (workers/kept.ts): only a circuit on the shards reads it there.
   */
  kept?(relation: string): boolean;
}

export interface Operator {
  step(input: StepInput): ZSet;
  /** Forgets all state (before a rebuild from the inputs' whole contents). */
  reset(): void;
  /** The operators it reads, in a fixed order: a circuit's state is found by walking them (statesOf). */
  sources(): readonly Operator[];
  /** A stateful operator's state as a checkpoint writes it: entries of JSON (traces/codec.ts). */
  save?(): Iterable<JsonValue>;
  /** Takes back one entry that save() gave, into the operator after a reset(). */
  load?(entry: unknown): void;
  /** What a stateful operator holds: groups, rows or keys, as the circuit profile shows them. */
  held?(): number;
}

/** An operator that keeps state of its own. */
export type Stateful = Operator & Required<Pick<Operator, 'save' | 'load'>>;

/**
 * The stateful operators of a circuit, depth first from its root: the same order on every run of
 * the same plan, so a checkpoint's entries go back to the operator that wrote them.
 */
export function statesOf(root: Operator): Stateful[] {
  const out: Stateful[] = [];
  const visit = (op: Operator) => {
    if (op.save && op.load) out.push(op as Stateful);
    for (const source of op.sources()) visit(source);
  };
  visit(root);
  return out;
}

export class Scan implements Operator {
  constructor(readonly relation: string) {}
  step(input: StepInput): ZSet {
    return input.delta(this.relation);
  }
  reset(): void {}
  sources(): readonly Operator[] {
    return [];
  }
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
  sources(): readonly Operator[] {
    return [this.input];
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
  sources(): readonly Operator[] {
    return [this.input];
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
  sources(): readonly Operator[] {
    return this.inputs;
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
  sources(): readonly Operator[] {
    return [this.input];
  }
  /** Each row held, with its count: `[row, count]`. */
  save(): Iterable<JsonValue> {
    return countEntries(this.counts);
  }
  load(entry: unknown): void {
    loadCount(this.counts, entry);
  }
  /** Distinct rows. */
  held(): number {
    return this.counts.size;
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
  sources(): readonly Operator[] {
    return [this.input];
  }
}
