import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ColumnInfo } from '../engine/types.js';
import type { BodyFormat } from '../model/data-queries.js';
import { decodeBody } from './engine-codec.js';
import { splitBody } from './split-body.js';

// The cut of an ingress body for the shards (split-body.ts): parts that all decode without an error
// decode, one after the other, to exactly the whole body's changes, record numbers and count; a cut
// that fell inside a string or a nested value leaves a part in error (and the whole body is then
// decoded as one). Checked over random bodies built to be cut in the wrong places: strings holding
// `},`, `},{`, brackets, quotes and newlines, nested objects and arrays, whitespace between
// records, and broken bodies (a character dropped, a trailing comma with or without space after it,
// text after the array).

const COLUMNS: ColumnInfo[] = [
  { name: 'k', type: 'integer', nullable: true },
  { name: 's', type: 'text', nullable: true },
  { name: 'j', type: 'jsonb', nullable: true },
] as ColumnInfo[];

const tricky = fc.constantFrom('},', '},{', '}', '{', '[', ']', ',', '"', '\\', '\n', ' ', 'a', 'é', '"insert":');
const text = fc.array(tricky, { maxLength: 6 }).map((xs) => xs.join(''));
const nested = fc.oneof(
  fc.constant(null),
  fc.record({ a: text }),
  fc.array(fc.record({ x: fc.integer(), y: text }), { maxLength: 3 }),
);
const row = fc.record({ k: fc.integer({ min: -5, max: 5 }), s: text, j: nested });
const event = fc.oneof(
  row.map((r) => ({ insert: r })),
  row.map((r) => ({ delete: r })),
);
const gap = fc.constantFrom('', ' ', '\n', ' \n ');

/** A body of `events`, compact or spaced, and broken in one of a few ways or not at all. */
const body = fc
  .tuple(fc.array(event, { minLength: 0, maxLength: 12 }), gap, fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 5 }))
  .map(([events, space, array, at, broken]) => {
    const records = events.map((e) => JSON.stringify(e));
    let t = array ? `[${records.join(`,${space}`)}]` : records.join('\n');
    if (broken === 1 && t.length > 0) t = t.slice(0, at % t.length) + t.slice((at % t.length) + 1);
    if (broken === 2 && array) t = `${t.slice(0, -1)},]`;
    if (broken === 3) t = `${t} x`;
    if (broken === 4 && array) t = `${t.slice(0, -1)},${space || ' '}]`;
    return { t, array };
  });

const formatOf = (array: boolean): BodyFormat => ({
  format: 'json',
  update_format: 'insert_delete',
  array,
  json_flavor: 'default',
});

describe('splitBody', () => {
  it('gives parts that, when all decode cleanly, decode to the whole body', () => {
    let cleanCuts = 0;
    fc.assert(
      fc.property(body, fc.integer({ min: 2, max: 4 }), ({ t, array }, parts) => {
        const format = formatOf(array);
        const cut = splitBody(t, format, parts);
        if (!cut) return;
        expect(cut.length).toBeLessThanOrEqual(parts);
        const decoded = cut.map((p) => decodeBody(p, format, COLUMNS));
        if (decoded.some((d) => d.errors.length > 0)) return;
        cleanCuts++;
        const whole = decodeBody(t, format, COLUMNS);
        expect(whole.errors).toEqual([]);
        expect(decoded.flatMap((d) => d.changes)).toEqual(whole.changes);
        let before = 0;
        const indexes = decoded.flatMap((d) => {
          const shifted = d.indexes.map((i) => i + before);
          before += d.records;
          return shifted;
        });
        expect(indexes).toEqual(whole.indexes);
        expect(before).toBe(whole.records);
      }),
      { numRuns: 2000 },
    );
    // The property is not vacuous: most bodies are cut, and cleanly.
    expect(cleanCuts).toBeGreaterThan(500);
  });

  it('cuts a large array near equal shares and leaves CSV, one part and other shapes whole', () => {
    const records = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ insert: { k: i, s: 'x'.repeat(i % 13) } }));
    const parts = splitBody(`[${records.join(',')}]`, formatOf(true), 3)!;
    expect(parts).toHaveLength(3);
    const counts = parts.map((p) => (JSON.parse(p) as unknown[]).length);
    expect(counts.reduce((a, b) => a + b)).toBe(1000);
    for (const n of counts) expect(Math.abs(n - 333)).toBeLessThan(20);
    expect(splitBody('k,s\n1,a\n2,b\n', { ...formatOf(false), format: 'csv' }, 2)).toBeUndefined();
    expect(splitBody(`[${records.join(',')}]`, formatOf(true), 1)).toBeUndefined();
    expect(splitBody('{"insert":{"k":1}}', formatOf(true), 2)).toBeUndefined();
    expect(splitBody('[{"insert":{"k":1}}]', formatOf(true), 2)).toBeUndefined();
  });
});
