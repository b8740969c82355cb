// Decodes JSON ingress bodies into changes, one event per line or one JSON array of events, in the
// update formats the established ecosystem's clients send (insert_delete, raw, weighted, and
// debezium's `{"payload":{"before","after"}}`). A row is an object keyed by column name or, given
// the table (`RowShape`), an array by position; the flavor reads its values (json-flavor.ts). A
// record that does not parse or does not have its format's shape is reported by its position; the
// others still go in.
import type { Change, Row } from '../engine/types.js';
import { emptyDecoded, type Decoded } from './decoded.js';
import { parseExact } from '../model/exact-json.js';
import { shapeRow, type RowShape } from './json-flavor.js';
import type { INGRESS_UPDATE_FORMATS } from '../model/data-queries.js';
import { depthError, mayExceed, sizeError, weightError } from '../engine/limits.js';

export { INGRESS_UPDATE_FORMATS, UPDATE_FORMATS } from '../model/data-queries.js';
export type UpdateFormat = (typeof INGRESS_UPDATE_FORMATS)[number];

function isRow(v: unknown): v is Row {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** A row of an event: an object, or an array by position; the reason when it is neither. */
function rowOf(value: unknown, what: string, shape: RowShape | undefined): Row | string {
  const row = shapeRow(value, shape);
  if (typeof row !== 'string') return row;
  return Array.isArray(value) ? `${what}: ${row}` : `${what} must be a row object, got ${describe(value)}`;
}

function weighted(event: Row, shape: RowShape | undefined): Change[] | string {
  const { weight, data } = event;
  const bad = weightError(weight);
  if (bad !== undefined) return bad;
  const row = rowOf(data, '"data"', shape);
  if (typeof row === 'string') return row;
  const extra = Object.keys(event).find((k) => k !== 'weight' && k !== 'data');
  return extra === undefined
    ? [{ weight: weight as number, row }]
    : `unknown member "${extra}" (expected "weight" and "data")`;
}

/** Debezium's operations: create, update, delete, and read (a snapshot's row). */
const DEBEZIUM_OPS = new Set(['c', 'u', 'd', 'r']);

/**
 * debezium: `{"payload":{"before":row|null,"after":row|null,"op"?}}`; an update is a delete and an
 * insert. `before` and `after` say what changes; an `op` that is none of Debezium's is refused, as
 * an event of some other kind rather than one to guess at.
 */
function debezium(event: Row, shape: RowShape | undefined): Change[] | string {
  const payload = event['payload'];
  if (!isRow(payload)) return `"payload" must be an object, got ${describe(payload)}`;
  const op = payload['op'];
  if (op !== undefined && op !== null && !(typeof op === 'string' && DEBEZIUM_OPS.has(op)))
    return `"payload.op" must be one of "c", "u", "d", "r", got ${typeof op === 'string' ? JSON.stringify(op.slice(0, 20)) : describe(op)}`;
  const out: Change[] = [];
  for (const [key, weight] of [
    ['before', -1],
    ['after', 1],
  ] as const) {
    const value = payload[key];
    if (value === undefined || value === null) continue;
    const row = rowOf(value, `"payload.${key}"`, shape);
    if (typeof row === 'string') return row;
    out.push({ weight, row });
  }
  return out.length > 0 ? out : '"payload" has neither "before" nor "after"';
}

/**
 * The object's one member's name, or undefined when it has none or several: without the array
 * Object.keys makes, for every record of an insert_delete body.
 */
function onlyMember(o: Row): string | undefined {
  let only: string | undefined;
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    if (only !== undefined) return undefined;
    only = key;
  }
  return only;
}

/** One event in its update format → its changes, or the reason it is not an event of that format. */
export function eventToChanges(event: unknown, format: UpdateFormat, shape?: RowShape): Change[] | string {
  if (format === 'raw') {
    const row = shapeRow(event, shape);
    return typeof row === 'string' ? `expected a row object, got ${describe(event)}` : [{ weight: 1, row }];
  }
  if (!isRow(event)) return `expected an object, got ${describe(event)}`;
  if (format === 'weighted') return weighted(event, shape);
  if (format === 'debezium') return debezium(event, shape);
  const key = onlyMember(event);
  if (key !== 'insert' && key !== 'delete') {
    const keys = Object.keys(event);
    return `expected exactly one of "insert" or "delete", got ${keys.length === 0 ? 'no member' : keys.map((k) => `"${k}"`).join(', ')}`;
  }
  const row = rowOf(event[key], `"${key}"`, shape);
  return typeof row === 'string' ? row : [{ weight: key === 'insert' ? 1 : -1, row }];
}

function push(out: Decoded, index: number, event: unknown, format: UpdateFormat, shape: RowShape | undefined): void {
  const changes = depthError(event) ?? eventToChanges(event, format, shape);
  if (typeof changes === 'string') out.errors.push({ index, message: `record ${index}: ${changes}` });
  else
    for (const change of changes) {
      out.changes.push(change);
      out.indexes.push(index);
    }
}

const parseError = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `array=true`: the body is one JSON array; each element is an event. */
function decodeArray(text: string, format: UpdateFormat, shape: RowShape | undefined): Decoded {
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
    else push(out, i, event, format, shape);
  });
  out.records = body.length;
  return out;
}

/** `array=false`: one event per non-blank line. */
function decodeLines(text: string, format: UpdateFormat, shape: RowShape | undefined): Decoded {
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
    push(out, index++, event, format, shape);
  }
  out.records = index;
  return out;
}

/** `shape`: the table's columns and the flavor, for positional rows and flavored values. */
export function decodeJson(text: string, format: UpdateFormat, array: boolean, shape?: RowShape): Decoded {
  return array ? decodeArray(text, format, shape) : decodeLines(text, format, shape);
}
