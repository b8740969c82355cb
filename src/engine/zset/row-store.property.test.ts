import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finite } from '../expressions/numeric.js';
import { column, I64 } from '../../../test/support/native-values.js';
import { sameRow } from './row-hash.js';
import { RowStore } from './row-store.js';
import type { Row } from './zset.js';

// The columnar RowStore against the rows it was given: every row read back is the same row
// (sameRow, and the same JS values: -0 stays -0, a numeric keeps its scale), `same` agrees with
// sameRow, and ids freed and reused never show another row's values (a NULL or a value kept aside
// left behind by the id's previous row). Columns mix their JS types on purpose: the representation
// chosen by a column's first value must still hold whatever comes after.

const op = fc.oneof(
  fc.record({ add: fc.integer({ min: 0, max: 59 }) }),
  fc.record({ release: fc.integer({ min: 0, max: 59 }) }),
);

describe('RowStore', () => {
  it('reads back every row it holds, through frees and reuse of ids', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }).chain((w) => fc.tuple(column(w), fc.array(op, { maxLength: 200 }))),
        ([rows, ops]) => {
          if (rows.length === 0) return;
          const store = new RowStore();
          const held = new Map<number, Row>();
          for (const o of ops) {
            if ('add' in o) {
              const row = rows[o.add % rows.length]!;
              const id = store.add(row);
              expect(held.has(id), `id ${id} given twice`).toBe(false);
              held.set(id, row);
            } else if (held.size > 0) {
              const id = [...held.keys()][o.release % held.size]!;
              store.release(id);
              held.delete(id);
            }
            expect(store.size).toBe(held.size);
          }
          for (const [id, row] of held) {
            const back = store.row(id);
            expect(sameRow(back, row), `row ${id}`).toBe(true);
            back.forEach((v, c) => expect(Object.is(v, row[c]) || sameRow([v], [row[c]!])).toBe(true));
            expect(store.same(id, row)).toBe(true);
            for (const other of rows) expect(store.same(id, other)).toBe(sameRow(row, other));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('packs rows into columns that cross a thread boundary (structured clone, buffers transferred) intact', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }).chain((w) => column(w)),
        (rows) => {
          const packed = RowStore.pack(rows);
          const posted = structuredClone(packed, { transfer: RowStore.transfers(packed) });
          const back = RowStore.unpack(posted);
          expect(back).toHaveLength(rows.length);
          back.forEach((row, i) => {
            expect(sameRow(row, rows[i]!), `row ${i}`).toBe(true);
            row.forEach((v, c) => expect(Object.is(v, rows[i]![c]) || sameRow([v], [rows[i]![c]!])).toBe(true));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps a numeric whose digits do not fit in 64 bits, and -0 apart from 0', () => {
    const store = new RowStore();
    const big = finite(I64 * 10n, 2);
    const a = store.add([finite(150n, 2), 0]);
    const b = store.add([big, -0]);
    expect(store.row(b)).toEqual([big, -0]);
    expect(Object.is(store.value(b, 1), -0)).toBe(true);
    expect(store.same(a, [finite(15n, 1), 0])).toBe(false);
    expect(store.same(a, [finite(150n, 2), -0])).toBe(false);
    expect(store.same(a, [finite(150n, 2), 0])).toBe(true);
  });

  it('refuses a row of another width', () => {
    const store = new RowStore();
    store.add([1, 'a']);
    expect(() => store.add([1])).toThrow(/1 columns in a store of 2/);
  });
});
