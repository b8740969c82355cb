import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { DumpedPage } from './dump.js';

// Columns named like the aliases the engine's own SQL once used (x, r, d, svc_q): a checkpoint of a
// table with a column `x` failed with "row_to_json(integer) does not exist" (found by the SDK test).
const PROGRAM = `
  CREATE TABLE t (x int PRIMARY KEY, r text, d int, svc_q int) WITH ('materialized' = 'true');
  CREATE MATERIALIZED VIEW v AS SELECT r, count(*) AS n, sum(d) AS d FROM t GROUP BY r;
  CREATE VIEW w AS SELECT x, r AS s FROM t WHERE d > 0;
`;

describe('engine with columns named like SQL aliases', { timeout: 60_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM);
    for (const r of engine.relations()) if (r.kind === 'view') engine.watch(r.name);
  }, 60_000);
  afterAll(() => engine?.close());

  it('steps, queries, dumps with buffered input and restores', async () => {
    await engine.ingest('t', [{ weight: 1, row: { x: 1, r: 'a', d: 2, svc_q: 7 } }]);
    const step = await engine.step();
    expect(step.outputs.get('w')).toEqual([{ weight: 1, row: { x: 1, s: 'a' } }]);
    expect(step.outputs.get('v')).toEqual([{ weight: 1, row: { r: 'a', n: 1, d: 2 } }]);
    expect((await engine.query('SELECT x, svc_q FROM t')).rows).toEqual([{ x: 1, svc_q: 7 }]);
    await engine.ingest('t', [{ weight: 1, row: { x: 2, r: 'b', d: 1, svc_q: 0 } }]);
    const pages: DumpedPage[] = [];
    await engine.dump(async (page) => void pages.push(page));
    const rows = (section: string) =>
      pages.filter((p) => p.section === section && p.name === 't').flatMap((p) => JSON.parse(p.json) as unknown[]);
    expect(rows('table')).toEqual([{ x: 1, r: 'a', d: 2, svc_q: 7 }]);
    expect(rows('staged')).toEqual([{ weight: 1, row: { x: 2, r: 'b', d: 1, svc_q: 0 } }]);
    expect(await engine.snapshot('v')).toEqual([{ r: 'a', n: 1, d: 2 }]);
  });
});
