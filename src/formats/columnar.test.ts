import { tableFromIPC } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../engine/types.js';
import { toArrowIpc } from './arrow.js';
import { columnKind, timestampMicros } from './columnar.js';
import { toParquet } from './parquet.js';

// The columnar query answers, read back by the libraries users read them with (apache-arrow, and
// hyparquet for Parquet): every kind, NULLs, and values a float or a Date would round.

const RESULT: QueryResult = {
  columns: [
    { name: 'b', type: 'boolean', nullable: true },
    { name: 'i16', type: 'smallint', nullable: true },
    { name: 'i', type: 'integer', nullable: true },
    { name: 'big', type: 'bigint', nullable: true },
    { name: 'f', type: 'real', nullable: true },
    { name: 'd', type: 'double precision', nullable: true },
    { name: 'day', type: 'date', nullable: true },
    { name: 'ts', type: 'timestamp without time zone', nullable: true },
    { name: 'tz', type: 'timestamp with time zone', nullable: true },
    { name: 'n', type: 'numeric', nullable: true },
    { name: 's', type: 'text', nullable: true },
    { name: 'arr', type: 'integer[]', nullable: true },
  ],
  rows: [
    {
      b: true,
      i16: -3,
      i: 7,
      big: 4_000_000_000_000,
      f: 1.5,
      d: 0.1,
      day: '2024-02-29',
      ts: '2024-01-02T03:04:05.678901',
      tz: '2024-01-02T03:04:05.5+02:00',
      n: 1.25,
      s: 'é',
      arr: [1, 2],
    },
    {
      b: null,
      i16: null,
      i: null,
      big: null,
      f: null,
      d: null,
      day: null,
      ts: null,
      tz: null,
      n: null,
      s: null,
      arr: null,
    },
  ],
};
const TS = 1704164645678901n;
const TZ = 1704157445500000n;

describe('columnar query answers', () => {
  it('maps PostgreSQL types to columnar kinds, everything else to text', () => {
    expect(RESULT.columns.map((c) => columnKind(c.type))).toEqual([
      'bool',
      'int16',
      'int32',
      'int64',
      'float32',
      'float64',
      'date',
      'timestamp',
      'timestamp',
      'string',
      'string',
      'string',
    ]);
    expect(timestampMicros('2024-01-02T03:04:05.678901')).toBe(TS);
    expect(timestampMicros('2024-01-02T03:04:05')).toBe(1704164645000000n);
    expect(() => timestampMicros('yesterday')).toThrow(/not a timestamp/);
  });

  it('arrow_ipc: types, values and NULLs read back by apache-arrow', () => {
    const table = tableFromIPC(toArrowIpc(RESULT));
    expect(table.schema.fields.map((f) => `${f.name}:${String(f.type)}`)).toEqual([
      'b:Bool',
      'i16:Int16',
      'i:Int32',
      'big:Int64',
      'f:Float32',
      'd:Float64',
      'day:Date32<DAY>',
      'ts:Timestamp<MICROSECOND>',
      'tz:Timestamp<MICROSECOND>',
      'n:Utf8',
      's:Utf8',
      'arr:Utf8',
    ]);
    const col = (name: string) => table.getChild(name)!;
    expect([col('b').get(0), col('i16').get(0), col('i').get(0), col('big').get(0)]).toEqual([
      true,
      -3,
      7,
      4_000_000_000_000n,
    ]);
    expect([col('f').get(0), col('d').get(0), col('s').get(0), col('arr').get(0)]).toEqual([1.5, 0.1, 'é', '[1,2]']);
    expect(col('day').get(0)).toBe(Date.UTC(2024, 1, 29));
    // The raw 64-bit values: microseconds, exact.
    expect(col('ts').data[0]!.values[0]).toBe(TS);
    expect(col('tz').data[0]!.values[0]).toBe(TZ);
    expect(col('n').get(0)).toBe('1.25');
    expect(table.schema.fields.map((f) => col(f.name).get(1))).toEqual(Array(12).fill(null));
  });

  it('parquet: schema, values and NULLs read back by hyparquet', async () => {
    const bytes = toParquet(RESULT);
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const schema = parquetSchema(parquetMetadata(file));
    expect(schema.children.map((c) => [c.element.name, c.element.type, c.element.repetition_type])).toEqual([
      ['b', 'BOOLEAN', 'OPTIONAL'],
      ['i16', 'INT32', 'OPTIONAL'],
      ['i', 'INT32', 'OPTIONAL'],
      ['big', 'INT64', 'OPTIONAL'],
      ['f', 'FLOAT', 'OPTIONAL'],
      ['d', 'DOUBLE', 'OPTIONAL'],
      ['day', 'INT32', 'OPTIONAL'],
      ['ts', 'INT64', 'OPTIONAL'],
      ['tz', 'INT64', 'OPTIONAL'],
      ['n', 'BYTE_ARRAY', 'OPTIONAL'],
      ['s', 'BYTE_ARRAY', 'OPTIONAL'],
      ['arr', 'BYTE_ARRAY', 'OPTIONAL'],
    ]);
    const [row, empty] = await parquetReadObjects({ file, utf8: true });
    expect(row).toMatchObject({
      b: true,
      i16: -3,
      i: 7,
      big: 4_000_000_000_000n,
      f: 1.5,
      d: 0.1,
      s: 'é',
      arr: '[1,2]',
    });
    expect(row?.['day']).toEqual(new Date(Date.UTC(2024, 1, 29)));
    // hyparquet hands TIMESTAMP_MICROS back as Dates (milliseconds); the file holds microseconds.
    expect((row?.['ts'] as Date).getTime()).toBe(Number(TS / 1000n));
    expect((row?.['tz'] as Date).getTime()).toBe(Number(TZ / 1000n));
    expect(Object.values(empty ?? {})).toEqual(Array(12).fill(null));
  });
});
