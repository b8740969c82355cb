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
