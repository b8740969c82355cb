import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayLose } from './exact-json.js';

// mayLose decides whether an ingress body goes through the exact (reviver) parse. It must say yes
// wherever the regular expression it replaced did (a no there would round a number silently), and it
// says no elsewhere (a yes costs the reviver). Held to that expression on text made of the
// characters that matter: digits, dots, exponents, signs, separators and whitespace, in runs around
// the length of 16 where the skipping scan looks at every 16th character.

const REFERENCE = /\d[\d.]{15}|[eE][+-]?\d{3}|[:,[]\s*-0(?![\d.]*[1-9])/;

const piece = fc.oneof(
  fc.constantFrom('0', '1', '9', '.', 'e', 'E', '+', '-', ':', ',', '[', ' ', '\n', '\u00a0', '"', 'x', '-0', '-0.0'),
  fc.array(fc.constantFrom('0', '5', '9', '.'), { minLength: 1, maxLength: 20 }).map((cs) => cs.join('')),
  fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String),
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 40 }).map((p) => p.join('')),
  fc.string({ maxLength: 60 }),
);

describe('mayLose', () => {
  it('is the regular expression it replaced, on any text', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(mayLose(t)).toBe(REFERENCE.test(t));
      }),
      { numRuns: 5_000 },
    );
  });

  it('finds a run of 16 wherever it starts and ends', () => {
    for (let before = 0; before < 40; before++)
      for (const run of ['1234567890123456', '.234567890123456', '1.34567890123456', '123456789012345'])
        for (const around of ['x', '.', ' '])
          for (const after of [0, 1, 17]) {
            const t = `${around.repeat(before)}${run}${around.repeat(after)}`;
            expect(mayLose(t), JSON.stringify(t)).toBe(REFERENCE.test(t));
          }
  });
});
