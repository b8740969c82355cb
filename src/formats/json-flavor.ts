// How a JSON record names and spells a row's values, beyond the default of one object keyed by
// column name with values as PostgreSQL reads them. The established ecosystem's clients also send
// rows as arrays (positional, in the table's column order), and its Python SDK's `input_pandas`
// sends `json_flavor=pandas`: pandas' `to_json(date_format="epoch")` writes timestamps and dates as
// milliseconds since the epoch, which PostgreSQL would refuse for those columns.
import type { ColumnInfo, Row } from '../engine/types.js';
import type { JsonValue } from '../model/json.js';

import type { JSON_FLAVORS } from '../model/data-queries.js';

/** The flavors decoded here (JSON_FLAVORS). The others the SDK names (debezium_mysql, snowflake, …) are refused. */
export type JsonFlavor = (typeof JSON_FLAVORS)[number];

/** What a decoder needs to know of the table to read positional rows and flavored values. */
export interface RowShape {
  columns: readonly ColumnInfo[];
  flavor: JsonFlavor;
}

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Milliseconds since the epoch → the ISO text PostgreSQL reads for a timestamp or a date column. */
function fromEpochMs(ms: number, type: string): string | undefined {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return undefined;
  const iso = d.toISOString();
  if (type === 'date') return iso.slice(0, 10);
  // timestamp without time zone reads the UTC wall clock; with time zone, the instant (the Z).
  return type.startsWith('timestamp') ? (type.includes('with time zone') ? iso : iso.slice(0, -1)) : undefined;
}

function pandasValue(value: JsonValue | undefined, type: string): JsonValue | undefined {
  if (typeof value !== 'number') return value;
  return fromEpochMs(value, type) ?? value;
}

/**
 * A record's row as an object keyed by column name, or the reason it is not one. Arrays are read by
 * position (more values than columns is an error; fewer leaves the rest NULL, as the established
 * server does).
 */
export function shapeRow(value: unknown, shape: RowShape | undefined): Row | string {
  let row: Row;
  if (Array.isArray(value)) {
    if (!shape) return 'a row given as an array needs the table (positional rows)';
    if (value.length > shape.columns.length)
      return `a row array has ${value.length} values but the table has ${shape.columns.length} columns`;
    row = {};
    shape.columns.forEach((c, i) => {
      if (i < value.length) row[c.name] = value[i] as JsonValue;
    });
  } else if (isObject(value)) row = value;
  else return 'not a row';
  if (shape?.flavor !== 'pandas') return row;
  const byName = new Map(shape.columns.map((c) => [c.name.toLowerCase(), c.type]));
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    const type = byName.get(k.toLowerCase());
    out[k] = type === undefined ? v : (pandasValue(v, type) ?? v);
  }
  return out;
}
