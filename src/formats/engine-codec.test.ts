import { describe, expect, it } from 'vitest';
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

  it('refuses options that are not a parsed ingress query', () => {
    expect(() => decodeBody('', { format: 'json', array: 'true' }, COLUMNS)).toThrow(/array/);
  });
});
