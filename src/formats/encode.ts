// Encoders of egress chunks: one JSON object per line, as the established ecosystem's clients read
// them (`json_data` for json, `text_data` for csv with the weight as the last field).
import type { Change, Row } from '../engine/types.js';
import { isRawNumber, parseExact } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import { pgArrayText } from './pg-array-text.js';

import type { EGRESS_FORMATS } from '../model/data-queries.js';

export type EgressFormat = (typeof EGRESS_FORMATS)[number];

/**
 * A number's value as the main thread's parseExact reads it from the text of a step (2.50 is 2.5,
 * 2^63 stays its digits), in a value's place so that -0 reads as the engine meant it.
 */
const asParsed = (_key: string, v: unknown): unknown =>
  isRawNumber(v) ? (parseExact(`[${v.rawJSON}]`) as unknown[])[0] : v;

/** Whether a row holds an object among its values (an exact number, JSON of another type). */
function holdsObject(row: Row): boolean {
  for (const key in row) {
    const v = row[key];
    if (v !== null && typeof v === 'object') return true;
  }
  return false;
}

/**
 * Changes as JSON text twice over, each row serialized once: the changes themselves (a JSON array of
 * `{weight, row}`, what crosses from the engine's thread) and an egress chunk's `json_data` (as
 * jsonChanges gives it), so that a JSON egress stream writes a step's changes without parsing them
 * back on the main thread and encoding them again. Numbers are spelled as that parse and encoding
 * spelled them, so the stream's bytes are what they were (and a snapshot's chunk agrees with them).
 */
export function changesTexts(changes: readonly Change[]): { changes: string; jsonData: string } {
  const all = new Array<string>(changes.length);
  const json: string[] = [];
  for (let i = 0; i < changes.length; i++) {
    const { weight, row } = changes[i]!;
    const text = holdsObject(row) ? JSON.stringify(row, asParsed) : JSON.stringify(row);
    all[i] = `{"weight":${weight},"row":${text}}`;
    const entry = weight > 0 ? `{"insert":${text}}` : `{"delete":${text}}`;
    for (let k = 0; k < Math.abs(weight); k++) json.push(entry);
  }
  return { changes: `[${all.join(',')}]`, jsonData: `[${json.join(',')}]` };
}

/** A JSON egress chunk's line from its head and its json_data text, with the steps it covers. */
export const jsonChunkLine = (head: ChunkHead, jsonData: string, processedSteps: number): string =>
  `${JSON.stringify(head).slice(0, -1)},"json_data":${jsonData},"processed_steps":${processedSteps}}\n`;

export function jsonChanges(changes: readonly Change[]): ({ insert: Row } | { delete: Row })[] {
  const out: ({ insert: Row } | { delete: Row })[] = [];
  // A weight of ±n is n copies of the row: the insert_delete format has no weight of its own.
  for (const { weight, row } of changes)
    for (let k = 0; k < Math.abs(weight); k++) out.push(weight > 0 ? { insert: row } : { delete: row });
  return out;
}

/** A scalar's or an object's text: a string as it is, a number as written, an object as JSON. */
const valueText = (v: JsonValue): string =>
  typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);

/**
 * A CSV field: a value's text as ingress reads it back, which for a column holding JSON is its JSON
 * text ("x" for the string x) and for an array column PostgreSQL's array text ({1,2}).
 */
function csvField(v: JsonValue | undefined, json: boolean): string {
  if (v === null || v === undefined) return '';
  const s = json ? JSON.stringify(v) : Array.isArray(v) ? pgArrayText(v) : valueText(v);
  // Quote what would otherwise be read back differently: delimiters, quotes, line ends, and the
  // empty string (an unquoted empty field is NULL).
  return s === '' || /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Rows as CSV lines in the relation's column order, the weight appended; `jsonColumns` hold JSON. */
export function csvChanges(
  changes: readonly Change[],
  columns: readonly string[],
  jsonColumns: ReadonlySet<string> = new Set(),
): string {
  return changes
    .map(
      ({ weight, row }) =>
        [...columns.map((c) => csvField(row[c], jsonColumns.has(c))), String(weight)].join(',') + '\n',
    )
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
  jsonColumns: ReadonlySet<string> = new Set(),
): string {
  const body =
    format === 'json'
      ? { ...head, json_data: jsonChanges(changes) }
      : { ...head, text_data: csvChanges(changes, columns, jsonColumns) };
  return JSON.stringify(body) + '\n';
}
