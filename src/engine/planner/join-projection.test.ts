import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from '../engine.js';
import { openEngine } from '../open.js';
import type { Change, Row } from '../types.js';

// A SELECT list of plain columns over a join is output by the join itself (Join.projecting): the
// columns picked from the two rows, in any order, a subset, the right side's first, and the NULLs
// of an unmatched left row. Each view is compared after every step with its query evaluated from
// scratch by PostgreSQL, as a snapshot and as the sum of the changes it emitted. The property test's
// joins select every column in order; these do not.

const VIEWS = {
  picked: 'SELECT o.id, c.region, o.amount FROM orders o JOIN customers c ON c.id = o.customer',
  swapped: 'SELECT c.region, o.id FROM orders o LEFT JOIN customers c ON c.id = o.customer',
  repeated: 'SELECT c.id AS cid, o.id, c.id AS again FROM orders o JOIN customers c ON c.id = o.customer',
  computed: 'SELECT o.amount * 2 AS doubled, c.region FROM orders o JOIN customers c ON c.id = o.customer',
  widened: 'SELECT o.customer::bigint AS customer, c.region FROM orders o LEFT JOIN customers c ON c.id = o.customer',
  // The left trace keeps no column at all (only each key's weights), the right one only region.
  regions: 'SELECT c.region FROM orders o JOIN customers c ON c.id = o.customer',
  left_regions: 'SELECT c.region FROM orders o LEFT JOIN customers c ON c.id = o.customer',
  amounts: 'SELECT o.amount FROM orders o JOIN customers c ON c.id = o.customer',
};
const PROGRAM = `
  CREATE TABLE orders (id bigint NOT NULL, customer int NOT NULL, amount numeric(10,2) NOT NULL) WITH ('materialized' = 'true');
  CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL) WITH ('materialized' = 'true');
  ${Object.entries(VIEWS)
    .map(([name, sql]) => `CREATE VIEW ${name} AS ${sql};`)
    .join('\n')}
`;

const sorted = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).sort();

/** The rows the changes add up to. */
function summed(changes: readonly Change[]): Row[] {
  const counts = new Map<string, number>();
  for (const c of changes) {
    const k = JSON.stringify(c.row);
    counts.set(k, (counts.get(k) ?? 0) + c.weight);
  }
  return [...counts].flatMap(([k, n]) => Array.from({ length: n }, () => JSON.parse(k) as Row));
}

/** Orders 10… of customer 1, all of amount 7: rows a narrowed trace holds as one. */
const sameAmount = (ids: number[], weight: number): Change[] =>
  ids.map((id) => ({ weight, row: { id, customer: 1, amount: 7 } }));
const MANY = Array.from({ length: 12 }, (_, k) => 10 + k);

const STEPS: { table: 'orders' | 'customers'; changes: Change[] }[][] = [
  [
    {
      table: 'orders',
      changes: [1, 2, 3, 4].map((i) => ({ weight: 1, row: { id: i, customer: (i % 2) + 1, amount: i * 1.5 } })),
    },
  ],
  [{ table: 'customers', changes: [{ weight: 1, row: { id: 1, region: 'north' } }] }],
  [
    { table: 'customers', changes: [{ weight: 1, row: { id: 2, region: 'south' } }] },
    { table: 'orders', changes: [{ weight: 1, row: { id: 5, customer: 2, amount: 9.99 } }] },
  ],
  [{ table: 'customers', changes: [{ weight: 1, row: { id: 1, region: 'east' } }] }],
  [
    { table: 'customers', changes: [{ weight: -1, row: { id: 2, region: 'south' } }] },
    { table: 'orders', changes: [{ weight: -1, row: { id: 1, customer: 2, amount: 1.5 } }] },
  ],
  // Enough deletes in one key for its trace to be consolidated, by the narrowed rows.
  [{ table: 'orders', changes: sameAmount(MANY, 1) }],
  [{ table: 'orders', changes: sameAmount(MANY.slice(0, 9), -1) }],
  [{ table: 'customers', changes: [{ weight: -1, row: { id: 1, region: 'east' } }] }],
  [{ table: 'customers', changes: [{ weight: 1, row: { id: 1, region: 'west' } }] }],
  [{ table: 'orders', changes: sameAmount(MANY.slice(9), -1) }],
];

describe.each([1, 3])('a join outputs its plain columns itself (workers %i)', { timeout: 120_000 }, (workers) => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM, { workers });
  }, 120_000);
  afterAll(() => engine?.close());

  it('equals PostgreSQL from scratch after every step', async () => {
    for (const name of Object.keys(VIEWS)) expect(engine.resolve(name, 'view')?.maintenance, name).toBe('native');
    for (const name of Object.keys(VIEWS)) engine.watch(name);
    const emitted = new Map<string, Change[]>(Object.keys(VIEWS).map((v) => [v, []]));
    for (const [i, step] of STEPS.entries()) {
      for (const { table, changes } of step) expect((await engine.ingest(table, changes)).errors).toEqual([]);
      const { outputs } = await engine.step();
      for (const [view, changes] of outputs) emitted.get(view)?.push(...changes);
      for (const [name, sql] of Object.entries(VIEWS)) {
        const truth = sorted((await engine.query(sql)).rows as Row[]);
        expect(sorted(await engine.snapshot(name)), `${name} after step ${i + 1}`).toEqual(truth);
        expect(sorted(summed(emitted.get(name)!)), `${name}'s changes after step ${i + 1}`).toEqual(truth);
      }
    }
    // The LEFT join's unmatched rows were there (customer 2 deleted last).
    expect(await engine.snapshot('swapped')).toContainEqual({ region: null, id: 3 });
  });
});
