import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExact } from '../../model/exact-json.js';
import { finite, numericText } from './numeric.js';
import { valueToJson } from './values.js';

// A numeric's JSON is its text read as the PGlite path reads it: a double when the text has at most
// 15 characters, else parseExact's exact number. valueToJson computes the short ones without the
// text (digits / 10^scale); this holds it to the text's reading, digit counts and scales at the edge.

const byText = (n: bigint, scale: number): unknown => {
  const text = numericText(finite(n, scale));
  return text.length <= 15 ? Number(text) : (parseExact(`[${text}]`) as unknown[])[0];
};

const digits = fc.oneof(
  fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }),
  fc.integer({ min: 0, max: 17 }).chain((k) => fc.constantFrom(10n ** BigInt(k), 10n ** BigInt(k) - 1n)),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
  fc.constantFrom(0n, 1n, -1n, 999_999_999_999_999n, -99_999_999_999_999n, 100_000_000_000_000n),
);
const signed = fc.tuple(digits, fc.boolean()).map(([n, neg]) => (neg ? -n : n));

describe('valueToJson of numerics', () => {
  it('equals the reading of its text', () => {
    fc.assert(
      fc.property(signed, fc.integer({ min: 0, max: 20 }), (n, scale) => {
        const got = valueToJson('numeric', finite(n, scale));
        const want = byText(n, scale);
        if (typeof want === 'number') expect(Object.is(got, want), `${n}e-${scale}: ${String(got)}`).toBe(true);
        else expect(got).toEqual(want);
      }),
      { numRuns: 20_000 },
    );
  });
});
