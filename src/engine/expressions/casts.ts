import { checkInt, checkInt8 } from './arithmetic.js';
import { finite, type Numeric, numericText, numericToFloat, parseNumeric } from './numeric.js';
import { outOfRange } from './sql-error.js';
import { DATE, TIMESTAMP, TIMESTAMPTZ, temporalValue } from './temporal.js';
import { temporalCast } from './temporal-casts.js';
import { temporalLiteral } from './temporal-input.js';
import { parseInterval } from './interval.js';
import { BOOL, FLOAT8, INT2, INT4, INT8, NUMERIC, type SqlType, TEXT, type Value } from './types.js';

// Casts the native path evaluates, as PostgreSQL does them: integers widen freely and narrow with
// a range check; integers become numeric or float8 exactly or correctly rounded; numeric becomes
// float8 through its text; float8 becomes an integer rounded half to even (rint) with a range
// check. Anything else (text to a number at run time, numeric to an integer, typmods) is not native.

export class Unsupported extends Error {
  override readonly name = 'Unsupported';
}

/** The type a cast's target name (the last of TypeCast.typeName.names) stands for. */
export const CAST_TARGETS: Record<string, SqlType> = {
  int2: INT2,
  int4: INT4,
  int8: INT8,
  numeric: NUMERIC,
  float8: FLOAT8,
  text: TEXT,
  bool: BOOL,
  date: DATE,
  timestamp: TIMESTAMP,
  timestamptz: TIMESTAMPTZ,
  time: { base: 'opaque', name: 'time without time zone' },
  interval: { base: 'opaque', name: 'interval' },
};

type Cast = (v: Value) => Value;

const toInt =
  (base: 'int2' | 'int4', name: string): ((n: bigint | number) => number) =>
  (n) => {
    if (typeof n === 'bigint') {
      if (n < -2147483648n || n > 2147483647n) throw outOfRange(name);
      return checkInt(base, Number(n));
    }
    return checkInt(base, n);
  };

/** float8 → integer: rint (half to even), NaN and out-of-range values fail. */
function rint(x: number, name: string): number {
  if (Number.isNaN(x) || !Number.isFinite(x)) throw outOfRange(name);
  const r = Math.round(x);
  return (r - x === 0.5 && r % 2 !== 0 ? r - 1 : r) + 0;
}

const NAMES = { int2: 'smallint', int4: 'integer' } as const;

function toSmallInt(from: SqlType, to: 'int2' | 'int4'): Cast | undefined {
  const name = NAMES[to];
  const narrow = toInt(to, name);
  if (from.base === 'int2' || from.base === 'int4') return (v) => narrow(v as number);
  if (from.base === 'int8') return (v) => narrow(v as bigint);
  if (from.base === 'float8') return (v) => narrow(rint(v as number, name));
  return undefined;
}

function toBigInt(from: SqlType): Cast | undefined {
  if (from.base === 'int2' || from.base === 'int4') return (v) => BigInt(v as number);
  if (from.base !== 'float8') return undefined;
  return (v) => {
    const x = v as number;
    // PostgreSQL's FLOAT8_FITS_IN_INT64: -2^63 ≤ x < 2^63.
    if (Number.isNaN(x) || x < -9223372036854775808 || x >= 9223372036854775808) throw outOfRange('bigint');
    return checkInt8(BigInt(rint(x, 'bigint')));
  };
}

function toNumeric(from: SqlType): Cast | undefined {
  if (from.base === 'int2' || from.base === 'int4') return (v) => finite(BigInt(v as number), 0);
  if (from.base === 'int8') return (v) => finite(v as bigint, 0);
  return undefined;
}

function toFloat(from: SqlType): Cast | undefined {
  if (from.base === 'int2' || from.base === 'int4') return (v) => v;
  if (from.base === 'int8') return (v) => Number(v as bigint);
  if (from.base === 'numeric') return (v) => numericToFloat(v as Numeric);
  return undefined;
}

/** Casts to each base type from another (the same base aside). */
const CASTS_TO: Partial<Record<SqlType['base'], (from: SqlType, to: SqlType) => Cast | undefined>> = {
  int2: (from) => toSmallInt(from, 'int2'),
  int4: (from) => toSmallInt(from, 'int4'),
  int8: toBigInt,
  numeric: (from, to) => (to.name === 'numeric' ? toNumeric(from) : undefined),
  float8: toFloat,
  text: (from) => textOf(from),
};

/** A cast of non-null values from `from` to `to`, or undefined when it is not native. */
export function castOf(from: SqlType, to: SqlType): Cast | undefined {
  if (from.base === 'opaque' || to.base === 'opaque') return from.name === to.name ? (v) => v : temporalCast(from, to);
  if (from.base === to.base && (to.base !== 'numeric' || to.name === 'numeric')) return (v) => v;
  return CASTS_TO[to.base]?.(from, to);
}

/**
 * The text PostgreSQL's output function gives a value of `type` (a cast to text, `||` with text),
 * for the types whose text is certain here (float8's depends on extra_float_digits: PostgreSQL's).
 */
export function textOf(type: SqlType): Cast | undefined {
  switch (type.base) {
    case 'int2':
    case 'int4':
    case 'int8':
      return (v) => String(v);
    case 'numeric':
      return (v) => numericText(v as Numeric);
    case 'bool':
      return (v) => (v ? 'true' : 'false');
    default:
      return undefined;
  }
}

function integerLiteral(text: string, to: SqlType): Value {
  if (!/^-?\d+$/.test(text)) throw new Unsupported(`the literal '${text}' of type ${to.name}`);
  const n = checkInt8(BigInt(text));
  return to.base === 'int2' || to.base === 'int4' ? toInt(to.base, NAMES[to.base])(n) : n;
}

/** A string literal cast to a type (`'-1'::integer`, `'x'::text`), in the forms PostgreSQL prints. */
export function literalOf(text: string, to: SqlType): Value {
  switch (to.base) {
    case 'int2':
    case 'int4':
    case 'int8':
      return integerLiteral(text, to);
    case 'numeric':
      if (to.name !== 'numeric' || !/^(-?\d+(\.\d+)?|NaN|-?Infinity)$/.test(text))
        throw new Unsupported(`the literal '${text}' of type ${to.name}`);
      return parseNumeric(text);
    case 'float8':
      if (!/^(-?\d+(\.\d+)?(e[+-]?\d+)?|NaN|-?Infinity)$/.test(text))
        throw new Unsupported(`the literal '${text}' of type ${to.name}`);
      return Number(text);
    case 'text':
      return text;
    case 'bool':
      if (['true', 't', 'false', 'f'].includes(text)) return text.startsWith('t');
      throw new Unsupported(`the literal '${text}' of type boolean`);
    default: {
      // A date or time as PostgreSQL prints it in a view's text ('2024-01-01 10:00:00+00'), an
      // interval as it prints one ('1 day 02:00:00'): kept as that text, read when it is used.
      const value =
        to.name === 'interval' ? parseInterval(text) && temporalValue(text) : temporalLiteral(text, to.name);
      if (value === undefined) throw new Unsupported(`the literal '${text}' of type ${to.name}`);
      return value;
    }
  }
}
