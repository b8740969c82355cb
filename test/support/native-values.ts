import fc from 'fast-check';
import { finite, NAN } from '../../src/engine/expressions/numeric.js';
import type { Value } from '../../src/engine/expressions/types.js';

// Values of the native path's rows as its stores hold them (zset/row-store.ts, traces/row-log.ts),
// with the edges each representation must keep: -0, NaN, doubles and bigints at their limits,
// numerics of every scale and of more digits than 64 bits hold, NaN and infinite numerics, texts,
// booleans, NULL and opaque values.

export const I64 = 2n ** 63n;
export const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.constantFrom(0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 31)),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: -I64, max: I64 - 1n }),
  fc.constantFrom(I64 - 1n, -I64, 0n),
  fc
    .record({ n: fc.bigInt({ min: -(I64 * 4n), max: I64 * 4n }), scale: fc.integer({ min: 0, max: 40 }) })
    .map(({ n, scale }) => finite(n, scale)),
  fc.constantFrom(finite(150n, 2), finite(15n, 1), finite(0n, 0), NAN, { kind: 'inf' as const, sign: -1 as const }),
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.string({ maxLength: 4 }).map((s) => ({ json: s, text: JSON.stringify(s) })),
);

/** Values of one column: mostly one JS type (as a relation's column is), sometimes any other. */
export const column = (width: number) =>
  fc.array(fc.array(value, { minLength: width, maxLength: width }), { maxLength: 60 });
