import { SqlError } from './sql-error.js';
import { DATE_TIME, dateText, daysFromCivil, daysIn, pad, splitEra, temporalValue, textOf } from './temporal.js';
import { type Family as TemporalFamily, temporalFamily } from './temporal-casts.js';
import type { SqlType, Value } from './types.js';

// A date or a timestamp plus or minus an interval, and a date plus or minus days, as PostgreSQL
// computes them on to_json's text (interval.property.test.ts compares them with PostgreSQL): the
// interval's months first (the day of the month kept, or the month's last day when it has fewer),
// then its days, then its time, each of them signed; a timestamptz at UTC, the session's zone,
// where a day is 24 hours. An interval is a constant here, as PostgreSQL prints it in a view's
// text (IntervalStyle postgres: `1 year 2 mons -3 days +04:05:06.5`); a column of intervals stays
// PostgreSQL's. ±infinity stays as it is; a result outside the type's range fails as PostgreSQL's.

export interface Interval {
  months: number;
  days: number;
  micros: number;
}

const PART = /^([+-]?\d+) (year|mon|day)s?$/;
const CLOCK = /^([+-]?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?$/;
const DAY_MICROS = 86_400_000_000;

/** An interval as PostgreSQL prints it, or undefined for a text this does not read. */
export function parseInterval(text: string): Interval | undefined {
  const iv: Interval = { months: 0, days: 0, micros: 0 };
  const words = text.split(' ');
  for (let i = 0; i < words.length; i++) {
    const clock = CLOCK.exec(words[i]!);
    if (clock && i === words.length - 1) {
      const [, sign, h, m, s, fraction = ''] = clock;
      const micros = ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1_000_000 + Number(fraction.padEnd(6, '0'));
      if (!Number.isSafeInteger(micros)) return undefined;
      iv.micros = sign === '-' ? -micros : micros;
      continue;
    }
    const part = PART.exec(`${words[i]} ${words[i + 1] ?? ''}`);
    if (!part) return undefined;
    const n = Number(part[1]);
    if (part[2] === 'year') iv.months += 12 * n;
    else if (part[2] === 'mon') iv.months += n;
    else iv.days += n;
    i += 1;
  }
  return Number.isSafeInteger(iv.months) && Number.isSafeInteger(iv.days) ? iv : undefined;
}

/** The first and the last day a timestamp holds (4714-11-24 BC, 294276-12-31), from 1970-01-01. */
const FIRST_DAY = daysFromCivil(-4713, 11, 24);
const LAST_DAY = daysFromCivil(294_276, 12, 31);
/** The last day a date holds (5874897-12-31). */
const LAST_DATE = daysFromCivil(5_874_897, 12, 31);

/** A timestamp's day, or the error of one out of the range. */
function inRange(days: number): number {
  if (days < FIRST_DAY || days > LAST_DAY) throw new SqlError('22008', 'timestamp out of range');
  return days;
}

/** `.ffffff` of microseconds, without trailing zeros. */
const fractionOf = (micros: number): string => {
  const digits = pad(micros, 6).replace(/0+$/, '');
  return digits ? `.${digits}` : '';
};

/** A timestamp's (or timestamptz's, `zoned`) text plus `sign` times the interval. */
export function addInterval(v: Value, iv: Interval, sign: 1 | -1, zoned: boolean): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const m = DATE_TIME.exec(text);
  if (!m) throw new Error(`not a timestamp: ${JSON.stringify(text)}`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , , , , bc] = m;
  let year = bc ? 1 - Number(y) : Number(y);
  let month = Number(mo);
  let day = Number(d);
  if (iv.months !== 0) {
    const total = year * 12 + (month - 1) + sign * iv.months;
    year = Math.floor(total / 12);
    month = total - year * 12 + 1;
    day = Math.min(day, daysIn(year, month));
  }
  // PostgreSQL checks the range after each of the three steps: a month out of it fails even if
  // the days or the time would bring the value back.
  const afterMonths = inRange(daysFromCivil(year, month, day));
  const afterDays = inRange(afterMonths + sign * iv.days);
  const at =
    ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1_000_000 + Number(fraction.padEnd(6, '0')) + sign * iv.micros;
  const carry = Math.floor(at / DAY_MICROS);
  const days = inRange(afterDays + carry);
  const micros = at - carry * DAY_MICROS;
  const seconds = Math.floor(micros / 1_000_000);
  const clock = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  const date = dateText(days);
  const [day0, era] = splitEra(date);
  return temporalValue(`${day0}T${clock}${fractionOf(micros % 1_000_000)}${zoned ? '+00:00' : ''}${era}`);
}

/** Days from 1970-01-01 of a date's text (not ±infinity). */
function daysOf(text: string): number {
  const m = DATE_TIME.exec(text);
  if (!m) throw new Error(`not a date: ${JSON.stringify(text)}`);
  return daysFromCivil(m[12] ? 1 - Number(m[1]) : Number(m[1]), Number(m[2]), Number(m[3]));
}

/** date ± integer days (date_pli, date_mii). */
export function addDays(v: Value, n: number, sign: 1 | -1): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const days = daysOf(text) + sign * n;
  if (days < FIRST_DAY || days > LAST_DATE) throw new SqlError('22008', 'date out of range');
  return temporalValue(dateText(days));
}

/** date - date: the days between them (date_mi); an infinite one fails as PostgreSQL's. */
export function daysBetween(a: Value, b: Value): number {
  const [x, y] = [textOf(a), textOf(b)];
  if (/infinity$/.test(x) || /infinity$/.test(y)) throw new SqlError('22008', 'cannot subtract infinite dates');
  return daysOf(x) - daysOf(y);
}

type Family = TemporalFamily | 'interval' | 'int' | undefined;
/** An operand's kind here: a date/time family (temporal-casts.ts), an interval, an int2/int4. */
const familyOf = (type: SqlType): Family =>
  type.base === 'int2' || type.base === 'int4' ? 'int' : type.name === 'interval' ? 'interval' : temporalFamily(type);

export interface TemporalOperand {
  type: SqlType;
  constant?: Value;
}

type Result = 'date' | 'timestamp' | 'timestamptz' | 'integer';
type Operation = { type: Result; f: (x: Value, y: Value) => Value };

/** date ± integer, integer + date, date - date. */
function dateArithmetic(op: string, a: Family, b: Family): Operation | undefined {
  const sign = op === '+' ? 1 : -1;
  if (a === 'date' && b === 'int') return { type: 'date', f: (x, y) => addDays(x, y as number, sign) };
  if (op === '+' && a === 'int' && b === 'date') return { type: 'date', f: (x, y) => addDays(y, x as number, 1) };
  if (op === '-' && a === 'date' && b === 'date') return { type: 'integer', f: daysBetween };
  return undefined;
}

/** The result type's name and the operation of `l op r` on dates, timestamps and intervals, or undefined. */
export function temporalArithmetic(
  op: string,
  l: TemporalOperand,
  r: TemporalOperand,
  toTimestamp: (date: Value) => Value,
): Operation | undefined {
  if (op !== '+' && op !== '-') return undefined;
  const [a, b] = [familyOf(l.type), familyOf(r.type)];
  const dates = dateArithmetic(op, a, b);
  if (dates) return dates;
  // An interval of the view's text: a constant (a column of intervals is PostgreSQL's).
  const right = b === 'interval';
  const ivText = right ? r.constant : op === '+' && a === 'interval' ? l.constant : undefined;
  const iv = ivText ? parseInterval(textOf(ivText)) : undefined;
  if (!iv) return undefined;
  const sign = op === '+' ? 1 : -1;
  const other = right ? a : b;
  /** The operand that is not the interval. */
  const stamp = (x: Value, y: Value): Value => (right ? x : y);
  if (other === 'timestamp' || other === 'timestamptz') {
    const zoned = other === 'timestamptz';
    return { type: other, f: (x, y) => addInterval(stamp(x, y), iv, sign, zoned) };
  }
  // A date with an interval is a timestamp: the date cast to one first (its range checked).
  if (other === 'date')
    return { type: 'timestamp', f: (x, y) => addInterval(toTimestamp(stamp(x, y)), iv, sign, false) };
  return undefined;
}
