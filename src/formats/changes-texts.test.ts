import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change } from '../engine/types.js';
import { parseExact, rawNumber } from '../model/exact-json.js';
import { changesTexts, encodeChunk, jsonChunkLine } from './encode.js';

// The texts the engine's thread writes a step's changes as (changesTexts) are exactly what the main
// thread made of them before, when it parsed the changes' JSON (parseExact) and encoded them again:
// the changes parse to the same values, exact numbers included, and a JSON egress line built from
// json_data is byte for byte encodeChunk's of those parsed changes, weights of ±n as n copies.

const value = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.constant(null),
  fc.boolean(),
  fc
    .constantFrom('9223372036854775807', '2.50', '-0.000000000000000000001', '1e400', '-0', '1e-07', '-0.00', '-0.50')
    .map((t) => rawNumber(t)),
  // Numerics as views give them: cents, and lengths either side of 15 characters.
  fc
    .oneof(
      fc.integer({ min: -10_000_000, max: 10_000_000 }).map((c) => (c / 100).toFixed(2)),
      fc.constantFrom(
        '123456789012345',
        '1234567890.1234',
        '1234567890.12345',
        '0.000000000000001',
        '100000000000000.0',
        '9007199254740993',
        '0.1234567890123457',
      ),
    )
    .map((t) => rawNumber(t)),
  fc.array(fc.constantFrom(rawNumber('1.0'), rawNumber('123456789012345678'), 1), { maxLength: 2 }),
);
const change = fc.record({
  weight: fc.integer({ min: -3, max: 3 }).filter((w) => w !== 0),
  row: fc.dictionary(fc.string({ maxLength: 5 }), value, { maxKeys: 4 }),
}) as fc.Arbitrary<Change>;

describe('changesTexts', () => {
  it('parses back to the changes and makes the JSON egress line encodeChunk makes', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 20 }), fc.nat(), fc.nat(), (changes, seq, step) => {
        const texts = changesTexts(changes);
        const parsed = parseExact(JSON.stringify(changes)) as Change[];
        expect(JSON.stringify(parseExact(texts.changes))).toBe(JSON.stringify(parsed));
        const head = { sequence_number: seq, snapshot: false };
        const before = encodeChunk(head, 'json', parsed, []);
        expect(jsonChunkLine(head, texts.jsonData, step)).toBe(before.slice(0, -2) + `,"processed_steps":${step}}\n`);
      }),
      { numRuns: 300 },
    );
  });

  it('writes a weight of ±n as n inserts or deletes', () => {
    const texts = changesTexts([
      { weight: 2, row: { a: 1 } },
      { weight: -1, row: { a: rawNumber('2.50') as never } },
    ]);
    expect(texts.jsonData).toBe('[{"insert":{"a":1}},{"insert":{"a":1}},{"delete":{"a":2.5}}]');
    expect(texts.changes).toBe('[{"weight":2,"row":{"a":1}},{"weight":-1,"row":{"a":2.5}}]');
  });
});
