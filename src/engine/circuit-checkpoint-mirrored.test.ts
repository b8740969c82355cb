import { afterEach, describe, expect, it } from 'vitest';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import type { DumpedPage } from './dump.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { StatePage } from './state.js';
import type { Change } from './types.js';

// A program in which a view PGlite evaluates reads a native view (which the native path then writes
// back into PGlite: mirrored) checkpoints its circuits' state too: a resume takes it back, PGlite
// evaluates its copy of the mirrored view from its own tables, and both go on as before the restart.

const PROGRAM = `
  CREATE TABLE o (id bigint NOT NULL, c int, amount numeric(12,3));
  CREATE TABLE c (id int PRIMARY KEY, region text);
  CREATE VIEW per_c AS SELECT c, count(*) AS n, sum(amount) AS s, max(id) AS hi FROM o GROUP BY c;
  CREATE MATERIALIZED VIEW busy AS
    SELECT p.c, p.s, p.hi, lower(c.region) AS region FROM per_c p JOIN c ON c.id = p.c WHERE p.n > 1;
  CREATE VIEW joined AS SELECT o.id, c.region FROM o JOIN c ON c.id = o.c;`;
const VIEWS = ['per_c', 'busy', 'joined'];

const order = (id: number, c: number | null, amount: string | null, weight = 1): Change => ({
  weight,
  row: { id, c, amount },
});
const FIRST: [string, Change[]][] = [
  ['o', [...Array.from({ length: 60 }, (_, i) => order(i, i % 4, `-${i}.5`)), order(100, null, '1')]],
  ['c', [0, 1, 2].map((id) => ({ weight: 1, row: { id, region: `r${id}` } }))],
];
/** After the restart: the largest id of group 1 goes (its max is found again), a group empties, a customer moves. */
const LATER: [string, Change[]][] = [
  ['o', [order(57, 1, '-57.5', -1), order(200, 3, '2')]],
  ['o', Array.from({ length: 15 }, (_, k) => order(4 * k + 2, 2, `-${4 * k + 2}.5`, -1))],
  // Group 0 is not touched before: PGlite joins its customer's move with its copy of per_c alone.
  ['c', [{ weight: 1, row: { id: 0, region: 'moved' } }]],
];

const engines: ProgramEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});
async function open(workers: number): Promise<ProgramEngine> {
  const engine = await openEngine(PROGRAM, { workers });
  engines.push(engine);
  for (const v of VIEWS) engine.watch(v);
  return engine;
}
const sorted = (rows: unknown[]) => [...rows].map((r) => JSON.stringify(r)).sort();

describe('a mirrored native view through a checkpoint', { timeout: 120_000 }, () => {
  for (const workers of [1, 2])
    it(`resumes its circuit state, and PGlite's copy of it (workers ${workers})`, async () => {
      const before = await open(workers);
      expect(before.resolve('per_c', 'view')?.maintenance).toBe('native');
      expect(before.resolve('busy', 'view')?.maintenance).not.toBe('native');
      for (const [table, changes] of FIRST) await before.ingest(table, changes);
      await before.step();
      const pages: StatePage[] = [];
      await before.dump(async (p: DumpedPage) => void pages.push({ ...p, rows: parseSpelled(p.json) as JsonValue[] }));
      expect(new Set(pages.filter((p) => p.section === 'circuit').map((p) => p.name))).toEqual(
        new Set(['per_c', 'joined']),
      );
      const after = await open(workers);
      const restored = await after.restore(
        {
          views: VIEWS,
          pages: (async function* () {
            yield* pages;
          })(),
        },
        true,
      );
      expect(restored.circuits).toEqual({ resumed: true });
      expect(sorted(await after.snapshot('busy'))).toEqual(sorted(await before.snapshot('busy')));
      for (const [table, changes] of LATER) {
        await before.ingest(table, changes);
        await after.ingest(table, changes);
        const [a, b] = [await before.step(), await after.step()];
        for (const v of VIEWS) expect(sorted(b.outputs.get(v) ?? []), v).toEqual(sorted(a.outputs.get(v) ?? []));
      }
      const busy = await after.snapshot('busy');
      expect(sorted(busy)).toEqual(sorted(await before.snapshot('busy')));
      // Group 1 lost id 57, its largest: the next largest, 53, came from the state taken back.
      expect(busy.find((r) => r['c'] === 1)).toMatchObject({ hi: 53, region: 'r1' });
      expect(busy.find((r) => r['c'] === 0)).toMatchObject({ hi: 56, region: 'moved' });
      expect(busy.some((r) => r['c'] === 2)).toBe(false);
    });
});
