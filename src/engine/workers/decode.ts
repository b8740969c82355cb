import type { SqlType } from '../expressions/types.js';
import type { EngineCodec } from '../host/hosted.js';
import { shapeError } from '../ingest.js';
import { columnReader, recordReader, type RecordReader } from '../native-input.js';
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

export type DecodedPart =
  | {
      rows: Row[];
      weights: number[];
      /** Records in the part, and the record (within the part) of each row. */
      records: number;
      indexes: number[];
    }
  | { whole: string };

export class PartDecoder {
  private readonly readers = new Map<string, RecordReader>();

  constructor(private readonly codec: EngineCodec | undefined) {}

  private reader(table: DecodeTable): RecordReader {
    let read = this.readers.get(table.name);
    if (!read) {
      const readers = table.columns.map((c, i) => columnReader(c, table.types[i]!));
      if (readers.some((r) => r === undefined)) throw new Error(`table ${table.name} is not native`);
      read = recordReader(table.columns, readers as NonNullable<(typeof readers)[number]>[]);
      this.readers.set(table.name, read);
    }
    return read;
  }

  decode(table: DecodeTable, text: string, format: unknown): DecodedPart {
    if (!this.codec) return { whole: 'no codec on this thread' };
    let body;
    try {
      body = this.codec.decodeBody(text, format, table.columns);
    } catch (error) {
      return { whole: String(error) };
    }
    if (body.errors.length > 0) return { whole: 'a record has an error' };
    const read = this.reader(table);
    const rows = new Array<Row>(body.changes.length);
    const weights = new Array<number>(body.changes.length);
    for (let i = 0; i < body.changes.length; i++) {
      const change = body.changes[i]!;
      if (shapeError(change) !== undefined) return { whole: 'a record has an error' };
      const row = read(change.row);
      if (!row) return { whole: "a value for PostgreSQL's conversion" };
      rows[i] = row;
      weights[i] = change.weight;
    }
    return { rows, weights, records: body.records, indexes: body.indexes };
  }
}
