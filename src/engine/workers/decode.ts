import type { SqlType } from '../expressions/types.js';
import type { EngineCodec } from '../host/hosted.js';
import { shapeError } from '../ingest.js';
import { type RecordReader, tableReader } from '../native-input.js';
import type { ColumnInfo } from '../types.js';
import type { Row } from '../zset/zset.js';

// A part of an ingress body decoded and converted for a native table on a shard's thread
// (ingress decoding spread over the workers, docs/engine.md): the codec's decoding, then the native
// table's own conversion (native-input.ts). Only a part whose every record decodes and converts in
// JS is taken; anything else (a record with an error, a value only PostgreSQL's conversion decides,
// a part that does not parse because its cut fell inside a record) sends the engine back to
// decoding the whole body on its thread, so that every answer and error is exactly as before.

/** A native table as a shard decodes for it. */
export interface DecodeTable {
  name: string;
  columns: ColumnInfo[];
  types: SqlType[];
}

export interface DecodedPart {
  rows: Row[];
  weights: number[];
  /** Records in the part, and the record (within the part) of each row. */
  records: number;
  indexes: number[];
}

export class PartDecoder {
  private readonly readers = new Map<string, RecordReader>();

  constructor(private readonly codec: EngineCodec | undefined) {}

  private reader(table: DecodeTable): RecordReader {
    let read = this.readers.get(table.name);
    if (!read) {
      read = tableReader(table.columns, table.types);
      if (!read) throw new Error(`table ${table.name} is not native`);
      this.readers.set(table.name, read);
    }
    return read;
  }

  /** The part's rows, or undefined: the whole body is to be decoded on the engine's thread. */
  decode(table: DecodeTable, text: string, format: unknown): DecodedPart | undefined {
    // No codec on this thread (it did not load): the engine's thread says why.
    if (!this.codec) return undefined;
    let body;
    try {
      body = this.codec.decodeBody(text, format, table.columns);
    } catch {
      return undefined; // the whole body throws the same on the engine's thread
    }
    if (body.errors.length > 0) return undefined;
    const read = this.reader(table);
    const rows = new Array<Row>(body.changes.length);
    const weights = new Array<number>(body.changes.length);
    for (let i = 0; i < body.changes.length; i++) {
      const change = body.changes[i]!;
      if (shapeError(change) !== undefined) return undefined;
      const row = read(change.row);
      if (!row) return undefined; // a value for PostgreSQL's conversion
      rows[i] = row;
      weights[i] = change.weight;
    }
    return { rows, weights, records: body.records, indexes: body.indexes };
  }
}
