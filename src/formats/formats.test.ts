import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeJson } from './json-decode.js';
import { decodeCsv, splitCsv } from './csv-decode.js';
import { csvChanges, encodeChunk } from './encode.js';
import { pgArrayText } from './pg-array-text.js';
import { rawNumber } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { Row } from '../engine/types.js';

describe('json ingress', () => {
  it('insert_delete, one event per line; bad lines reported by position, the rest kept', () => {
    const d = decodeJson(
      '{"insert":{"a":1}}\n\nnot json\n{"delete":{"a":2}}\n{"update":{"a":3}}\n',
      'insert_delete',
      false,
    );
    expect(d.changes).toEqual([
      { weight: 1, row: { a: 1 } },
      { weight: -1, row: { a: 2 } },
    ]);
    expect(d.indexes).toEqual([0, 2]);
    expect(d.records).toBe(4);
    expect(d.errors.map((e) => e.index)).toEqual([1, 3]);
    expect(d.errors[0]?.message).toMatch(/record 1: not valid JSON/);
    expect(d.errors[1]?.message).toMatch(/"update"/);
  });
  it('raw and weighted, array=true', () => {
    expect(decodeJson('[{"a":1},{"a":2}]', 'raw', true).changes).toEqual([
      { weight: 1, row: { a: 1 } },
      { weight: 1, row: { a: 2 } },
    ]);
    const w = decodeJson(
      '[{"weight":-2,"data":{"a":1}},{"weight":0,"data":{}},{"weight":1,"data":3}]',
      'weighted',
      true,
    );
    expect(w.changes).toEqual([{ weight: -2, row: { a: 1 } }]);
    expect(w.errors.map((e) => e.message)).toEqual([
      'record 1: "weight" must be a non-zero integer, got 0',
      'record 2: "data" must be a row object, got a number',
    ]);
  });
  it('debezium: before and after make the change; an op that is not Debezium’s is refused', () => {
    const d = decodeJson(
      [
        '{"payload":{"before":null,"after":{"a":1},"op":"c"}}',
        '{"payload":{"before":{"a":1},"after":{"a":2},"op":"u"}}',
        '{"payload":{"before":{"a":2},"after":null,"op":"d"}}',
        '{"payload":{"before":null,"after":{"a":3},"op":"r"}}',
        '{"payload":{"before":null,"after":{"a":4}}}',
        '{"payload":{"before":null,"after":{"a":5},"op":"z"}}',
        '{"payload":{"after":{"a":6},"op":1}}',
      ].join('\n'),
      'debezium',
      false,
    );
    expect(d.changes.map((c) => [c.weight, c.row['a']])).toEqual([
      [1, 1],
      [-1, 1],
      [1, 2],
      [-1, 2],
      [1, 3],
      [1, 4],
    ]);
    expect(d.errors.map((e) => e.message)).toEqual([
      'record 5: "payload.op" must be one of "c", "u", "d", "r", got "z"',
      'record 6: "payload.op" must be one of "c", "u", "d", "r", got a number',
    ]);
  });
  it('array=true with a body that is not an array names it', () => {
    expect(decodeJson('{"a":1}', 'raw', true).errors[0]?.message).toMatch(/expects a JSON array/);
    expect(decodeJson('[1,', 'raw', true).errors[0]?.message).toMatch(/not valid JSON/);
  });
  it('fuzz: never throws; every record is either a change or an error naming its position', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom('insert_delete', 'raw', 'weighted' as const),
        fc.boolean(),
        (text, f, array) => {
          const d = decodeJson(text, f, array);
          expect(d.changes.length + d.errors.length).toBe(d.records);
          for (const e of d.errors)
            expect(e.message).toMatch(array && e.index === 0 ? /array|JSON|record 0/ : new RegExp(`record ${e.index}`));
        },
      ),
    );
  });
});

describe('csv ingress', () => {
  it('RFC 4180 quoting, NULL vs empty string, CRLF', () => {
    const d = decodeCsv('1,"a,b"\r\n2,"say ""hi"""\n3,\n4,""\n', ['id', 's']);
    expect(d.errors).toEqual([]);
    expect(d.changes.map((c) => c.row)).toEqual([
      { id: '1', s: 'a,b' },
      { id: '2', s: 'say "hi"' },
      { id: '3', s: null },
      { id: '4', s: '' },
    ]);
  });
  it('a quoted field may hold a line end', () => {
    expect(decodeCsv('1,"x\ny"\n', ['id', 's']).changes[0]?.row).toEqual({ id: '1', s: 'x\ny' });
  });
  it('wrong field counts and bad quotes are per-record errors; the other records go in', () => {
    const d = decodeCsv('1,a\n2\n3,"b"x\n4,d"e\n5,e\n', ['id', 's']);
    expect(d.changes.map((c) => c.row.id)).toEqual(['1', '5']);
    expect(d.indexes).toEqual([0, 4]);
    expect(d.errors.map((e) => e.index)).toEqual([1, 2, 3]);
    expect(d.errors[0]?.message).toBe('record 1: expected 2 fields (id, s), got 1');
    expect(d.errors[1]?.message).toMatch(/field 2: unexpected character after closing quote/);
    expect(d.errors[2]?.message).toMatch(/field 2: quote inside an unquoted field/);
  });
  it('an unclosed quote is reported', () => {
    expect(decodeCsv('1,"abc\n', ['id', 's']).errors[0]?.message).toMatch(/never closed/);
  });
  it('fuzz: what the encoder writes, the decoder reads back; random text never throws', () => {
    const value = fc.option(fc.string(), { nil: null });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { maxLength: 8 }), (rows) => {
        const changes = rows.map(([a, b]) => ({ weight: 1, row: { a, b } }));
        // The encoder appends the weight: read it back as a third column.
        const d = decodeCsv(csvChanges(changes, ['a', 'b']), ['a', 'b', 'w']);
        expect(d.errors).toEqual([]);
        expect(d.changes.map((c) => ({ a: c.row.a, b: c.row.b }))).toEqual(rows.map(([a, b]) => ({ a, b })));
      }),
    );
    // A column holding JSON is written as JSON text and read back as the same value, strings included.
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.option(fc.jsonValue(), { nil: null }), value), { maxLength: 8 }), (rows) => {
        const changes = rows.map(([j, b]) => ({ weight: 1, row: { j, b } as Row }));
        const json = new Set(['j']);
        const d = decodeCsv(csvChanges(changes, ['j', 'b'], json), ['j', 'b', 'w'], json);
        expect(d.errors).toEqual([]);
        // -0 is written as 0 (JSON.stringify), and a JSON null as SQL NULL, which is what it reads as.
        const expected = rows.map(([j, b]) => JSON.stringify({ j, b }));
        expect(d.changes.map((c) => JSON.stringify({ j: c.row.j, b: c.row.b }))).toEqual(expected);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const d = decodeCsv(text, ['a', 'b']);
        expect(d.changes.length + d.errors.length).toBe(d.records);
        expect(splitCsv(text).length).toBe(d.records);
      }),
    );
  });
});

describe('pgArrayText', () => {
  it('writes arrays as PostgreSQL does, quoting only what its input would read otherwise', () => {
    expect(
      pgArrayText([
        1,
        null,
        'a b',
        'NULL',
        'null',
        '',
        'q"u',
        'b\\s',
        'x,y',
        '{z}',
        true,
        rawNumber('2.50') as JsonValue,
      ]),
    ).toBe('{1,NULL,"a b","NULL","null","","q\\"u","b\\\\s","x,y","{z}",true,2.50}');
    expect(
      pgArrayText([
        [1, 2],
        [3, null],
      ]),
    ).toBe('{{1,2},{3,NULL}}');
    expect(pgArrayText([])).toBe('{}');
    expect(csvChanges([{ weight: 1, row: { a: ['x y', null] } }], ['a'])).toBe('"{""x y"",NULL}",1\n');
  });
});

describe('egress chunks', () => {
  it('json: insert/delete per copy of the row', () => {
    const line = encodeChunk(
      { sequence_number: 3, snapshot: false },
      'json',
      [
        { weight: 2, row: { a: 1 } },
        { weight: -1, row: { a: 2 } },
      ],
      ['a'],
    );
    expect(JSON.parse(line)).toEqual({
      sequence_number: 3,
      snapshot: false,
      json_data: [{ insert: { a: 1 } }, { insert: { a: 1 } }, { delete: { a: 2 } }],
    });
    expect(line.endsWith('\n')).toBe(true);
  });
  it('csv: text_data in column order with the weight appended', () => {
    const line = encodeChunk(
      { sequence_number: 0, snapshot: true },
      'csv',
      [{ weight: -1, row: { b: 'x,y', a: null } }],
      ['a', 'b'],
    );
    expect(JSON.parse(line)).toEqual({ sequence_number: 0, snapshot: true, text_data: ',"x,y",-1\n' });
  });
});
