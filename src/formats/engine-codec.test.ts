import { describe, expect, it } from 'vitest';
import { rawNumber } from '../model/exact-json.js';
import { decodeBody } from './engine-codec.js';

// The engine thread's decoder: the format of the request's query picks the decoder, and what
// crosses between the threads is checked against the parsed query's shape.

const COLUMNS = [
  { name: 'k', type: 'integer', nullable: false },
  { name: 's', type: 'text', nullable: true },
];

describe('decodeBody', () => {
  it('decodes JSON in the update format and flavor named, and CSV by the columns', () => {
    const json = decodeBody(
      '[{"insert":{"k":1,"s":"a"}},{"delete":[2,"b"]}]',
      {
        format: 'json',
        update_format: 'insert_delete',
        array: true,
        json_flavor: 'default',
      },
      COLUMNS,
    );
    expect(json.changes).toEqual([
      { weight: 1, row: { k: 1, s: 'a' } },
      { weight: -1, row: { k: 2, s: 'b' } },
    ]);
    const csv = decodeBody(
      '3,c\n4,\n',
      { format: 'csv', update_format: 'insert_delete', array: false, json_flavor: 'default' },
      COLUMNS,
    );
    expect(csv.changes.map((c) => c.row)).toEqual([
      { k: '3', s: 'c' },
      { k: '4', s: null },
    ]);
    expect(csv.records).toBe(2);
  });

  it('reads a json or jsonb column’s CSV field as JSON text, as COPY … CSV does', () => {
    const columns = [
      { name: 'k', type: 'integer', nullable: false },
      { name: 'j', type: 'json', nullable: true },
      { name: 'b', type: 'jsonb', nullable: true },
      { name: 's', type: 'text', nullable: true },
    ];
    const csv = decodeBody(
      '1,"{""a"":[1,2.50]}","""x""",{}\n2,,7,\n3,{oops},1,x\n4,"",1,x\n5,"[1,""a,b""]",true,y\n',
      { format: 'csv', update_format: 'insert_delete', array: false, json_flavor: 'default' },
      columns,
    );
    expect(csv.records).toBe(5);
    expect(JSON.stringify(csv.changes.map((c) => c.row))).toBe(
      JSON.stringify([
        { k: '1', j: { a: [1, rawNumber('2.50')] }, b: 'x', s: '{}' },
        { k: '2', j: null, b: 7, s: null },
        { k: '5', j: [1, 'a,b'], b: true, s: 'y' },
      ]),
    );
    // A field that is not JSON (the empty string is not) fails its record, naming the column.
    expect(csv.errors).toEqual([
      { index: 2, message: 'record 2: column j: invalid input syntax for type json' },
      { index: 3, message: 'record 3: column j: invalid input syntax for type json' },
    ]);
  });

  it('refuses options that are not a parsed ingress query', () => {
    expect(() => decodeBody('', { format: 'json', array: 'true' }, COLUMNS)).toThrow(/array/);
  });
});
