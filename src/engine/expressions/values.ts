import { parseExact } from '../../model/exact-json.js';
import type { JsonValue } from '../../model/json.js';
import { compareNumeric, normalNumeric, type Numeric, numericKey, numericText, parseNumeric } from './numeric.js';
import type { Base, OpaqueValue, SqlType, Value } from './types.js';

// Values in and out of the native path, and how they compare. In: the SQL that reads a column so
// that nothing is lost on the way (int8, numeric and float8 as their text), and the value made of
// it. Out: the JSON value the PGlite path would give for the same value (to_json's text read by
// parseExact), so a view's changes are the same whichever path keeps it.

/** The SQL expression that reads column `c` (quoted) for `valueFromJson`. */
export function readSql(type: SqlType, c: string): string {
  return type.base === 'int8' || type.base === 'numeric' || type.base === 'float8' ? `${c}::text` : c;
}

export function valueFromJson(type: SqlType, json: unknown): Value {
  if (json === null) return null;
  switch (type.base) {
    case 'int8':
      return BigInt(json as string);
    case 'numeric':
      return parseNumeric(json as string);
    case 'float8':
      return Number(json as string);
    case 'opaque':
      return { json, text: JSON.stringify(json) };
    default:
      return json as number | string | boolean;
  }
}

/** A number's text as the PGlite path's JSON reader gives it (a double when exact, else raw). */
const exactNumber = (text: string): JsonValue => (parseExact(`[${text}]`) as JsonValue[])[0]!;

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * A finite numeric whose text has at most 15 characters as the double Number(text) gives, without
 * the text: |n| < 10^15 and 10^scale are exact doubles, and IEEE division rounds their quotient to
 * the nearest double, as Number() rounds the decimal. undefined when the text would be longer.
 */
function smallNumeric(n: bigint, scale: number): number | undefined {
  if (n >= 1_000_000_000_000_000n || n <= -1_000_000_000_000_000n) return undefined;
  const m = Number(n);
  const a = Math.abs(m);
  let digits = 1;
  while (digits < 16 && a >= POW10[digits]!) digits += 1;
  const length = (m < 0 ? 1 : 0) + (scale === 0 ? digits : Math.max(digits, scale + 1) + 1);
  if (length > 15) return undefined;
  return scale === 0 ? m : m / POW10[scale]!;
}

/** float8 as PostgreSQL prints it: shortest digits, exponent outside 1e-4 ≤ |x| < 1e15. */
export function float8Text(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa = '', exp = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const e = Number(exp);
  const sign = x < 0 ? '-' : '';
  if (e < -4 || e >= 15) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  if (digits.length <= e + 1) return sign + digits + '0'.repeat(e + 1 - digits.length);
  return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
}

export function valueToJson(base: Base, v: Value): JsonValue {
  if (v === null) return null;
  switch (base) {
    case 'int8': {
      const b = v as bigint;
      return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : exactNumber(b.toString());
    }
    case 'numeric': {
      const n = v as Numeric;
      if (n.kind !== 'finite') return numericText(n);
      const small = smallNumeric(n.n, n.scale);
      if (small !== undefined) return small;
      const text = numericText(n);
      // 15 characters are at most 15 digits: a double holds them exactly (as parseExact decides).
      return text.length <= 15 ? Number(text) : exactNumber(text);
    }
    case 'float8': {
      const x = v as number;
      return Number.isFinite(x) ? exactNumber(float8Text(x)) : float8Text(x);
    }
    case 'opaque':
      return (v as OpaqueValue).json as JsonValue;
    default:
      return v as number | string | boolean;
  }
}

/**
 * The value as JSON that `json_populate_recordset` reads back to the same datum: int8, numeric and
 * float8 as their text (the inverse of `readSql`). The changes' JSON (`valueToJson`) is not: a
 * numeric's trailing zeros (avg's 0.00000000000000000000) and float8's -0 do not survive a double,
 * and PGlite-kept state matches rows by their text.
 */
export function valueToSqlJson(base: Base, v: Value): JsonValue {
  if (v === null) return null;
  switch (base) {
    case 'int8':
      return (v as bigint).toString();
    case 'numeric':
      return numericText(v as Numeric);
    case 'float8':
      return float8Text(v as number);
    default:
      return valueToJson(base, v);
  }
}

/** Text compared as the database's collation `C` does: by code point (UTF-8 byte order). */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate stands for a code point above U+FFFF: it sorts after every other unit.
    if (x >= 0xd800 && x <= 0xdfff) x += 0x10000;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x10000;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** float8 as PostgreSQL orders it: NaN equals NaN and sorts above everything; -0 equals 0. */
export function compareFloat(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
  if (Number.isNaN(b)) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The comparison of two non-null values of one (non-opaque) type, PostgreSQL's order. */
export function comparatorOf(base: Base): (a: Value, b: Value) => number {
  switch (base) {
    case 'int2':
    case 'int4':
      return (a, b) => (a as number) - (b as number);
    case 'int8':
      return (a, b) => ((a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0);
    case 'numeric':
      return (a, b) => compareNumeric(a as Numeric, b as Numeric);
    case 'float8':
      return (a, b) => compareFloat(a as number, b as number);
    case 'text':
      return (a, b) => compareText(a as string, b as string);
    case 'bool':
      return (a, b) => Number(a) - Number(b);
    case 'opaque':
      return (a, b) => compareText((a as OpaqueValue).text, (b as OpaqueValue).text);
  }
}

/**
 * A key that is equal exactly when two values of the type are equal by SQL's `=` (1.0 = 1.00,
 * -0 = 0, NaN = NaN for float8): join keys and group keys. Null keys are the caller's to handle.
 */
export function equalityKey(base: Base, v: Value): string {
  switch (base) {
    case 'numeric':
      return numericKey(v as Numeric);
    case 'float8':
      return Object.is(v, -0) ? '0' : String(v);
    case 'text':
      return JSON.stringify(v);
    case 'opaque':
      return (v as OpaqueValue).text;
    default:
      return String(v);
  }
}

/**
 * The value in one spelling per SQL-equal value, so that identity (row-hash.ts's sameValue) is SQL's
 * `=`: a numeric at its smallest scale, a number's -0 as 0, an opaque value as its (canonical) text.
 */
export function equalityValue(base: Base, v: Value): Value {
  if (v === null) return null;
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  switch (base) {
    case 'numeric':
      return normalNumeric(v as Numeric);
    case 'opaque':
      return (v as OpaqueValue).text;
    default:
      return v;
  }
}

/**
 * A value as a Map key equal exactly when the values are equal by SQL's `=`: integers, text and
 * booleans are their own keys (a Map compares bigints by value, and -0 as 0, NaN as NaN: float8's
 * equality), the others their equalityKey. One join or group key column needs no text built.
 */
export function equalityMapKey(base: Base, v: Value): string | number | bigint | boolean {
  switch (base) {
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float8':
    case 'text':
    case 'bool':
      return v as number | bigint | string | boolean;
    default:
      return equalityKey(base, v);
  }
}

/** The identity of a value (1.0 and 1.00 differ: they print differently): Z-set rows. */
function identity(v: Value): string {
  switch (typeof v) {
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint':
      return `${v}n`;
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 't' : 'f';
    default:
      if (v === null) return 'N';
      return 'kind' in v ? `#${numericText(v)}` : `\u0001${v.text}`;
  }
}

/** The identity of a row: equal for rows that hold the same values as PostgreSQL prints them. */
export function rowKey(row: readonly Value[]): string {
  let out = '';
  for (let i = 0; i < row.length; i++) out += (i === 0 ? '' : ',') + identity(row[i]!);
  return out;
}
