import type { OpaqueValue, SqlType, Value } from './types.js';

/** timestamp without time zone, as format_type() spells it (date_trunc's result). */
export const TIMESTAMP: SqlType = { base: 'opaque', name: 'timestamp without time zone' };
/** timestamp with time zone, as format_type() spells it. */
export const TIMESTAMPTZ: SqlType = { base: 'opaque', name: 'timestamp with time zone' };
/** date, as format_type() spells it. */
export const DATE: SqlType = { base: 'opaque', name: 'date' };

/** A date or time as to_json prints it, as the native path holds it (types.ts): its text and that text's JSON. */
export const temporalValue = (json: string): OpaqueValue => ({ json, text: JSON.stringify(json) });

/** A date's or timestamp's text without its ` BC`, and the ` BC` ('' for AD). */
export const splitEra = (text: string): [string, string] =>
  text.endsWith(' BC') ? [text.slice(0, -3), ' BC'] : [text, ''];

// The order of date, timestamp, timestamptz and time values, for MIN/MAX. They reach the native
// path only as PostgreSQL's to_json prints them (types.ts: opaque, their text canonical), so their
// order is read from that text: ISO 8601 with the session's offset for timestamptz, a year of four
// digits or more, ` BC` after a date of the era before year 1 (there is no year 0: 1 BC comes just
// before 1 AD), and `infinity` / `-infinity` beyond every other value. The text's own order is not
// theirs: 44 BC sorts after 43 BC, and 12345-01-01 before 2024-01-01.

export const DATE_TIME =
  /^(\d{4,})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d)(?::(\d\d))?)?)?)?( BC)?$/;
const TIME = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/;
const DAY_MICROS = 86_400_000_000;

/** A value's place: beyond every other (±1), or its day and the microseconds into it (UTC for timestamptz). */
interface Instant {
  infinite: number;
  day: number;
  micros: number;
}

/** Days from 1970-01-01 of a proleptic Gregorian date, the year astronomical (1 BC is 0). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return (
    era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468
  );
}

/** Days in a month of a proleptic Gregorian year (astronomical: 1 BC is 0, a leap year). */
export const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/** The proleptic Gregorian date `days` from 1970-01-01 (daysFromCivil's inverse), the year astronomical. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * mp + 2) / 5) + 1,
  };
}

/** A number with leading zeros to `width` digits. */
export const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A day from 1970-01-01 as to_json prints a date: the year of four digits or more, ` BC` before year 1. */
export function dateText(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${pad(year > 0 ? year : 1 - year, 4)}-${pad(month)}-${pad(day)}${year > 0 ? '' : ' BC'}`;
}

const micros = (h: string, m: string, s: string, fraction: string | undefined): number =>
  ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1_000_000 + Number((fraction ?? '').padEnd(6, '0'));

function instantOf(text: string): Instant {
  if (text === 'infinity') return { infinite: 1, day: 0, micros: 0 };
  if (text === '-infinity') return { infinite: -1, day: 0, micros: 0 };
  const time = TIME.exec(text);
  if (time) return { infinite: 0, day: 0, micros: micros(time[1]!, time[2]!, time[3]!, time[4]) };
  const m = DATE_TIME.exec(text);
  if (!m) throw new Error(`a date or time the native path cannot order: ${JSON.stringify(text)}`);
  const [, year, month, day, h = '0', mi = '0', s = '0', fraction, sign, oh = '0', om = '0', os = '0', bc] = m;
  const astronomical = bc ? 1 - Number(year) : Number(year);
  let at = micros(h, mi, s, fraction);
  // The text is local time at the offset: UTC is that much earlier (+05:00) or later (-08:00).
  if (sign) at -= (sign === '+' ? 1 : -1) * micros(oh, om, os, undefined);
  const carry = Math.floor(at / DAY_MICROS);
  return {
    infinite: 0,
    day: daysFromCivil(astronomical, Number(month), Number(day)) + carry,
    micros: at - carry * DAY_MICROS,
  };
}

function compareInstants(a: Instant, b: Instant): number {
  return a.infinite - b.infinite || a.day - b.day || a.micros - b.micros;
}

/** The types whose values this orders, as format_type() spells them. */
const ORDERED = /^(date|timestamp(\(\d\))? with(out)? time zone|time(\(\d\))? without time zone)$/;

/** The order of a date/time type's values, or undefined for a type this does not order. */
export function temporalComparator(type: SqlType): ((a: Value, b: Value) => number) | undefined {
  if (type.base !== 'opaque' || !ORDERED.test(type.name)) return undefined;
  return (a, b) => {
    const [x, y] = [textOf(a), textOf(b)];
    if (plain(x) && plain(y)) return x < y ? -1 : x > y ? 1 : 0;
    return compareInstants(instantOf(x), instantOf(y));
  };
}

/**
 * Whether a date's or a timestamp's text sorts as its value does: a year of four digits, AD, not
 * infinite. Two such texts of one type differ first where their values do: fields of fixed width,
 * a fraction's digits without trailing zeros (`.5` > `.25`, none before any), and a timestamptz's
 * offset after them when it is UTC's, the session's (`+` sorts before a fraction's `.`, as no
 * fraction is less). Another offset (a test's, a session in another zone) goes by the instant.
 */
const plain = (text: string): boolean =>
  text.charCodeAt(4) === 45 &&
  !text.endsWith(' BC') &&
  (Math.max(text.lastIndexOf('+'), text.lastIndexOf('-')) < 10 || text.endsWith('+00:00'));

export const textOf = (v: Value): string => (v as OpaqueValue).json as string;

/**
 * `f`, remembering its last result by `keyOf` of the text (what the result depends on): a
 * stream's rows come mostly in the order of their time, so a step's rows share few keys. The key
 * carries the value's era and whether it has a zone. ±infinity stays as it is.
 */
function rememberingLast(keyOf: (text: string) => string, f: (text: string) => Value): (v: Value) => Value {
  let last: { key: string; value: Value } | undefined;
  return (v) => {
    const text = textOf(v);
    if (text === 'infinity' || text === '-infinity') return v;
    const key = `${keyOf(text)}${text.endsWith(' BC') ? ' BC' : ''}${text.includes('+') ? 'Z' : ''}`;
    if (last?.key !== key) last = { key, value: f(text) };
    return last.value;
  };
}

/** date_trunc('week', ·) of a timestamp's text: the Monday that starts its ISO week, at midnight (its zone kept). */
function truncWeek(text: string): Value {
  const m = DATE_TIME.exec(text);
  if (!m || m[4] === undefined) throw new Error(`not a timestamp: ${JSON.stringify(text)}`);
  const days = daysFromCivil(m[12] ? 1 - Number(m[1]) : Number(m[1]), Number(m[2]), Number(m[3]));
  const [day, era] = splitEra(dateText(days - ((((days + 3) % 7) + 7) % 7)));
  return temporalValue(`${day}T00:00:00${m[8] ? '+00:00' : ''}${era}`);
}

/** A timestamp's text up to its `T` and `n` characters more (its date and time up to a unit). */
const upTo = (n: number) => (text: string) => text.slice(0, text.indexOf('T') + n);

/**
 * The fields each unit of date_trunc keeps, as PostgreSQL's timestamp_trunc clears the ones after
 * it: month and day become 1, the time 0, the fraction 0 (or whole milliseconds). The year is kept
 * as written, so a BC year needs nothing of its own. Other units (week, decade, century,
 * millennium), and a unit spelled otherwise, are PostgreSQL's to evaluate.
 */
const TRUNC_UNITS = ['year', 'quarter', 'month', 'day', 'hour', 'minute', 'second', 'milliseconds', 'microseconds'];

/** The fraction of a second date_trunc keeps at unit index `at`, as to_json prints it (no trailing zeros). */
function keptFraction(fraction: string, at: number): string {
  const digits = at === TRUNC_UNITS.length - 1 ? fraction : at === TRUNC_UNITS.length - 2 ? fraction.slice(0, 3) : '';
  const trimmed = digits.replace(/0+$/, '');
  return trimmed ? `.${trimmed}` : '';
}

/** date_trunc(unit, ·) of a timestamp's or a timestamptz's to_json text, giving to_json's text of the result; undefined for a unit not here. */
export function truncTimestamp(unit: string): ((v: Value) => Value) | undefined {
  if (unit.toLowerCase() === 'week') return rememberingLast(upTo(0), truncWeek);
  const at = TRUNC_UNITS.indexOf(unit.toLowerCase());
  if (at < 0) return undefined;
  /** A field stays when the unit is it or finer. */
  const keep = (field: string, value: string, cleared: string) => (TRUNC_UNITS.indexOf(field) <= at ? value : cleared);
  // What the result depends on: the text up to the unit's field (after the `T`: none for the
  // date's units, 3 for the hour, 6 the minute, 9 the second; all of it for finer units).
  return rememberingLast(upTo(at <= 3 ? 0 : at === 4 ? 3 : at === 5 ? 6 : at === 6 ? 9 : Infinity), truncated);

  function truncated(text: string): Value {
    const m = DATE_TIME.exec(text);
    // A timestamptz is at the session's zone, UTC (+00:00): truncated there, as PostgreSQL does.
    if (
      !m ||
      m[4] === undefined ||
      (m[8] !== undefined && (`${m[8]}${m[9]}:${m[10]}` !== '+00:00' || m[11] !== undefined))
    )
      throw new Error(`not a timestamp at UTC: ${JSON.stringify(text)}`);
    const [, year, month, day, h, mi, s, fraction = '', zoned, , , , bc = ''] = m;
    const zone = zoned ? '+00:00' : '';
    const quarter = String(3 * Math.floor((Number(month) - 1) / 3) + 1).padStart(2, '0');
    const mm = at === 0 ? '01' : at === 1 ? quarter : month!;
    const time = `${keep('hour', h!, '00')}:${keep('minute', mi!, '00')}:${keep('second', s!, '00')}`;
    return temporalValue(`${year}-${mm}-${keep('day', day!, '01')}T${time}${keptFraction(fraction, at)}${zone}${bc}`);
  }
}
