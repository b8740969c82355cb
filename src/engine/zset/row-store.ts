import { finite, isNumeric } from '../expressions/numeric.js';
import type { OpaqueValue, Value } from '../expressions/types.js';
import { sameValue } from './row-hash.js';
import type { Row } from './zset.js';

// Rows kept by an operator's state (a table's copies, a trace, a view's integral), held by column in
// typed arrays and addressed by a row id, rather than as an array and boxed values per row. Measured
// on bench:engine's orders (bigint, int, numeric(10,2), text): a kept row cost ~250 bytes of heap
// (its array, a bigint, a numeric object and its bigint) and every one of them was copied twice by
// the young generation's collector before it settled; held here it costs ~34 bytes and nothing of it
// is an object. Reading a row back makes a fresh array (young garbage, cheap to collect).
//
// A column takes its representation from the first value it holds (operators do not know types, and
// need not: a column of one relation holds one JS type): numbers as float64 (exact for int2/int4 and
// float8, -0 and NaN included), bigints as int64, finite numerics whose digits fit in int64 as digits
// and scale, strings and booleans as themselves, an opaque value whose JSON is a string (a date, a
// timestamp) as that string. NULL, and any value the representation cannot hold (a NaN numeric,
// another opaque value), is marked in a tag array made on first need and kept aside.

const ENTRY = 0;
const NULL = 1;
const ASIDE = 2;

export type Kind = 'none' | 'f64' | 'i64' | 'num' | 'str' | 'opq' | 'bool' | 'aside';

/** An opaque value held by its JSON string alone: its identity text is that string's JSON. */
const isOpaqueText = (v: Value): v is OpaqueValue =>
  typeof v === 'object' && v !== null && 'json' in v && typeof v.json === 'string';

const fitsI64 = (n: bigint): boolean => BigInt.asIntN(64, n) === n;

/** Whether `v` is the finite numeric of digits `n` at `scale`. */
const sameFinite = (v: Value, n: bigint, scale: number): boolean =>
  isNumeric(v) && v.kind === 'finite' && v.scale === scale && v.n === n;

function kindOf(v: Value): Kind {
  switch (typeof v) {
    case 'number':
      return 'f64';
    case 'bigint':
      return 'i64';
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    default:
      return isNumeric(v) ? 'num' : isOpaqueText(v) ? 'opq' : 'aside';
  }
}

/** A column of a packed batch (RowStore.pack): what a Column holds, to post to another thread. */
export interface PackedColumn {
  kind: Kind;
  f64: Float64Array;
  i64: BigInt64Array;
  scale: Int16Array;
  small: Uint8Array;
  strs: (string | undefined)[];
  tags: Uint8Array | null;
  aside: (Value | undefined)[];
}

export type ColumnArray = Float64Array | BigInt64Array | Int16Array | Uint8Array;

/** A column's typed arrays, those its kind uses and its tags, in one order (a page's bytes follow it). */
export function columnArrays(c: PackedColumn): ColumnArray[] {
  const out: ColumnArray[] = [];
  if (c.kind === 'f64') out.push(c.f64);
  if (c.kind === 'i64' || c.kind === 'num') out.push(c.i64);
  if (c.kind === 'num') out.push(c.scale);
  if (c.kind === 'bool') out.push(c.small);
  if (c.tags) out.push(c.tags);
  return out;
}

/** Rows as columns, ids 0… in order: a batch crossing between threads (its buffers transferred). */
export interface PackedRows {
  size: number;
  columns: PackedColumn[];
}

class Column implements PackedColumn {
  kind: Kind = 'none';
  f64 = new Float64Array(0);
  i64 = new BigInt64Array(0);
  scale = new Int16Array(0);
  small = new Uint8Array(0);
  strs: (string | undefined)[] = [];
  tags: Uint8Array | null = null;
  aside: (Value | undefined)[] = [];

  constructor(private capacity: number) {}

  /** Whether `v` goes into the column's typed representation (choosing it on the first value). */
  private holds(v: Value): boolean {
    if (v === null) return false;
    if (this.kind === 'none') this.choose(kindOf(v));
    switch (this.kind) {
      case 'f64':
        return typeof v === 'number';
      case 'i64':
        return typeof v === 'bigint';
      case 'str':
        return typeof v === 'string';
      case 'opq':
        return isOpaqueText(v);
      case 'bool':
        return typeof v === 'boolean';
      case 'num':
        return isNumeric(v) && v.kind === 'finite' && fitsI64(v.n) && v.scale < 32768;
      default:
        return false;
    }
  }

  private choose(kind: Kind): void {
    this.kind = kind;
    this.resize(this.capacity);
  }

  resize(capacity: number): void {
    const grow = <A extends Float64Array | BigInt64Array | Int16Array | Uint8Array>(
      a: A,
      make: (n: number) => A,
    ): A => {
      const b = make(capacity);
      b.set(a as never);
      return b;
    };
    this.capacity = capacity;
    if (this.kind === 'f64') this.f64 = grow(this.f64, (n) => new Float64Array(n));
    if (this.kind === 'i64' || this.kind === 'num') this.i64 = grow(this.i64, (n) => new BigInt64Array(n));
    if (this.kind === 'num') this.scale = grow(this.scale, (n) => new Int16Array(n));
    if (this.kind === 'bool') this.small = grow(this.small, (n) => new Uint8Array(n));
    if (this.tags) this.tags = grow(this.tags, (n) => new Uint8Array(n));
  }

  private tag(id: number, t: number): void {
    if (!this.tags) {
      if (t === ENTRY) return;
      this.tags = new Uint8Array(this.capacity);
    }
    this.tags[id] = t;
  }

  write(id: number, v: Value): void {
    if (!this.holds(v)) {
      this.tag(id, v === null ? NULL : ASIDE);
      if (v !== null) this.aside[id] = v;
      return;
    }
    this.tag(id, ENTRY);
    switch (this.kind) {
      case 'f64':
        this.f64[id] = v as number;
        return;
      case 'i64':
        this.i64[id] = v as bigint;
        return;
      case 'num':
        this.i64[id] = (v as { n: bigint }).n;
        this.scale[id] = (v as { scale: number }).scale;
        return;
      case 'str':
        this.strs[id] = v as string;
        return;
      case 'opq':
        this.strs[id] = (v as OpaqueValue).json as string;
        return;
      default:
        this.small[id] = v ? 1 : 0;
    }
  }

  read(id: number): Value {
    const t = this.tags === null ? ENTRY : this.tags[id];
    if (t === NULL) return null;
    if (t === ASIDE) return this.aside[id]!;
    switch (this.kind) {
      case 'f64':
        return this.f64[id]!;
      case 'i64':
        return this.i64[id]!;
      case 'num':
        return finite(this.i64[id]!, this.scale[id]!);
      case 'str':
        return this.strs[id]!;
      case 'opq': {
        const json = this.strs[id]!;
        return { json, text: JSON.stringify(json) };
      }
      default:
        return this.small[id] === 1;
    }
  }

  /** Whether the slot holds a value the same as `v` (sameValue, without reading it back). */
  same(id: number, v: Value): boolean {
    const t = this.tags === null ? ENTRY : this.tags[id];
    if (t === NULL) return v === null;
    if (t === ASIDE) return sameValue(this.aside[id]!, v);
    switch (this.kind) {
      case 'f64':
        return typeof v === 'number' && Object.is(this.f64[id], v);
      case 'i64':
        return typeof v === 'bigint' && this.i64[id] === v;
      case 'num':
        return sameFinite(v, this.i64[id]!, this.scale[id]!);
      case 'str':
        return this.strs[id] === v;
      case 'opq':
        return isOpaqueText(v) && this.strs[id] === v.json;
      default:
        return typeof v === 'boolean' && this.small[id] === (v ? 1 : 0);
    }
  }

  /** Drops what the slot keeps alive (a string, a value kept aside). */
  release(id: number): void {
    if (this.kind === 'str' || this.kind === 'opq') this.strs[id] = undefined;
    if (this.tags?.[id] === ASIDE) this.aside[id] = undefined;
  }
}

/** Rows of one width, each under an id that stays its own until it is freed (then reused). */
export class RowStore {
  private columns: Column[] = [];
  private next = 0;
  private readonly free: number[] = [];

  /** `capacity`: the rows it will hold before its arrays grow. */
  constructor(private capacity = 0) {}

  /**
   * The rows as columns sized to them exactly, for postMessage with `transfers` (a structured clone
   * of typed arrays is a copy of bytes, or none when transferred, where an array of rows is an object
   * graph walked value by value: measured, most of the cost of the exchange between shards).
   */
  static pack(rows: readonly Row[]): PackedRows {
    const store = new RowStore(rows.length);
    for (const row of rows) store.add(row);
    return { size: rows.length, columns: store.columns };
  }

  /**
   * Its rows as columns sized to them exactly, ids 0… in order (a sealed page of a log, which never
   * frees an id: traces/row-log.ts). The store gives its arrays away: it is not used again.
   */
  seal(): PackedRows {
    if (this.free.length > 0) throw new Error('internal: sealing a store with freed ids');
    if (this.capacity !== this.next) for (const c of this.columns) c.resize(this.next);
    return { size: this.next, columns: this.columns };
  }

  /** The buffers of a packed batch, to transfer rather than copy. */
  static transfers(p: PackedRows): ArrayBuffer[] {
    return p.columns.flatMap(columnArrays).flatMap((a) => (a.length > 0 ? [a.buffer as ArrayBuffer] : []));
  }

  /** The rows of a packed batch (as posted: its columns' prototypes are gone, their fields remain). */
  static unpack(p: PackedRows): Row[] {
    const store = new RowStore(p.size);
    store.columns = p.columns.map((c) => Object.assign(new Column(p.size), c));
    store.next = p.size;
    return Array.from({ length: p.size }, (_, id) => store.row(id));
  }

  /** Rows held. */
  get size(): number {
    return this.next - this.free.length;
  }

  /** Keeps the row; returns its id. */
  add(row: Row): number {
    const id = this.slot(row.length);
    for (let c = 0; c < row.length; c++) this.columns[c]!.write(id, row[c]!);
    return id;
  }

  /** Keeps the row's columns at `columns` (in that order) as a row of their own; returns its id. */
  addPicked(row: Row, columns: readonly number[]): number {
    const id = this.slot(columns.length);
    for (let c = 0; c < columns.length; c++) this.columns[c]!.write(id, row[columns[c]!]!);
    return id;
  }

  /** A free id for a row of `width` columns, or the next one (the arrays made or grown as needed). */
  private slot(width: number): number {
    if (this.columns.length === 0 && this.next === 0)
      this.columns = Array.from({ length: width }, () => new Column(this.capacity));
    if (width !== this.columns.length)
      throw new Error(`internal: a row of ${width} columns in a store of ${this.columns.length}`);
    const id = this.free.pop();
    if (id !== undefined) return id;
    if (this.next === this.capacity) this.grow();
    return this.next++;
  }

  private grow(): void {
    this.capacity = Math.max(16, this.capacity * 2);
    for (const c of this.columns) c.resize(this.capacity);
  }

  /** The row (a fresh array). */
  row(id: number): Row {
    const cols = this.columns;
    const row = new Array<Value>(cols.length);
    for (let c = 0; c < cols.length; c++) row[c] = cols[c]!.read(id);
    return row;
  }

  /** Whether row `id` is the same as `row` (sameRow). */
  same(id: number, row: Row): boolean {
    const cols = this.columns;
    if (row.length !== cols.length) return false;
    for (let c = 0; c < cols.length; c++) if (!cols[c]!.same(id, row[c]!)) return false;
    return true;
  }

  /** Column `c` of row `id`. */
  value(id: number, c: number): Value {
    return this.columns[c]!.read(id);
  }

  get width(): number {
    return this.columns.length;
  }

  /** Forgets the row; its id may be given to another. */
  release(id: number): void {
    for (const c of this.columns) c.release(id);
    this.free.push(id);
  }

  clear(): void {
    this.columns = [];
    this.capacity = 0;
    this.next = 0;
    this.free.length = 0;
  }
}
