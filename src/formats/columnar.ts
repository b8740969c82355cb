import type { ColumnInfo, Row } from '../engine/types.js';
import { isRawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';

// The columnar answers of GET /query (arrow_ipc, parquet) share one reading of a result: each
// column's PostgreSQL type mapped to a kind both formats can hold, and its values converted from the
// JSON the engine returns (row_to_json) into that kind. A type without a faithful columnar kind
// (numeric, arrays, json, intervals, …) travels as its JSON text.

export type ColumnKind = 'bool' | 'int16' | 'int32' | 'int64' | 'float32' | 'float64' | 'date' | 'timestamp' | 'string';

const KINDS: Record<string, ColumnKind> = {
  boolean: 'bool',
  smallint: 'int16',
  integer: 'int32',
  bigint: 'int64',
  real: 'float32',
  'double precision': 'float64',
  date: 'date',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamp',
};

export const columnKind = (type: string): ColumnKind => KINDS[type] ?? 'string';

export type ColumnValue = boolean | number | bigint | Date | string | null;

/** A JSON value of the engine's result as a value of `kind` (null stays null). */
export function columnValue(kind: ColumnKind, v: JsonValue | undefined): ColumnValue {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'bool':
      return v === true;
    case 'int16':
    case 'int32':
    case 'float32':
    case 'float64':
      return Number(isRawNumber(v) ? v.rawJSON : v);
    case 'int64':
      // A bigint past 2^53 reaches here as its digits (src/model/exact-json.ts).
      return BigInt(isRawNumber(v) ? v.rawJSON : (v as number));
    case 'date':
      return new Date(`${String(v)}T00:00:00Z`);
    case 'timestamp':
      return timestampMicros(String(v));
    case 'string':
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

const TIMESTAMP = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d(?::?\d\d)?)?$/;

/**
 * Microseconds since the epoch of a timestamp as row_to_json writes it (`2024-01-02T03:04:05.678901`,
 * with its offset for timestamptz; without one it is taken as UTC), exact to the microsecond: a Date
 * would keep milliseconds only.
 */
export function timestampMicros(text: string): bigint {
  const m = TIMESTAMP.exec(text);
  const ms = Date.parse(m ? `${m[1]}${m[3] ?? 'Z'}` : text);
  if (!m || Number.isNaN(ms)) throw new Error(`not a timestamp: ${text}`);
  return BigInt(ms) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

export interface Column {
  name: string;
  kind: ColumnKind;
  values: ColumnValue[];
}

/** The result turned column by column. */
export function toColumns(columns: ColumnInfo[], rows: Row[]): Column[] {
  return columns.map((c) => {
    const kind = columnKind(c.type);
    return { name: c.name, kind, values: rows.map((r) => columnValue(kind, r[c.name])) };
  });
}
