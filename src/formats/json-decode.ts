// Decodes JSON ingress bodies into changes, one event per line or one JSON array of events, in the
// three update formats the established ecosystem's clients send. A record that does not parse or
// does not have its format's shape is reported by its position; the others still go in.
import type { JsonValue } from '../model/json.js';
import type { Change, Row } from '../engine/types.js';
import { emptyDecoded, type Decoded } from './decoded.js';
import { parseExact } from '../model/exact-json.js';
import { depthError, mayExceed, sizeError, weightError } from '../engine/limits.js';

export const UPDATE_FORMATS = ['insert_delete', 'raw', 'weighted'] as const;
export type UpdateFormat = (typeof UPDATE_FORMATS)[number];

function isRow(v: unknown): v is Row {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

function weighted(event: Row): Change | string {
  const { weight, data } = event;
  const bad = weightError(weight);
  if (bad !== undefined) return bad;
  if (!isRow(data)) return `"data" must be a row object, got ${describe(data)}`;
  const extra = Object.keys(event).find((k) => k !== 'weight' && k !== 'data');
  return extra === undefined
    ? { weight: weight as number, row: data }
    : `unknown member "${extra}" (expected "weight" and "data")`;
}

/** One event in its update format → a change, or the reason it is not one. */
export function eventToChange(event: unknown, format: UpdateFormat): Change | string {
  if (format === 'raw')
    return isRow(event) ? { weight: 1, row: event } : `expected a row object, got ${describe(event)}`;
  if (!isRow(event)) return `expected an object, got ${describe(event)}`;
  if (format === 'weighted') return weighted(event);
  const keys = Object.keys(event);
  if (keys.length !== 1 || (keys[0] !== 'insert' && keys[0] !== 'delete'))
    return `expected exactly one of "insert" or "delete", got ${keys.length === 0 ? 'no member' : keys.map((k) => `"${k}"`).join(', ')}`;
  const key = keys[0];
  const row: JsonValue | undefined = event[key];
  if (!isRow(row)) return `"${key}" must be a row object, got ${describe(row)}`;
  return { weight: key === 'insert' ? 1 : -1, row };
}

function push(out: Decoded, index: number, event: unknown, format: UpdateFormat): void {
  const change = depthError(event) ?? eventToChange(event, format);
  if (typeof change === 'string') out.errors.push({ index, message: `record ${index}: ${change}` });
  else {
    out.changes.push(change);
    out.indexes.push(index);
  }
}

const parseError = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `array=true`: the body is one JSON array; each element is an event. */
function decodeArray(text: string, format: UpdateFormat): Decoded {
  const out = emptyDecoded();
  if (text.trim() === '') return out;
  let body: unknown;
  try {
    body = parseExact(text);
  } catch (e) {
    out.errors.push({
      index: 0,
      message: `body is not valid JSON (array=true expects one JSON array): ${parseError(e)}`,
    });
    out.records = 1;
    return out;
  }
  if (!Array.isArray(body)) {
    out.errors.push({ index: 0, message: `array=true expects a JSON array of events, got ${describe(body)}` });
    out.records = 1;
    return out;
  }
  // No element can be over the record limit when the whole body is not: measure only then.
  const measure = mayExceed(text.length);
  body.forEach((event, i) => {
    const tooLarge = measure && depthError(event) === undefined && sizeError(Buffer.byteLength(JSON.stringify(event)));
    if (tooLarge) out.errors.push({ index: i, message: `record ${i}: ${tooLarge}` });
    else push(out, i, event, format);
  });
  out.records = body.length;
  return out;
}

/** `array=false`: one event per non-blank line. */
function decodeLines(text: string, format: UpdateFormat): Decoded {
  const out = emptyDecoded();
  let index = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const tooLarge = mayExceed(line.length) && sizeError(Buffer.byteLength(line));
    if (tooLarge) {
      out.errors.push({ index, message: `record ${index}: ${tooLarge}` });
      index++;
      continue;
    }
    let event: unknown;
    try {
      event = parseExact(line);
    } catch (e) {
      out.errors.push({ index, message: `record ${index}: not valid JSON: ${parseError(e)}` });
      index++;
      continue;
    }
    push(out, index++, event, format);
  }
  out.records = index;
  return out;
}

export function decodeJson(text: string, format: UpdateFormat, array: boolean): Decoded {
  return array ? decodeArray(text, format) : decodeLines(text, format);
}
