import { checkInt8 } from '../expressions/arithmetic.js';
import { Unsupported } from '../expressions/casts.js';
import { divNumeric, finite, NAN, type Numeric } from '../expressions/numeric.js';
import { INT8, NUMERIC, type SqlType, type Value } from '../expressions/types.js';
import { comparatorOf, rowKey } from '../expressions/values.js';

// Per-group accumulators of the aggregates the native path keeps, each taking rows in and out
// (weights ±n) and giving PostgreSQL's result for the rows it holds now: COUNT, SUM and AVG are
// sums (of integers as bigints, of numerics exactly, with the result scale the largest scale among
// the values held, as PostgreSQL's from-scratch sum has it, and NaN/±Infinity counted apart);
// MIN/MAX keep a multiset of the values. SUM/AVG of float8 are not native (a float sum depends on
// the order of additions, and deletes change it), nor MIN/MAX of numeric or float8 (equal values
// of different spellings, 1.0 and 1.00 or 0 and -0: PostgreSQL returns whichever it met last).

export interface Accumulator {
  add(value: Value, weight: number): void;
  result(): Value;
}
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
}

/** Integers summed exactly; SUM(int2/int4) is bigint, SUM(int8) and the AVGs numeric. */
class IntegerSum implements Accumulator {
  private sum = 0n;
  private n = 0;
  constructor(private readonly mode: 'int8' | 'numeric' | 'avg') {}
  add(value: Value, weight: number): void {
    if (value === null) return;
    this.sum += BigInt(value as number | bigint) * BigInt(weight);
    this.n += weight;
  }
  result(): Value {
    if (this.n === 0) return null;
    if (this.mode === 'int8') return checkInt8(this.sum);
    if (this.mode === 'numeric') return finite(this.sum, 0);
    return divNumeric(finite(this.sum, 0), finite(BigInt(this.n), 0));
  }
}

/** Numerics summed exactly at the largest scale seen; the result at the largest scale held. */
class NumericSum implements Accumulator {
  private sum = 0n;
  private scale = 0;
  private readonly scales = new Map<number, number>();
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
      this.sum += x.n * 10n ** BigInt(this.scale - x.scale) * BigInt(weight);
      this.finiteCount += weight;
      const left = (this.scales.get(x.scale) ?? 0) + weight;
      if (left === 0) this.scales.delete(x.scale);
      else this.scales.set(x.scale, left);
    }
  }
  result(): Value {
    if (this.finiteCount + this.nan + this.pinf + this.ninf === 0) return null;
    if (this.nan > 0 || (this.pinf > 0 && this.ninf > 0)) return NAN;
    if (this.pinf > 0) return { kind: 'inf', sign: 1 };
    if (this.ninf > 0) return { kind: 'inf', sign: -1 };
    const held = Math.max(0, ...this.scales.keys());
    const sum = finite(this.sum / 10n ** BigInt(this.scale - held), held);
    return this.avg ? divNumeric(sum, finite(BigInt(this.finiteCount), 0)) : sum;
  }
}

class Extreme implements Accumulator {
  private readonly values = new Map<string, { value: Value; n: number }>();
  constructor(
    private readonly compare: (a: Value, b: Value) => number,
    private readonly sign: 1 | -1,
  ) {}
  add(value: Value, weight: number): void {
    if (value === null) return;
    const key = rowKey([value]);
    const entry = this.values.get(key);
    if (!entry) this.values.set(key, { value, n: weight });
    else if ((entry.n += weight) === 0) this.values.delete(key);
  }
  result(): Value {
    let best: Value = null;
    for (const { value } of this.values.values())
      if (best === null || this.sign * this.compare(value, best) < 0) best = value;
    return best;
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

/** The aggregate `name` of an argument of type `arg` (undefined for COUNT(*)). */
export function aggregateKind(name: string, arg: SqlType | undefined): AggregateKind {
  if (name === 'count') return { type: INT8, make: () => new Count(arg === undefined) };
  if (!arg) throw new Unsupported(`${name}(*)`);
  const sum = SUMS[name]?.[arg.base];
  if (sum) return sum;
  if ((name === 'min' || name === 'max') && (INTEGERS.has(arg.base) || arg.base === 'text')) {
    const compare = comparatorOf(arg.base);
    const sign = name === 'min' ? 1 : -1;
    return { type: arg, make: () => new Extreme(compare, sign) };
  }
  throw new Unsupported(`${name}(${arg.name})`);
}
