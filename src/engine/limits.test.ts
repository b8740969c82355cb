import { describe, expect, it } from 'vitest';
import { depthError, MAX_DEPTH } from './limits.js';

// A record's depth is bounded (hostile input): exactly MAX_DEPTH levels of arrays and objects pass,
// one more does not, and a value far deeper than the stack is refused, not a RangeError.

/** `levels` levels of nesting, arrays and objects taking turns, with a scalar at the bottom. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

describe('depthError', () => {
  it('passes MAX_DEPTH levels and refuses one more, arrays and objects alike', () => {
    expect(depthError(nested(MAX_DEPTH))).toBeUndefined();
    expect(depthError(nested(MAX_DEPTH + 1))).toMatch(`more than ${MAX_DEPTH} levels deep`);
    expect(depthError({ a: 1, b: [nested(MAX_DEPTH - 2)], c: 'x' })).toBeUndefined();
    expect(depthError({ a: 1, b: [2, nested(MAX_DEPTH - 1)] })).toBeDefined();
    expect(depthError(null)).toBeUndefined();
    // Own members only: a deep value the record inherits is not the record's.
    const inheriting = Object.assign(Object.create({ deep: nested(MAX_DEPTH + 5) }) as object, { a: 1 });
    expect(depthError(inheriting)).toBeUndefined();
    expect(depthError({ a: 'x', b: true, c: null, d: { e: nested(MAX_DEPTH) } })).toBeDefined();
  });

  it('refuses a value 100,000 levels deep without running out of stack', () => {
    expect(depthError(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toBeDefined();
    expect(depthError(nested(100_000))).toBeDefined();
  });
});
