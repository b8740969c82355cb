import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpelled } from '../model/exact-json.js';
import type { JsonValue } from '../model/json.js';
import { openEngine } from './open.js';
import type { StatePage } from './state.js';
import { PAGE_ROWS } from './traces/row-log.js';
import type { Change } from './types.js';

// A native table that only grows, with a spill directory (a pipeline's `<storage>/spill`): its full
// pages of rows are written there, by the engine's thread and by the shards that keep rows, and read
// back for what needs them whole (a checkpoint, its first delete, a snapshot), with every row as it
// came. The engine's close removes its files; nothing of them is left.

const PROGRAM = `
  CREATE TABLE ev (id bigint NOT NULL, k int NOT NULL, note text);
  CREATE MATERIALIZED VIEW per_k AS SELECT k, count(*) AS n, sum(id) AS s FROM ev GROUP BY k;`;
const ROWS = 2 * PAGE_ROWS + 1000;
const KEYS = 7;

const event = (i: number): Change => ({
  weight: 1,
  row: { id: i, k: i % KEYS, note: i % 5 === 0 ? null : `n${i % 11} é ${i}` },
});

/** The view's rows over the events of these ids. */
function perK(ids: number[]): { k: number; n: number; s: number }[] {
  const out = new Map<number, { k: number; n: number; s: number }>();
  for (const i of ids) {
    const g = out.get(i % KEYS) ?? { k: i % KEYS, n: 0, s: 0 };
    g.n += 1;
    g.s += i;
    out.set(g.k, g);
  }
  return [...out.values()].sort((a, b) => a.k - b.k);
}

const byK = (rows: Record<string, unknown>[]) =>
  rows.map((r) => ({ k: Number(r['k']), n: Number(r['n']), s: Number(r['s']) })).sort((a, b) => a.k - b.k);

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

describe.each([1, 2])('a native table spilled to disk, workers %i', { timeout: 120_000 }, (workers) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-spill-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes full pages out, reads them back for a checkpoint and a delete, and removes them on close', async () => {
    let engine = await openEngine(PROGRAM, { spill: { dir: join(dir, 'a'), minBytes: 0 }, workers });
    const pages: StatePage[] = [];
    try {
      expect(engine.resolve('ev', 'table')).toMatchObject({ maintenance: 'native' });
      for (let from = 0; from < ROWS; from += 5000) {
        const n = Math.min(5000, ROWS - from);
        await engine.ingest(
          'ev',
          Array.from({ length: n }, (_, j) => event(from + j)),
        );
        await engine.step();
      }
      // Two full pages (on whichever thread kept them) went to files, each bigger than its bigints.
      const files = filesUnder(join(dir, 'a'));
      expect(files.length).toBeGreaterThan(0);
      const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
      expect(bytes).toBeGreaterThan(2 * PAGE_ROWS * 8);
      expect(await engine.rowCounts()).toMatchObject({ ev: ROWS });
      await engine.dump(async (page) => void pages.push({ ...page, rows: parseSpelled(page.json) as JsonValue[] }));
      const held = (await engine.snapshot('ev')).map((r) => Number(r['id'])).sort((a, b) => a - b);
      expect(held).toEqual(Array.from({ length: ROWS }, (_, i) => i));
    } finally {
      await engine.close();
    }
    expect(filesUnder(dir)).toEqual([]);

    // The checkpoint's rows came back from the files whole: a restart has every row, as it came.
    engine = await openEngine(PROGRAM, { spill: { dir: join(dir, 'b'), minBytes: 0 }, workers });
    try {
      async function* each(): AsyncGenerator<StatePage> {
        yield* pages;
      }
      await engine.restore({ views: ['per_k'], pages: each() }, true);
      expect(await engine.rowCounts()).toMatchObject({ ev: ROWS });
      const note = (await engine.snapshot('ev')).find((r) => Number(r['id']) === 7)?.['note'];
      expect(note).toBe('n7 é 7');
      // The first delete reads every row back (from the pages too) to take only copies that exist.
      engine.watch('ev');
      await engine.ingest('ev', [
        { weight: -1, row: event(3).row },
        { weight: -1, row: { id: ROWS + 1, k: 0, note: 'never inserted' } },
      ]);
      const step = await engine.step();
      expect(step.outputs.get('ev')).toEqual([{ weight: -1, row: event(3).row }]);
      expect(await engine.rowCounts()).toMatchObject({ ev: ROWS - 1 });
      const ids = Array.from({ length: ROWS }, (_, i) => i).filter((i) => i !== 3);
      expect(byK(await engine.snapshot('per_k'))).toEqual(perK(ids));
    } finally {
      await engine.close();
    }
    expect(filesUnder(dir)).toEqual([]);
  });
});
