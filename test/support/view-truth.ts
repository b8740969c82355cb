import fc from 'fast-check';
import { expect } from 'vitest';
import type { ProgramEngine } from '../../src/engine/engine.js';
import type { Row } from '../../src/engine/types.js';
import { heldChanges } from './held-rows.js';

/**
 * Random steps of inserts and deletes of `row`s into `table`, and after each, every one of `views`
 * equal to PostgreSQL's evaluation of it from scratch (an ad-hoc query of the view over the tables).
 */
export async function viewsFollowTruth<R extends Row>(
  engine: ProgramEngine,
  table: string,
  row: fc.Arbitrary<R>,
  views: readonly string[],
  numRuns: number,
): Promise<void> {
  const held: R[] = [];
  const ops = fc.array(fc.record({ insert: fc.boolean(), row, pick: fc.nat() }), { minLength: 1, maxLength: 8 });
  await fc.assert(
    fc.asyncProperty(ops, async (step) => {
      expect((await engine.ingest(table, heldChanges(held, step))).errors).toEqual([]);
      await engine.step();
      for (const view of views) {
        const truth = (await engine.query(`SELECT * FROM public.${view}`)).rows.map((r) => JSON.stringify(r)).sort();
        const kept = (await engine.snapshot(view)).map((r) => JSON.stringify(r)).sort();
        expect(kept, `${view} after ${JSON.stringify(held)}`).toEqual(truth);
      }
    }),
    { numRuns },
  );
}
