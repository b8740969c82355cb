import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../model/errors.js';
import type { ProgramEngine } from './engine.js';
import { openEngine } from './open.js';
import type { Change } from './types.js';

// The engine with a real PGlite: typed ingest, steps as one change, every view's delta.

const PROGRAM = `
  CREATE TABLE t (k int NOT NULL, v int, name text) WITH ('materialized' = 'true');
  CREATE TABLE p (id int PRIMARY KEY, label varchar(3));
  CREATE VIEW big AS SELECT k, v FROM t WHERE v > 10;
  CREATE MATERIALIZED VIEW totals AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k;
  CREATE VIEW joined AS SELECT t.k, p.label FROM t JOIN p ON p.id = t.k;
  CREATE VIEW lowered AS SELECT k, lower(name) AS name FROM t;
`;

const ins = (row: Change['row'], weight = 1): Change => ({ weight, row });
const sorted = (changes: Change[] | undefined): Change[] =>
  [...(changes ?? [])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('engine', { timeout: 60_000 }, () => {
  let engine: ProgramEngine;
  beforeAll(async () => {
    engine = await openEngine(PROGRAM);
    for (const r of engine.relations()) if (r.kind === 'view') engine.watch(r.name);
  }, 60_000);
  afterAll(() => engine?.close());

  it('lists relations with catalog types, keys hidden, materialized flags', () => {
    const t = engine.resolve('T', 'table');
    expect(t?.columns).toEqual([
      { name: 'k', type: 'integer', nullable: false },
      { name: 'v', type: 'integer', nullable: true },
      { name: 'name', type: 'text', nullable: true },
    ]);
    expect(t?.materialized).toBe(true);
    expect(engine.resolve('totals', 'view')).toMatchObject({ materialized: true, maintenance: 'native' });
    expect(engine.resolve('"TOTALS"', 'view')).toBeUndefined();
    expect(engine.resolve('big', 'view')).toMatchObject({ materialized: false, maintenance: 'native' });
    expect(engine.resolve('joined', 'view')?.maintenance).toBe('native');
    expect(engine.resolve('joined', 'view')?.maintenanceReason).toBeUndefined();
    // A view the native path does not cover is kept by PGlite, and says why.
    expect(engine.resolve('lowered', 'view')).toMatchObject({
      maintenance: 'linear',
      maintenanceReason: 'not native: the function lower',
    });
  });

  it('reports bad records by index and column, keeps the good ones', async () => {
    const result = await engine.ingest('t', [
      ins({ k: 1, v: 20, name: 'a' }),
      ins({ k: 'x', v: 1 }),
      ins({ k: null, v: 1 }),
      ins({ k: 2, v: 5, name: 'b' }),
      { weight: 0, row: { k: 3 } },
    ]);
    expect(result.accepted).toBe(2);
    expect(result.errors.map((e) => e.index)).toEqual([1, 2, 4]);
    expect(result.errors[0]?.message).toMatch(/column k: invalid input syntax for type integer/);
    expect(result.errors[1]?.message).toMatch(/"k"/);
    expect(engine.bufferedRecords).toBe(2);
    const bad = await engine.ingest('p', [ins({ id: 1, label: 'toolong' })]);
    expect(bad.errors[0]?.message).toMatch(/column label: value too long/);
    await expect(engine.ingest('nope', [])).rejects.toBeInstanceOf(SvcError);
  });

  it('applies a step as one change and emits each view delta', async () => {
    await engine.ingest('p', [ins({ id: 1, label: 'one' }), ins({ id: 2, label: 'two' })]);
    const seen: number[] = [];
    const off = engine.onStep((r) => void seen.push(r.step));
    const step = await engine.step();
    off();
    expect(seen).toEqual([step.step]);
    expect(step.inputRecords).toBe(4);
    expect(engine.bufferedRecords).toBe(0);
    expect(sorted(step.outputs.get('big'))).toEqual([ins({ k: 1, v: 20 })]);
    expect(sorted(step.outputs.get('totals'))).toEqual(sorted([ins({ k: 1, n: 1, s: 20 }), ins({ k: 2, n: 1, s: 5 })]));
    expect(sorted(step.outputs.get('joined'))).toEqual(
      sorted([ins({ k: 1, label: 'one' }), ins({ k: 2, label: 'two' })]),
    );
    expect(sorted(step.outputs.get('lowered'))).toEqual(sorted([ins({ k: 1, name: 'a' }), ins({ k: 2, name: 'b' })]));

    // A delete, an upsert of a primary key and an absent delete (a no-op).
    await engine.ingest('t', [ins({ k: 1, v: 20, name: 'a' }, -1), ins({ k: 9, v: 9, name: null }, -1)]);
    await engine.ingest('p', [ins({ id: 2, label: 'TWO' })]);
    const second = await engine.step();
    expect(sorted(second.outputs.get('big'))).toEqual([ins({ k: 1, v: 20 }, -1)]);
    expect(sorted(second.outputs.get('totals'))).toEqual([ins({ k: 1, n: 1, s: 20 }, -1)]);
    expect(sorted(second.outputs.get('joined'))).toEqual(
      sorted([ins({ k: 1, label: 'one' }, -1), ins({ k: 2, label: 'two' }, -1), ins({ k: 2, label: 'TWO' })]),
    );
    expect(await engine.snapshot('totals')).toEqual([{ k: 2, n: 1, s: 5 }]);
  });

  it('carries a view’s changes only while it is watched, from the step watch names', async () => {
    const own = await openEngine('CREATE TABLE t (x int); CREATE VIEW v AS SELECT x FROM t WHERE x > 0;');
    try {
      const row = (x: number, weight = 1) => ins({ x }, weight);
      await own.ingest('t', [row(1)]);
      expect((await own.step()).outputs.has('v')).toBe(false); // nobody watches: not read out
      await own.ingest('t', [row(2)]);
      const running = own.step();
      const watching = own.watch('V'); // before the step's turn begins: that step carries it
      expect(watching.fromStep).toBe(2);
      expect((await running).outputs.get('v')).toEqual([row(2)]);
      const second = own.watch('v');
      watching.release();
      watching.release(); // twice is once: `second` still watches
      await own.ingest('t', [row(2, -1)]);
      expect((await own.step()).outputs.get('v')).toEqual([row(2, -1)]);
      second.release();
      await own.ingest('t', [row(3)]);
      expect((await own.step()).outputs.has('v')).toBe(false);
      // Watched while a step runs: that step was begun without it, the next one carries it.
      await own.ingest('t', [row(4)]);
      const begun = own.step();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const late = own.watch('v');
      expect(late.fromStep).toBe(6);
      expect((await begun).outputs.has('v')).toBe(false);
      await own.ingest('t', [row(5)]);
      expect(await own.step()).toMatchObject({ step: 6, outputs: new Map([['v', [row(5)]]]) });
    } finally {
      await own.close();
    }
  });

  it('answers ad-hoc queries from the last step, errors as 400 with a position', async () => {
    const result = await engine.query('SELECT k, s FROM totals ORDER BY k;');
    expect(result.rows).toEqual([{ k: 2, s: 5 }]);
    expect(result.columns).toEqual([
      { name: 'k', type: 'integer', nullable: true },
      { name: 's', type: 'bigint', nullable: true },
    ]);
    await expect(engine.query('SELECT nope FROM totals')).rejects.toMatchObject({
      status: 400,
      details: { position: 8 },
    });
    await expect(engine.query('DELETE FROM t')).rejects.toMatchObject({ status: 400 });
    await expect(engine.query('SELECT 1; SELECT 2')).rejects.toMatchObject({ status: 400 });
    await expect(engine.query('SELECT * FROM big')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/big is not materialized/),
    });
    await expect(engine.query('SELECT count(*) AS n FROM t')).resolves.toMatchObject({ rows: [{ n: 1 }] });
  });
});

// A NUL escape ("\u0000") is a value PostgreSQL refuses in text and json alike. Its json operators
// unescape every string of the text they read, so the record's other values could not be read
// either: the error named the record's first column, whatever the value at fault.
const NUL = 'unsupported Unicode escape sequence (\\u0000 cannot be converted to text.)';
describe.each([true, false])('a NUL in a record (native: %s)', (native) => {
  it('is reported on the column that holds it; the batch’s other records go in', { timeout: 60_000 }, async () => {
    const engine = await openEngine('CREATE TABLE n (k int, j json, s text);', { native });
    try {
      const result = await engine.ingest('n', [
        ins({ k: 1, j: '\u0000' }),
        ins({ k: 2, s: 'a\u0000b' }),
        ins({ k: 3, j: { nested: ['\u0000'] }, s: 'fine' }),
        ins({ k: 4, j: { a: 1 }, s: 'ok' }),
      ]);
      expect(result.errors).toEqual([
        { index: 0, message: `column j: ${NUL}` },
        { index: 1, message: `column s: ${NUL}` },
        { index: 2, message: `column j: ${NUL}` },
      ]);
      expect(result.accepted).toBe(1);
      await engine.step();
      expect(await engine.snapshot('n')).toEqual([{ k: 4, j: { a: 1 }, s: 'ok' }]);
    } finally {
      await engine.close();
    }
  });
});
