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

// Columns named like members of Object.prototype, on the native path: a row's object was built by
// assignment (r[name] = value), which for "__proto__" set the prototype and lost the column.
describe('native rows with columns named like Object.prototype members', { timeout: 60_000 }, () => {
  it('carries every column as an own member: changes, snapshots, checkpoints', async () => {
    const engine = await openEngine(`
      CREATE TABLE p ("__proto__" int, "constructor" text, "toString" int);
      CREATE MATERIALIZED VIEW q AS SELECT "__proto__", "constructor", "toString" FROM p WHERE "toString" > 0;`);
    try {
      expect(engine.resolve('p', 'table')?.maintenance).toBe('native');
      expect(engine.resolve('q', 'view')?.maintenance).toBe('native');
      engine.watch('p');
      engine.watch('q');
      const row = JSON.parse('{"__proto__": 5, "constructor": "c", "toString": 1}') as Record<string, unknown>;
      expect((await engine.ingest('p', [{ weight: 1, row: row as never }])).errors).toEqual([]);
      const step = await engine.step();
      const own = (r: object | undefined) => (r ? Object.entries(r) : []);
      const want = [
        ['__proto__', 5],
        ['constructor', 'c'],
        ['toString', 1],
      ];
      expect(own(step.outputs.get('p')?.[0]?.row)).toEqual(want);
      expect(own(step.outputs.get('q')?.[0]?.row)).toEqual(want);
      expect(own((await engine.snapshot('q'))[0])).toEqual(want);
      expect(own((await engine.snapshot('p'))[0])).toEqual(want);
      const pages: DumpedPage[] = [];
      await engine.dump(async (page) => void pages.push(page));
      const table = pages.find((p) => p.section === 'table' && p.name === 'p');
      expect(table?.json).toBe('[{"__proto__":5,"constructor":"c","toString":1}]');
    } finally {
      await engine.close();
    }
  });
});
