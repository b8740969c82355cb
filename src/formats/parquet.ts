import { ByteWriter, parquetWrite, type SchemaElement } from 'hyparquet-writer';
import type { QueryResult } from '../engine/types.js';
import { type ColumnKind, toColumns } from './columnar.js';

// GET /query?format=parquet: the result as one Parquet file (hyparquet-writer), every column
// optional (SQL columns may hold NULL), typed from its PostgreSQL type (src/formats/columnar.ts).

const PARQUET: Record<ColumnKind, Omit<SchemaElement, 'name'>> = {
  bool: { type: 'BOOLEAN' },
  int16: { type: 'INT32', converted_type: 'INT_16' },
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  float32: { type: 'FLOAT' },
  float64: { type: 'DOUBLE' },
  date: { type: 'INT32', converted_type: 'DATE' },
  timestamp: { type: 'INT64', converted_type: 'TIMESTAMP_MICROS' },
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
};

export function toParquet(result: QueryResult): Uint8Array {
  const columns = toColumns(result.columns, result.rows);
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    columnData: columns.map((c) => ({ name: c.name, data: c.values })),
    schema: [
      { name: 'root', num_children: columns.length },
      ...columns.map((c): SchemaElement => ({ name: c.name, ...PARQUET[c.kind], repetition_type: 'OPTIONAL' })),
    ],
  });
  return new Uint8Array(writer.getBuffer());
}
