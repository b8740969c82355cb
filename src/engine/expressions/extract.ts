import { finite, type Numeric, numericToFloat } from './numeric.js';
import { DATE_TIME, daysFromCivil, textOf } from './temporal.js';
import type { Value } from './types.js';

// EXTRACT(field FROM x) of a timestamp (with or without time zone) or a date, as PostgreSQL (14
// and later) computes it: a timestamptz's fields as the session's time zone shows it (to_json's
// text has them so, with that zone's offset), its epoch the instant's; a numeric, of scale 6 for `second` and `epoch` of a timestamp, 3 for `milliseconds`,
// else 0, read from the value's to_json text (temporal.ts). A year before 1 AD is negative (1 BC
// is -1; there is no year 0). An infinite value gives ±Infinity for the fields that grow with time
// (`year`, `decade`, `century`, `millennium`, `isoyear`, `epoch`) and NULL for the others. Fields
// not here (julian, and the time zone's) and any other spelling of these stay PostgreSQL's, as
// do `hour`, `minute` and the second's fields of a date, which PostgreSQL refuses when it meets one.

const DAY_MICROS = 86_400_000_000n;

/** A timestamp's or date's fields: the year astronomical (1 BC is 0), days from 1970-01-01, the second's microseconds. */
interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** Seconds and their fraction, in microseconds. */
  micros: number;
  days: number;
  /** A timestamptz's offset east of UTC, µs (0 for the others). */
  offset: number;
}

function fieldsOf(text: string): Fields {
  const m = DATE_TIME.exec(text);
  if (!m) throw new Error(`not a timestamp or date: ${JSON.stringify(text)}`);
  const [, y, month, day, h = '0', mi = '0', s = '0', fraction = '', sign, oh = '0', om = '0', os = '0', bc] = m;
  const offset = sign ? (sign === '+' ? 1 : -1) * ((Number(oh) * 60 + Number(om)) * 60 + Number(os)) * 1_000_000 : 0;
  const year = bc ? 1 - Number(y) : Number(y);
  const micros = Number(s) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return {
    year,
    month: Number(month),
    day: Number(day),
    hour: Number(h),
    minute: Number(mi),
    micros,
    days: daysFromCivil(year, Number(month), Number(day)),
    offset,
  };
}

const whole = (n: number): Numeric => finite(BigInt(n), 0);
/** Day of the week, 0 = Sunday (1970-01-01 was a Thursday). */
const dow = (f: Fields): number => (((f.days + 4) % 7) + 7) % 7;

type Field = (f: Fields) => Numeric;

/** C's integer division (toward zero), as PostgreSQL's EXTRACT divides. */
const cdiv = (a: number, b: number): number => Math.trunc(a / b);

/** The Monday that starts ISO week 1 of a year (the week of its January 4th), days from 1970. */
function firstMonday(year: number): number {
  const jan4 = daysFromCivil(year, 1, 4);
  return jan4 - ((((jan4 + 3) % 7) + 7) % 7);
}

/** The ISO week of a day and the ISO year it belongs to (PostgreSQL's date2isoweek, date2isoyear). */
function isoWeek(f: Fields): { week: number; year: number } {
  let year = f.year;
  let start = firstMonday(year);
  if (f.days < start) start = firstMonday((year -= 1));
  let week = Math.floor((f.days - start) / 7) + 1;
  if (week >= 52 && f.days >= firstMonday(year + 1)) {
    year += 1;
    week = Math.floor((f.days - firstMonday(year)) / 7) + 1;
  }
  return { week, year };
}

const DATE_FIELDS: Record<string, Field> = {
  year: (f) => whole(f.year > 0 ? f.year : f.year - 1),
  // The era's first century and millennium start at year 1; before it they count down from -1.
  decade: (f) => whole(f.year > 0 ? cdiv(f.year, 10) : -cdiv(8 - (f.year - 1), 10)),
  century: (f) => whole(f.year > 0 ? cdiv(f.year + 99, 100) : -cdiv(99 - (f.year - 1), 100)),
  millennium: (f) => whole(f.year > 0 ? cdiv(f.year + 999, 1000) : -cdiv(999 - (f.year - 1), 1000)),
  week: (f) => whole(isoWeek(f).week),
  isoyear: (f) => {
    const { year } = isoWeek(f);
    return whole(year > 0 ? year : year - 1);
  },
  month: (f) => whole(f.month),
  day: (f) => whole(f.day),
  quarter: (f) => whole(Math.floor((f.month - 1) / 3) + 1),
  dow: (f) => whole(dow(f)),
  isodow: (f) => whole(dow(f) || 7),
  doy: (f) => whole(f.days - daysFromCivil(f.year, 1, 1) + 1),
  epoch: (f) => finite(BigInt(f.days) * 86_400n, 0),
};

const TIMESTAMP_FIELDS: Record<string, Field> = {
  ...DATE_FIELDS,
  hour: (f) => whole(f.hour),
  minute: (f) => whole(f.minute),
  second: (f) => finite(BigInt(f.micros), 6),
  milliseconds: (f) => finite(BigInt(f.micros), 3),
  microseconds: (f) => whole(f.micros),
  epoch: (f) =>
    finite(
      epochMicros(BigInt(f.days) * DAY_MICROS + BigInt((f.hour * 60 + f.minute) * 60_000_000 + f.micros - f.offset)),
      6,
    ),
};

/** 1970-01-01 from 2000-01-01 (PostgreSQL's timestamps count from 2000), µs. */
const EPOCH_2000 = 946_684_800_000_000n;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * EXTRACT(epoch) of a timestamp `us` microseconds from 1970, to the microsecond, except where
 * PostgreSQL's own is not: for timestamps from the year 294247 on (where its µs from 1970 would not
 * fit an int64) it divides as numerics, at the scale its division picks for such a quotient (4), and
 * then rounds to 6, so the last two digits are 0.
 */
function epochMicros(us: bigint): bigint {
  if (us - EPOCH_2000 < INT64_MAX - EPOCH_2000) return us;
  return ((us + 50n) / 100n) * 100n;
}

/** Fields that grow with time: ±Infinity of an infinite value; the others are NULL of it. */
const MONOTONIC = new Set(['year', 'decade', 'century', 'millennium', 'isoyear', 'epoch']);

/** EXTRACT(field FROM ·) of a timestamp or timestamptz (`timestamp` true) or a date, or undefined for a field not here. */
export function extractField(field: string, timestamp: boolean): ((v: Value) => Value) | undefined {
  const f = (timestamp ? TIMESTAMP_FIELDS : DATE_FIELDS)[field];
  if (!f) return undefined;
  const monotonic = MONOTONIC.has(field);
  return (v) => {
    const text = textOf(v);
    if (text === 'infinity' || text === '-infinity')
      return monotonic ? { kind: 'inf', sign: text === 'infinity' ? 1 : -1 } : null;
    return f(fieldsOf(text));
  };
}

/** µs from 1970 in PostgreSQL's date_part: as a double, from its int64 µs since 2000 (int64 max aside). */
function epochDouble(us: bigint): number {
  const since2000 = us - EPOCH_2000;
  return since2000 < INT64_MAX - EPOCH_2000
    ? Number(us) / 1_000_000
    : (Number(since2000) + 946_684_800_000_000) / 1_000_000;
}

/** The fields date_part computes in double precision arithmetic of its own (the others are EXTRACT's integers). */
const DOUBLE_FIELDS: Record<string, (f: Fields) => number> = {
  second: (f) => Math.floor(f.micros / 1_000_000) + (f.micros % 1_000_000) / 1_000_000,
  milliseconds: (f) => Math.floor(f.micros / 1_000_000) * 1000 + (f.micros % 1_000_000) / 1000,
  microseconds: (f) => f.micros,
  epoch: (f) =>
    epochDouble(BigInt(f.days) * DAY_MICROS + BigInt((f.hour * 60 + f.minute) * 60_000_000 + f.micros - f.offset)),
};

/**
 * date_part(field, ·) of a timestamp or timestamptz: a double precision, as PostgreSQL computes it
 * (second and epoch in its own float arithmetic: an epoch past 2255 is rounded to a double before
 * it is divided), or undefined for a field not here.
 */
export function datePartField(field: string): ((v: Value) => Value) | undefined {
  const extract = extractField(field, true);
  if (!extract) return undefined;
  const precise = DOUBLE_FIELDS[field];
  return (v) => {
    const text = textOf(v);
    if (precise && text !== 'infinity' && text !== '-infinity') return precise(fieldsOf(text));
    const exact = extract(v);
    return exact === null ? null : numericToFloat(exact as Numeric);
  };
}
