import { checkInt, checkInt8 } from './arithmetic.js';
import { textOf, Unsupported } from './casts.js';
import { negNumeric, type Numeric } from './numeric.js';
import { TIMESTAMP, TIMESTAMPTZ, temporalComparator, truncTimestamp } from './temporal.js';
import { temporalFamily } from './temporal-casts.js';
import { BOOL, FLOAT8, INT4, NUMERIC, type SqlType, TEXT, type Value } from './types.js';
import { stringFunction } from './strings.js';
import { roundingFunction } from './rounding.js';
import { datePartField, extractField } from './extract.js';
import { comparatorOf } from './values.js';

// The functions and array comparisons the native path evaluates as PostgreSQL does (the property
// tests compare them with PostgreSQL on edge values): abs of the number types, the character length
// of text, date_trunc of a timestamp or timestamptz, EXTRACT (extract.ts), GREATEST/LEAST (of dates and times
// too), IS [NOT] DISTINCT FROM, and a comparison with ANY/ALL of an ARRAY[...] list, which is how
// the canonical text spells `x IN (a, b)` (`x = ANY (ARRAY[a, b])`) and `x NOT IN (a, b)`
// (`x <> ALL (ARRAY[a, b])`).
// Any other function stays with PGlite, with its name as the reason.

export interface Evaluated {
  type: SqlType;
  eval: (row: readonly Value[]) => Value;
  /** A constant's value (date_trunc's unit is read when the call is planned). */
  constant?: Value;
}

const strict =
  (e: Evaluated, f: (v: Value) => Value) =>
  (row: readonly Value[]): Value => {
    const v = e.eval(row);
    return v === null ? null : f(v);
  };

/** f of the arguments' values, NULL when any is NULL. */
const strictAll =
  (args: readonly Evaluated[], f: (values: readonly Value[]) => Value) =>
  (row: readonly Value[]): Value => {
    const values = new Array<Value>(args.length);
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.eval(row);
      if (v === null) return null;
      values[i] = v;
    }
    return f(values);
  };

/** abs of each type, with PostgreSQL's overflow of the most negative integer (int4abs, int8abs…). */
function absOf(type: SqlType): ((v: Value) => Value) | undefined {
  switch (type.base) {
    case 'int2':
    case 'int4':
      return (v) => checkInt(type.base as 'int2' | 'int4', Math.abs(v as number));
    case 'int8':
      return (v) => checkInt8((v as bigint) < 0n ? -(v as bigint) : (v as bigint));
    // fabs: -0 is 0, NaN stays NaN.
    case 'float8':
      return (v) => Math.abs(v as number);
    // numeric_abs: the scale kept, NaN stays NaN, -Infinity is Infinity.
    case 'numeric':
      return (v) => {
        const x = v as Numeric;
        return (x.kind === 'finite' && x.n < 0n) || (x.kind === 'inf' && x.sign < 0) ? negNumeric(x) : x;
      };
    default:
      return undefined;
  }
}

/** Characters of a text in UTF-8 (PostgreSQL's length): code points, not UTF-16 units. */
function characters(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n -= 1;
  }
  return n;
}

const LENGTHS = new Set(['length', 'char_length', 'character_length']);

/** A call `name(args)` (name unqualified, or in pg_catalog), or Unsupported naming it. */
export function callOf(name: string, args: readonly Evaluated[]): Evaluated {
  const [arg] = args;
  if (name === 'abs' && arg && args.length === 1) {
    const f = absOf(arg.type);
    if (f) return { type: arg.type, eval: strict(arg, f) };
    throw new Unsupported(`the function abs on ${arg.type.name}`);
  }
  if (LENGTHS.has(name) && arg && args.length === 1 && arg.type.base === 'text')
    return { type: INT4, eval: strict(arg, (v) => characters(v as string)) };
  const unit = Object.hasOwn(UNIT_FUNCTIONS, name) ? UNIT_FUNCTIONS[name] : undefined;
  if (unit && args.length === 2) return unit(args[0]!, args[1]!);
  return tableFunction(name, args);
}

/** The functions of a constant unit or field and a date/time: date_trunc('hour', ts), date_part('hour', ts). */
const UNIT_FUNCTIONS: Record<string, (unit: Evaluated, arg: Evaluated) => Evaluated> = {
  date_trunc: (unit, arg) => dateTrunc(unit, arg),
  date_part: (field, arg) => datePart(field, arg),
};

/**
 * concat(a, …) and concat_ws(separator, a, …): each argument's text (text, the integers, numeric,
 * boolean), NULLs skipped, never NULL itself (concat_ws of a NULL separator is NULL).
 */
function concatOf(name: 'concat' | 'concat_ws', args: readonly Evaluated[]): Evaluated {
  // Each argument's output function: a boolean's is `t`/`f` (its cast to text says `true`/`false`).
  const texts = args.map((a) =>
    a.type.base === 'text' ? (v: Value) => v : a.type.base === 'bool' ? (v: Value) => (v ? 't' : 'f') : textOf(a.type),
  );
  const missing = args.find((_, i) => !texts[i]);
  if (missing) throw new Unsupported(`${name} of ${missing.type.name}`);
  const parts = (row: readonly Value[], from: number): string[] => {
    const out: string[] = [];
    for (let i = from; i < args.length; i++) {
      const v = args[i]!.eval(row);
      if (v !== null) out.push(texts[i]!(v) as string);
    }
    return out;
  };
  if (name === 'concat') return { type: TEXT, eval: (row) => parts(row, 0).join('') };
  if (args[0]?.type.base !== 'text') throw new Unsupported('concat_ws without a text separator');
  return {
    type: TEXT,
    eval: (row) => {
      const separator = args[0]!.eval(row);
      return separator === null ? null : parts(row, 1).join(separator as string);
    },
  };
}

/** The rounding and text functions (rounding.ts, strings.ts), chosen by their arguments' types. */
function tableFunction(name: string, args: readonly Evaluated[]): Evaluated {
  if ((name === 'concat' || name === 'concat_ws') && args.length > 0) return concatOf(name, args);
  const types = args.map((a) => a.type);
  const rounding = roundingFunction(name, types);
  if (rounding) return { type: rounding.type, eval: strictAll(args, rounding.f) };
  const text = stringFunction(name, types);
  if (text) return { type: name === 'strpos' || name === 'position' ? INT4 : TEXT, eval: strictAll(args, text) };
  throw new Unsupported(`the function ${name}`);
}

/** EXTRACT(field FROM x) of a timestamp or a date, for a field extractField knows (the field is the call's literal). */
export function extractOf(field: string, arg: Evaluated): Evaluated {
  const family = temporalFamily(arg.type);
  const timestamp = family === 'timestamp' || family === 'timestamptz';
  if (!timestamp && arg.type.name !== 'date') throw new Unsupported(`EXTRACT from ${arg.type.name}`);
  const f = extractField(field.toLowerCase(), timestamp);
  if (!f) throw new Unsupported(`EXTRACT of '${field}' from ${arg.type.name}`);
  return { type: { ...NUMERIC, fixedScale: true }, eval: strict(arg, f) };
}

/** date_part(field, timestamp or timestamptz) with the field a constant datePartField knows. */
function datePart(field: Evaluated, arg: Evaluated): Evaluated {
  const family = temporalFamily(arg.type);
  if (family !== 'timestamp' && family !== 'timestamptz') throw new Unsupported(`date_part of ${arg.type.name}`);
  const name = typeof field.constant === 'string' ? field.constant.toLowerCase() : undefined;
  const f = name === undefined ? undefined : datePartField(name);
  if (!f) throw new Unsupported(`date_part of ${name === undefined ? 'a field not a constant' : `'${name}'`}`);
  return { type: FLOAT8, eval: strict(arg, f) };
}

/** date_trunc(unit, timestamp or timestamptz) with the unit a constant that truncTimestamp knows. */
function dateTrunc(unit: Evaluated, arg: Evaluated): Evaluated {
  const family = temporalFamily(arg.type);
  if (family !== 'timestamp' && family !== 'timestamptz') throw new Unsupported(`date_trunc of ${arg.type.name}`);
  const name = typeof unit.constant === 'string' ? unit.constant : undefined;
  const trunc = name === undefined ? undefined : truncTimestamp(name);
  if (!trunc) throw new Unsupported(`date_trunc by ${name === undefined ? 'a unit not a constant' : `'${name}'`}`);
  return { type: family === 'timestamptz' ? TIMESTAMPTZ : TIMESTAMP, eval: strict(arg, trunc) };
}

/**
 * Three-valued OR (`decisive` true) or AND (false) of boolean parts: the decisive value wins, then
 * NULL. `x op ANY (ARRAY[e…])` is the OR of the comparisons, ALL their AND.
 */
export function threeValued(decisive: boolean, parts: readonly Evaluated[]): Evaluated {
  return {
    type: BOOL,
    eval: (row) => {
      let unknown = false;
      for (const p of parts) {
        const v = p.eval(row);
        if (v === decisive) return decisive;
        if (v === null) unknown = true;
      }
      return unknown ? null : !decisive;
    },
  };
}

/** `x op ANY/ALL (ARRAY[e…])` from its comparisons (an IN list is never empty in the canonical text). */
export function anyAllOf(all: boolean, comparisons: readonly Evaluated[]): Evaluated {
  if (comparisons.some((c) => c.type.base !== 'bool')) throw new Unsupported('ANY/ALL of a non-boolean operator');
  return threeValued(!all, comparisons);
}

/**
 * GREATEST/LEAST of arguments already of their common `type`: NULLs are skipped (NULL only when
 * every one is), and of equal values the first stays, as PostgreSQL's ExecEvalMinMax keeps it (1.0
 * of 1.0 and 1.00, 0 of 0 and -0).
 */
export function minMaxOf(greatest: boolean, type: SqlType, args: readonly Evaluated[]): Evaluated {
  // An opaque type's values compare as their texts, which is not its order: only a date or time's
  // order is known (temporal.ts).
  const compare = type.base === 'opaque' ? temporalComparator(type) : comparatorOf(type.base);
  if (!compare) throw new Unsupported(`${greatest ? 'GREATEST' : 'LEAST'} of ${type.name}`);
  const sign = greatest ? 1 : -1;
  return {
    type,
    eval: (row) => {
      let best: Value = null;
      for (const a of args) {
        const v = a.eval(row);
        if (v !== null && (best === null || sign * compare(v, best) > 0)) best = v;
      }
      return best;
    },
  };
}

/** `a IS [NOT] DISTINCT FROM b` from `a = b`: NULLs compare as values (two NULLs are not distinct). */
export function distinctOf(not: boolean, a: Evaluated, b: Evaluated, equal: Evaluated): Evaluated {
  return {
    type: BOOL,
    eval: (row) => {
      const eq = equal.eval(row);
      const distinct = eq === null ? !(a.eval(row) === null && b.eval(row) === null) : !eq;
      return distinct !== not;
    },
  };
}
