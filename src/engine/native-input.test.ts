import { describe, expect, it } from 'vitest';
import { typeOf } from './expressions/types.js';
import { columnReader, recordReader } from './native-input.js';
import type { ColumnInfo } from './types.js';

// A native table's record reader is generated from its column names: any name (quotes, backslashes,
// line separators, Object.prototype's members, "__proto__") reads the record's own member of that
// name and nothing else, and a value the JS conversion does not decide leaves the record undecided.

const table = (names: string[], type = 'integer', nullable = true): ColumnInfo[] =>
  names.map((name) => ({ name, type, nullable }));
const readerOf = (columns: ColumnInfo[]) =>
  recordReader(
    columns,
    columns.map((c) => columnReader(c, typeOf(c.type))!),
  );

describe('recordReader', () => {
  it('reads each column by its own name, whatever the name', () => {
    const names = ['a', 'with "quotes"', 'back\\slash', 'line\u2028sep', '__proto__', 'constructor', 'toString', ''];
    const read = readerOf(table(names));
    const record = JSON.parse(
      '{"a": 1, "with \\"quotes\\"": 2, "back\\\\slash": 3, "line\\u2028sep": 4, "__proto__": 5, "constructor": 6, "toString": 7, "": 8}',
    ) as Record<string, unknown>;
    expect(read(record)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reads a missing member as NULL, never an inherited one', () => {
    const read = readerOf(table(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'x']));
    expect(read({})).toEqual([null, null, null, null, null]);
    const inheriting = Object.create({ x: 9 }) as Record<string, unknown>;
    expect(read(inheriting)).toEqual([null, null, null, null, null]);
  });

  it('leaves a record undecided when one value is, and a NOT NULL column missing', () => {
    const read = readerOf([...table(['a']), ...table(['b'], 'integer', false)]);
    expect(read({ a: 1, b: 2 })).toEqual([1, 2]);
    expect(read({ a: 'one', b: 2 })).toBeUndefined();
    expect(read({ a: 1 })).toBeUndefined();
    expect(read({ a: 2 ** 31, b: 2 })).toBeUndefined();
  });
});

describe('date and timestamp columns', () => {
  const read = (type: string, json: unknown) => {
    const value = columnReader({ name: 'c', type, nullable: true }, typeOf(type))!(json);
    return typeof value === 'symbol' ? 'undecided' : value;
  };
  const opaque = (text: string) => ({ json: text, text: JSON.stringify(text) });

  // The property test (native-input.property.test.ts) shows these agree with PostgreSQL; this one
  // that the common spellings are decided here at all, not left to PostgreSQL record by record.
  it('decides the ISO spellings as to_json prints them', () => {
    expect(read('date', '2024-02-29')).toEqual(opaque('2024-02-29'));
    expect(read('timestamp without time zone', '2024-01-01 12:00:00')).toEqual(opaque('2024-01-01T12:00:00'));
    expect(read('timestamp without time zone', '2024-01-01T12:00:00.500')).toEqual(opaque('2024-01-01T12:00:00.5'));
    expect(read('timestamp(3) without time zone', '2024-01-01 12:00:00.120')).toEqual(opaque('2024-01-01T12:00:00.12'));
    expect(read('timestamp with time zone', '2024-01-01 12:00:00')).toEqual(opaque('2024-01-01T12:00:00+00:00'));
    expect(read('timestamp with time zone', '2024-01-01T01:30:00.25+05:30')).toEqual(
      opaque('2023-12-31T20:00:00.25+00:00'),
    );
    expect(read('timestamp with time zone', '2024-12-31 23:00:00-01')).toEqual(opaque('2025-01-01T00:00:00+00:00'));
    expect(read('timestamp with time zone', '2024-02-28 23:00:00Z')).toEqual(opaque('2024-02-28T23:00:00+00:00'));
  });

  it('leaves the rest to PostgreSQL', () => {
    for (const json of ['2023-02-29', '2024-13-01', '0000-01-01', '10000-01-01', 'infinity', '2024-01-01 BC', 20240101])
      expect(read('date', json), String(json)).toBe('undecided');
    for (const json of ['2024-01-01 24:00:00', '2024-01-01 12:00:60', '2024-01-01 12:00', '2024-01-01 12:00:00Z'])
      expect(read('timestamp without time zone', json), json).toBe('undecided');
    expect(read('timestamp(3) without time zone', '2024-01-01 12:00:00.1234')).toBe('undecided');
    for (const json of [
      '2024-01-01 12:00:00+16',
      '0001-01-01 00:30:00+01',
      '9999-12-31 23:30:00-01',
      '2024-01-01 12:00:00 UTC',
    ])
      expect(read('timestamp with time zone', json), json).toBe('undecided');
  });
});
