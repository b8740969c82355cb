import type { JsonValue } from '../../model/json.js';
import type { Value } from '../expressions/types.js';
import { CircuitStateError, decodeValue, encodeValue, integerOf } from '../traces/codec.js';
import type { Accumulator } from './accumulators.js';
import { pagesOf } from './circuit-state.js';

// The accumulators that hold a multiset of their group's values (accumulators.ts has the others):
// MIN/MAX, which search it when their best value leaves, and an aggregate of DISTINCT values, which
// gives its inner aggregate each value once. Their checkpoint state is the multiset itself.

/** A MIN/MAX's values an entry of circuit state holds at most: a group of a million is many entries. */
export const SAVED_VALUES = 1_000;

/**
 * A multiset of values: each distinct one (by `identity`) with its copies, saved as flat parts of
 * `[value, copies, …]`, SAVED_VALUES values a part (MIN/MAX's values, DISTINCT's).
 */
abstract class ValueMultiset implements Accumulator {
  protected readonly values = new Map<unknown, { value: Value; n: number }>();
  constructor(
    /** What makes two values one: the value itself, SQL equality's key, a date/time's canonical text. */
    protected readonly identity: (v: Value) => unknown,
  ) {}
  abstract add(value: Value, weight: number): void;
  abstract result(): Value;
  /** Takes in a value not held before with its copies (from a checkpoint). */
  protected abstract adopt(value: Value, n: number): void;
  /** Forgets everything (before a checkpoint's state comes in). */
  protected abstract reset(): void;

  /** The first SAVED_VALUES values with their copies, flat; `saveMore` the rest. */
  save(): JsonValue {
    return this.parts().next().value ?? [];
  }
  *saveMore(): Iterable<JsonValue> {
    let first = true;
    for (const part of this.parts())
      if (!first) yield part;
      else first = false;
  }
  /** The values with their copies, flat, SAVED_VALUES of them a part (one part, maybe empty, at least). */
  private *parts(): Generator<JsonValue[]> {
    for (const page of pagesOf(this.values.values(), SAVED_VALUES))
      yield page.flatMap(({ value, n }) => [encodeValue(value), n]);
  }
  load(state: unknown): void {
    this.values.clear();
    this.reset();
    this.loadMore(state);
  }
  loadMore(state: unknown): void {
    if (!Array.isArray(state) || state.length % 2 !== 0)
      throw new CircuitStateError('a multiset of circuit state has the wrong shape');
    for (let i = 0; i < state.length; i += 2) {
      const value = decodeValue(state[i]);
      const n = integerOf(state[i + 1]);
      if (value === null || n === 0 || this.values.has(this.identity(value)))
        throw new CircuitStateError('a multiset of circuit state holds a null, a value twice or none of it');
      this.adopt(value, n);
    }
  }
}

/**
 * MIN/MAX: the values held, and the best of them found once: a value coming in is compared with it
 * alone, and the values are searched again only when the best one's last copy goes. Searching them
 * on every result made a step's cost follow the size of every group it touched rather than its own
 * changes.
 */
export class Extreme extends ValueMultiset {
  /** The best value held (null: none), or undefined when it must be searched for again. */
  private best: Value | undefined = null;
  constructor(
    private readonly compare: (a: Value, b: Value) => number,
    private readonly sign: 1 | -1,
    identity: (v: Value) => unknown,
  ) {
    super(identity);
  }
  add(value: Value, weight: number): void {
    if (value === null || weight === 0) return;
    const id = this.identity(value);
    const entry = this.values.get(id);
    if (!entry) this.adopt(value, weight);
    else if ((entry.n += weight) === 0) {
      this.values.delete(id);
      if (this.best != null && this.identity(this.best) === id) this.best = undefined;
    }
  }
  /** A value not held before (its copies may be negative within a step: it is held all the same). */
  protected adopt(value: Value, n: number): void {
    this.values.set(this.identity(value), { value, n });
    if (this.best !== undefined && (this.best === null || this.sign * this.compare(value, this.best) < 0))
      this.best = value;
  }
  protected reset(): void {
    this.best = null;
  }
  result(): Value {
    if (this.best !== undefined) return this.best;
    let best: Value = null;
    for (const { value } of this.values.values())
      if (best === null || this.sign * this.compare(value, best) < 0) best = value;
    return (this.best = best);
  }
}

/**
 * An aggregate over DISTINCT values (COUNT(DISTINCT x), SUM/AVG(DISTINCT x) of integers): the values
 * held with their copies by SQL equality, and the inner aggregate given a value once, as its first
 * copy comes, and taking it back as its last goes. Its state is the multiset; the inner
 * aggregate's is made again from it on a resume.
 */
export class DistinctOf extends ValueMultiset {
  private inner: Accumulator;
  constructor(
    private readonly make: () => Accumulator,
    identity: (v: Value) => unknown,
  ) {
    super(identity);
    this.inner = make();
  }
  add(value: Value, weight: number): void {
    if (value === null || weight === 0) return;
    const id = this.identity(value);
    const entry = this.values.get(id);
    const before = entry?.n ?? 0;
    const after = before + weight;
    const held = entry?.value ?? value;
    if (after === 0) this.values.delete(id);
    else if (entry) entry.n = after;
    else this.values.set(id, { value, n: after });
    // Within a step a value's copies may pass through 0 and below: the inner one sees it present or not.
    if (before <= 0 && after > 0) this.inner.add(held, 1);
    else if (before > 0 && after <= 0) this.inner.add(held, -1);
  }
  protected adopt(value: Value, n: number): void {
    this.values.set(this.identity(value), { value, n });
    if (n > 0) this.inner.add(value, 1);
  }
  protected reset(): void {
    this.inner = this.make();
  }
  result(): Value {
    return this.inner.result();
  }
}
