import { SqlError } from './sql-error.js';
import { DATE, splitEra, TIMESTAMP, TIMESTAMPTZ, temporalValue, textOf } from './temporal.js';
import type { SqlType, Value } from './types.js';

// Casts between date, timestamp and timestamptz on their to_json text (the native path's spelling
// of them, types.ts), as PostgreSQL makes them with the session's zone UTC (the engine's): a
// timestamp's date is its text before the `T`, a date's timestamp is its midnight, a timestamp's
// timestamptz is the same time at `+00:00`, and back; ` BC` stays at the end, ±infinity stays as it
// is. PostgreSQL's implicit casts go up that line (date → timestamp → timestamptz), so a comparison
// of two of them compares them as the wider.

export type Family = 'date' | 'timestamp' | 'timestamptz';
const RANK: Record<Family, number> = { date: 0, timestamp: 1, timestamptz: 2 };
const TYPES: Record<Family, SqlType> = {
  date: DATE,
  timestamp: TIMESTAMP,
  timestamptz: TIMESTAMPTZ,
};

/** The type's family (a precision aside), or undefined for another type. */
export function temporalFamily(type: SqlType): Family | undefined {
  if (type.base !== 'opaque') return undefined;
  if (type.name === 'date') return 'date';
  const m = /^timestamp(?:\(\d\))? with(out)? time zone$/.exec(type.name);
  return m ? (m[1] ? 'timestamp' : 'timestamptz') : undefined;
}

/** PostgreSQL's common type of dates and times (the widest of their families), or undefined. */
export function commonTemporal(types: readonly SqlType[]): SqlType | undefined {
  const families = types.map(temporalFamily);
  if (families.some((f) => f === undefined)) return undefined;
  const widest = (families as Family[]).reduce((a, b) => (RANK[a] >= RANK[b] ? a : b));
  // One type as it is (a precision kept); of several, the family's without one.
  return types.every((t) => t.name === types[0]!.name) ? types[0] : TYPES[widest];
}

/** The last year a timestamp holds (294276 AD); a later date does not become one. */
const TIMESTAMP_LAST_YEAR = 294_276;

function dateToTimestamp(v: Value, zone: string): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const [day, bc] = splitEra(text);
  if (!bc && Number(day.slice(0, day.indexOf('-'))) > TIMESTAMP_LAST_YEAR)
    throw new SqlError('22008', 'date out of range for timestamp');
  return temporalValue(`${day}T00:00:00${zone}${bc}`);
}

function toDate(v: Value): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const [stamp, bc] = splitEra(text);
  return temporalValue(`${stamp.slice(0, stamp.indexOf('T'))}${bc}`);
}

function withZone(v: Value): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const [stamp, bc] = splitEra(text);
  return temporalValue(`${stamp}+00:00${bc}`);
}

function withoutZone(v: Value): Value {
  const text = textOf(v);
  if (text === 'infinity' || text === '-infinity') return v;
  const [stamp, bc] = splitEra(text);
  return temporalValue(`${stamp.slice(0, -'+00:00'.length)}${bc}`);
}

/** The cast from one date/time type to another, or undefined when either is not one. */
export function temporalCast(from: SqlType, to: SqlType): ((v: Value) => Value) | undefined {
  const [f, t] = [temporalFamily(from), temporalFamily(to)];
  if (!f || !t) return undefined;
  // A timestamp(p) of a wider one would round: PostgreSQL's to evaluate.
  if (/\(\d\)/.test(to.name) && to.name !== from.name) return undefined;
  if (f === t) return (v) => v;
  if (t === 'date') return toDate;
  if (f === 'date') return t === 'timestamp' ? (v) => dateToTimestamp(v, '') : (v) => dateToTimestamp(v, '+00:00');
  return t === 'timestamptz' ? withZone : withoutZone;
}
