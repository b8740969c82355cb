import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finite } from '../expressions/numeric.js';
import { type Row, ZSet } from '../zset/zset.js';
import { Trace } from './trace.js';

// The trace (rows kept by id in a RowStore, consolidated now and then) against the plain sum of
// every delta it was given: for each key, the same rows with the same weights and the same total,
// and a key whose rows all went is gone. Few distinct rows and keys, so that rows come and go and
// consolidation (with its freeing and re-storing of rows) runs often.

const row = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom<Row[number]>(null, 'a', finite(150n, 2), -0, 0));
const change = fc.record({ key: fc.integer({ min: 0, max: 3 }), row, weight: fc.integer({ min: -2, max: 2 }) });

const text = (z: ZSet): string[] =>
  [...z.consolidate()]
    .map(
      ({ row: r, weight }) =>
        `${JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v))}×${weight}`,
    )
    .sort();

describe('Trace', () => {
  it('holds the sum of its deltas per key', () => {
    fc.assert(
      fc.property(fc.array(fc.array(change, { maxLength: 12 }), { maxLength: 40 }), (steps) => {
        const trace = new Trace();
        const truth = new Map<number, ZSet>();
        for (const step of steps) {
          const delta = new Map<number, ZSet>();
          for (const { key, row: r, weight } of step) {
            if (!delta.has(key)) delta.set(key, new ZSet());
            delta.get(key)!.add(r, weight);
            if (!truth.has(key)) truth.set(key, new ZSet());
            truth.get(key)!.add(r, weight);
          }
          trace.addIndexed(delta);
          for (let key = 0; key <= 3; key++) {
            const want = truth.get(key) ?? new ZSet();
            const got = trace.get(key);
            expect(got ? text(got) : [], `key ${key}`).toEqual(text(want));
            expect(trace.total(key)).toBe(want.count());
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
