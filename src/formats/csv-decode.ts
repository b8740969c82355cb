// Decodes CSV ingress bodies (comma-delimited, no header, columns in the table's order, quoting per
// RFC 4180) into inserts. No CSV library is installed, so this is a small parser of our own. An
// unquoted empty field is SQL NULL; a quoted empty field ("") is the empty string.
import type { Row } from '../engine/types.js';
import type { JsonValue } from '../model/json.js';
import { emptyDecoded, type Decoded } from './decoded.js';

/** One field: its text, and whether it was quoted (an empty quoted field is '', not NULL). */
interface Field {
  text: string;
  quoted: boolean;
}
type Record = { fields: Field[] } | { error: string };

/** Splits the body into records of fields; a malformed record is reported and the next one begins at its line end. */
export function splitCsv(text: string): Record[] {
  const records: Record[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const fields: Field[] = [];
    let error: string | undefined;
    for (;;) {
      let field = '';
      let quoted = false;
      if (text[i] === '"') {
        quoted = true;
        const start = i;
        i++;
        for (;;) {
          if (i >= n) {
            error = `field ${fields.length + 1}: quoted field opened at offset ${start} is never closed`;
            break;
          }
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          field += text[i++];
        }
        if (!error && i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r')
          error = `field ${fields.length + 1}: unexpected character after closing quote at offset ${i}`;
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') error ??= `field ${fields.length + 1}: quote inside an unquoted field at offset ${i}`;
          field += text[i++];
        }
      }
      fields.push({ text: field, quoted });
      if (error) break;
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (error) while (i < n && text[i] !== '\n') i++;
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    const blank = !error && fields.length === 1 && fields[0].text === '' && !fields[0].quoted;
    if (!blank) records.push(error ? { error } : { fields });
  }
  return records;
}

/** CSV body → inserts of rows keyed by `columns` (the table's columns, in order). */
export function decodeCsv(text: string, columns: readonly string[]): Decoded {
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
    columns.forEach((c, k) => {
      const f = record.fields[k];
      const value: JsonValue = f.text === '' && !f.quoted ? null : f.text;
      row[c] = value;
    });
    out.changes.push({ weight: 1, row });
    out.indexes.push(index);
  });
  return out;
}
