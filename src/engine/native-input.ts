import { finite, type Numeric, parseNumeric } from './expressions/numeric.js';
import type { SqlType, Value } from './expressions/types.js';
import { temporalReader } from './expressions/temporal-input.js';
import type { ColumnInfo } from './types.js';

// A record's values converted for a native table without PostgreSQL, only where the JSON form is
// unambiguous: the value is then exactly what the staging path's input conversion (COPY's CSV field
// of the same value, src/engine/copy-text.ts) gives. Anything else (a string for a number, a number
// out of range or of a type's wrong kind, NULL in a NOT NULL column, a raw number of many digits, a
// string with NUL or a lone surrogate, a date or time not in its ISO form: temporal-input.ts) is
// left to PostgreSQL's own conversion of that record (native-tables.ts), which gives its value or
// its exact error text.

/** Marks a value the native conversion does not decide. */
export const UNDECIDED = Symbol('undecided');
type Converted = Value | typeof UNDECIDED;
export type ColumnReader = (json: unknown) => Converted;

/** Plain decimal digits, as String() writes a number between 1e-7 and 1e21. */
const PLAIN = /^-?\d+(?:\.\d+)?$/;
const LONE_SURROGATE = /\p{Cs}/u;

function integer(min: number, max: number): ColumnReader {
  return (json) =>
    typeof json === 'number' && Number.isInteger(json) && json >= min && json <= max ? json + 0 : UNDECIDED;
}

const pow10 = (k: number): bigint => 10n ** BigInt(k);

/** A finite numeric rounded to `scale` digits, half away from zero (PostgreSQL's apply_typmod). */
export function roundToScale(x: { n: bigint; scale: number }, scale: number): bigint {
  if (x.scale <= scale) return x.n * pow10(scale - x.scale);
  const d = pow10(x.scale - scale);
  const q = x.n / d;
  const r = x.n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  return twice >= d ? q + (x.n < 0n ? -1n : 1n) : q;
}

/**
 * A number of at most `scale` decimals read without making its text (undefined: not one of those):
 * m = x × 10^scale is then an integer whose quotient by 10^scale gives x back. Below 2^50, doubles
 * are far closer together than 10^-scale, so x's shortest spelling (what PostgreSQL reads) is m's
 * digits at that scale.
 */
function scaledNumber({
  precision,
  scale,
}: {
  precision: number;
  scale: number;
}): (x: number) => Converted | undefined {
  const unit = 10 ** scale;
  const limit = 10 ** precision;
  return (x) => {
    const m = Math.round(x * unit);
    if (m / unit !== x || Math.abs(m) >= 2 ** 50) return undefined;
    return Math.abs(m) < limit ? finite(BigInt(m), scale) : UNDECIDED;
  };
}

function numeric(typmod: { precision: number; scale: number } | undefined, dumped: boolean): ColumnReader {
  const limit = typmod && pow10(typmod.precision);
  const scales = Array.from({ length: (typmod?.scale ?? 0) + 1 }, (_, k) => pow10(k));
  const slow: ColumnReader = (json) => {
    // A number, or (a checkpoint's spelling, `dumped`) PostgreSQL's plain text of one, of at most
    // the digits a numeric(1000) holds (a longer one may be past what PostgreSQL takes).
    const text =
      typeof json === 'number' && Number.isFinite(json)
        ? String(json)
        : dumped && typeof json === 'string' && json.length <= 1002
          ? json
          : '';
    if (!PLAIN.test(text)) return UNDECIDED;
    if (!typmod || !limit) return parseNumeric(text);
    // No more fraction digits than the scale (the common case): the digits scaled up, no rounding.
    const dot = text.indexOf('.');
    const fraction = dot < 0 ? 0 : text.length - dot - 1;
    const n =
      fraction <= typmod.scale
        ? BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1)) * scales[typmod.scale - fraction]!
        : roundToScale(parseNumeric(text) as Numeric & { kind: 'finite' }, typmod.scale);
    // Too many digits: PostgreSQL's "numeric field overflow", with its detail, from its own input.
    if ((n < 0n ? -n : n) >= limit) return UNDECIDED;
    return finite(n, typmod.scale);
  };
  if (!typmod) return slow;
  const fast = scaledNumber(typmod);
  return (json) => (typeof json === 'number' ? (fast(json) ?? slow(json)) : slow(json));
}

const readers: Record<string, ColumnReader> = {
  int2: integer(-32768, 32767),
  int4: integer(-2147483648, 2147483647),
  int8: (json) => (typeof json === 'number' && Number.isSafeInteger(json) ? BigInt(json) : UNDECIDED),
  float8: (json) => (typeof json === 'number' && Number.isFinite(json) ? json + 0 : UNDECIDED),
  text: (json) =>
    typeof json === 'string' && !json.includes('\u0000') && !LONE_SURROGATE.test(json) ? json : UNDECIDED,
  bool: (json) => (typeof json === 'boolean' ? json : UNDECIDED),
};

const INT8_TEXT = /^-?\d{1,19}$/;
const INT8_MAX = 9223372036854775807n;

/**
 * A checkpoint's values (dump.ts writes int8, numeric and float8 as PostgreSQL prints them, in
 * strings): read in JS when the text is the plain form whose value is certain, else undecided.
 */
const dumpedReaders: Record<string, ColumnReader> = {
  int8: (json) => {
    if (typeof json !== 'string' || !INT8_TEXT.test(json)) return readers['int8']!(json);
    const n = BigInt(json);
    return n <= INT8_MAX && n >= -INT8_MAX - 1n ? n : UNDECIDED;
  },
  // The double whose shortest spelling the text is (PostgreSQL's 1e-07 or -0 go to PostgreSQL).
  float8: (json) =>
    typeof json === 'string' && String(Number(json)) === json ? Number(json) : readers['float8']!(json),
};

/**
 * The reader of one column, or undefined when its type is not one the native tables hold; `dumped`:
 * of a checkpoint's page, whose numbers are strings.
 */
export function columnReader(column: ColumnInfo, type: SqlType, dumped = false): ColumnReader | undefined {
  const typmod = /^numeric\((\d+),(\d+)\)$/.exec(type.name);
  const read =
    type.base === 'numeric'
      ? numeric(typmod ? { precision: Number(typmod[1]), scale: Number(typmod[2]) } : undefined, dumped)
      : type.base === 'opaque'
        ? temporalReader(type.name, UNDECIDED)
        : ((dumped ? dumpedReaders[type.base] : undefined) ?? readers[type.base]);
  if (!read) return undefined;
  return (json) => (json === null || json === undefined ? (column.nullable ? null : UNDECIDED) : read(json));
}

/**
 * The reader of a table's records (recordReader of its columns' readers), or undefined when a
 * column's type is not one the native tables hold.
 */
export function tableReader(
  columns: readonly ColumnInfo[],
  types: readonly SqlType[],
  dumped = false,
): RecordReader | undefined {
  const readers = columns.map((c, i) => columnReader(c, types[i]!, dumped));
  return readers.every((r) => r !== undefined) ? recordReader(columns, readers as ColumnReader[]) : undefined;
}

/** A record's row, or undefined when one of its values needs PostgreSQL's conversion. */
export type RecordReader = (record: Readonly<Record<string, unknown>>) => Value[] | undefined;

/**
 * The reader of a table's records: one function generated for the table, which reads each column
 * by its name as a constant (a named load V8 caches per record shape), where a loop over the names
 * made every load a keyed one that met every column's name. Own members only, as the staging path
 * reads them: a column named like an Object method is NULL. Only JSON.stringify'd names enter the
 * generated text (`r["__proto__"]` reads a record's own member of that name, as JSON.parse makes one).
 */
export function recordReader(columns: readonly ColumnInfo[], readers: readonly ColumnReader[]): RecordReader {
  const names = columns.map((c) => JSON.stringify(c.name));
  const reads = names.map(
    (k, i) => `const v${i} = readers[${i}](hasOwn(r, ${k}) ? r[${k}] : undefined); if (v${i} === U) return undefined;`,
  );
  const row = `[${names.map((_, i) => `v${i}`).join(', ')}]`;
  const make = new Function(
    'readers',
    'hasOwn',
    'U',
    `'use strict'; return (r) => { ${reads.join(' ')} return ${row}; };`,
  ) as (
    readers: readonly ColumnReader[],
    hasOwn: (o: object, k: string) => boolean,
    undecided: typeof UNDECIDED,
  ) => RecordReader;
  return make(readers, Object.hasOwn, UNDECIDED);
}
