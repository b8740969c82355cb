import { isRawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';

// An array column's value (a JSON array, as rows carry it) in PostgreSQL's array text, which its
// input reads back: `{1,2}`, `{"a b",NULL}`, `{{1,2},{3,4}}`. A CSV field holds an array so, in
// and out: ingress hands the field's text to the type's input (as COPY … CSV does), so a CSV
// written with the array's JSON text (`[1,2]`) did not read back (malformed array literal).

/** An element that needs no quotes: not empty, no brace, quote, comma, backslash or white space. */
const BARE = /^[^{}",\\\s]+$/;

function element(v: JsonValue): string {
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return pgArrayText(v);
  const text =
    typeof v === 'string' ? v : isRawNumber(v) ? v.rawJSON : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // A bare NULL (any case) is SQL NULL, so the string "NULL" is quoted.
  return BARE.test(text) && text.toUpperCase() !== 'NULL' ? text : `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

/** The array as PostgreSQL writes it: braces, elements by commas, quoted only where needed. */
export function pgArrayText(value: readonly JsonValue[]): string {
  return `{${value.map(element).join(',')}}`;
}
