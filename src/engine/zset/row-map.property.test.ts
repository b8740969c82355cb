import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RowMap } from './row-map.js';

// The open-addressing RowMap against a plain Map keyed by the row's text, over random sets and
// removals: with real hashes, and with hashes that collide on purpose (few distinct values), so that
// long probe runs form and removals must shift entries back across them and across the table's end.

const op = fc.record({ k: fc.integer({ min: 0, max: 60 }), value: fc.option(fc.integer({ min: 1, max: 9 })) });

function agrees(ops: { k: number; value: number | null }[], hash: ((k: number) => number) | undefined): void {
  const map = new RowMap<number>();
  const truth = new Map<number, number>();
  for (const { k, value } of ops) {
    const row = [k, `r${k}`];
    const h = hash?.(k);
    if (value === null) {
      truth.delete(k);
      if (h === undefined) map.set(row, undefined);
      else map.set(row, undefined, h);
    } else {
      truth.set(k, value);
      if (h === undefined) map.set([k, `r${k}`], value);
      else map.set([k, `r${k}`], value, h);
    }
    expect(map.size).toBe(truth.size);
  }
  for (let k = 0; k <= 60; k++) {
    const h = hash?.(k);
    const got = h === undefined ? map.get([k, `r${k}`]) : map.get([k, `r${k}`], h);
    expect(got, `row ${k}`).toBe(truth.get(k));
  }
  const entries = [...map.entries()].map(([row, v]) => [row[0], v]).sort((a, b) => Number(a[0]) - Number(b[0]));
  expect(entries).toEqual([...truth.entries()].sort((a, b) => a[0] - b[0]));
}

describe('RowMap', () => {
  it('agrees with a Map under random sets and removals', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => agrees(ops, undefined)),
      { numRuns: 300 },
    );
  });

  it('agrees with a Map when hashes collide and wrap around the table', () => {
    // Hashes near the top of a 16- or 32-slot table, three of them only: runs wrap past the end.
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 5 }), (ops, spread) =>
        agrees(ops, (k) => 13 + (k % spread)),
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with a Map when rows hash to 0 (the mark of an empty slot) and next to it', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 4 }), (ops, spread) =>
        agrees(ops, (k) => [0, 1, -1, 16][k % spread]!),
      ),
      { numRuns: 300 },
    );
  });

  it('addTo keeps counts as get and set would, removing a row whose count reaches 0', () => {
    const delta = fc.record({ k: fc.integer({ min: 0, max: 30 }), d: fc.integer({ min: -3, max: 3 }) });
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 300 }), fc.integer({ min: 1, max: 4 }), (ops, spread) => {
        const map = new RowMap<number>();
        const truth = new Map<number, number>();
        for (const { k, d } of ops) {
          const h = [0, 1, -1, 16][k % spread]!;
          expect(map.addTo([k, `r${k}`], d, h)).toBe(truth.get(k) ?? 0);
          const after = (truth.get(k) ?? 0) + d;
          if (after === 0) truth.delete(k);
          else truth.set(k, after);
          expect(map.size).toBe(truth.size);
        }
        for (let k = 0; k <= 30; k++) expect(map.get([k, `r${k}`], [0, 1, -1, 16][k % spread]!)).toBe(truth.get(k));
      }),
      { numRuns: 300 },
    );
  });
});
