import { z } from 'zod';

// Duration and size strings ("60s", "1h30m", "500ms"; "16Gi", "4G", "4096") as the ecosystem's newer
// clients send them in place of the seed's integer members (`checkpoint_interval` for
// `checkpoint_interval_secs`, `max_rss` for `max_rss_mb`, …). The grammar is the runtime's, as its
// Python SDK implements it: terms of a number and a unit (durations: summed), one optional leading
// `+`, a fraction rounded to the nearest nanosecond or byte. Counted in BigInt: a u64 of seconds in
// nanoseconds does not fit a double.

const NANOS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n,
  '\u03bcs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60n * 1_000_000_000n,
  h: 3_600n * 1_000_000_000n,
  d: 86_400n * 1_000_000_000n,
};
export const NANOS = { us: 1_000n, s: 1_000_000_000n } as const;

const BYTES_PER_UNIT: Record<string, bigint> = {
  '': 1n,
  k: 1_000n,
  K: 1_000n,
  M: 1_000_000n,
  G: 1_000_000_000n,
  T: 1_000_000_000_000n,
  P: 1_000_000_000_000_000n,
  E: 1_000_000_000_000_000_000n,
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
export const BYTES = { byte: 1n, MB: 1_000_000n } as const;

const U64_MAX = (1n << 64n) - 1n;
const MAX_DURATION_NANOS = U64_MAX * 1_000_000_000n + 999_999_999n;
const MAX_FRACTION_DIGITS = 18;
const DURATION_TERM = /([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/y;
const SIZE = /^([0-9]*)(?:\.([0-9]*))?(.*)$/s;

export class UnitError extends Error {}

/** whole + .fraction of `unit`, the fraction rounded to the nearest base unit. */
function scaled(whole: string, fraction: string | undefined, unit: bigint): bigint {
  let total = BigInt(whole || '0') * unit;
  if (fraction) {
    const digits = fraction.slice(0, MAX_FRACTION_DIGITS);
    const denominator = 10n ** BigInt(digits.length);
    total += (unit * BigInt(digits) + denominator / 2n) / denominator;
  }
  return total;
}

function unsigned(text: string, what: string): string {
  if (text.startsWith('-')) throw new UnitError(`${what} '${text}' cannot be negative`);
  const rest = text.startsWith('+') ? text.slice(1) : text;
  if (rest === '') throw new UnitError(`${what} is empty`);
  return rest;
}

export function parseDurationNanos(text: string): bigint {
  const rest = unsigned(text, 'duration');
  if (rest === '0') return 0n;
  let total = 0n;
  DURATION_TERM.lastIndex = 0;
  while (DURATION_TERM.lastIndex < rest.length) {
    const at = DURATION_TERM.lastIndex;
    const match = DURATION_TERM.exec(rest);
    if (!match) throw new UnitError(`'${rest.slice(at)}' in duration '${text}' has no unit`);
    const [, whole = '', fraction, unit = ''] = match;
    const nanos = NANOS_PER_UNIT[unit];
    if (nanos === undefined) {
      throw new UnitError(`unknown unit '${unit}' in duration '${text}'; expected one of ns, us, ms, s, m, h, d`);
    }
    if (!whole && !fraction) throw new UnitError(`'${unit}' in duration '${text}' has no number in front of it`);
    total += scaled(whole, fraction, nanos);
  }
  if (total > MAX_DURATION_NANOS) throw new UnitError(`duration '${text}' is too large`);
  return total;
}

/** `requireUnit`: a bare number is refused where the old integer counted megabytes, not bytes. */
export function parseSizeBytes(text: string, requireUnit = false): bigint {
  const rest = unsigned(text, 'size');
  const [, whole = '', fraction, unit = ''] = SIZE.exec(rest) ?? [];
  const base = BYTES_PER_UNIT[unit.endsWith('B') ? unit.slice(0, -1) : unit];
  if (base === undefined) {
    throw new UnitError(
      `unknown unit '${unit}' in size '${text}'; expected k, M, G, T, P, E or Ki … Ei, optionally + B`,
    );
  }
  if (!whole && !fraction) {
    throw new UnitError(
      unit ? `'${unit}' in size '${text}' has no number in front of it` : `size '${text}' has no digits`,
    );
  }
  if (requireUnit && unit === '') throw new UnitError(`size '${text}' has no unit; write a size such as '${text}M'`);
  const total = scaled(whole, fraction, base);
  if (total > U64_MAX) throw new UnitError(`size '${text}' is too large`);
  return total;
}

/** Rounds up, so that a short timeout or a small size never becomes 0 in the coarser unit. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** A count the seed's integer members can hold (JSON numbers: exact up to 2^53). */
function toCount(value: bigint, ctx: z.RefinementCtx, text: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    ctx.addIssue({ code: 'custom', message: `'${text}' is too large` });
    return z.NEVER;
  }
  return Number(value);
}

function convert<T extends z.ZodType<number, number>>(parse: (text: string) => bigint, per: bigint, seed: T) {
  const text = z.union([z.string(), z.number()]).transform((value, ctx): number => {
    // A bare number counts the seed member's own unit, as the established service reads it.
    if (typeof value === 'number') return value;
    try {
      return toCount(ceilDiv(parse(value), per), ctx, value);
    } catch (error) {
      if (!(error instanceof UnitError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });
  // The seed member's own range applies to the converted value.
  return text.pipe(seed);
}

/** A duration string (or a number of `per`), as a whole number of `per` (rounded up) in `seed`'s range. */
export const durationIn = <T extends z.ZodType<number, number>>(per: bigint, seed: T) =>
  convert(parseDurationNanos, per, seed);

/** A size string (or a number of `per` bytes), as a whole number of `per` (rounded up) in `seed`'s range. */
export const sizeIn = <T extends z.ZodType<number, number>>(per: bigint, seed: T) =>
  convert((text) => parseSizeBytes(text, per !== 1n), per, seed);
