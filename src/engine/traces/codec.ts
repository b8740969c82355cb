import type { Value } from '../expressions/types.js';
import { finite, NAN, type Numeric } from '../expressions/numeric.js';
import type { JsonValue } from '../../model/json.js';
import { isObject } from '../../model/json.js';
import { parseExact } from '../../model/exact-json.js';
import type { RowMap } from '../zset/row-map.js';

// A native value as a checkpoint's circuit state writes it, and back (state.ts's `circuit` pages).
// Whatever JSON cannot carry exactly is a tagged object, so that a page read back with the
// checkpoint's exact parser gives the same value: a double that is not a safe integer (2.5, NaN,
// -0, 1e300) by its shortest text, a bigint and a numeric by their digits (a numeric with its
// scale: 2.50 is not 2.5), an opaque value by its JSON text and its identity text. A text value
// is a plain string, a boolean and NULL are themselves.

export type Encoded = JsonValue;

export function encodeValue(v: Value): Encoded {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? v : { f: numberText(v) };
  if (typeof v === 'bigint') return { i: v.toString() };
  if ('kind' in v) {
    if (v.kind === 'finite') return { n: v.n.toString(), s: v.scale };
    return { n: v.kind === 'nan' ? 'NaN' : v.sign > 0 ? 'Infinity' : '-Infinity' };
  }
  return { o: JSON.stringify(v.json), t: v.text };
}

const numberText = (v: number): string => (Object.is(v, -0) ? '-0' : String(v));

/** A value encodeValue gave; anything else is a corrupt page (CircuitStateError). */
export function decodeValue(e: unknown): Value {
  if (e === null || typeof e === 'string' || typeof e === 'boolean') return e;
  if (typeof e === 'number' && Number.isSafeInteger(e)) return e;
  if (isObject(e)) {
    if (typeof e['f'] === 'string') return Number(e['f']);
    if (typeof e['i'] === 'string' && /^-?\d+$/.test(e['i'])) return BigInt(e['i']);
    if (typeof e['n'] === 'string') {
      const n = numericOf(e['n'], e['s']);
      if (n) return n;
    }
    if (typeof e['o'] === 'string' && typeof e['t'] === 'string') return { json: parseExact(e['o']), text: e['t'] };
  }
  throw new CircuitStateError(`not a value of circuit state: ${JSON.stringify(e)?.slice(0, 80)}`);
}

function numericOf(n: string, scale: unknown): Numeric | undefined {
  if (n === 'NaN') return NAN;
  if (n === 'Infinity' || n === '-Infinity') return { kind: 'inf', sign: n === 'Infinity' ? 1 : -1 };
  return typeof scale === 'number' && /^-?\d+$/.test(n) ? finite(BigInt(n), scale) : undefined;
}

export const encodeRow = (row: readonly Value[]): Encoded[] => row.map(encodeValue);

export function decodeRow(e: unknown): Value[] {
  if (!Array.isArray(e)) throw new CircuitStateError('a row of circuit state is not an array');
  return e.map(decodeValue);
}

/** An entry of circuit state that cannot be read back: the restore evaluates the views from the tables instead. */
export class CircuitStateError extends Error {
  override readonly name = 'CircuitStateError';
}

/** The entry as an array of `n` members or more, else CircuitStateError. */
export function entryOf(e: unknown, n: number): unknown[] {
  if (!Array.isArray(e) || e.length < n) throw new CircuitStateError('an entry of circuit state has the wrong shape');
  return e as unknown[];
}

/** A count or weight of an entry: a safe integer, else CircuitStateError. */
export function integerOf(e: unknown): number {
  if (typeof e !== 'number' || !Number.isSafeInteger(e))
    throw new CircuitStateError('a count of circuit state is not an integer');
  return e;
}

/** Per-row counts (DISTINCT's, a held view's copies) as entries `[row, count]`. */
export function* countEntries(counts: RowMap<number>): Generator<JsonValue> {
  for (const [row, n] of counts.entries()) yield [encodeRow(row), n];
}

/** Takes back one entry countEntries gave. */
export function loadCount(counts: RowMap<number>, entry: unknown): void {
  const [row, n] = entryOf(entry, 2);
  counts.set(decodeRow(row), integerOf(n));
}
