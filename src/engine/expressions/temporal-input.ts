import { civilFromDays, daysFromCivil, daysIn, pad, temporalValue } from './temporal.js';
import type { OpaqueValue } from './types.js';

// A date, time, timestamp or timestamptz of a record converted for a native table without
// PostgreSQL (native-input.ts), where its text leaves no doubt: a time `HH:MM:SS[.ffffff]`, the ISO
// date `YYYY-MM-DD`, that date with ` HH:MM:SS[.ffffff]` or `THH:MM:SS[.ffffff]` for a timestamp,
// and for a timestamptz an offset `Z`, `±HH` or `±HH:MM` or none (the session's zone, UTC: the
// engine never sets another). The value is what PostgreSQL's to_json prints (the native path's
// spelling of these types, types.ts): the date or time as it came but for a fraction's trailing
// zeros, a timestamp with a `T`, a timestamptz at UTC with `+00:00`. Anything else (another
// spelling PostgreSQL may take, a field out of range, `24:00:00`, a leap second, more fraction
// digits than the type keeps, a year outside 1–9999, BC, `infinity`) is left to PostgreSQL's
// conversion: its value or its exact error.

const DATE = /^(\d{4})-(\d\d)-(\d\d)$/;
const TIME = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/;
const STAMP = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/;
const STAMP_TZ = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([zZ])|([+-])(\d\d)(?::(\d\d))?)?$/;
const DAY_SECONDS = 86_400;

/** Whether the fields name a day of years 1–9999 and a time of day without a leap second. */
function valid(year: number, month: number, day: number, h = 0, mi = 0, s = 0): boolean {
  return (
    year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && h <= 23 && mi <= 59 && s <= 59
  );
}

/** `.ffffff` without its trailing zeros ('' for none), or undefined past `precision` digits. */
function fractionText(fraction: string | undefined, precision: number): string | undefined {
  const digits = (fraction ?? '').replace(/0+$/, '');
  if (digits.length > precision) return undefined;
  return digits === '' ? '' : `.${digits}`;
}

function readDate<U>(json: unknown, undecided: U): OpaqueValue | U {
  const m = typeof json === 'string' ? DATE.exec(json) : null;
  if (!m || !valid(Number(m[1]), Number(m[2]), Number(m[3]))) return undecided;
  return temporalValue(json as string);
}

function readTime<U>(precision: number, json: unknown, undecided: U): OpaqueValue | U {
  const m = typeof json === 'string' ? TIME.exec(json) : null;
  if (!m) return undecided;
  const [, h, mi, s, fraction] = m as unknown as string[];
  const frac = fractionText(fraction, precision);
  if (frac === undefined || !valid(1, 1, 1, Number(h), Number(mi), Number(s))) return undecided;
  return temporalValue(`${h}:${mi}:${s}${frac}`);
}

function readTimestamp<U>(precision: number, json: unknown, undecided: U): OpaqueValue | U {
  const m = typeof json === 'string' ? STAMP.exec(json) : null;
  if (!m) return undecided;
  const [, y, mo, d, h, mi, s, fraction] = m as unknown as string[];
  const frac = fractionText(fraction, precision);
  if (frac === undefined || !valid(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)))
    return undecided;
  return temporalValue(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac}`);
}

function readTimestampTz<U>(precision: number, json: unknown, undecided: U): OpaqueValue | U {
  const m = typeof json === 'string' ? STAMP_TZ.exec(json) : null;
  if (!m) return undecided;
  const [, y, mo, d, h, mi, s, fraction, , sign, oh = '0', om = '0'] = m as unknown as string[];
  const frac = fractionText(fraction, precision);
  if (frac === undefined || !valid(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)))
    return undecided;
  if (Number(oh) > 15 || Number(om) > 59) return undecided;
  // The local time at the offset, in whole seconds (the fraction rides along): UTC is that much earlier.
  const offset = sign ? (sign === '+' ? 1 : -1) * (Number(oh) * 3600 + Number(om) * 60) : 0;
  const seconds = Number(h) * 3600 + Number(mi) * 60 + Number(s) - offset;
  const carry = Math.floor(seconds / DAY_SECONDS);
  const inDay = seconds - carry * DAY_SECONDS;
  const date = civilFromDays(daysFromCivil(Number(y), Number(mo), Number(d)) + carry);
  if (date.year < 1 || date.year > 9999) return undecided;
  const time = `${pad(Math.floor(inDay / 3600))}:${pad(Math.floor(inDay / 60) % 60)}:${pad(inDay % 60)}`;
  return temporalValue(`${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}T${time}${frac}+00:00`);
}

/**
 * The reader of a date, timestamp or timestamptz column (as format_type() spells its type), or
 * undefined for another type.
 */
export function temporalReader<U>(
  typeName: string,
  /** What a value this does not decide reads as (native-input.ts's UNDECIDED). */
  undecided: U,
): ((json: unknown) => OpaqueValue | U) | undefined {
  if (typeName === 'date') return (json) => readDate(json, undecided);
  const time = /^time(?:\((\d)\))? without time zone$/.exec(typeName);
  if (time) return (json) => readTime(time[1] === undefined ? 6 : Number(time[1]), json, undecided);
  const stamp = /^timestamp(?:\((\d)\))? with(out)? time zone$/.exec(typeName);
  if (!stamp) return undefined;
  const precision = stamp[1] === undefined ? 6 : Number(stamp[1]);
  return stamp[2]
    ? (json) => readTimestamp(precision, json, undecided)
    : (json) => readTimestampTz(precision, json, undecided);
}

/**
 * A date or time literal of a view's text (PostgreSQL prints its constants there in its own output
 * form: `'2024-01-01 10:00:00+00'`, `'0044-03-15 BC'`, `'infinity'`) as to_json prints the value,
 * or undefined for a type or a spelling this does not read.
 */
export function temporalLiteral(text: string, typeName: string): OpaqueValue | undefined {
  const read = temporalReader(typeName, undefined);
  if (!read) return undefined;
  // ±infinity of a date or timestamp; a time's midnight at the end of the day, as printed.
  if (text === 'infinity' || text === '-infinity' || (text === '24:00:00' && /^time(\(\d\))? without/.test(typeName)))
    return temporalValue(text);
  if (!text.endsWith(' BC')) return read(text);
  // A BC value at no offset (as printed at UTC): its fields read as they are, the era kept.
  const ad = text.slice(0, -' BC'.length);
  if (typeName.includes('with time zone') && !ad.endsWith('+00')) return undefined;
  const value = read(ad);
  return value && temporalValue(`${value.json as string} BC`);
}
