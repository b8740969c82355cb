import { checkInt8 } from '../expressions/arithmetic.js';
import { Unsupported } from '../expressions/casts.js';
import { divNumeric, finite, NAN, type Numeric, numericText } from '../expressions/numeric.js';
import { temporalComparator } from '../expressions/temporal.js';
import { INT8, keyable, NUMERIC, type OpaqueValue, type SqlType, type Value } from '../expressions/types.js';
import { comparatorOf, equalityMapKey } from '../expressions/values.js';
import type { JsonValue } from '../../model/json.js';
import { CircuitStateError, entryOf, integerOf } from '../traces/codec.js';
import { DistinctOf, Extreme } from './value-multisets.js';

// Per-group accumulators of the aggregates the native path keeps, each taking rows in and out
// (weights ±n) and giving PostgreSQL's result for the rows it holds now: COUNT, SUM and AVG are
// sums (of integers as bigints, of numerics exactly, with the result scale the largest scale among
// the values held, as PostgreSQL's from-scratch sum has it, and NaN/±Infinity counted apart);
// MIN/MAX keep a multiset of the values (integers, text, dates and times), as an aggregate of
// DISTINCT values does (value-multisets.ts). SUM/AVG of float8 are not native (a float sum depends
// on the order of additions, and deletes change it), nor MIN/MAX of numeric or float8 (equal values of different spellings, 1.0 and 1.00 or 0 and -0: PostgreSQL
// returns whichever it met last; a date or time has one spelling, as the session prints it, and
// so has a numeric(p,s)).

/** Beyond this a double sum may round: moved into the bigint. */
const SMALL = 2 ** 52;

export interface Accumulator {
  add(value: Value, weight: number): void;
  result(): Value;
  /** What it holds, for a checkpoint (traces/codec.ts), and back into a new one. */
  save(): JsonValue;
  load(state: unknown): void;
  /** Further parts of a state too large for one entry, each taken back by `loadMore` after `load`. */
  saveMore?(): Iterable<JsonValue>;
  loadMore?(state: unknown): void;
}

/** A bigint as a checkpoint writes it (its digits), and back. */
const bigOf = (e: unknown): bigint => {
  if (typeof e !== 'string' || !/^-?\d+$/.test(e)) throw new CircuitStateError('an accumulator sum is not digits');
  return BigInt(e);
};
export { SAVED_VALUES } from './value-multisets.js';

export interface AggregateKind {
  type: SqlType;
  make(): Accumulator;
}

class Count implements Accumulator {
  private n = 0;
  constructor(private readonly star: boolean) {}
  add(value: Value, weight: number): void {
    if (this.star || value !== null) this.n += weight;
  }
  result(): Value {
    return BigInt(this.n);
  }
  save(): JsonValue {
    return this.n;
  }
  load(state: unknown): void {
    this.n = integerOf(state);
  }
}

/**
 * Integers summed exactly; SUM(int2/int4) is bigint, SUM(int8) and the AVGs numeric. The sum is a
 * double while it stays within 2^52 (exact there, no bigint per row), moved into a bigint beyond.
 */
class IntegerSum implements Accumulator {
  private small = 0;
  private big = 0n;
  private n = 0;
  constructor(private readonly mode: 'int8' | 'numeric' | 'avg') {}
  add(value: Value, weight: number): void {
    if (value === null) return;
    this.n += weight;
    if (typeof value === 'number' && weight === 1) this.small += value;
    else if (typeof value === 'number' && weight === -1) this.small -= value;
    else this.big += BigInt(value as number | bigint) * BigInt(weight);
    if (this.small > SMALL || this.small < -SMALL) {
      this.big += BigInt(this.small);
      this.small = 0;
    }
  }
  private get sum(): bigint {
    return this.big + BigInt(this.small);
  }
  result(): Value {
    if (this.n === 0) return null;
    if (this.mode === 'int8') return checkInt8(this.sum);
    if (this.mode === 'numeric') return finite(this.sum, 0);
    return divNumeric(finite(this.sum, 0), finite(BigInt(this.n), 0));
  }
  save(): JsonValue {
    return [this.sum.toString(), this.n];
  }
  load(state: unknown): void {
    const [sum, n] = entryOf(state, 2);
    this.big = bigOf(sum);
    this.small = 0;
    this.n = integerOf(n);
  }
}

/**
 * Numerics summed exactly at the largest scale seen; the result at the largest scale held. The
 * values held at each scale are counted (one counter for the scale most values have, a map for the
 * others); values of that scale with weight ±1 are summed without rescaling.
 */
class NumericSum implements Accumulator {
  private sum = 0n;
  private scale = 0;
  private mainScale = -1;
  private mainCount = 0;
  private others: Map<number, number> | undefined;
  private finiteCount = 0;
  private nan = 0;
  private pinf = 0;
  private ninf = 0;
  constructor(private readonly avg: boolean) {}
  add(value: Value, weight: number): void {
    if (value === null) return;
    const x = value as Numeric;
    if (x.kind === 'nan') this.nan += weight;
    else if (x.kind === 'inf') {
      if (x.sign > 0) this.pinf += weight;
      else this.ninf += weight;
    } else {
      if (x.scale > this.scale) {
        this.sum *= 10n ** BigInt(x.scale - this.scale);
        this.scale = x.scale;
      }
      const n = x.scale === this.scale ? x.n : x.n * 10n ** BigInt(this.scale - x.scale);
      this.sum += weight === 1 ? n : weight === -1 ? -n : n * BigInt(weight);
      this.finiteCount += weight;
      this.countScale(x.scale, weight);
    }
  }
  private countScale(scale: number, weight: number): void {
    if (this.mainCount === 0 && (this.others === undefined || this.others.size === 0)) this.mainScale = scale;
    if (scale === this.mainScale) {
      this.mainCount += weight;
      return;
    }
    const others = (this.others ??= new Map());
    const left = (others.get(scale) ?? 0) + weight;
    if (left === 0) others.delete(scale);
    else others.set(scale, left);
  }
  private heldScale(): number {
    let held = this.mainCount !== 0 ? this.mainScale : 0;
    if (this.others) for (const s of this.others.keys()) held = Math.max(held, s);
    return Math.max(0, held);
  }
  result(): Value {
    if (this.finiteCount + this.nan + this.pinf + this.ninf === 0) return null;
    if (this.nan > 0 || (this.pinf > 0 && this.ninf > 0)) return NAN;
    if (this.pinf > 0) return { kind: 'inf', sign: 1 };
    if (this.ninf > 0) return { kind: 'inf', sign: -1 };
    const held = this.heldScale();
    const sum = finite(held === this.scale ? this.sum : this.sum / 10n ** BigInt(this.scale - held), held);
    return this.avg ? divNumeric(sum, finite(BigInt(this.finiteCount), 0)) : sum;
  }
  save(): JsonValue {
    const others = [...(this.others ?? [])].flat();
    const counts = [this.finiteCount, this.nan, this.pinf, this.ninf];
    return [this.sum.toString(), this.scale, this.mainScale, this.mainCount, others, counts];
  }
  load(state: unknown): void {
    const [sum, scale, mainScale, mainCount, others, counts] = entryOf(state, 6);
    if (!Array.isArray(others) || others.length % 2 !== 0 || !Array.isArray(counts) || counts.length !== 4)
      throw new CircuitStateError('a numeric sum of circuit state has the wrong shape');
    this.sum = bigOf(sum);
    this.scale = integerOf(scale);
    this.mainScale = integerOf(mainScale);
    this.mainCount = integerOf(mainCount);
    this.others = new Map();
    for (let i = 0; i < others.length; i += 2) this.others.set(integerOf(others[i]), integerOf(others[i + 1]));
    [this.finiteCount, this.nan, this.pinf, this.ninf] = counts.map(integerOf) as [number, number, number, number];
  }
}

const INTEGERS = new Set(['int2', 'int4', 'int8']);

/** SUM and AVG by the argument's base type. */
const SUMS: Record<string, Partial<Record<string, AggregateKind>>> = {
  sum: {
    int2: { type: INT8, make: () => new IntegerSum('int8') },
    int4: { type: INT8, make: () => new IntegerSum('int8') },
    int8: { type: NUMERIC, make: () => new IntegerSum('numeric') },
    numeric: { type: NUMERIC, make: () => new NumericSum(false) },
  },
  avg: {
    int2: { type: NUMERIC, make: () => new IntegerSum('avg') },
    int4: { type: NUMERIC, make: () => new IntegerSum('avg') },
    int8: { type: NUMERIC, make: () => new IntegerSum('avg') },
    numeric: { type: NUMERIC, make: () => new NumericSum(true) },
  },
};

/**
 * COUNT, SUM or AVG of DISTINCT values of type `arg` (MIN/MAX of DISTINCT values are MIN/MAX).
 * Distinct by SQL equality (1.0 = 1.00, -0 = 0, NaN = NaN), which COUNT alone may use for every
 * type: SUM/AVG would return one spelling of equal values, which PostgreSQL leaves to its sort.
 */
function distinctKind(name: string, arg: SqlType): AggregateKind {
  const equatable = INTEGERS.has(arg.base) || arg.base === 'numeric' || arg.base === 'float8' || keyable(arg);
  if (name === 'count' && equatable) {
    const key = (v: Value) => equalityMapKey(arg.base, v);
    return { type: INT8, make: () => new DistinctOf(() => new Count(false), key) };
  }
  const sum = INTEGERS.has(arg.base) ? SUMS[name]?.[arg.base] : undefined;
  if (sum) return { type: sum.type, make: () => new DistinctOf(sum.make, (v) => v) };
  throw new Unsupported(`${name}(DISTINCT ${arg.name})`);
}

/** The aggregate `name` of an argument of type `arg` (undefined for COUNT(*)), of its DISTINCT values or all. */
export function aggregateKind(name: string, arg: SqlType | undefined, distinct = false): AggregateKind {
  if (distinct && arg && name !== 'min' && name !== 'max') return distinctKind(name, arg);
  if (name === 'count') return { type: INT8, make: () => new Count(arg === undefined) };
  if (!arg) throw new Unsupported(`${name}(*)`);
  const kind = SUMS[name]?.[arg.base] ?? ((name === 'min' || name === 'max') && extremeKind(name, arg));
  if (kind) return kind;
  throw new Unsupported(`${name}(${arg.name})`);
}

/** MIN/MAX of the integer types, text, numerics of one scale, dates and times; undefined for other types. */
function extremeKind(name: 'min' | 'max', arg: SqlType): AggregateKind | undefined {
  const sign = name === 'min' ? 1 : -1;
  if (INTEGERS.has(arg.base) || arg.base === 'text') {
    const compare = comparatorOf(arg.base);
    return { type: arg, make: () => new Extreme(compare, sign, (v) => v) };
  }
  // A numeric(p,s) (or an EXTRACT field) holds one scale: one spelling per value, so the value
  // MIN/MAX finds is the one PostgreSQL shows. Its result is a numeric without the typmod.
  if (arg.base === 'numeric' && keyable(arg)) {
    const compare = comparatorOf('numeric');
    return { type: NUMERIC, make: () => new Extreme(compare, sign, (v) => numericText(v as Numeric)) };
  }
  const temporal = temporalComparator(arg);
  // PostgreSQL's MIN/MAX of a timestamp(3) is a timestamp: the type without its precision.
  const type = { ...arg, name: arg.name.replace(/\(\d\)/, '') };
  return temporal && { type, make: () => new Extreme(temporal, sign, (v) => (v as OpaqueValue).text) };
}
