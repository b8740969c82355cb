import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT4, INT8, TEXT, type SqlType, type Value } from '../expressions/types.js';
import { comparatorOf } from '../expressions/values.js';
import type { JsonValue } from '../../model/json.js';
import { aggregateKind, SAVED_VALUES } from './accumulators.js';

// MIN/MAX against the plain multiset of the values it was given, after every change: it keeps the
// best value found and searches again only when that value's last copy goes, so a mistake shows as
// a stale or missed best. Its state through a checkpoint (an entry of at most SAVED_VALUES values
// and further parts) comes back with the same values, and the copy goes on giving the same results.

const kinds: [string, SqlType, fc.Arbitrary<Value>][] = [
  ['int4', INT4, fc.integer({ min: -6, max: 6 })],
  ['int8', INT8, fc.bigInt({ min: -6n, max: 6n })],
  ['text', TEXT, fc.constantFrom('', 'a', 'B', 'b', 'ü', '日', 'aa')],
];

/** The min or max of the values whose copies do not sum to 0 (what PostgreSQL would see). */
function truth(held: Map<Value, number>, name: string, type: SqlType): Value {
  const compare = comparatorOf(type.base);
  const values = [...held].filter(([, n]) => n !== 0).map(([v]) => v);
  if (values.length === 0) return null;
  return values.reduce((best, v) => ((name === 'min' ? compare(v, best) < 0 : compare(v, best) > 0) ? v : best));
}

describe('MIN/MAX', () => {
  for (const [label, type, value] of kinds)
    for (const name of ['min', 'max'])
      it(`${name} of ${label} is the multiset's after every change, and through its saved state`, () => {
        // Deletes only of copies held, as a step's consolidated input gives them; NULLs are skipped.
        const op = fc.record({ value: fc.option(value), weight: fc.integer({ min: -2, max: 3 }) });
        fc.assert(
          fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
            const acc = aggregateKind(name, type).make();
            const held = new Map<Value, number>();
            for (const { value: v, weight } of ops) {
              const n = v === null ? 0 : (held.get(v) ?? 0);
              const w = weight < 0 ? -Math.min(n, -weight) : weight;
              acc.add(v, w);
              if (v !== null) held.set(v, n + w);
              expect(acc.result()).toEqual(truth(held, name, type));
            }
            const copy = aggregateKind(name, type).make();
            const state = JSON.parse(JSON.stringify(acc.save())) as JsonValue;
            copy.load(state);
            for (const part of acc.saveMore?.() ?? []) copy.loadMore!(part);
            expect(copy.result()).toEqual(acc.result());
            // Every held value's copies went back: taking each away leaves the copy empty.
            for (const [v, n] of held) if (n !== 0) copy.add(v, -n);
            expect(copy.result()).toBe(null);
          }),
          { numRuns: 300 },
        );
      });

  it(`saves a group of many values as entries of at most ${SAVED_VALUES}, taken back whole`, () => {
    const acc = aggregateKind('max', INT4).make();
    for (let v = 0; v < 2_345; v++) acc.add(v, (v % 3) + 1);
    const first = acc.save() as JsonValue[];
    const more = [...acc.saveMore!()] as JsonValue[][];
    expect([first, ...more].map((p) => p.length / 2)).toEqual([1_000, 1_000, 345]);
    const copy = aggregateKind('max', INT4).make();
    copy.load(first);
    for (const part of more) copy.loadMore!(part);
    // The largest values go one by one: each time the next is found among those taken back.
    for (let v = 2_344; v >= 2_340; v--) {
      expect(copy.result()).toBe(v);
      copy.add(v, -((v % 3) + 1));
    }
    expect(copy.result()).toBe(2_339);
    expect(() => copy.loadMore!([5, 1])).toThrow('holds a null, a value twice or none of it');
    expect(() => copy.loadMore!([2_400, 0])).toThrow('holds a null, a value twice or none of it');
  });
});
