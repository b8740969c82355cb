import { type ColumnArray, columnArrays, type Kind, type PackedColumn } from '../zset/row-store.js';
import { decodeValue, encodeValue, type Encoded } from './codec.js';
import type { Page } from './row-log.js';

// A sealed page of a row log (row-log.ts) as bytes, for a spill file: a JSON header (the columns'
// kinds, their texts, the values kept aside) and then the columns' typed arrays as they are in
// memory, each at an offset that is a multiple of 8. Read back only by the process that wrote it
// (the file is its scratch, never a checkpoint), so the byte order is the machine's.

interface ColumnHeader {
  kind: Kind;
  tags: boolean;
  /** A text column's values, null where the row has none (a NULL, a value kept aside). */
  strs?: (string | null)[];
  /** Values kept aside, by row: [id, encoded value]. */
  aside?: [number, Encoded][];
}

interface Header {
  size: number;
  weights: boolean;
  columns: ColumnHeader[];
}

type Typed = ColumnArray;

const align8 = (n: number): number => (n + 7) & ~7;

export function encodePage(page: Page): Uint8Array {
  const { rows, weights } = page;
  const header: Header = {
    size: rows.size,
    weights: weights !== undefined,
    columns: rows.columns.map((c) => {
      const h: ColumnHeader = { kind: c.kind, tags: c.tags !== null };
      if (c.kind === 'str' || c.kind === 'opq') h.strs = Array.from({ length: rows.size }, (_, i) => c.strs[i] ?? null);
      const aside: [number, Encoded][] = [];
      c.aside.forEach((v, id) => {
        if (v !== undefined) aside.push([id, encodeValue(v)]);
      });
      if (aside.length > 0) h.aside = aside;
      return h;
    }),
  };
  const text = Buffer.from(JSON.stringify(header), 'utf8');
  const arrays: Typed[] = rows.columns.flatMap(columnArrays);
  if (weights) arrays.push(weights);
  let length = align8(4 + text.length);
  for (const a of arrays) length += align8(a.byteLength);
  const bytes = Buffer.alloc(length);
  bytes.writeUInt32LE(text.length, 0);
  text.copy(bytes, 4);
  let at = align8(4 + text.length);
  for (const a of arrays) {
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align8(a.byteLength);
  }
  return bytes;
}

export function decodePage(bytes: Uint8Array): Page {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const textLength = view.readUInt32LE(0);
  const header = JSON.parse(view.toString('utf8', 4, 4 + textLength)) as Header;
  const n = header.size;
  let at = align8(4 + textLength);
  /** The next array: its bytes copied out (aligned, and free of the page's buffer). */
  const next = <A extends Typed>(make: (buffer: ArrayBuffer) => A, width: number): A => {
    const start = view.byteOffset + at;
    at += align8(n * width);
    return make(view.buffer.slice(start, start + n * width) as ArrayBuffer);
  };
  const columns = header.columns.map((h): PackedColumn => {
    const c: PackedColumn = {
      kind: h.kind,
      f64: new Float64Array(0),
      i64: new BigInt64Array(0),
      scale: new Int16Array(0),
      small: new Uint8Array(0),
      strs: h.strs ? h.strs.map((s) => s ?? undefined) : [],
      tags: null,
      aside: [],
    };
    if (h.kind === 'f64') c.f64 = next((b) => new Float64Array(b), 8);
    if (h.kind === 'i64' || h.kind === 'num') c.i64 = next((b) => new BigInt64Array(b), 8);
    if (h.kind === 'num') c.scale = next((b) => new Int16Array(b), 2);
    if (h.kind === 'bool') c.small = next((b) => new Uint8Array(b), 1);
    if (h.tags) c.tags = next((b) => new Uint8Array(b), 1);
    for (const [id, v] of h.aside ?? []) c.aside[id] = decodeValue(v);
    return c;
  });
  const weights = header.weights ? next((b) => new Float64Array(b), 8) : undefined;
  return { rows: { size: n, columns }, weights };
}
