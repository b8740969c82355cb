import { divisionByZero, SqlError } from './sql-error.js';

// PostgreSQL's numeric, exactly: a finite value is an integer of digits and a display scale (1.50 is
// 150 at scale 2, and stays 1.50: the scale is part of the value as PostgreSQL prints it), or NaN,
// or ±Infinity. Sums and products are exact with PostgreSQL's result scales; division rounds at the
// scale PostgreSQL's select_div_scale picks, half away from zero, as div_var does.

export type Numeric =
  | { readonly kind: 'finite'; readonly n: bigint; readonly scale: number }
  | { readonly kind: 'nan' }
  | { readonly kind: 'inf'; readonly sign: 1 | -1 };

export const NAN: Numeric = { kind: 'nan' };
export const finite = (n: bigint, scale: number): Numeric => ({ kind: 'finite', n, scale });
export const ZERO = finite(0n, 0);

const pow10 = (k: number): bigint => 10n ** BigInt(k);
const abs = (x: bigint): bigint => (x < 0n ? -x : x);

export const isNumeric = (v: unknown): v is Numeric =>
  typeof v === 'object' && v !== null && 'kind' in v && typeof (v as { kind: unknown }).kind === 'string';

/** Numeric text as PostgreSQL prints it (no exponent), or NaN / Infinity / -Infinity. */
export function parseNumeric(text: string): Numeric {
  if (text === 'NaN') return NAN;
  if (text === 'Infinity') return { kind: 'inf', sign: 1 };
  if (text === '-Infinity') return { kind: 'inf', sign: -1 };
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new SqlError('22P02', `invalid input syntax for type numeric: "${text}"`);
  const fraction = m[3] ?? '';
  const n = BigInt(`${m[2]}${fraction}`);
  return finite(m[1] ? -n : n, fraction.length);
}

export function numericText(x: Numeric): string {
  if (x.kind === 'nan') return 'NaN';
  if (x.kind === 'inf') return x.sign > 0 ? 'Infinity' : '-Infinity';
  const digits = abs(x.n)
    .toString()
    .padStart(x.scale + 1, '0');
  const sign = x.n < 0n ? '-' : '';
  if (x.scale === 0) return sign + digits;
  return `${sign}${digits.slice(0, digits.length - x.scale)}.${digits.slice(digits.length - x.scale)}`;
}

/** The value at a larger scale (same value, more digits). */
const at = (x: { n: bigint; scale: number }, scale: number): bigint => x.n * pow10(scale - x.scale);

/** Orders of the kinds: -Infinity < finite < Infinity < NaN. */
const rank = (x: Numeric): number => (x.kind === 'nan' ? 2 : x.kind === 'inf' ? x.sign : 0);
/** 10^k for the scales a comparison meets most (a double holds them exactly). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
const EXACT = 2 ** 53;

/** -1, 0, 1 as PostgreSQL orders numerics: -Infinity < finite < Infinity < NaN; NaN equals NaN. */
export function compareNumeric(a: Numeric, b: Numeric): number {
  if (a.kind !== 'finite' || b.kind !== 'finite') return Math.sign(rank(a) - rank(b));
  if (a.scale === b.scale) return a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
  const s = Math.max(a.scale, b.scale);
  // Both at the larger scale as doubles when they are integers a double holds exactly (no bigint made).
  const x = Number(a.n) * (POW10[s - a.scale] ?? Infinity);
  const y = Number(b.n) * (POW10[s - b.scale] ?? Infinity);
  if (Math.abs(x) < EXACT && Math.abs(y) < EXACT) return x < y ? -1 : x > y ? 1 : 0;
  const d = at(a, s) - at(b, s);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export function addNumeric(a: Numeric, b: Numeric): Numeric {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN;
  if (a.kind === 'inf') return b.kind === 'inf' && b.sign !== a.sign ? NAN : a;
  if (b.kind === 'inf') return b;
  const s = Math.max(a.scale, b.scale);
  return finite(at(a, s) + at(b, s), s);
}

export const negNumeric = (a: Numeric): Numeric =>
  a.kind === 'finite' ? finite(-a.n, a.scale) : a.kind === 'inf' ? { kind: 'inf', sign: a.sign > 0 ? -1 : 1 } : a;

export const subNumeric = (a: Numeric, b: Numeric): Numeric => addNumeric(a, negNumeric(b));

const signOf = (x: Numeric): number =>
  x.kind === 'finite' ? Number(x.n > 0n) - Number(x.n < 0n) : x.kind === 'inf' ? x.sign : 0;

export function mulNumeric(a: Numeric, b: Numeric): Numeric {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN;
  if (a.kind === 'inf' || b.kind === 'inf') {
    const s = signOf(a) * signOf(b);
    return s === 0 ? NAN : { kind: 'inf', sign: s > 0 ? 1 : -1 };
  }
  return finite(a.n * b.n, a.scale + b.scale);
}

/** Weight (in base-10000 digits, as PostgreSQL stores numerics) and first base-10000 digit. */
function weightAndFirst(x: { n: bigint; scale: number }): [number, bigint] {
  const n = abs(x.n);
  if (n === 0n) return [0, 0n];
  const exponent = n.toString().length - 1 - x.scale;
  const weight = Math.floor(exponent / 4);
  const shift = x.scale + 4 * weight;
  return [weight, shift >= 0 ? n / pow10(shift) : n * pow10(-shift)];
}

/** PostgreSQL's select_div_scale: at least 16 significant digits, and no less than either scale. */
function divScale(a: { n: bigint; scale: number }, b: { n: bigint; scale: number }): number {
  const [w1, f1] = weightAndFirst(a);
  const [w2, f2] = weightAndFirst(b);
  let qweight = w1 - w2;
  if (f1 <= f2) qweight -= 1;
  return Math.min(Math.max(16 - qweight * 4, a.scale, b.scale, 0), 1000);
}

/** a / b exactly, rounded half away from zero at `scale`. */
function roundedQuotient(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r = num - q * den;
  if (2n * abs(r) < abs(den)) return q;
  return num < 0n !== den < 0n ? q - 1n : q + 1n;
}

export function divNumeric(a: Numeric, b: Numeric): Numeric {
  if (a.kind === 'nan' || b.kind === 'nan') return NAN;
  if (a.kind === 'inf') {
    if (b.kind === 'inf') return NAN;
    if (b.n === 0n) throw divisionByZero();
    return { kind: 'inf', sign: a.sign * signOf(b) > 0 ? 1 : -1 };
  }
  if (b.kind === 'inf') return ZERO;
  if (b.n === 0n) throw divisionByZero();
  const scale = divScale(a, b);
  // a.n·10^-a.s / (b.n·10^-b.s) · 10^scale = a.n·10^(scale + b.s − a.s) / b.n
  const e = scale + b.scale - a.scale;
  const q = e >= 0 ? roundedQuotient(a.n * pow10(e), b.n) : roundedQuotient(a.n, b.n * pow10(-e));
  return finite(q, scale);
}

/** numeric → double as PostgreSQL casts it (through its text: correctly rounded). */
export const numericToFloat = (x: Numeric): number =>
  x.kind === 'nan' ? NaN : x.kind === 'inf' ? x.sign * Infinity : Number(numericText(x));

/** The value rounded half away from zero to an integer (numeric → int casts), or undefined for NaN/Inf. */
export function roundToInteger(x: Numeric): bigint | undefined {
  if (x.kind !== 'finite') return undefined;
  return x.scale === 0 ? x.n : roundedQuotient(x.n, pow10(x.scale));
}

/** The same value at the smallest scale that holds it (1.50 → 1.5): one spelling per value. */
export function normalNumeric(x: Numeric): Numeric {
  if (x.kind !== 'finite') return x;
  let { n, scale } = x;
  while (scale > 0 && n % 10n === 0n) {
    n /= 10n;
    scale -= 1;
  }
  return scale === x.scale ? x : finite(n, scale);
}

/** A key for equality (1.0 and 1.00 are equal numerics): trailing zeros dropped. */
export const numericKey = (x: Numeric): string => numericText(normalNumeric(x));
