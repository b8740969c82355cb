import { finite, type Numeric } from './numeric.js';
import { FLOAT8, NUMERIC, type SqlType, type Value } from './types.js';

// round, trunc, floor and ceil(ing) as PostgreSQL computes them (rounding.property.test.ts compares
// them with PostgreSQL): of a numeric exactly, round half away from zero, to a number of decimals
// that may be negative (clamped to ±16383) and becomes the result's scale
// (round(1.5, 3) is 1.500); of a double precision as C's rint (half to even), floor, ceil and trunc,
// -0 kept. NaN and ±Infinity come out as they went in. An integer argument reaches them cast to
// double precision or numeric, as PostgreSQL's function resolution wrote it in the view's text.

/** NUMERIC_DSCALE_MAX: round(x, 20000) is x at 16383 decimals. */
const MAX_SCALE = 16383;
const pow10 = (k: number): bigint => 10n ** BigInt(k);

/** x at `scale` decimals (negative: to tens, hundreds…), rounded half away from zero or truncated. */
export function roundNumeric(x: Numeric, scale: number, truncate: boolean): Numeric {
  if (x.kind !== 'finite') return x;
  const s = Math.min(Math.max(scale, -MAX_SCALE), MAX_SCALE);
  if (s >= x.scale) return finite(x.n * pow10(s - x.scale), s);
  const d = pow10(x.scale - s);
  let q = x.n / d;
  const r = x.n % d;
  if (!truncate && (r < 0n ? -r : r) * 2n >= d) q += x.n < 0n ? -1n : 1n;
  return s >= 0 ? finite(q, s) : finite(q * pow10(-s), 0);
}

/** floor or ceil of a numeric: an integer, scale 0. */
function floorCeilNumeric(x: Numeric, up: boolean): Numeric {
  if (x.kind !== 'finite') return x;
  const d = pow10(x.scale);
  let q = x.n / d;
  const r = x.n % d;
  if (r !== 0n && r > 0n === up) q += up ? 1n : -1n;
  return finite(q, 0);
}

/** C's rint: to the nearest integer, halves to the even one, the sign of a zero kept. */
export function rint(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const f = Math.floor(x);
  const diff = x - f;
  const r = diff < 0.5 ? f : diff > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}

type Rounding = { type: SqlType; f: (args: readonly Value[]) => Value };

/** round/trunc/floor/ceil/ceiling of a numeric (`digits`: round's and trunc's second argument). */
function numericRounding(name: string, digits: SqlType | undefined): Rounding | undefined {
  if ((name === 'round' || name === 'trunc') && (!digits || digits.base === 'int4')) {
    const truncate = name === 'trunc';
    return { type: NUMERIC, f: ([v, s]) => roundNumeric(v as Numeric, (s as number | undefined) ?? 0, truncate) };
  }
  if ((name === 'floor' || name === 'ceil' || name === 'ceiling') && !digits)
    return { type: NUMERIC, f: ([v]) => floorCeilNumeric(v as Numeric, name !== 'floor') };
  return undefined;
}

const DOUBLES: Record<string, (x: number) => number> = {
  round: rint,
  trunc: Math.trunc,
  floor: Math.floor,
  ceil: Math.ceil,
  ceiling: Math.ceil,
};

/** round/trunc/floor/ceil/ceiling of `types`, or undefined for a call that is not one of these. */
export function roundingFunction(name: string, types: readonly SqlType[]): Rounding | undefined {
  const [x, digits] = types;
  if (!x || types.length > 2) return undefined;
  if (x.base === 'numeric') return numericRounding(name, digits);
  // Own names only: a function of the program's named `constructor` is not Object's.
  const f = x.base === 'float8' && !digits && Object.hasOwn(DOUBLES, name) ? DOUBLES[name] : undefined;
  return f && { type: FLOAT8, f: ([v]) => f(v as number) };
}
