import {
  Bool,
  type DataType,
  DateDay,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  makeData,
  makeVector,
  Table,
  tableToIPC,
  TimestampMicrosecond,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import type { QueryResult } from '../engine/types.js';
import { type ColumnKind, type ColumnValue, toColumns } from './columnar.js';

// GET /query?format=arrow_ipc: the result as an Arrow IPC stream (apache-arrow), one record batch,
// each column typed from its PostgreSQL type (src/formats/columnar.ts).

const ARROW: Record<ColumnKind, () => DataType> = {
  bool: () => new Bool(),
  int16: () => new Int16(),
  int32: () => new Int32(),
  int64: () => new Int64(),
  float32: () => new Float32(),
  float64: () => new Float64(),
  date: () => new DateDay(),
  timestamp: () => new TimestampMicrosecond(),
  string: () => new Utf8(),
};

/**
 * Timestamps arrive as exact microseconds (bigint); the builder of a timestamp column takes
 * milliseconds as a float, so the column is built as Int64 and given the timestamp type.
 */
function timestampVector(values: ColumnValue[]): Vector {
  // A long column comes out of the builder in several chunks: each keeps its buffers, typed anew.
  const chunks = vectorFromArray(values, new Int64()).data.map((ints) =>
    makeData({
      type: new TimestampMicrosecond(),
      length: ints.length,
      nullCount: ints.nullCount,
      nullBitmap: ints.nullBitmap,
      data: ints.values,
    }),
  );
  return makeVector(chunks);
}

export function toArrowIpc(result: QueryResult): Uint8Array {
  const vectors: Record<string, Vector> = {};
  for (const c of toColumns(result.columns, result.rows))
    vectors[c.name] = c.kind === 'timestamp' ? timestampVector(c.values) : vectorFromArray(c.values, ARROW[c.kind]());
  return tableToIPC(new Table(vectors), 'stream');
}
