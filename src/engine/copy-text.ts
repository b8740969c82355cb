import type { ColumnInfo, Change } from './types.js';

// A batch of changes as COPY's CSV text, for staging. json_populate_recordset reads each JSON value
// through the column type's text input (a string by its contents, a number or boolean by its JSON
// text, an object or array by its JSON text), and COPY reads each CSV field through the same input
// function, so for the column types below the two stage the same values and reject the same ones.
// Measured (PGlite, 10,000 orders of four columns): 25-50 ms by COPY against 50-80 ms from JSON.
// Arrays and composite types are left to JSON: json_populate_record turns a JSON array into a
// PostgreSQL array, which a CSV field would have to spell as `{…}`.

const SCALAR =
  /^(smallint|integer|bigint|numeric|real|double precision|text|character varying|character|boolean|date|time|timestamp|interval|uuid|json|jsonb)\b/;
const JSON_TYPE = /^jsonb?$/;

/** Whether every column of the table stages the same through COPY as through JSON. */
export function copyable(columns: readonly ColumnInfo[]): boolean {
  return columns.every((c) => SCALAR.test(c.type) && !c.type.endsWith(']'));
}

/** A lone surrogate: UTF-8 would turn it into U+FFFD where JSON input rejects it. */
const LONE_SURROGATE = /\p{Cs}/u;

class NotCopyable extends Error {
  override readonly name = 'NotCopyable';
}

function quoted(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new NotCopyable('a string holds a lone surrogate');
  return `"${text.replaceAll('"', '""')}"`;
}

/** One CSV field: empty and unquoted is NULL; every text is quoted (so `\.` is never a marker). */
function field(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return '';
  if (json) return quoted(JSON.stringify(value));
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return quoted(JSON.stringify(value));
}

/** One row's fields as a CSV line, without its line break. */
function lineOf(
  columns: readonly ColumnInfo[],
  isJson: readonly boolean[],
  row: Readonly<Record<string, unknown>>,
): string {
  let line = '';
  for (let j = 0; j < columns.length; j++) {
    const name = columns[j]!.name;
    // Own members only: a column named like an Object method must read as missing, i.e. NULL.
    if (j > 0) line += ',';
    line += field(Object.hasOwn(row, name) ? row[name] : undefined, isJson[j]!);
  }
  return line;
}

const jsonColumns = (columns: readonly ColumnInfo[]) => columns.map((c) => JSON_TYPE.test(c.type));

/** The changes as CSV lines of the columns then the weight. */
export function copyText(columns: readonly ColumnInfo[], changes: readonly Change[]): string {
  const isJson = jsonColumns(columns);
  const lines: string[] = new Array<string>(changes.length);
  for (let i = 0; i < changes.length; i++) {
    const { row, weight } = changes[i]!;
    lines[i] = `${lineOf(columns, isJson, row)},${weight}`;
  }
  return lines.join('\n') + '\n';
}

/** Rows (JSON objects: a checkpoint's) as CSV lines of the columns. */
export function copyRowsText(
  columns: readonly ColumnInfo[],
  rows: readonly Readonly<Record<string, unknown>>[],
): string {
  const isJson = jsonColumns(columns);
  return rows.map((row) => lineOf(columns, isJson, row)).join('\n') + '\n';
}
