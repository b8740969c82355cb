// Encoders of egress chunks: one JSON object per line, as the established ecosystem's clients read
// them (`json_data` for json, `text_data` for csv with the weight as the last field).
import type { Change, Row } from '../engine/types.js';
import type { JsonValue } from '../model/json.js';

import type { EGRESS_FORMATS } from '../model/data-queries.js';

export type EgressFormat = (typeof EGRESS_FORMATS)[number];

export function jsonChanges(changes: readonly Change[]): ({ insert: Row } | { delete: Row })[] {
  const out: ({ insert: Row } | { delete: Row })[] = [];
  // A weight of ±n is n copies of the row: the insert_delete format has no weight of its own.
  for (const { weight, row } of changes)
    for (let k = 0; k < Math.abs(weight); k++) out.push(weight > 0 ? { insert: row } : { delete: row });
  return out;
}

function csvField(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // Quote what would otherwise be read back differently: delimiters, quotes, line ends, and the
  // empty string (an unquoted empty field is NULL).
  return s === '' || /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Rows as CSV lines in the relation's column order, the weight appended. */
export function csvChanges(changes: readonly Change[], columns: readonly string[]): string {
  return changes
    .map(({ weight, row }) => [...columns.map((c) => csvField(row[c])), String(weight)].join(',') + '\n')
    .join('');
}

export interface ChunkHead {
  sequence_number: number;
  snapshot: boolean;
}

/** One egress chunk as a line of JSON. */
export function encodeChunk(
  head: ChunkHead,
  format: EgressFormat,
  changes: readonly Change[],
  columns: readonly string[],
): string {
  const body =
    format === 'json'
      ? { ...head, json_data: jsonChanges(changes) }
      : { ...head, text_data: csvChanges(changes, columns) };
  return JSON.stringify(body) + '\n';
}
