import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSpelled } from '../../model/exact-json.js';
import { finite, NAN } from '../expressions/numeric.js';
import type { Value } from '../expressions/types.js';
import { sameRow } from '../zset/row-hash.js';
import { CircuitStateError, decodeRow, decodeValue, encodeRow } from './codec.js';

// Circuit state goes into a checkpoint line with JSON.stringify and comes back through the
// checkpoint's exact parser (parseSpelled): every native value must come back the same value, by
// the identity the engine's rows are compared with (sameRow), and as the same JavaScript value.

const double = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, 2 ** 53 + 2, -(2 ** 53), 0.1, 1e300, 5e-324),
);
const numeric = fc.oneof(
  fc
    .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 30 }))
    .map(([n, s]) => finite(n, s)),
  fc.constantFrom(NAN, { kind: 'inf', sign: 1 } as const, { kind: 'inf', sign: -1 } as const, finite(250n, 2)),
);
const opaque = fc
  .oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.uuid(),
    fc.jsonValue(),
  )
  .map((json) => ({ json, text: JSON.stringify(json) }));
const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ unit: 'grapheme' }),
  fc.integer(),
  double,
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  numeric,
  opaque,
);

describe('circuit state values', () => {
  it('come back from a checkpoint line as the same values', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 6 }), (row) => {
        const back = decodeRow(parseSpelled(JSON.stringify(encodeRow(row))));
        expect(sameRow(back, row)).toBe(true);
        back.forEach((v, i) => {
          const was = row[i]!;
          if (typeof was === 'number') expect(Object.is(v, was)).toBe(true);
          else if (typeof was === 'object' && was !== null && 'json' in was)
            expect(JSON.stringify((v as { json: unknown }).json)).toBe(was.text);
          else expect(v).toEqual(was);
        });
      }),
      { numRuns: 5_000 },
    );
  });

  it('that were not written by encodeValue are refused by name, never taken as something else', () => {
    for (const bad of [{ x: 1 }, 1.5, { n: '1' }, { i: 3 }, [1], undefined])
      expect(() => decodeValue(bad)).toThrow(CircuitStateError);
  });
});
