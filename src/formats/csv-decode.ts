// Decodes CSV ingress bodies (comma-delimited, no header, columns in the table's order, quoting per
// RFC 4180) into inserts. No CSV library is installed, so this is a small parser of our own. An
// unquoted empty field is SQL NULL; a quoted empty field ("") is the empty string. A field is the
// value's text, which the column type's input reads (as PostgreSQL's COPY … CSV has it): for a json
// or jsonb column that text is JSON, so it is parsed here; kept as a string, `{"a":1}` became a
// JSON string, not the object.
import type { Row } from '../engine/types.js';
import type { JsonValue } from '../model/json.js';
import { emptyDecoded, type Decoded } from './decoded.js';
import { mayExceed, sizeError } from '../engine/limits.js';
import { parseSpelled } from '../model/exact-json.js';

/** One field: its text, and whether it was quoted (an empty quoted field is '', not NULL). */
interface Field {
  text: string;
  quoted: boolean;
}
type Record = { fields: Field[] } | { error: string };

interface Scan {
  field: Field;
  /** Offset just past the field. */
  end: number;
  error?: string;
}

const endsField = (c: string | undefined): boolean => c === undefined || c === ',' || c === '\n' || c === '\r';

/** A quoted field from the opening quote at `i`: doubled quotes are one quote. */
function scanQuoted(text: string, i: number, col: number): Scan {
  let field = '';
  let j = i + 1;
  for (;;) {
    const c = text[j];
    if (c === undefined)
      return {
        field: { text: field, quoted: true },
        end: j,
        error: `field ${col}: quoted field opened at offset ${i} is never closed`,
      };
    if (c === '"' && text[j + 1] === '"') {
      field += '"';
      j += 2;
    } else if (c === '"') break;
    else {
      field += c;
      j++;
    }
  }
  j++;
  const error = endsField(text[j])
    ? undefined
    : `field ${col}: unexpected character after closing quote at offset ${j}`;
  return { field: { text: field, quoted: true }, end: j, ...(error ? { error } : {}) };
}

function scanPlain(text: string, i: number, col: number): Scan {
  let j = i;
  while (!endsField(text[j])) j++;
  const field = text.slice(i, j);
  const q = field.indexOf('"');
  const error = q < 0 ? undefined : `field ${col}: quote inside an unquoted field at offset ${i + q}`;
  return { field: { text: field, quoted: false }, end: j, ...(error ? { error } : {}) };
}

/** One record from offset `i`: its fields or its error, and where the next record begins. */
function scanRecord(text: string, i: number): { record: Record; next: number } {
  const fields: Field[] = [];
  let j = i;
  for (;;) {
    const scan = text[j] === '"' ? scanQuoted(text, j, fields.length + 1) : scanPlain(text, j, fields.length + 1);
    fields.push(scan.field);
    j = scan.end;
    if (scan.error) {
      // Resynchronise at the next line end: the following records still go in.
      const nl = text.indexOf('\n', j);
      return { record: { error: scan.error }, next: nl < 0 ? text.length : nl + 1 };
    }
    if (text[j] !== ',') break;
    j++;
  }
  if (text[j] === '\r') j++;
  if (text[j] === '\n') j++;
  return { record: { fields }, next: j };
}

/** Splits the body into records of fields; blank lines are skipped. */
export function splitCsv(text: string): Record[] {
  const records: Record[] = [];
  let i = 0;
  while (i < text.length) {
    const scanned = scanRecord(text, i);
    const tooLarge = mayExceed(scanned.next - i) && sizeError(Buffer.byteLength(text.slice(i, scanned.next)));
    const record: Record = tooLarge ? { error: tooLarge } : scanned.record;
    i = scanned.next;
    const blank =
      'fields' in record && record.fields.length === 1 && record.fields[0]?.text === '' && !record.fields[0].quoted;
    if (!blank) records.push(record);
  }
  return records;
}

/** A json column's field: its JSON value (numbers as spelled), or undefined when it is not JSON. */
function jsonField(text: string): JsonValue | undefined {
  try {
    return parseSpelled(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * CSV body → inserts of rows keyed by `columns` (the table's columns, in order); the fields of
 * `jsonColumns` are JSON texts.
 */
export function decodeCsv(
  text: string,
  columns: readonly string[],
  jsonColumns: ReadonlySet<string> = new Set(),
): Decoded {
  const out = emptyDecoded();
  splitCsv(text).forEach((record, index) => {
    out.records++;
    if ('error' in record) {
      out.errors.push({ index, message: `record ${index}: ${record.error}` });
      return;
    }
    if (record.fields.length !== columns.length) {
      out.errors.push({
        index,
        message: `record ${index}: expected ${columns.length} fields (${columns.join(', ')}), got ${record.fields.length}`,
      });
      return;
    }
    const row: Row = {};
    let bad: string | undefined;
    columns.forEach((c, k) => {
      const f = record.fields[k] ?? { text: '', quoted: false };
      const value: JsonValue | undefined =
        f.text === '' && !f.quoted ? null : jsonColumns.has(c) ? jsonField(f.text) : f.text;
      if (value === undefined) bad ??= `column ${c}: invalid input syntax for type json`;
      row[c] = value ?? null;
    });
    if (bad !== undefined) {
      out.errors.push({ index, message: `record ${index}: ${bad}` });
      return;
    }
    out.changes.push({ weight: 1, row });
    out.indexes.push(index);
  });
  return out;
}
