import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeOf } from './expressions/types.js';
import { valueToJson } from './expressions/values.js';
import { rowMaker } from './json-rows.js';

// A relation's row maker is generated code with the column names in it: whatever the names (quotes,
// backslashes, line and paragraph separators, lone surrogates, "__proto__" and the other members of
// Object.prototype), the row has exactly those own members, with the row's values.

const name = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '"', '\\', '\u2028', '\u2029', '${x}', '`'),
);

describe('rowMaker', () => {
  it('makes own members named as the columns, whatever the names', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 8 }), (names) => {
        const types = names.map(() => typeOf('integer'));
        const row = names.map((_, i) => i * 10);
        const made = rowMaker(names, types, valueToJson)(row);
        expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
        // (Keys that are array indices come first in any object: compared by name, not by order.)
        expect(Object.keys(made).sort()).toEqual([...names].sort());
        for (const [i, n] of names.entries()) expect(Object.getOwnPropertyDescriptor(made, n)?.value).toBe(i * 10);
      }),
      { numRuns: 2_000 },
    );
  });
});
