import fc from 'fast-check';
import { loadModule } from 'libpg-query';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../model/json.js';
import { parseSpelled } from '../../model/exact-json.js';
import type { DumpedPage } from '../dump.js';
import * as fixture from '../host/codec.fixture.js';
import type { ProgramEngine } from '../engine.js';
import { openEngine } from '../open.js';
import type { StatePage } from '../state.js';
import { typeOf } from '../expressions/types.js';
import type { Change } from '../types.js';
import { ZSet } from '../zset/zset.js';
import { ShardPool } from './pool.js';

// A native table's rows kept on the shards that decoded them (kept.ts): with shard threads, the
// parts of a body of inserts for a multiset table stay where they were decoded, are exchanged by
// key at the step, and are held there after it. Seen from outside nothing differs from one thread:
// the views, the table's snapshot, a checkpoint (rows held and rows waiting for a step), a delete
// that needs every row in one place, a watched table's changes.

const CODEC_URL = new URL('../host/codec.fixture.ts', import.meta.url).href;
const PROGRAM = `
CREATE TABLE t (k int NOT NULL, s text);
CREATE VIEW per_k AS SELECT k, count(*) AS n, max(s) AS top FROM t GROUP BY k;
CREATE VIEW long_s AS SELECT k, s FROM t WHERE length(s) > 5;`;
const VIEWS = ['per_k', 'long_s'];

const lines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ k: (from + i) % 13, s: `s${from + i}` })).join('\n');

/** A random run's action: a body (inserts, deletes of rows given before, a record in error), a step, a restart. */
const action = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    n: fc.integer({ min: 1, max: 40 }),
    weight: fc.constantFrom(1, 1, 2),
    bad: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), n: fc.integer({ min: 1, max: 10 }), from: fc.nat(200) }),
  fc.constant({ kind: 'step' as const }),
  fc.constant({ kind: 'restart' as const }),
);

/** Rows as a sorted list of their JSON (a bag compared as such). */
const bag = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
/** A view's value: its changes so far, summed. */
function summed(changes: readonly Change[]): string[] {
  const z = new Map<string, number>();
  for (const c of changes) z.set(JSON.stringify(c.row), (z.get(JSON.stringify(c.row)) ?? 0) + c.weight);
  return [...z]
    .filter(([, w]) => w !== 0)
    .map(([row, w]) => `${w} ${row}`)
    .sort();
}

describe('a native table’s rows kept on the shards', { timeout: 180_000 }, () => {
  it('are kept where decoded, exchanged at the step, held after it, read back and forgotten', async () => {
    await loadModule();
    const pool = await ShardPool.start(2, { codec: CODEC_URL });
    try {
      const columns = [
        { name: 'k', type: 'integer' },
        { name: 's', type: 'text' },
      ];
      const viewColumns = [
        { name: 'k', type: 'integer' },
        { name: 'n', type: 'bigint' },
      ];
      const plan = pool.plan(
        'SELECT t.k, count(*) AS n FROM t GROUP BY t.k',
        viewColumns,
        { columnsOf: () => columns },
        false,
      );
      if (!plan.native) throw new Error(plan.reason);
      const table = {
        name: 't',
        columns: columns.map((c) => ({ ...c, nullable: true })),
        types: columns.map((c) => typeOf(c.type)),
      };
      const body = lines(40).split('\n');
      const parts = [body.slice(0, 20).join('\n'), body.slice(20).join('\n')];
      const decoded = pool.decode(table, parts, {}, true);
      // Every row stayed on its shard: none came back to this thread.
      expect(decoded).toMatchObject({ kept: 40, parts: [], records: 40 });
      const kept = pool.kept('t');
      expect([kept.pending, kept.held]).toEqual([40, 0]);
      const out = plan.root.step({ delta: () => new ZSet(), kept: (r) => r === 't' });
      expect(out.consolidate().size).toBe(13);
      pool.commit();
      expect([kept.pending, kept.held]).toEqual([0, 40]);
      expect(bag([...kept.rows(false)].map(([row, n]) => [...row, n]))).toEqual(
        bag(body.map((l) => JSON.parse(l) as { k: number; s: string }).map((r) => [r.k, r.s, 1])),
      );
      kept.drop({ held: true, pending: true });
      expect([kept.held, [...kept.rows(false)].length]).toEqual([0, 0]);
    } finally {
      await pool.close();
    }
  });

  it('random bodies, steps and restarts: every step as one thread has it', async () => {
    const open = async (workers: number) => {
      const engine = await openEngine(PROGRAM, { workers, codec: CODEC_URL });
      for (const v of VIEWS) engine.watch(v);
      return engine;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 10 }), async (actions) => {
        let sharded = await open(2);
        const single = await open(1);
        // Each view's changes emitted so far, summed: the circuits' own result, step by step.
        const emitted = [new Map<string, Change[]>(), new Map<string, Change[]>()];
        try {
          let next = 0;
          for (const a of [...actions, { kind: 'step' as const }]) {
            if (a.kind === 'insert') {
              const body = lines(a.n, next).split('\n');
              if (a.bad) body.splice(a.n >> 1, 0, 'not json');
              next += a.n;
              for (const e of [sharded, single])
                await e.ingestDecoding('t', body.join('\n'), { weight: a.weight }, fixture);
            } else if (a.kind === 'delete') {
              const body = lines(a.n, a.from % Math.max(1, next));
              for (const e of [sharded, single]) await e.ingestDecoding('t', body, { weight: -1 }, fixture);
            } else if (a.kind === 'restart') {
              const pages: StatePage[] = [];
              const each = async (p: DumpedPage) =>
                void pages.push({ ...p, rows: parseSpelled(p.json) as JsonValue[] });
              await sharded.dump(each, { blocks: 64, rows: 7 });
              await sharded.close();
              sharded = await open(2);
              async function* all(): AsyncGenerator<StatePage> {
                yield* pages;
              }
              await sharded.restore({ views: VIEWS, pages: all() }, true);
            } else {
              const steps = await Promise.all([sharded.step(), single.step()]);
              steps.forEach((s, i) => {
                for (const [v, changes] of s.outputs) emitted[i]!.set(v, [...(emitted[i]!.get(v) ?? []), ...changes]);
              });
              for (const v of VIEWS)
                expect(summed(emitted[0]!.get(v) ?? []), v).toEqual(summed(emitted[1]!.get(v) ?? []));
              expect(bag(await sharded.snapshot('t'))).toEqual(bag(await single.snapshot('t')));
              expect(await sharded.rowCounts()).toEqual(await single.rowCounts());
            }
          }
        } finally {
          await sharded.close();
          await single.close();
        }
      }),
      { numRuns: 12 },
    );
  });

  describe('against one thread', () => {
    let sharded: ProgramEngine;
    let single: ProgramEngine;
    const open = (workers: number) => openEngine(PROGRAM, { workers, codec: CODEC_URL });
    beforeAll(async () => {
      [sharded, single] = await Promise.all([open(3), open(1)]);
    }, 120_000);
    afterAll(async () => {
      await sharded?.close();
      await single?.close();
    });

    /** The same body into both engines (weight -1: deletes), then a step of both: equal views and answers. */
    async function both(body: string, weight = 1) {
      const [got, want] = await Promise.all(
        [sharded, single].map((e) => e.ingestDecoding('t', body, { weight }, fixture)),
      );
      expect(got!.result.accepted).toBe(want!.result.accepted);
      const [a, b] = await Promise.all([sharded.step(), single.step()]);
      for (const v of VIEWS) expect(bag(await sharded.snapshot(v)), v).toEqual(bag(await single.snapshot(v)));
      return [a!, b!] as const;
    }

    it('give the views, the table’s snapshot (read back page by page) and its count as one thread', async () => {
      await both(lines(25_000));
      // Two copies of each row (a weighted body): a table counts copies, not rows.
      await both(lines(150, 25_000), 2);
      const table = await sharded.snapshot('t');
      expect(table).toHaveLength(25_300);
      expect(bag(table)).toEqual(bag(await single.snapshot('t')));
      expect(await sharded.rowCounts()).toEqual(await single.rowCounts());
      expect((await sharded.rowCounts())['t']).toBe(25_300);
    });

    it('are given up when another part of their body is decoded whole, and never come twice', async () => {
      // The middle part has a record in error: the whole body is decoded on the engine's thread,
      // and the parts the other shards kept must not come back with the next body's.
      const bad = [lines(10, 26_000), 'not json', lines(10, 26_010)].join('\n');
      const answers = await Promise.all([sharded, single].map((e) => e.ingestDecoding('t', bad, {}, fixture)));
      expect(answers.map((a) => a.result.accepted)).toEqual([20, 20]);
      await both(lines(30, 27_000));
      expect(bag(await sharded.snapshot('t'))).toEqual(bag(await single.snapshot('t')));
    });

    it('go through a checkpoint, those held and those waiting for the next step', async () => {
      for (const e of [sharded, single]) await e.ingestDecoding('t', lines(90, 30_000), {}, fixture);
      const pages: StatePage[] = [];
      const each = async (p: DumpedPage) => void pages.push({ ...p, rows: parseSpelled(p.json) as JsonValue[] });
      await sharded.dump(each, { blocks: 64, rows: 1000 });
      const rows = (section: string) =>
        pages.filter((p) => p.section === section).reduce((n, p) => n + p.rows.length, 0);
      expect([rows('table'), rows('staged')]).toEqual([25_350, 90]);
      const restored = await open(3);
      try {
        async function* all(): AsyncGenerator<StatePage> {
          yield* pages;
        }
        await restored.restore({ views: VIEWS, pages: all() }, true);
        await Promise.all([restored.step(), single.step(), sharded.step()]);
        for (const v of VIEWS) expect(bag(await restored.snapshot(v)), v).toEqual(bag(await single.snapshot(v)));
        expect(bag(await restored.snapshot('t'))).toEqual(bag(await single.snapshot('t')));
      } finally {
        await restored.close();
      }
    });

    it('are taken back for a delete by value, and for a watched table’s changes', async () => {
      await both(lines(50, 40_000));
      // Deletes of rows the shards hold, and of rows never inserted (nothing to take).
      await both([lines(30, 40_000), lines(5, 90_000)].join('\n'), -1);
      expect(await sharded.snapshot('t')).toHaveLength(25_350 + 90 + 20);
      await both(lines(10, 50_000));
      for (const e of [sharded, single]) e.watch('t');
      const [a, b] = await both(lines(12, 60_000));
      expect(summed(a.outputs.get('t')!)).toEqual(summed(b.outputs.get('t')!));
      expect(summed(a.outputs.get('t')!)).toHaveLength(12);
      expect(bag(await sharded.snapshot('t'))).toEqual(bag(await single.snapshot('t')));
    });
  });
});
